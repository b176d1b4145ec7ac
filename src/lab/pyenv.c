#include "lab/pyenv.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/spawn.h"
#include "core/which.h"

/* Run as `python3 -I -B -c PROBE MODE`: MODE "paths" prints the import
 * folders, "imports" tries CuPy and numba.cuda.  One JSON line on stdout;
 * whatever the imports print goes to stderr. */
static const char PROBE[] =
    "import sys, json\n"
    "out = sys.stdout\n"
    "sys.stdout = sys.stderr\n"
    "r = {'version': sys.version.split()[0]}\n"
    "if sys.argv[1] == 'paths':\n"
    "    r['dirs'] = [sys.prefix, sys.base_prefix, sys.exec_prefix] + [p for p in sys.path if p]\n"
    "    r['dirs'].append(__import__('os').path.realpath(sys.executable))\n"
    "    r['exe'] = sys.executable\n"
    "else:\n"
    "    for key, mod in (('cupy', 'cupy'), ('numba', 'numba.cuda')):\n"
    "        try:\n"
    "            __import__(mod)\n"
    "            r[key] = str(getattr(sys.modules[mod.split('.')[0]], '__version__', '?'))\n"
    "        except BaseException as ex:\n"
    "            text = str(ex).splitlines()[0] if str(ex) else ''\n"
    "            r[key + '_error'] = (type(ex).__name__ + (': ' + text if text else ''))[:200]\n"
    "out.write(json.dumps(r) + '\\n')\n"
    "out.flush()\n";

bool pyenv_find(char *out, size_t out_size, char *why, size_t wn)
{
    const char *v = getenv(PYENV_VAR);
    if (v && v[0]) {
        if (strchr(v, '/')) {
            struct stat st;
            if (stat(v, &st) == 0 && S_ISREG(st.st_mode) && access(v, X_OK) == 0) {
                snprintf(out, out_size, "%s", v);
                return true;
            }
            snprintf(why, wn, "%s names %s, which is not an executable file", PYENV_VAR, v);
            return false;
        }
        if (which_tool(v, out, out_size))
            return true;
        snprintf(why, wn, "%s names %s, which is not in PATH", PYENV_VAR, v);
        return false;
    }
    if (which_tool("python3", out, out_size))
        return true;
    snprintf(why, wn, "python3 not found in PATH (set %s to its path)", PYENV_VAR);
    return false;
}

/* Runs the probe in mode; its JSON line into a cJSON object (NULL + why). */
static cJSON *run_probe(const char *python, const char *mode, char *why, size_t wn)
{
    const char *tail[] = {"-c", PROBE, mode, NULL};
    pycmd cmd;
    cJSON *j = NULL;
    if (!pycmd_init(&cmd, python, tail)) {
        snprintf(why, wn, "out of memory");
        return NULL;
    }
    spawn_opts o = {.argv = cmd.argv, .what = python, .own_group = true};
    char buf[16384];
    int status = 0;
    cl_err e = {{0}};
    bool done = spawn_capture(&o, PYENV_PROBE_S, buf, sizeof buf, &status, &e);
    pycmd_free(&cmd);
    if (!done) {
        snprintf(why, wn, "%s", e.msg);
        return NULL;
    }
    /* the last line that starts with '{' */
    char *line = NULL;
    for (char *s = buf; s && *s;) {
        if (*s == '{')
            line = s;
        s = strchr(s, '\n');
        s = s ? s + 1 : NULL;
    }
    j = line ? cJSON_Parse(line) : NULL;
    if (!j || !cJSON_IsObject(j)) {
        cJSON_Delete(j);
        snprintf(why, wn, "%s did not run (exit status %d)", python,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return NULL;
    }
    return j;
}

static void copy_str(const cJSON *j, const char *key, char *out, size_t n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    if (cJSON_IsString(v) && v->valuestring)
        snprintf(out, n, "%s", v->valuestring);
}

void pyenv_probe_into(pyenv *env)
{
    memset(env, 0, sizeof *env);
    if (!pyenv_find(env->python, sizeof env->python, env->why, sizeof env->why))
        return;
    cJSON *j = run_probe(env->python, "imports", env->why, sizeof env->why);
    if (!j)
        return;
    env->found = true;
    copy_str(j, "version", env->version, sizeof env->version);
    copy_str(j, "cupy", env->cupy_version, sizeof env->cupy_version);
    copy_str(j, "numba", env->numba_version, sizeof env->numba_version);
    copy_str(j, "cupy_error", env->cupy_error, sizeof env->cupy_error);
    copy_str(j, "numba_error", env->numba_error, sizeof env->numba_error);
    env->cupy = env->cupy_version[0] != '\0';
    env->numba = env->numba_version[0] != '\0';
    cJSON_Delete(j);
}

const pyenv *pyenv_probe(void)
{
    static pyenv p;
    static bool done;
    static char var[CL_PATH_MAX];
    /* probed again when CUDALAB_PYTHON changed (tests set it) */
    const char *v = getenv(PYENV_VAR);
    if (!done || strcmp(var, v ? v : "") != 0) {
        pyenv_probe_into(&p);
        snprintf(var, sizeof var, "%s", v ? v : "");
        done = true;
    }
    return &p;
}

bool pyenv_unavailable(const pyenv *env, bool needs_numba, char *msg, size_t msg_size)
{
    if (!env->found) {
        snprintf(msg, msg_size,
                 "unavailable: %s; Python rows need python3 with CuPy and Numba (%s)", env->why,
                 PYENV_INSTALL);
        return true;
    }
    const char *missing = !env->cupy ? "cupy" : needs_numba && !env->numba ? "numba.cuda" : NULL;
    if (!missing) {
        if (msg_size)
            msg[0] = '\0';
        return false;
    }
    const char *err = !env->cupy ? env->cupy_error : env->numba_error;
    bool plain = strncmp(err, "ModuleNotFoundError", 19) == 0 || !err[0];
    snprintf(msg, msg_size, "unavailable: python3 cannot import %s (%s)%s%s", missing,
             PYENV_INSTALL, plain ? "" : ": ", plain ? "" : err);
    return true;
}

/* Whether dir may be read by a confined worker: an absolute system folder,
 * not the root, a home folder or a temporary folder. */
static bool system_dir(const char *dir)
{
    static const char *const refused[] = {"/home", "/root", "/tmp", "/var/tmp", "/dev/shm",
                                          "/run/user"};
    if (dir[0] != '/' || strcmp(dir, "/") == 0)
        return false;
    const char *home = getenv("HOME");
    for (int i = -1; i < (int)(sizeof refused / sizeof refused[0]); i++) {
        const char *r = i < 0 ? home : refused[i];
        if (!r || !r[0] || strcmp(r, "/") == 0)
            continue;
        size_t k = strlen(r);
        while (k > 1 && r[k - 1] == '/')
            k--;
        if (strncmp(dir, r, k) == 0 && (dir[k] == '\0' || dir[k] == '/'))
            return false;
    }
    return paths_is_dir(dir) || paths_is_file(dir);
}

/* python3's folders as the probe lists them (its real executable last),
 * each kept where keep(dir) says so; the interpreter's own sys.executable
 * into exe (exe_size bytes) when asked. */
static size_t probe_dirs(bool (*keep)(const char *), char *exe, size_t exe_size, char **out,
                         size_t max)
{
    char python[CL_PATH_MAX], why[256];
    if (!pyenv_find(python, sizeof python, why, sizeof why))
        return 0;
    cJSON *j = run_probe(python, "paths", why, sizeof why);
    if (!j)
        return 0;
    size_t n = 0;
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, "exe");
    if (exe && exe_size)
        snprintf(exe, exe_size, "%s", cJSON_IsString(x) && x->valuestring ? x->valuestring : "");
    /* the folder of python3 itself (a virtual environment's bin/) */
    char bin[CL_PATH_MAX];
    if (paths_dir_name(python, bin, sizeof bin) && keep(bin) && n < max)
        out[n++] = strdup(bin);
    if (n > 0 && !out[n - 1])
        n--;
    const cJSON *dirs = cJSON_GetObjectItemCaseSensitive(j, "dirs"), *d;
    cJSON_ArrayForEach(d, dirs)
    {
        if (n >= max)
            break;
        if (cJSON_IsString(d) && d->valuestring && keep(d->valuestring))
            out[n++] = strdup(d->valuestring);
        if (n > 0 && !out[n - 1])
            n--;
    }
    cJSON_Delete(j);
    return n;
}

size_t pyenv_import_dirs(char **out, size_t max)
{
    return probe_dirs(system_dir, NULL, 0, out, max);
}

/* Any absolute folder or file but the root. */
static bool absolute(const char *dir)
{
    return dir[0] == '/' && strcmp(dir, "/") != 0 && (paths_is_dir(dir) || paths_is_file(dir));
}

size_t pyenv_sandbox_dirs(char *exe, size_t exe_size, char **out, size_t max)
{
    if (exe_size)
        exe[0] = '\0';
    return probe_dirs(absolute, exe, exe_size, out, max);
}

bool pycmd_init(pycmd *cmd, const char *python, const char *const *args)
{
    static const char *const pass[] = {"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES",
                                       "CUDA_DEVICE_ORDER", "CUDA_PATH", "CUDA_HOME",
                                       "CUDA_CACHE_PATH", "CUDA_MODULE_LOADING", "LANG"};
    static const char *const fixed[] = {"CUPY_CACHE_IN_MEMORY=1",
                                        "NUMBA_CUDA_ARRAY_INTERFACE_SYNC=0",
                                        "PYTHONIOENCODING=utf-8"};
    memset(cmd, 0, sizeof *cmd);
    size_t n = 0;
    bool env = access("/usr/bin/env", X_OK) == 0;
    if (env) {
        cmd->argv[n++] = "/usr/bin/env";
        cmd->argv[n++] = "-i";
        for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++) {
            const char *v = getenv(pass[i]);
            if (!v || !v[0])
                continue;
            size_t len = strlen(pass[i]) + strlen(v) + 2;
            char *s = malloc(len);
            if (!s) {
                pycmd_free(cmd);
                return false;
            }
            snprintf(s, len, "%s=%s", pass[i], v);
            cmd->env[cmd->nenv++] = s;
            cmd->argv[n++] = s;
        }
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
            cmd->argv[n++] = fixed[i];
        /* a home of its own in cudalab's cache folder (writable when the
         * worker is confined): CuPy and Numba keep small files under ~ */
        char home[CL_PATH_MAX];
        cl_err e = {{0}};
        if (paths_cache_dir(home, sizeof home, NULL) &&
            strlen(home) + sizeof "/python" < sizeof home) {
            strcat(home, "/python");
            if (paths_mkdir_p(home, &e)) {
                size_t len = strlen(home) + sizeof "HOME=";
                char *h = malloc(len);
                if (!h) {
                    pycmd_free(cmd);
                    return false;
                }
                snprintf(h, len, "HOME=%s", home);
                cmd->env[cmd->nenv++] = h;
                cmd->argv[n++] = h;
            }
        }
    }
    cmd->argv[n++] = python;
    cmd->argv[n++] = "-I";
    cmd->argv[n++] = "-B";
    for (size_t i = 0; args && args[i] && i < PYCMD_MAX_ARGS; i++)
        cmd->argv[n++] = args[i];
    cmd->argv[n] = NULL;
    return true;
}

void pycmd_free(pycmd *cmd)
{
    for (size_t i = 0; i < cmd->nenv; i++)
        free(cmd->env[i]);
    cmd->nenv = 0;
}

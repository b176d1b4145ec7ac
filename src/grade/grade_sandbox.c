/* grade_sandbox.c - where a graded learner's code runs: the worker's command
 * line at each sandbox level (grade/grade.h grade_sandbox), the private
 * scratch folder it may write, and the trusted caches it may only read.
 *
 * At the namespace level the worker and everything it starts (NVRTC, the
 * Lua launcher, python3) run under bubblewrap (core/bwrap.h) and see: the
 * system's folders, a few files of /etc, /sys, the NVIDIA device nodes,
 * cudalab's program and its labs, Lua library, kernels' headers and Python
 * bridge, the learner's workspace, python3's own folders, all read-only;
 * a /proc of their own processes, a private /dev and /tmp; one scratch
 * folder (their home and cache), removed afterwards; and the grader's CPU
 * baselines and peak bandwidth, read-only, where its cache has them.  The
 * key file, the grader's cache and data folders and the report folder are
 * covered wherever a bound folder holds them.  Inside, Landlock and seccomp
 * still apply (worker/worker.c). */
#include "grade/grade.h"
#include "grade/sandbox.h"

#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/bwrap.h"
#include "core/paths.h"
#include "lab/pyenv.h"

static const char *const level_names[] = {"namespaces", "landlock", "none"};

const char *grade_sandbox_name(grade_sandbox s)
{
    return (unsigned)s < sizeof level_names / sizeof level_names[0] ? level_names[s] : "?";
}

bool grade_sandbox_from_name(const char *name, grade_sandbox *out)
{
    for (size_t i = 0; i < sizeof level_names / sizeof level_names[0]; i++)
        if (strcmp(name, level_names[i]) == 0) {
            *out = (grade_sandbox)i;
            return true;
        }
    return false;
}

/* The folders and files every worker reads. */
static const char *const system_ro[] = {
    "/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/opt", "/sys",
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/passwd", "/etc/group",
    "/etc/nsswitch.conf", "/etc/localtime", "/etc/alternatives", "/etc/hosts",
    "/etc/nvidia", "/etc/OpenCL"};
/* cudalab's home: what the worker reads of it */
static const char *const home_parts[] = {"lua", "labs", "kernels", "python", "assets"};
/* the grader's environment, passed on as it is where set */
static const char *const passed_env[] = {
    "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_HOME", "CUDA_PATH",
    "CUDA_MODULE_LOADING", "NVIDIA_VISIBLE_DEVICES", "ASAN_OPTIONS", "UBSAN_OPTIONS",
    "LSAN_OPTIONS", "CUDALAB_NO_PEAK", "CUDALAB_NCCL_LIB", "CUDALAB_MGPU_NO_NCCL", "LANG"};
/* the grader's caches that a worker reads as truth: shown read-only */
static const char *const trusted_caches[] = {"cpu_baselines.json", "peak_bandwidth.json"};

static void keep(grade_jail *j, char **slot, const char *s)
{
    *slot = s ? strdup(s) : NULL;
    if (s && !*slot)
        j->oom = true;
}

static void add_ro(grade_jail *j, const char *path)
{
    if (path && path[0] == '/' && j->nro < GRADE_JAIL_MAX)
        keep(j, &j->ro[j->nro++], path);
}

static void add_env(grade_jail *j, const char *name, const char *value)
{
    if (!value || j->nenv >= GRADE_JAIL_MAX)
        return;
    size_t len = strlen(name) + strlen(value) + 2;
    char *s = malloc(len);
    if (!s) {
        j->oom = true;
        return;
    }
    snprintf(s, len, "%s=%s", name, value);
    j->env[j->nenv++] = s;
}

/* Whether dir is p or holds it. */
static bool holds(const char *dir, const char *p)
{
    size_t k = strlen(dir);
    while (k > 1 && dir[k - 1] == '/')
        k--;
    return p && p[0] && strncmp(p, dir, k) == 0 && (p[k] == '\0' || p[k] == '/');
}

/* A folder outside the system's (python3's, LD_LIBRARY_PATH's) is bound
 * unless it is, or holds, a home or a temporary folder: a virtual
 * environment below a home is bound, the home itself never.  Anything
 * secret inside a bound folder is covered (add_hidden). */
static bool outside_dir_ok(const char *dir)
{
    static const char *const never[] = {"/home", "/root", "/tmp", "/var/tmp", "/dev/shm",
                                        "/run/user"};
    if (dir[0] != '/' || strcmp(dir, "/") == 0 || holds(dir, getenv("HOME")))
        return false;
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        if (holds(dir, never[i]))
            return false;
    return true;
}

/* python3's folders bound and CUDALAB_PYTHON set; the folder of its
 * executable into bin ("" without python3). */
static void add_python(grade_jail *j, char *bin, size_t bin_size)
{
    char exe[CL_PATH_MAX];
    char *dirs[48];
    size_t n = pyenv_sandbox_dirs(exe, sizeof exe, dirs, sizeof dirs / sizeof dirs[0]);
    for (size_t i = 0; i < n; i++) {
        if (outside_dir_ok(dirs[i]))
            add_ro(j, dirs[i]);
        free(dirs[i]);
    }
    bin[0] = '\0';
    if (exe[0]) {
        add_ro(j, exe);
        add_env(j, PYENV_VAR, exe);
        paths_dir_name(exe, bin, bin_size);
    }
}

static void add_devices(grade_jail *j)
{
    glob_t g;
    if (glob("/dev/nvidia*", 0, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc && j->ndev < GRADE_JAIL_MAX; i++)
        keep(j, &j->dev[j->ndev++], g.gl_pathv[i]);
    globfree(&g);
}

static void add_etc_python(grade_jail *j)
{
    glob_t g;
    if (glob("/etc/python3*", 0, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc; i++)
        add_ro(j, g.gl_pathv[i]);
    globfree(&g);
}

/* What must never be seen inside: covered where a bound folder holds it. */
static void add_hidden(grade_jail *j, const grade_opts *o)
{
    char dir[CL_PATH_MAX];
    const char *fixed[] = {o->key_path, o->out_dir};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        char real[PATH_MAX];
        if (fixed[i] && fixed[i][0] && realpath(fixed[i], real) && j->nhide < GRADE_JAIL_MAX)
            keep(j, &j->hide[j->nhide++], real);
    }
    if (paths_cache_dir(dir, sizeof dir, NULL) && j->nhide < GRADE_JAIL_MAX)
        keep(j, &j->hide[j->nhide++], dir);
    if (paths_data_dir(dir, sizeof dir, NULL) && j->nhide < GRADE_JAIL_MAX)
        keep(j, &j->hide[j->nhide++], dir);
}

/* The scratch folder: private (0700), with the worker's home and cache. */
static bool make_scratch(grade_jail *j, cl_err *e)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(j->scratch, sizeof j->scratch, "%s/cudalab-sandbox-XXXXXX",
             tmp && tmp[0] == '/' ? tmp : "/tmp");
    if (!mkdtemp(j->scratch)) {
        int err = errno;
        j->scratch[0] = '\0';
        return err_set(e, "cannot make the sandbox's scratch folder in %s: %s",
                       tmp && tmp[0] == '/' ? tmp : "/tmp", strerror(err));
    }
    char p[CL_PATH_MAX + 16];
    static const char *const sub[] = {"home", "cache", "cache/cudalab", "data"};
    for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", j->scratch, sub[i]);
        if (mkdir(p, 0700) != 0)
            return err_set(e, "cannot make %s: %s", p, strerror(errno));
    }
    return true;
}

static void add_trusted_caches(grade_jail *j)
{
    char dir[CL_PATH_MAX];
    if (!paths_cache_dir(dir, sizeof dir, NULL))
        return;
    for (size_t i = 0; i < sizeof trusted_caches / sizeof trusted_caches[0]; i++) {
        if (j->nfiles >= GRADE_JAIL_FILES)
            break;
        char from[CL_PATH_MAX + 64], to[CL_PATH_MAX + 64];
        snprintf(from, sizeof from, "%s/%s", dir, trusted_caches[i]);
        snprintf(to, sizeof to, "%s/cache/cudalab/%s", j->scratch, trusted_caches[i]);
        if (!paths_is_file(from))
            continue;
        keep(j, &j->files[j->nfiles][0], from);
        keep(j, &j->files[j->nfiles][1], to);
        j->nfiles++;
    }
}

static void add_env_all(grade_jail *j, const char *python_bin)
{
    char v[CL_PATH_MAX + 256], home[CL_PATH_MAX];
    for (size_t i = 0; i < sizeof passed_env / sizeof passed_env[0]; i++)
        add_env(j, passed_env[i], getenv(passed_env[i]));
    snprintf(v, sizeof v, "%s%s/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin",
             python_bin ? python_bin : "", python_bin ? ":" : "");
    add_env(j, "PATH", v);
    snprintf(v, sizeof v, "%s/home", j->scratch);
    add_env(j, "HOME", v);
    snprintf(v, sizeof v, "%s/cache", j->scratch);
    add_env(j, "XDG_CACHE_HOME", v);
    snprintf(v, sizeof v, "%s/data", j->scratch);
    add_env(j, "XDG_DATA_HOME", v);
    add_env(j, "TMPDIR", "/tmp");
    add_env(j, "NCCL_NVLS_ENABLE", "0");
    add_env(j, "CUDALAB_SANDBOX", "namespaces");
    if (paths_home(home, sizeof home, NULL))
        add_env(j, "CUDALAB_HOME", home);
}

/* Everything the namespace level binds and sets, then bwrap's argv. */
static bool namespaces(grade_jail *j, const grade_opts *o, const char *ws,
                       const char *const *labs, size_t nlabs, bool python,
                       const char *const *inner, cl_err *e)
{
    char why[512];
    if (!bwrap_works(why, sizeof why))
        return err_set(e, "the grading sandbox cannot be made here (%s); grading refuses to run "
                          "the learner's code without it: install bubblewrap and allow user "
                          "namespaces, or pass --sandbox=landlock for the weaker fallback",
                       why);
    if (!make_scratch(j, e))
        return false;
    add_hidden(j, o);
    for (size_t i = 0; i < sizeof system_ro / sizeof system_ro[0]; i++)
        add_ro(j, system_ro[i]);
    add_etc_python(j);
    char home[CL_PATH_MAX], part[CL_PATH_MAX + 16];
    if (paths_home(home, sizeof home, NULL))
        for (size_t i = 0; i < sizeof home_parts / sizeof home_parts[0]; i++) {
            snprintf(part, sizeof part, "%s/%s", home, home_parts[i]);
            add_ro(j, part);
        }
    add_ro(j, j->argv[0]);
    add_ro(j, ws);
    for (size_t i = 0; i < nlabs; i++)
        add_ro(j, labs[i]);
    char libs[4096];
    const char *ld = getenv("LD_LIBRARY_PATH");
    snprintf(libs, sizeof libs, "%s", ld ? ld : "");
    for (char *save = NULL, *d = strtok_r(libs, ":", &save); d; d = strtok_r(NULL, ":", &save))
        if (outside_dir_ok(d))
            add_ro(j, d);
    char bin[CL_PATH_MAX] = "";
    if (python)
        add_python(j, bin, sizeof bin);
    add_devices(j);
    add_trusted_caches(j);
    add_env_all(j, bin[0] ? bin : NULL);
    if (j->oom)
        return err_set(e, "out of memory");
    bwrap_spec s = {.ro = (const char *const *)j->ro, .nro = j->nro,
                    .dev = (const char *const *)j->dev, .ndev = j->ndev,
                    .hide = (const char *const *)j->hide, .nhide = j->nhide,
                    .scratch = j->scratch,
                    .files = (const char *const(*)[2])j->files, .nfiles = j->nfiles,
                    .env = (const char *const *)j->env, .nenv = j->nenv};
    j->bw = bwrap_argv(&s, inner ? inner : j->argv, e);
    return j->bw != NULL;
}

/* The fallback level shares the grader's folders: its worker gets caches
 * of its own in a scratch folder, so nothing it writes is read back by the
 * next grading (the grader's CPU baselines replace its CPU rows). */
static bool private_caches(grade_jail *j, const char *const *inner, cl_err *e)
{
    if (!make_scratch(j, e))
        return false;
    static const char *const vars[] = {"XDG_CACHE_HOME", "XDG_DATA_HOME", "HOME",
                                       "CUDA_CACHE_PATH"};
    static const char *const under[] = {"cache", "data", "home", "cache/cuda"};
    size_t nv = sizeof vars / sizeof vars[0], n = 0;
    const char *const *cmd = inner ? inner : j->argv;
    size_t nc = 0;
    while (cmd[nc])
        nc++;
    j->bw = calloc(nc + nv + 2, sizeof *j->bw);
    if (!j->bw)
        return err_set(e, "out of memory");
    j->bw[n++] = strdup("/usr/bin/env");
    for (size_t i = 0; i < nv; i++) {
        char v[CL_PATH_MAX + 64];
        snprintf(v, sizeof v, "%s=%s/%s", vars[i], j->scratch, under[i]);
        j->bw[n++] = strdup(v);
    }
    for (size_t i = 0; i < nc; i++)
        j->bw[n++] = strdup(cmd[i]);
    for (size_t i = 0; i < n; i++)
        if (!j->bw[i])
            return err_set(e, "out of memory");
    return true;
}

bool grade_jail_open(grade_jail *j, const grade_opts *o, const char *ws, const char *const *labs,
                     size_t nlabs, bool python, const char *const *inner, cl_err *e)
{
    memset(j, 0, sizeof *j);
    j->level = o->sandbox;
    size_t n = 0;
    if (o->worker_exe)
        snprintf(j->self, sizeof j->self, "%s", o->worker_exe);
    else if (!paths_self_exe(j->self, sizeof j->self, NULL))
        snprintf(j->self, sizeof j->self, "/proc/self/exe");
    j->argv[n++] = j->self;
    j->argv[n++] = "worker";
    if (j->level != GRADE_SANDBOX_NONE) {
        j->argv[n++] = "--confine";
        j->argv[n++] = "--read";
        j->argv[n++] = ws;
        for (size_t i = 0; i < nlabs && n + 4 < sizeof j->argv / sizeof j->argv[0]; i++) {
            j->argv[n++] = "--read";
            j->argv[n++] = labs[i];
        }
        /* Python rows: python3 children, which the worker must allow and
         * guard against (worker/worker.c) */
        if (python)
            j->argv[n++] = "--python";
    }
    j->argv[n] = NULL;
    if (j->level == GRADE_SANDBOX_NONE)
        return true;
    if (j->level == GRADE_SANDBOX_LANDLOCK ? private_caches(j, inner, e)
                                           : namespaces(j, o, ws, labs, nlabs, python, inner, e))
        return true;
    grade_jail_close(j);
    return false;
}

const char *const *grade_jail_command(const grade_jail *j)
{
    return j->bw ? (const char *const *)j->bw : j->argv;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    (void)remove(path);
    return 0;
}

void grade_jail_close(grade_jail *j)
{
    bwrap_argv_free(j->bw);
    j->bw = NULL;
    for (size_t i = 0; i < j->nro; i++)
        free(j->ro[i]);
    for (size_t i = 0; i < j->ndev; i++)
        free(j->dev[i]);
    for (size_t i = 0; i < j->nhide; i++)
        free(j->hide[i]);
    for (size_t i = 0; i < j->nenv; i++)
        free(j->env[i]);
    for (size_t i = 0; i < j->nfiles; i++) {
        free(j->files[i][0]);
        free(j->files[i][1]);
    }
    j->nro = j->ndev = j->nhide = j->nenv = j->nfiles = 0;
    /* everything the sandbox wrote, links not followed */
    if (j->scratch[0])
        (void)nftw(j->scratch, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    j->scratch[0] = '\0';
}

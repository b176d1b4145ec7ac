#include "core/paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_workspace[CL_PATH_MAX];

bool paths_join(char *out, size_t cap, const char *dir, const char *name)
{
    size_t la = strlen(dir);
    const char *sep = (la > 0 && dir[la - 1] == '/') ? "" : "/";
    int w = snprintf(out, cap, "%s%s%s", dir, sep, name);
    return w >= 0 && (size_t)w < cap;
}

const char *paths_base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

bool paths_dir_name(const char *path, char *out, size_t cap)
{
    const char *s = strrchr(path, '/');
    int w = !s ? snprintf(out, cap, ".")
            : s == path ? snprintf(out, cap, "/")
                        : snprintf(out, cap, "%.*s", (int)(s - path), path);
    return w >= 0 && (size_t)w < cap;
}

bool paths_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool paths_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool paths_self_exe(char *out, size_t cap, cl_err *err)
{
    ssize_t len = readlink("/proc/self/exe", out, cap - 1);
    if (len < 0)
        return err_set(err, "cannot read /proc/self/exe: %s", strerror(errno));
    out[len] = '\0';
    return true;
}

/* A home folder is one that holds lua/lab.lua. */
static bool is_home(const char *dir)
{
    char p[CL_PATH_MAX];
    return paths_join(p, sizeof p, dir, "lua/lab.lua") && paths_is_file(p);
}

bool paths_home(char *out, size_t cap, cl_err *err)
{
    const char *env = getenv("CUDALAB_HOME");
    if (env && *env) {
        if (!is_home(env))
            return err_set(err, "CUDALAB_HOME=%s does not hold lua/lab.lua", env);
        snprintf(out, cap, "%s", env);
        return true;
    }
    char exe[CL_PATH_MAX];
    if (paths_self_exe(exe, sizeof exe, NULL)) {
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            char cand[CL_PATH_MAX];
            int w = snprintf(cand, sizeof cand, "%s/../%s", exe, CUDALAB_INSTALL_DATADIR);
            if (w > 0 && (size_t)w < sizeof cand && is_home(cand)) {
                char real[PATH_MAX];
                snprintf(out, cap, "%s", realpath(cand, real) ? real : cand);
                return true;
            }
        }
    }
    if (is_home(CUDALAB_SOURCE_DIR)) {
        snprintf(out, cap, "%s", CUDALAB_SOURCE_DIR);
        return true;
    }
    return err_set(err, "cannot find cudalab's labs and Lua library: set CUDALAB_HOME "
                      "to the folder that holds labs/ and lua/");
}

static bool home_dir(char *out, size_t n, cl_err *e)
{
    const char *h = getenv("HOME");
    if (!h || !*h)
        return err_set(e, "HOME is not set");
    snprintf(out, n, "%s", h);
    return true;
}

/* A folder of cudalab's own: $own, else $xdg/cudalab (an absolute $xdg),
 * else ~/<under_home>. */
static bool own_dir(char *out, size_t n, const char *own, const char *xdg,
                    const char *under_home, const char *what, cl_err *e)
{
    const char *d = getenv(own);
    const char *x = getenv(xdg);
    int w;
    if (d && *d) {
        w = snprintf(out, n, "%s", d);
    } else if (x && *x == '/') {
        w = snprintf(out, n, "%s/cudalab", x);
    } else {
        char h[CL_PATH_MAX];
        if (!home_dir(h, sizeof h, e))
            return false;
        w = snprintf(out, n, "%s/%s", h, under_home);
    }
    if (w < 0 || (size_t)w >= n)
        return err_set(e, "%s path is too long", what);
    return true;
}

bool paths_data_dir(char *out, size_t cap, cl_err *err)
{
    return own_dir(out, cap, "CUDALAB_DATA", "XDG_DATA_HOME", ".local/share/cudalab", "data folder",
                   err);
}

bool paths_cache_dir(char *out, size_t cap, cl_err *err)
{
    return own_dir(out, cap, "CUDALAB_CACHE", "XDG_CACHE_HOME", ".cache/cudalab", "cache folder",
                   err);
}

void paths_set_workspace(const char *dir)
{
    snprintf(g_workspace, sizeof g_workspace, "%s", dir ? dir : "");
}

bool paths_workspace(char *out, size_t cap, cl_err *err)
{
    const char *env = getenv("CUDALAB_WORKSPACE");
    int w;
    if (g_workspace[0]) {
        w = snprintf(out, cap, "%s", g_workspace);
    } else if (env && *env) {
        w = snprintf(out, cap, "%s", env);
    } else {
        char h[CL_PATH_MAX];
        if (!home_dir(h, sizeof h, err))
            return false;
        w = snprintf(out, cap, "%s/cudalab-workspace", h);
    }
    if (w < 0 || (size_t)w >= cap)
        return err_set(err, "workspace path is too long");
    struct stat st;
    if (stat(out, &st) == 0 && !S_ISDIR(st.st_mode))
        return err_set(err, "the workspace %s is not a folder (something else is there): move it "
                            "aside, or pick another with --workspace DIR or CUDALAB_WORKSPACE",
                       out);
    return true;
}

/* Whether p is a symbolic link whose target does not exist (target: the
 * link's text). */
static bool dangling_link(const char *p, char *target, size_t n)
{
    struct stat st;
    if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode) || stat(p, &st) == 0)
        return false;
    ssize_t len = readlink(p, target, n - 1);
    if (len < 0)
        len = 0;
    target[len] = '\0';
    return true;
}

bool paths_mkdir_p(const char *dir, cl_err *err)
{
    char p[CL_PATH_MAX];
    int w = snprintf(p, sizeof p, "%s", dir);
    if (w < 0 || (size_t)w >= sizeof p)
        return err_set(err, "path is too long: %s", dir);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST)
            return err_set(err, "cannot create %s: %s", p, strerror(errno));
        *s = '/';
    }
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
        return err_set(err, "cannot create %s: %s", p, strerror(errno));
    if (!paths_is_dir(p)) {
        char target[CL_PATH_MAX];
        if (dangling_link(p, target, sizeof target))
            return err_set(err, "%s is a link to %s, which does not exist", p, target);
        return err_set(err, "%s exists and is not a folder", p);
    }
    return true;
}

/* The nearest folder above p (written into p) that exists, or the first
 * thing on the way that is not a folder; false when none is found. */
static bool existing_parent(char *p, struct stat *st)
{
    for (;;) {
        char *s = strrchr(p, '/');
        if (!s)
            return false;
        if (s == p)
            s[1] = '\0';
        else
            *s = '\0';
        if (stat(p, st) == 0)
            return true;
        if (s == p)
            return false;
    }
}

paths_dir_state paths_dir_probe(const char *dir, char *why, size_t why_cap)
{
    char p[CL_PATH_MAX];
    struct stat st;
    char scratch[8];
    if (!why) {
        why = scratch;
        why_cap = sizeof scratch;
    }
    why[0] = '\0';
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(why, why_cap, "cannot be written (it is not a folder)");
            return PATHS_DIR_NOT_WRITABLE;
        }
        if (access(dir, W_OK | X_OK) != 0) {
            snprintf(why, why_cap, "cannot be written (%s)", strerror(errno));
            return PATHS_DIR_NOT_WRITABLE;
        }
        return PATHS_DIR_WRITABLE;
    }
    if (errno != ENOENT && errno != ENOTDIR) {
        snprintf(why, why_cap, "cannot be created (%s)", strerror(errno));
        return PATHS_DIR_NOT_WRITABLE;
    }
    char target[CL_PATH_MAX];
    if (dangling_link(dir, target, sizeof target)) {
        snprintf(why, why_cap, "cannot be created (it is a link to %s, which does not exist)", target);
        return PATHS_DIR_NOT_WRITABLE;
    }
    int w = snprintf(p, sizeof p, "%s", dir);
    if (w < 0 || (size_t)w >= sizeof p) {
        snprintf(why, why_cap, "cannot be created (its path is too long)");
        return PATHS_DIR_NOT_WRITABLE;
    }
    if (!existing_parent(p, &st)) {
        snprintf(why, why_cap, "cannot be created (no folder above it exists)");
        return PATHS_DIR_NOT_WRITABLE;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, why_cap, "cannot be created (%s is not a folder)", p);
        return PATHS_DIR_NOT_WRITABLE;
    }
    if (access(p, W_OK | X_OK) != 0) {
        snprintf(why, why_cap, "cannot be created (%s: %s)", p, strerror(errno));
        return PATHS_DIR_NOT_WRITABLE;
    }
    return PATHS_DIR_MISSING;
}

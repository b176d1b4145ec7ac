/* nccl_find.c - finding libnccl.so.2: the variables, the loader's path,
 * then the nvidia-nccl-cu13 wheel of the python3 cudalab uses. */
#define _GNU_SOURCE   /* dlinfo (glibc) */
#include "mgpu/nccl_find.h"

#include <dlfcn.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "core/strfmt.h"
#include "lab/pyenv.h"

typedef struct search {
    char *tried;
    size_t tn, at;
    char *from;
    size_t fn;
} search;

/* dlopen of path; on failure notes it (with the loader's reason when the
 * file exists: a wrong architecture, a missing dependency). */
static void *try_open(search *s, const char *path, const char *what)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h) {
        strfmt_copy(s->from, s->fn, what);
        return h;
    }
    const char *why = dlerror();
    bool exists = path[0] != '/' || paths_is_file(path);
    s->at = strfmt_append(s->tried, s->tn, s->at, "%s%s%s%s", s->at ? "; " : "", what,
                          exists && why ? ": " : " (no such file)", exists && why ? why : "");
    return NULL;
}

/* The first file matching pattern that opens. */
static void *try_glob(search *s, const char *pattern)
{
    glob_t g;
    void *h = NULL;
    if (glob(pattern, 0, NULL, &g) != 0)
        return NULL;
    for (size_t i = 0; !h && i < g.gl_pathc; i++)
        h = try_open(s, g.gl_pathv[i], g.gl_pathv[i]);
    globfree(&g);
    return h;
}

/* The wheel below python3's prefix (the folder above its bin/), as given
 * and with links resolved (a virtual environment's python3 is a link). */
static void *try_python_prefix(search *s, const char *python)
{
    static const char *const layouts[] = {
        "lib/python3*/site-packages", "lib/python3*/dist-packages", "lib64/python3*/site-packages",
    };
    char real[PATH_MAX];
    const char *paths[2] = {python, realpath(python, real) ? real : NULL};
    for (int p = 0; p < 2; p++) {
        char bin[CL_PATH_MAX], prefix[CL_PATH_MAX], pat[CL_PATH_MAX + 96];
        if (!paths[p] || !paths_dir_name(paths[p], bin, sizeof bin)
            || !paths_dir_name(bin, prefix, sizeof prefix))
            continue;
        for (size_t k = 0; k < sizeof layouts / sizeof layouts[0]; k++) {
            snprintf(pat, sizeof pat, "%s/%s/nvidia/nccl/lib/" NCCL_FIND_SONAME, prefix, layouts[k]);
            void *h = try_glob(s, pat);
            if (h)
                return h;
        }
    }
    return NULL;
}

/* The wheel in any folder python3 imports from (system folders only: see
 * pyenv_import_dirs). */
static void *try_python_path(search *s)
{
    char *dirs[24];
    size_t n = pyenv_import_dirs(dirs, sizeof dirs / sizeof dirs[0]);
    void *h = NULL;
    for (size_t i = 0; i < n; i++) {
        char path[CL_PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/nvidia/nccl/lib/" NCCL_FIND_SONAME, dirs[i]);
        if (!h && paths_is_file(path))
            h = try_open(s, path, path);
        free(dirs[i]);
    }
    return h;
}

static void *try_python(search *s)
{
    char python[CL_PATH_MAX], why[512];
    if (!pyenv_find(python, sizeof python, why, sizeof why)) {
        s->at = strfmt_append(s->tried, s->tn, s->at, "%spython3's packages (%s)",
                              s->at ? "; " : "", why);
        return NULL;
    }
    void *h = try_python_prefix(s, python);
    if (!h)
        h = try_python_path(s);
    if (!h)
        s->at = strfmt_append(s->tried, s->tn, s->at, "%sthe packages of %s (no nvidia/nccl)",
                              s->at ? "; " : "", python);
    return h;
}

void *nccl_find_open(char *from, size_t fn, char *tried, size_t tn)
{
    search s = {tried, tn, 0, from, fn};
    tried[0] = from[0] = '\0';
    const char *lib = getenv("CUDALAB_NCCL_LIB");
    if (lib && lib[0]) {
        char what[CL_PATH_MAX + 32];
        snprintf(what, sizeof what, "CUDALAB_NCCL_LIB=%s", lib);
        void *h = try_open(&s, lib, what);
        if (h)
            strfmt_copy(from, fn, lib);
        return h;     /* named explicitly: nothing else is tried */
    }
    const char *root = getenv("NCCL_ROOT");
    if (root && root[0]) {
        static const char *const subs[] = {"lib", "lib64"};
        for (int k = 0; k < 2; k++) {
            char path[CL_PATH_MAX + 32];
            snprintf(path, sizeof path, "%s/%s/" NCCL_FIND_SONAME, root, subs[k]);
            void *h = try_open(&s, path, path);
            if (h)
                return h;
        }
    }
    void *h = try_open(&s, NCCL_FIND_SONAME, "the loader's path (" NCCL_FIND_SONAME ")");
    if (h) {
        char where[PATH_MAX];
        if (dlinfo(h, RTLD_DI_ORIGIN, where) == 0)
            snprintf(from, fn, "%s/" NCCL_FIND_SONAME, where);
        return h;
    }
    return try_python(&s);
}

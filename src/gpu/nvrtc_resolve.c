/* nvrtc_resolve.c - where a name a kernel includes leads (a file of the
 * kernel's folder, a shipped header, or nowhere), and whether the kernel
 * may include it at all (gpu/nvrtc_includes.h says what is refused). */
#include "gpu/nvrtc_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/fsguard.h"
#include "core/paths.h"

/* Whether name is written as a kernel may include it: not an absolute
 * path, no ".." component (false, why set). */
static bool name_allowed(const char *name, char *why, size_t why_size)
{
    if (name[0] == '/') {
        snprintf(why, why_size, "absolute paths are not allowed: a kernel may include only files "
                                "of its own folder and the CUDA headers");
        return false;
    }
    for (const char *p = name; *p;) {
        size_t len = strcspn(p, "/");
        if (len == 2 && p[0] == '.' && p[1] == '.') {
            snprintf(why, why_size, "'..' is not allowed in an include: a kernel may include only "
                                    "files of its own folder and the CUDA headers");
            return false;
        }
        p += len;
        while (*p == '/')
            p++;
    }
    return true;
}

bool nvrtc_resolve_include(const nvrtc_includes *inc, const char *main_dir, const char *name,
                           bool quoted, const char *dir, nvrtc_found *found, char *real,
                           size_t real_size, char *why, size_t why_size)
{
    *found = NVRTC_FOUND_NOWHERE;
    if (!name_allowed(name, why, why_size))
        return false;
    const char *local[2] = {quoted ? dir : main_dir, main_dir};
    size_t nlocal = quoted && strcmp(dir, main_dir) != 0 ? 2 : 1;
    for (size_t k = 0; k < nlocal; k++) {
        char path[PATH_MAX];
        struct stat st;
        if (!paths_join(path, sizeof path, local[k], name) || lstat(path, &st) != 0)
            continue;
        char full[PATH_MAX];
        if (!realpath(path, full)) {
            snprintf(why, why_size, "that file is a link that leads nowhere");
            return false;
        }
        if (!fsguard_below(full, inc->root)) {
            snprintf(why, why_size, "that file is a link to somewhere outside the kernel's folder");
            return false;
        }
        if (stat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
            snprintf(why, why_size, "that is not a regular file (a folder, a FIFO or a device)");
            return false;
        }
        snprintf(real, real_size, "%s", full);
        *found = NVRTC_FOUND_LOCAL;
        return true;
    }
    for (size_t k = 0; k < inc->ntrusted; k++) {
        char path[PATH_MAX];
        struct stat st;
        if (paths_join(path, sizeof path, inc->trusted[k], name) && stat(path, &st) == 0) {
            *found = NVRTC_FOUND_TRUSTED;
            return true;
        }
    }
    return true;
}

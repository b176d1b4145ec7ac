/* fsguard.c - reading a file that must stay inside a folder (core/fsguard.h). */
#include "core/fsguard.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/atomicfile.h"
#include "core/paths.h"

bool fsguard_below(const char *real, const char *root)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return real[0] == '/';
    return strncmp(real, root, n) == 0 && (real[n] == '\0' || real[n] == '/');
}

bool fsguard_resolve(const char *path, const char *root, char *real, size_t cap, cl_err *err)
{
    const char *name = paths_base_name(path);
    char dir[PATH_MAX], root_real[PATH_MAX], full[PATH_MAX];
    if (!root) {
        if (!paths_dir_name(path, dir, sizeof dir))
            return err_set(err, "%s: the path is too long", path);
        root = dir;
    }
    struct stat st;
    if (lstat(path, &st) != 0)
        return err_set(err, "cannot open %s: %s", path, strerror(errno));
    if (!realpath(root, root_real))
        return err_set(err, "cannot open the folder of %s: %s", name, strerror(errno));
    if (!realpath(path, full))
        return err_set(err, "%s is a link that leads nowhere (%s)", name, strerror(errno));
    if (!fsguard_below(full, root_real))
        return err_set(err, "%s is a link to a file outside its folder: only files inside the "
                          "folder are read",
                       name);
    if (stat(full, &st) != 0)
        return err_set(err, "cannot open %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return err_set(err, "%s is not a regular file (%s)", name,
                       S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                       : S_ISSOCK(st.st_mode) ? "a socket" : "not a plain file");
    if (strlen(full) >= cap)
        return err_set(err, "%s: the path is too long", path);
    memcpy(real, full, strlen(full) + 1);
    return true;
}

char *fsguard_read(const char *path, const char *root, size_t max, size_t *len, cl_err *err)
{
    char real[PATH_MAX];
    if (!fsguard_resolve(path, root, real, sizeof real, err))
        return NULL;
    return file_read_all(real, max, len, err);
}

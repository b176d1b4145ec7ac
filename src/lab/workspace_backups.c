/* workspace_backups.c - the backup folders a reset leaves in the learner's
 * workspace: listing them and removing one. */
#include "core/grow.h"
#include "lab/workspace.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BACKUP_PREFIX "backup-"

static int cmp_backup(const void *a, const void *b)
{
    return strcmp(((const workspace_backup *)a)->path, ((const workspace_backup *)b)->path);
}

/* Counts b's files and bytes; b->plain says whether nothing else is there. */
static bool survey(workspace_backup *b, cl_err *e)
{
    DIR *d = opendir(b->path);
    if (!d)
        return err_set(e, "cannot read %s: %s", b->path, strerror(errno));
    b->plain = true;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char p[CL_PATH_MAX];
        struct stat st;
        if (!paths_join(p, sizeof p, b->path, de->d_name) || lstat(p, &st) != 0 ||
            !S_ISREG(st.st_mode)) {
            b->plain = false;
            continue;
        }
        b->nfiles++;
        b->bytes += (long long)st.st_size;
    }
    closedir(d);
    return true;
}

bool workspace_backups(const char *ws, const lab *model, const lab_exercise *exercise,
                       workspace_backup **out, size_t *count, cl_err *err)
{
    workspace_files f;
    *out = NULL;
    *count = 0;
    if (!workspace_files_of(ws, model, exercise, &f, err))
        return false;
    DIR *d = opendir(f.dir);
    if (!d) {
        if (errno == ENOENT)
            return true;
        return err_set(err, "cannot read %s: %s", f.dir, strerror(errno));
    }
    workspace_backup *v = NULL;
    size_t len = 0, cap = 0;
    bool ok = true;
    struct dirent *de;
    while (ok && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, BACKUP_PREFIX, sizeof BACKUP_PREFIX - 1) != 0)
            continue;
        workspace_backup b;
        memset(&b, 0, sizeof b);
        struct stat st;
        if (!paths_join(b.path, sizeof b.path, f.dir, de->d_name) || lstat(b.path, &st) != 0 ||
            !S_ISDIR(st.st_mode))
            continue;
        if (!grow_one((void **)&v, &cap, len, sizeof *v, 8)) {
            ok = err_set(err, "out of memory listing %s", f.dir);
            break;
        }
        ok = survey(&b, err);
        v[len++] = b;
    }
    closedir(d);
    if (!ok) {
        free(v);
        return false;
    }
    if (len > 1)
        qsort(v, len, sizeof *v, cmp_backup);
    *out = v;
    *count = len;
    return true;
}

bool workspace_backup_remove(const workspace_backup *backup, cl_err *err)
{
    workspace_backup now;
    memset(&now, 0, sizeof now);
    snprintf(now.path, sizeof now.path, "%s", backup->path);
    if (!survey(&now, err))
        return false;
    if (!now.plain)
        return err_set(err, "%s holds more than the files a reset saved: left as it is",
                       backup->path);
    DIR *d = opendir(backup->path);
    if (!d)
        return err_set(err, "cannot read %s: %s", backup->path, strerror(errno));
    bool ok = true;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char p[CL_PATH_MAX];
        if (paths_join(p, sizeof p, backup->path, de->d_name) && unlink(p) != 0) {
            ok = err_set(err, "cannot remove %s: %s", p, strerror(errno));
            break;
        }
    }
    closedir(d);
    if (ok && rmdir(backup->path) != 0)
        ok = err_set(err, "cannot remove %s: %s", backup->path, strerror(errno));
    return ok;
}

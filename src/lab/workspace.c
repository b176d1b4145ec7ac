#include "lab/workspace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "core/fsguard.h"

#define STARTER_MAX_BYTES ((size_t)4 << 20)
#define BACKUP_TRIES 100

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static bool id_is_folder_name(const char *id)
{
    if (!id || !id[0] || strcmp(id, ".") == 0 || strcmp(id, "..") == 0)
        return false;
    for (const char *p = id; *p; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-' || c == '.';
        if (!ok)
            return false;
    }
    return true;
}

/* The exercise x stands for: itself, or the lab's own one; NULL + e when
 * there is none. */
static const lab_exercise *which_exercise(const lab *l, const lab_exercise *x, cl_err *e)
{
    if (x)
        return x;
    x = lab_own_exercise(l);
    if (x)
        return x;
    if (l->nexercises == 0) {
        err_set(e, "lab '%s' has no exercise", l->id ? l->id : "?");
        return NULL;
    }
    char ids[256] = "";
    size_t at = 0;
    for (size_t i = 0; i < l->nexercises && at < sizeof ids; i++)
        at += (size_t)snprintf(ids + at, sizeof ids - at, "%s%s", i ? ", " : "",
                               l->exercises[i].id);
    err_set(e, "lab '%s' has no exercise of its own: name one of its exercises (%s)", l->id, ids);
    return NULL;
}

bool workspace_files_of(const char *ws, const lab *model, const lab_exercise *exercise,
                        workspace_files *files, cl_err *err)
{
    memset(files, 0, sizeof *files);
    if (!(exercise = which_exercise(model, exercise, err)))
        return false;
    if (!exercise->kernel || !exercise->kernel[0])
        return err_set(err, "lab '%s' has no exercise", model->id ? model->id : "?");
    if (!id_is_folder_name(model->id))
        return err_set(err, "lab id '%s' cannot name a workspace folder",
                       model->id ? model->id : "");
    if (exercise->id[0] && !id_is_folder_name(exercise->id))
        return err_set(err, "exercise id '%s' cannot name a workspace folder", exercise->id);
    if (!model->dir)
        return err_set(err, "lab '%s' has no folder", model->id);
    char root[CL_PATH_MAX], labdir[CL_PATH_MAX];
    if (ws && ws[0]) {
        snprintf(root, sizeof root, "%s", ws);
    } else if (!paths_workspace(root, sizeof root, err)) {
        return false;
    }
    if (!paths_join(labdir, sizeof labdir, root, model->id)
        || !(exercise->id[0]
                 ? paths_join(files->dir, sizeof files->dir, labdir, exercise->id)
                 : snprintf(files->dir, sizeof files->dir, "%s", labdir) < (int)sizeof files->dir)
        || !paths_join(files->kernel, sizeof files->kernel, files->dir, base_name(exercise->kernel))
        || !paths_join(files->starter_kernel, sizeof files->starter_kernel, model->dir,
                       exercise->kernel))
        return err_set(err, "workspace path too long for lab '%s'", model->id);
    if (exercise->launcher && exercise->launcher[0]) {
        if (!paths_join(files->launcher, sizeof files->launcher, files->dir,
                        base_name(exercise->launcher))
            || !paths_join(files->starter_launcher, sizeof files->starter_launcher, model->dir,
                           exercise->launcher))
            return err_set(err, "workspace path too long for lab '%s'", model->id);
    }
    if (strcmp(base_name(files->kernel), base_name(files->launcher)) == 0)
        return err_set(err, "lab '%s': the exercise's kernel and launcher have the same name",
                       model->id);
    return true;
}

/* Writes data to dst only if dst does not exist: the bytes go to a private
 * temporary file first, which link() then publishes (link never replaces).
 * *created tells whether dst was written. */
static bool write_new_file(const char *dst, const char *data, size_t len, bool *created,
                           cl_err *e)
{
    *created = false;
    char tmp[CL_PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.new.%ld", dst, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return err_set(e, "cannot create %s: %s", tmp, strerror(errno));
    bool ok = false;
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            err_set(e, "cannot write %s: %s", tmp, strerror(errno));
            goto cleanup;
        }
        done += (size_t)w;
    }
    if (fsync(fd) != 0) {
        err_set(e, "cannot write %s: %s", tmp, strerror(errno));
        goto cleanup;
    }
    if (link(tmp, dst) == 0) {
        *created = true;
        ok = true;
    } else if (errno == EEXIST) {
        ok = true;
    } else {
        /* Filesystems without hard links: an exclusive create never replaces either. */
        int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (out < 0) {
            if (errno == EEXIST)
                ok = true;
            else
                err_set(e, "cannot create %s: %s", dst, strerror(errno));
            goto cleanup;
        }
        done = 0;
        ok = true;
        while (done < len) {
            ssize_t w = write(out, data + done, len - done);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                ok = err_set(e, "cannot write %s: %s", dst, strerror(errno));
                break;
            }
            done += (size_t)w;
        }
        if (close(out) != 0 && ok)
            ok = err_set(e, "cannot write %s: %s", dst, strerror(errno));
        *created = true;
    }
cleanup:
    close(fd);
    unlink(tmp);
    return ok;
}

/* Copies src, a file that must lie inside the lab folder root, to dst
 * unless dst exists. */
static bool copy_if_missing(const char *root, const char *src, const char *dst, bool *created,
                            cl_err *e)
{
    *created = false;
    struct stat st;
    if (lstat(dst, &st) == 0)
        return true;
    size_t len = 0;
    char *data = fsguard_read(src, root, STARTER_MAX_BYTES, &len, e);
    if (!data)
        return err_prefix(e, "copying the lab's starter");
    bool ok = write_new_file(dst, data, len, created, e);
    free(data);
    return ok;
}

#define UNDO_DIRS 16

/* The folders paths_mkdir_p(dir) would make, as lengths of dir's prefixes,
 * deepest first (at most UNDO_DIRS); returns how many. */
static size_t missing_dirs(const char *dir, size_t *lens)
{
    size_t n = 0, len = strlen(dir);
    char p[CL_PATH_MAX];
    if (len >= sizeof p)
        return 0;
    memcpy(p, dir, len + 1);
    while (n < UNDO_DIRS && len > 0 && !paths_is_dir(p)) {
        lens[n++] = len;
        while (len > 0 && p[len - 1] != '/')
            len--;
        while (len > 1 && p[len - 1] == '/')
            len--;
        p[len] = '\0';
    }
    return n;
}

bool workspace_prepare(const char *ws, const lab *model, const lab_exercise *exercise,
                       workspace_files *files, cl_err *err)
{
    size_t made[UNDO_DIRS], nmade;
    if (!workspace_files_of(ws, model, exercise, files, err))
        return false;
    nmade = missing_dirs(files->dir, made);
    if (!paths_mkdir_p(files->dir, err))
        goto undo;
    if (!copy_if_missing(model->dir, files->starter_kernel, files->kernel, &files->kernel_created,
                         err))
        goto undo;
    if (files->launcher[0]
        && !copy_if_missing(model->dir, files->starter_launcher, files->launcher,
                            &files->launcher_created, err))
        goto undo;
    return true;
undo:
    /* Leave the workspace as it was: what this call copied or made goes. */
    if (files->kernel_created)
        unlink(files->kernel);
    if (files->launcher_created)
        unlink(files->launcher);
    files->kernel_created = files->launcher_created = false;
    for (size_t i = 0; i < nmade; i++) {
        char p[CL_PATH_MAX];
        snprintf(p, sizeof p, "%.*s", (int)made[i], files->dir);
        rmdir(p);
    }
    return false;
}

/* Whether the files at a and b hold the same bytes (false when either
 * cannot be read). */
static bool same_bytes(const char *a, const char *b)
{
    size_t la = 0, lb = 0;
    char *da = file_read_all(a, STARTER_MAX_BYTES, &la, NULL);
    char *db = da ? file_read_all(b, STARTER_MAX_BYTES, &lb, NULL) : NULL;
    bool same = da && db && la == lb && memcmp(da, db, la) == 0;
    free(da);
    free(db);
    return same;
}

/* Makes a new, empty backup-<timestamp>[-k] folder inside dir. */
static bool make_backup_dir(const char *dir, char *out, size_t n, cl_err *e)
{
    time_t now = time(NULL);
    struct tm tm;
    char stamp[32];
    if (!localtime_r(&now, &tm) || strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm) == 0)
        snprintf(stamp, sizeof stamp, "%lld", (long long)now);
    for (int k = 1; k <= BACKUP_TRIES; k++) {
        char name[64];
        if (k == 1)
            snprintf(name, sizeof name, "backup-%s", stamp);
        else
            snprintf(name, sizeof name, "backup-%s-%d", stamp, k);
        if (!paths_join(out, n, dir, name))
            return err_set(e, "backup path too long");
        if (mkdir(out, 0755) == 0)
            return true;
        if (errno != EEXIST)
            return err_set(e, "cannot make %s: %s", out, strerror(errno));
    }
    return err_set(e, "cannot make a backup folder in %s: too many with the same time", dir);
}

bool workspace_reset(const char *ws, const lab *model, const lab_exercise *exercise, bool confirmed,
                     workspace_files *files, char *backup, size_t nbackup, cl_err *err)
{
    if (backup && nbackup)
        backup[0] = '\0';
    if (!workspace_files_of(ws, model, exercise, files, err))
        return false;
    if (!confirmed)
        return err_set(err, "reset needs confirmation: it moves your files for lab '%s' into a "
                          "backup folder and copies fresh starters", model->id);
    if (!paths_mkdir_p(files->dir, err))
        return false;
    const char *mine[2] = {files->kernel, files->launcher};
    const char *starter[2] = {files->starter_kernel, files->starter_launcher};
    struct stat st;
    bool any = false;
    bool keep[2] = {false, false};
    char bdir[CL_PATH_MAX] = "";
    for (int i = 0; i < 2; i++) {
        if (!mine[i][0] || lstat(mine[i], &st) != 0)
            continue;
        /* a file that is still the starter has nothing to save */
        keep[i] = !same_bytes(mine[i], starter[i]);
        any = any || keep[i];
    }
    if (any) {
        if (!make_backup_dir(files->dir, bdir, sizeof bdir, err))
            return false;
        if (backup && nbackup)
            snprintf(backup, nbackup, "%s", bdir);
        for (int i = 0; i < 2; i++) {
            if (!keep[i])
                continue;
            char dst[CL_PATH_MAX];
            if (!paths_join(dst, sizeof dst, bdir, base_name(mine[i])))
                return err_set(err, "backup path too long");
            if (rename(mine[i], dst) != 0)
                return err_set(err, "cannot move %s into %s: %s (nothing was replaced)", mine[i],
                               bdir, strerror(errno));
        }
    }
    if (!copy_if_missing(model->dir, files->starter_kernel, files->kernel, &files->kernel_created,
                         err)
        || (files->launcher[0]
            && !copy_if_missing(model->dir, files->starter_launcher, files->launcher,
                                &files->launcher_created, err))) {
        if (any)
            err_prefix(err, "your files are safe in %s", bdir);
        return false;
    }
    return true;
}

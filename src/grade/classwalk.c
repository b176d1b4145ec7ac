/* classwalk.c - walking a folder of grade reports: each folder once, each
 * file read once, whatever links lead there; every entry that cannot be
 * read is listed, none stops the walk (grade/classview_internal.h). */
#include "grade/classview_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/atomicfile.h"
#include "core/grow.h"
#include "core/jsondoc.h"
#include "grade/report.h"

#define REPORT_MAX ((size_t)64 << 20)
#define MAX_DEPTH 8
#define MAX_FILES 100000

typedef struct walker {
    class_view *v;
    size_t *cap;
    const class_opts *o;
    struct stat up[MAX_DEPTH + 1];   /* the folders above, for loops */
    int depth;
    bool full;                       /* MAX_FILES reached (said once) */
} walker;

class_file *class_add_file(class_view *view, size_t *cap, const char *path)
{
    if (!grow_one((void **)&view->files, cap, view->nfiles, sizeof *view->files, 64))
        return NULL;
    class_file *f = &view->files[view->nfiles++];
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    f->verdict = SIGN_UNSIGNED;
    return f;
}

/* Lists path as left out, for the reason given; false when out of memory. */
static bool left_out(walker *w, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool left_out(walker *w, const char *path, const char *fmt, ...)
{
    class_file *f = class_add_file(w->v, w->cap, path);
    if (!f)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->problem, sizeof f->problem, fmt, ap);
    va_end(ap);
    return true;
}

/* Whether doc is a results.json that cudalab wrote (Gradescope's). */
static bool gradescope_of_ours(const cJSON *doc)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "extra_data"), "cudalab");
    const char *fmt = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "format"));
    return fmt && strcmp(fmt, REPORT_GRADESCOPE_FORMAT) == 0;
}

/* Reads f's file (its text, len bytes) as a report; false when it is one of
 * cudalab's results.json, to be passed over. */
static bool judge(class_file *f, const char *text, size_t len, const class_opts *o)
{
    cJSON *doc = NULL;
    char how[256];
    cl_err e = {{0}};
    jsondoc_status st = jsondoc_parse_file(text, len, &doc, how, sizeof how);
    if (st == JSONDOC_NOT_JSON) {
        snprintf(f->problem, sizeof f->problem, "malformed: %s", how);
        return true;
    }
    if (gradescope_of_ours(doc)) {
        cJSON_Delete(doc);
        return false;
    }
    bool ok = report_read_json(doc, &f->rep, &e);
    cJSON_Delete(doc);
    if (!ok) {
        snprintf(f->problem, sizeof f->problem, "%s: %s",
                 strstr(e.msg, "not a cudalab grade report") ? "foreign" : "malformed", e.msg);
        grade_report_free(&f->rep);
        return true;
    }
    f->report = true;
    if (o->key) {
        char why[512];
        f->verdict = sign_verify_text(f->path, text, len, o->key, o->keylen, why, sizeof why);
        if (f->verdict != SIGN_VALID)
            snprintf(f->problem, sizeof f->problem, "%s: %s",
                     f->verdict == SIGN_UNSIGNED ? "not signed" : sign_verdict_name(f->verdict),
                     why);
    } else if (st != JSONDOC_EXACT) {
        snprintf(f->problem, sizeof f->problem, "malformed: not exactly as cudalab writes it: %s",
                 how);
    }
    f->usable = !f->problem[0];
    return true;
}

/* Reads the .json file at path (st: what stat said). */
static bool read_file(walker *w, const char *path, const struct stat *st)
{
    class_file *f = class_add_file(w->v, w->cap, path);
    if (!f)
        return false;
    f->dev = (unsigned long long)st->st_dev;
    f->ino = (unsigned long long)st->st_ino;
    size_t len = 0;
    cl_err e = {{0}};
    char *text = file_read_all(path, REPORT_MAX, &len, &e);
    if (!text) {
        snprintf(f->problem, sizeof f->problem, "unreadable: %s", e.msg);
        return true;
    }
    bool keep = judge(f, text, len, w->o);
    free(text);
    if (!keep) {   /* passed over: drop the entry again */
        grade_report_free(&f->rep);
        w->v->nfiles--;
        w->v->skipped++;
    }
    return true;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static bool walk(walker *w, const char *dir, cl_err *e);

/* One entry of a folder; false only when out of memory. */
static bool entry(walker *w, const char *path, const char *name)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        int err = errno;
        struct stat lst;
        bool link = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
        if (err == ELOOP)
            return left_out(w, path, "a symbolic link loop: not followed");
        if (link && err == ENOENT)
            return left_out(w, path, "a broken symbolic link");
        return left_out(w, path, "unreadable: %s", strerror(err));
    }
    if (S_ISDIR(st.st_mode)) {
        for (int i = 0; i <= w->depth; i++)
            if (w->up[i].st_dev == st.st_dev && w->up[i].st_ino == st.st_ino)
                return left_out(w, path, "a link back to a folder above it (a loop): not "
                                         "followed");
        if (w->depth + 1 > MAX_DEPTH)
            return left_out(w, path, "more than %d folders deep: not read", MAX_DEPTH);
        w->up[++w->depth] = st;
        cl_err we = {{0}};
        bool ok = walk(w, path, &we);
        w->depth--;
        if (ok)
            return true;
        return we.msg[0] && left_out(w, path, "%s", we.msg);   /* else out of memory */
    }
    if (!has_suffix(name, ".json")) {
        w->v->skipped++;
        return true;
    }
    if (!S_ISREG(st.st_mode))
        return left_out(w, path, "not a regular file (a FIFO, socket or device): not read");
    return read_file(w, path, &st);
}

/* Reads every entry of dir (names sorted); false + e when dir cannot be
 * read (e set) or out of memory (e empty: the caller says so). */
static bool walk(walker *w, const char *dir, cl_err *e)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0)
        return err_set(e, "cannot read the folder: %s", strerror(errno));
    bool ok = true;
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        char path[CL_PATH_MAX];
        if (ok && nm[0] != '.' && w->v->nfiles >= MAX_FILES && !w->full) {
            w->full = true;
            ok = left_out(w, dir, "more than %d files: the rest not read", MAX_FILES);
        } else if (ok && nm[0] != '.' && !w->full) {
            if (paths_join(path, sizeof path, dir, nm))
                ok = entry(w, path, nm);
            else
                ok = left_out(w, dir, "a name in it makes a path too long: not read");
        }
        free(names[i]);
    }
    free(names);
    return ok;
}

typedef struct identity {
    unsigned long long dev, ino;
    size_t at;
} identity;

static int by_identity(const void *pa, const void *pb)
{
    const identity *a = pa, *b = pb;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    if (a->ino != b->ino)
        return a->ino < b->ino ? -1 : 1;
    return (a->at > b->at) - (a->at < b->at);
}

/* Two paths to one file (hard or symbolic links): each later one is left
 * out; false when out of memory. */
static bool same_files(class_view *v)
{
    identity *ids = malloc((v->nfiles ? v->nfiles : 1) * sizeof *ids);
    size_t n = 0;
    if (!ids)
        return false;
    for (size_t i = 0; i < v->nfiles; i++)
        if (v->files[i].ino)
            ids[n++] = (identity){.dev = v->files[i].dev, .ino = v->files[i].ino, .at = i};
    qsort(ids, n, sizeof *ids, by_identity);
    for (size_t i = 1, first = 0; i < n; i++) {
        if (ids[i].dev != ids[first].dev || ids[i].ino != ids[first].ino) {
            first = i;
            continue;
        }
        class_file *f = &v->files[ids[i].at];
        snprintf(f->problem, sizeof f->problem,
                 "the same file as %s (reached through a link): read once",
                 v->files[ids[first].at].path);
        f->usable = false;
    }
    free(ids);
    return true;
}

bool class_walk(class_view *view, size_t *cap, const char *dir, const class_opts *opts, cl_err *err)
{
    walker w = {.v = view, .cap = cap, .o = opts};
    if (stat(dir, &w.up[0]) != 0 || !S_ISDIR(w.up[0].st_mode))
        return err_set(err, "%s is not a folder", dir);
    if (!walk(&w, dir, err)) {
        if (!err->msg[0])
            return err_set(err, "out of memory reading %s", dir);
        return err_prefix(err, "%s", dir);
    }
    if (!same_files(view))
        return err_set(err, "out of memory reading %s", dir);
    return true;
}

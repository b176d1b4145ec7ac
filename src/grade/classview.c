/* classview.c - loading a folder of grade reports into a class table. */
#include "grade/classview.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/atomicfile.h"
#include "grade/report.h"

#define REPORT_MAX ((size_t)64 << 20)
#define MAX_DEPTH 8
#define MAX_FILES 100000

static bool has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static class_file *add_file(class_view *v, size_t *cap, const char *path)
{
    if (v->nfiles == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        class_file *f = realloc(v->files, c * sizeof *f);
        if (!f)
            return NULL;
        v->files = f;
        *cap = c;
    }
    class_file *f = &v->files[v->nfiles++];
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    f->verdict = SIGN_UNSIGNED;
    return f;
}

static void read_report(class_file *f, const void *key, size_t keylen)
{
    size_t len = 0;
    cl_err e = {{0}};
    char *text = file_read_all(f->path, REPORT_MAX, &len, &e);
    if (!text) {
        snprintf(f->problem, sizeof f->problem, "unreadable: %s", e.msg);
        return;
    }
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (!doc) {
        snprintf(f->problem, sizeof f->problem, "malformed: not JSON");
        return;
    }
    if (!report_read_json(doc, &f->rep, &e)) {
        snprintf(f->problem, sizeof f->problem, "%s: %s",
                 strstr(e.msg, "not a cudalab grade report") ? "foreign" : "malformed", e.msg);
        grade_report_free(&f->rep);
        cJSON_Delete(doc);
        return;
    }
    cJSON_Delete(doc);
    if (key) {
        char why[256];
        f->verdict = sign_verify_file(f->path, key, keylen, why, sizeof why);
        if (f->verdict != SIGN_VALID) {
            snprintf(f->problem, sizeof f->problem, "%s signature: %s",
                     sign_verdict_name(f->verdict), why);
            grade_report_free(&f->rep);
            return;
        }
    }
    f->usable = true;
}

/* Reads every .json under dir into v (depth-first, names sorted). */
static bool walk(class_view *v, size_t *cap, const char *dir, int depth, const void *key,
                 size_t keylen, cl_err *e)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0)
        return err_set(e, "cannot read the folder %s", dir);
    bool ok = true;
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        char path[CL_PATH_MAX];
        struct stat st;
        if (nm[0] == '.' || !paths_join(path, sizeof path, dir, nm) || stat(path, &st) != 0 ||
            v->nfiles >= MAX_FILES) {
            free(names[i]);
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            if (depth < MAX_DEPTH)
                walk(v, cap, path, depth + 1, key, keylen, e);
        } else if (S_ISREG(st.st_mode) && has_suffix(nm, ".json")) {
            class_file *f = add_file(v, cap, path);
            if (!f)
                ok = err_set(e, "out of memory");
            else
                read_report(f, key, keylen);
        } else {
            v->skipped++;
        }
        free(names[i]);
    }
    free(names);
    return ok;
}

static bool add_columns(class_view *v, size_t *cap, const grade_report *r)
{
    for (size_t i = 0; i < r->nlabs; i++) {
        for (size_t k = 0; k < r->labs[i].nms; k++) {
            const grade_milestone *g = &r->labs[i].ms[k];
            bool seen = false;
            for (size_t c = 0; c < v->ncols && !seen; c++)
                seen = strcmp(v->cols[c].lab, r->labs[i].id) == 0 &&
                       strcmp(v->cols[c].id, g->id) == 0;
            if (seen)
                continue;
            if (v->ncols == *cap) {
                size_t nc = *cap ? *cap * 2 : 16;
                class_column *cols = realloc(v->cols, nc * sizeof *cols);
                if (!cols)
                    return false;
                v->cols = cols;
                *cap = nc;
            }
            class_column *col = &v->cols[v->ncols++];
            snprintf(col->lab, sizeof col->lab, "%s", r->labs[i].id);
            snprintf(col->id, sizeof col->id, "%s", g->id);
            snprintf(col->text, sizeof col->text, "%s", g->text);
            col->points = g->points;
        }
    }
    return true;
}

bool class_load(const char *dir, const void *key, size_t keylen, class_view *out, cl_err *e)
{
    memset(out, 0, sizeof *out);
    out->checked = key != NULL;
    size_t cap = 0, ccap = 0;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return err_set(e, "%s is not a folder", dir);
    if (!walk(out, &cap, dir, 0, key, keylen, e) && out->nfiles == 0)
        return false;
    out->rows = calloc(out->nfiles ? out->nfiles : 1, sizeof *out->rows);
    if (!out->rows)
        return err_set(e, "out of memory");
    for (size_t i = 0; i < out->nfiles; i++) {
        if (!out->files[i].usable)
            continue;
        out->rows[out->nrows++] = i;
        if (!add_columns(out, &ccap, &out->files[i].rep))
            return err_set(e, "out of memory");
    }
    class_order(out, CLASS_BY_LEARNER);
    return true;
}

void class_free(class_view *v)
{
    for (size_t i = 0; i < v->nfiles; i++)
        grade_report_free(&v->files[i].rep);
    free(v->files);
    free(v->rows);
    free(v->cols);
    memset(v, 0, sizeof *v);
}

const grade_milestone *class_cell(const class_view *v, const class_file *f, size_t c)
{
    const class_column *col = &v->cols[c];
    for (size_t i = 0; i < f->rep.nlabs; i++) {
        if (strcmp(f->rep.labs[i].id, col->lab) != 0)
            continue;
        for (size_t k = 0; k < f->rep.labs[i].nms; k++)
            if (strcmp(f->rep.labs[i].ms[k].id, col->id) == 0)
                return &f->rep.labs[i].ms[k];
    }
    return NULL;
}

/* ---- ordering --------------------------------------------------------------------- */

static const class_view *g_sort_view;
static class_sort g_sort_by;

/* The first lab's best time, or a large number when there is none. */
static double first_time(const grade_report *r)
{
    for (size_t i = 0; i < r->nlabs; i++)
        if (r->labs[i].best_ms > 0)
            return r->labs[i].best_ms;
    return 1e300;
}

static int cmp_rows(const void *pa, const void *pb)
{
    const grade_report *a = &g_sort_view->files[*(const size_t *)pa].rep;
    const grade_report *b = &g_sort_view->files[*(const size_t *)pb].rep;
    int c = 0;
    if (g_sort_by == CLASS_BY_SCORE)
        c = (a->score < b->score) - (a->score > b->score);
    else if (g_sort_by == CLASS_BY_TIME)
        c = (first_time(a) > first_time(b)) - (first_time(a) < first_time(b));
    if (c == 0)
        c = strcmp(a->learner, b->learner);
    if (c == 0)
        c = strcmp(a->created, b->created);
    return c;
}

void class_order(class_view *v, class_sort by)
{
    g_sort_view = v;
    g_sort_by = by;
    qsort(v->rows, v->nrows, sizeof *v->rows, cmp_rows);
}

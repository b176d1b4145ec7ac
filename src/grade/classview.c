/* classview.c - a folder of grade reports into a class table: the walk
 * (classwalk.c) and the checks across reports (classcheck.c), then the
 * columns and the order. */
#include "grade/classview.h"
#include "grade/classview_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

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
            if (!grow_one((void **)&v->cols, cap, v->ncols, sizeof *v->cols, 16))
                return false;
            class_column *col = &v->cols[v->ncols++];
            snprintf(col->lab, sizeof col->lab, "%s", r->labs[i].id);
            snprintf(col->id, sizeof col->id, "%s", g->id);
            snprintf(col->text, sizeof col->text, "%s", g->text);
            col->points = g->points;
            col->quiz = g->quiz;
        }
    }
    return true;
}

bool class_load(const char *dir, const class_opts *opts, class_view *out, cl_err *err)
{
    memset(out, 0, sizeof *out);
    out->checked = opts->key != NULL;
    size_t cap = 0, ccap = 0;
    if (!class_walk(out, &cap, dir, opts, err))
        return false;
    if (!class_check(out, opts))
        return err_set(err, "out of memory checking the reports of %s", dir);
    out->rows = calloc(out->nfiles ? out->nfiles : 1, sizeof *out->rows);
    if (!out->rows)
        return err_set(err, "out of memory");
    for (size_t i = 0; i < out->nfiles; i++) {
        out->nreports += out->files[i].report;
        if (!out->files[i].usable)
            continue;
        out->rows[out->nrows++] = i;
        if (!add_columns(out, &ccap, &out->files[i].rep))
            return err_set(err, "out of memory");
    }
    class_order(out, CLASS_BY_LEARNER);
    return true;
}

void class_free(class_view *view)
{
    for (size_t i = 0; i < view->nfiles; i++)
        grade_report_free(&view->files[i].rep);
    free(view->files);
    free(view->rows);
    free(view->cols);
    memset(view, 0, sizeof *view);
}

void class_points_of(const grade_report *r, class_points *out)
{
    memset(out, 0, sizeof *out);
    out->quizzes_counted = r->quizzes != GRADE_QUIZZES_IGNORE;
    for (size_t i = 0; i < r->nlabs; i++)
        for (size_t k = 0; k < r->labs[i].nms; k++) {
            const grade_milestone *g = &r->labs[i].ms[k];
            if (g->quiz) {
                out->quizzes++;
                out->quiz += g->earned;
                out->quiz_max += g->points;
            } else {
                out->measured += g->earned;
                out->measured_max += g->points;
            }
        }
}

void class_points_text(const class_points *p, char *measured, size_t mn, char *quiz, size_t qn)
{
    snprintf(measured, mn, "%g of %g", p->measured, p->measured_max);
    if (p->quizzes == 0)
        snprintf(quiz, qn, "%s", "");
    else if (!p->quizzes_counted)
        snprintf(quiz, qn, "%s", "not counted");
    else
        snprintf(quiz, qn, "%g of %g", p->quiz, p->quiz_max);
}

const grade_milestone *class_cell(const class_view *view, const class_file *file, size_t column)
{
    const class_column *col = &view->cols[column];
    for (size_t i = 0; i < file->rep.nlabs; i++) {
        if (strcmp(file->rep.labs[i].id, col->lab) != 0)
            continue;
        for (size_t k = 0; k < file->rep.labs[i].nms; k++)
            if (strcmp(file->rep.labs[i].ms[k].id, col->id) == 0)
                return &file->rep.labs[i].ms[k];
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

void class_order(class_view *view, class_sort by)
{
    g_sort_view = view;
    g_sort_by = by;
    qsort(view->rows, view->nrows, sizeof *view->rows, cmp_rows);
}

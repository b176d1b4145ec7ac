/* classcheck.c - the checks across a class's reports: one assignment, one
 * report a learner, the same kernel under several learners, reports that
 * could not be graded (grade/classview_internal.h). */
#include "grade/classview_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strfmt.h"

static const char *shown(const char *assignment)
{
    return assignment[0] ? assignment : "(none)";
}

/* The usable files' indices (malloc'd; *n), or NULL when out of memory. */
static size_t *usable(const class_view *v, size_t *n)
{
    size_t *at = malloc((v->nfiles ? v->nfiles : 1) * sizeof *at);
    *n = 0;
    for (size_t i = 0; at && i < v->nfiles; i++)
        if (v->files[i].usable)
            at[(*n)++] = i;
    return at;
}

static const class_view *g_view;   /* for the qsort comparisons below */

static int by_assignment(const void *pa, const void *pb)
{
    const class_file *a = &g_view->files[*(const size_t *)pa];
    const class_file *b = &g_view->files[*(const size_t *)pb];
    return strcmp(a->rep.assignment, b->rep.assignment);
}

/* The most common assignment among the usable files at[0..n) into v
 * (ties: the first by name); *tie says whether another was as common. */
static void most_common(class_view *v, size_t *at, size_t n, bool *tie)
{
    size_t best = 0;
    *tie = false;
    g_view = v;
    qsort(at, n, sizeof *at, by_assignment);
    for (size_t i = 0; i < n;) {
        const char *a = v->files[at[i]].rep.assignment;
        size_t end = i + 1;
        while (end < n && strcmp(a, v->files[at[end]].rep.assignment) == 0)
            end++;
        if (end - i > best) {
            snprintf(v->assignment, sizeof v->assignment, "%s", a);
            best = end - i;
            *tie = false;
        } else if (end - i == best) {
            *tie = true;
        }
        i = end;
    }
}

/* Leaves out the reports of any assignment but the one shown; false when
 * out of memory. */
static bool one_assignment(class_view *v, const class_opts *o)
{
    size_t n = 0;
    size_t *at = usable(v, &n);
    bool tie = false;
    if (!at)
        return false;
    v->assignment_given = o->assignment != NULL;
    if (o->assignment)
        snprintf(v->assignment, sizeof v->assignment, "%s", o->assignment);
    else
        most_common(v, at, n, &tie);
    for (size_t i = 0; i < n; i++) {
        class_file *f = &v->files[at[i]];
        if (strcmp(f->rep.assignment, v->assignment) == 0)
            continue;
        f->usable = false;
        snprintf(f->problem, sizeof f->problem, "a report of assignment %s, not %s (%s)",
                 shown(f->rep.assignment), shown(v->assignment),
                 o->assignment ? "the one asked for with --assignment"
                 : tie         ? "as common here as another: choose one with --assignment"
                               : "the most common here; choose another with --assignment");
    }
    free(at);
    return true;
}

static int by_learner(const void *pa, const void *pb)
{
    size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
    int c = strcmp(g_view->files[ia].rep.learner, g_view->files[ib].rep.learner);
    return c ? c : (ia > ib) - (ia < ib);
}

/* Whether a is to be kept rather than b (same learner): graded before not
 * graded, then the newer, then the one found first. */
static bool better(const class_file *a, const class_file *b)
{
    if (!a->rep.error[0] != !b->rep.error[0])
        return !a->rep.error[0];
    return strcmp(a->rep.created, b->rep.created) > 0;
}

static void drop(class_file *f, const class_file *kept)
{
    const grade_report *r = &f->rep, *k = &kept->rep;
    f->usable = false;
    if (strcmp(r->created, k->created) == 0 && r->seed == k->seed)
        snprintf(f->problem, sizeof f->problem,
                 "a copy of %s (learner %s, graded at the same time with the same seed)",
                 kept->path, r->learner);
    else if (r->error[0] && !k->error[0])
        snprintf(f->problem, sizeof f->problem,
                 "learner %s was not graded here (%s); the graded report %s is kept",
                 r->learner, r->error, kept->path);
    else
        snprintf(f->problem, sizeof f->problem,
                 "an older report of learner %s (created %s); the newer %s (created %s) is kept",
                 r->learner, r->created, kept->path, k->created);
}

/* One report a learner: the others are left out, each saying which is
 * kept; false when out of memory. */
static bool one_per_learner(class_view *v)
{
    size_t n = 0;
    size_t *at = usable(v, &n);
    if (!at)
        return false;
    g_view = v;
    qsort(at, n, sizeof *at, by_learner);
    for (size_t i = 0; i < n;) {
        size_t end = i + 1, keep = at[i];
        while (end < n && strcmp(v->files[at[end]].rep.learner, v->files[keep].rep.learner) == 0)
            end++;
        for (size_t k = i + 1; k < end; k++)
            if (better(&v->files[at[k]], &v->files[keep]))
                keep = at[k];
        for (size_t k = i; k < end; k++)
            if (at[k] != keep)
                drop(&v->files[at[k]], &v->files[keep]);
        i = end;
    }
    free(at);
    return true;
}

/* A graded kernel: which file, which lab. */
typedef struct kernel_use {
    size_t file, lab;
} kernel_use;

static int by_kernel(const void *pa, const void *pb)
{
    const kernel_use *a = pa, *b = pb;
    const grade_lab *la = &g_view->files[a->file].rep.labs[a->lab];
    const grade_lab *lb = &g_view->files[b->file].rep.labs[b->lab];
    int c = strcmp(la->id, lb->id);
    if (!c)
        c = strcmp(la->kernel_sha, lb->kernel_sha);
    return c ? c : (a->file > b->file) - (a->file < b->file);
}

static const grade_lab *lab_of(const class_view *v, const kernel_use *u)
{
    return &v->files[u->file].rep.labs[u->lab];
}

/* Notes on each file of uses[0..n) (one lab, one kernel) the others. */
static void note_shared(class_view *v, const kernel_use *uses, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        class_file *f = &v->files[uses[i].file];
        size_t at = strlen(f->note);
        at = strfmt_append(f->note, sizeof f->note, at, "%sthe same %s kernel as ",
                           at ? "; " : "", lab_of(v, &uses[i])->id);
        const char *sep = "";
        for (size_t k = 0; k < n; k++) {
            if (k == i)
                continue;
            const class_file *g = &v->files[uses[k].file];
            at = strfmt_append(f->note, sizeof f->note, at, "%s%s (%s)", sep, g->rep.learner,
                               g->path);
            sep = ", ";
        }
    }
}

/* Flags the files whose graded kernel of a lab is the same (by SHA-256) as
 * another learner's; unchanged starters and missing kernels aside.  false
 * when out of memory. */
static bool shared_kernels(class_view *v)
{
    size_t cap = 0, n = 0;
    for (size_t i = 0; i < v->nfiles; i++)
        cap += v->files[i].usable ? v->files[i].rep.nlabs : 0;
    kernel_use *uses = malloc((cap ? cap : 1) * sizeof *uses);
    if (!uses)
        return false;
    for (size_t i = 0; i < v->nfiles; i++)
        for (size_t l = 0; v->files[i].usable && l < v->files[i].rep.nlabs; l++) {
            const grade_lab *gl = &v->files[i].rep.labs[l];
            if (gl->kernel_sha[0] && !gl->kernel_starter)
                uses[n++] = (kernel_use){.file = i, .lab = l};
        }
    g_view = v;
    qsort(uses, n, sizeof *uses, by_kernel);
    for (size_t i = 0; i < n;) {
        const grade_lab *first = lab_of(v, &uses[i]);
        size_t end = i + 1;
        while (end < n && strcmp(lab_of(v, &uses[end])->id, first->id) == 0 &&
               strcmp(lab_of(v, &uses[end])->kernel_sha, first->kernel_sha) == 0)
            end++;
        if (end - i > 1)
            note_shared(v, &uses[i], end - i);
        i = end;
    }
    free(uses);
    return true;
}

bool class_check(class_view *view, const class_opts *opts)
{
    if (!one_assignment(view, opts) || !one_per_learner(view) || !shared_kernels(view))
        return false;
    for (size_t i = 0; i < view->nfiles; i++) {
        class_file *f = &view->files[i];
        if (f->usable && f->rep.error[0]) {
            size_t at = strlen(f->note);
            strfmt_append(f->note, sizeof f->note, at, "%snot graded: %s", at ? "; " : "",
                          f->rep.error);
        }
        view->nflagged += f->usable && f->note[0];
    }
    return true;
}

/* tui_app_model.c - the app model's life and its selection: making it
 * (each lab's state, and the rows a lab shows before anything ran),
 * freeing it, and the selected lab, its state, its picked exercise and its
 * chosen size, which every other tui_app*.c reads. */
#include "tui/tui_app.h"

#include <stdlib.h>
#include <string.h>

#include "core/strfmt.h"
#include "tui/tui_prof.h"

const lab *tui_app_lab(const tui_app *a)
{
    if (!a->labs || a->sel >= a->labs->n)
        return NULL;
    return a->labs->v[a->sel];
}

tui_labstate *tui_app_state(tui_app *a)
{
    if (!a->labs || a->sel >= a->labs->n)
        return NULL;
    return &a->ls[a->sel];
}

static const lab_exercise *picked(const tui_app *a, size_t i)
{
    const lab *l = a->labs->v[i];
    if (l->nexercises == 0)
        return NULL;
    return &l->exercises[a->ls[i].ex_idx < l->nexercises ? a->ls[i].ex_idx : 0];
}

const lab_exercise *tui_app_exercise(const tui_app *a)
{
    return tui_app_lab(a) ? picked(a, a->sel) : NULL;
}

char *const *tui_app_sizes(const tui_app *a, size_t i, size_t *n)
{
    const lab_exercise *x = picked(a, i);
    *n = x ? x->nsizes : a->labs->v[i]->nsizes;
    return x ? x->sizes : a->labs->v[i]->sizes;
}

static const char *size_of(const tui_app *a, size_t i)
{
    size_t n = 0;
    char *const *sizes = tui_app_sizes(a, i, &n);
    if (n == 0)
        return "";
    return sizes[a->ls[i].size_idx < n ? a->ls[i].size_idx : 0];
}

const char *tui_app_size(const tui_app *a)
{
    if (!tui_app_lab(a))
        return "";
    return size_of(a, a->sel);
}

/* A never-run row for (variant, size) in the table's scope. */
static bool idle_row(tui_labstate *s, const char *variant, result_kind kind, const char *size,
                     cl_err *e)
{
    if (!tui_runtable_expect(&s->table, variant, NULL, kind, size, e))
        return false;
    tui_runtable_find(&s->table, variant, size)->state = ROW_IDLE;
    return true;
}

/* Rows the lab shows before anything ran: its variants (or experiments) at
 * its sizes, and each exercise's own rungs and kernel at the exercise's. */
static bool seed_rows(tui_app *a, size_t i, cl_err *e)
{
    const lab *l = a->labs->v[i];
    tui_labstate *s = &a->ls[i];
    bool prof = tui_prof_lab(l);
    for (size_t v = 0; prof && v < l->nvariants; v++)
        if (!idle_row(s, l->variants[v].id, RK_KERNEL, "", e))
            return false;
    for (size_t z = 0; !prof && z < l->nsizes; z++)
        for (size_t v = 0; v < l->nvariants; v++)
            if (!idle_row(s, l->variants[v].id, RK_KERNEL, l->sizes[z], e))
                return false;
    for (size_t k = 0; k < l->nexercises; k++) {
        const lab_exercise *x = &l->exercises[k];
        strfmt_copy(s->table.scope, sizeof s->table.scope, x->id);
        for (size_t z = 0; z < x->nsizes; z++) {
            for (size_t v = 0; v < x->nvariants; v++)
                if (!idle_row(s, x->variants[v].id, RK_KERNEL, x->sizes[z], e))
                    return false;
            if (!idle_row(s, "exercise", RK_EXERCISE, x->sizes[z], e))
                return false;
        }
    }
    strfmt_copy(s->table.scope, sizeof s->table.scope, l->nexercises ? l->exercises[0].id : "");
    return true;
}

bool tui_app_init(tui_app *a, lab_set *labs, bool ascii, cl_err *e)
{
    memset(a, 0, sizeof *a);
    a->tl.item = -1;
    a->labs = labs;
    a->ascii = ascii;
    a->focus = TUI_P_LABS;
    a->quiz_answered = -1;
    if (!labs || labs->n == 0)
        return true;
    a->ls = calloc(labs->n, sizeof *a->ls);
    if (!a->ls)
        return err_set(e, "out of memory");
    for (size_t i = 0; i < labs->n; i++) {
        const lab *l = labs->v[i];
        tui_labstate *s = &a->ls[i];
        s->quiz_pick = calloc(l->nquizzes + 1, sizeof *s->quiz_pick);
        s->quiz_ok = calloc(l->nquizzes + 1, sizeof *s->quiz_ok);
        s->ms = calloc(l->nmilestones + 1, sizeof *s->ms);
        if (!s->quiz_pick || !s->quiz_ok || !s->ms) {
            tui_app_free(a);
            return err_set(e, "out of memory");
        }
        for (size_t q = 0; q < l->nquizzes; q++)
            s->quiz_pick[q] = -1;
        if (!seed_rows(a, i, e)) {
            tui_app_free(a);
            return false;
        }
    }
    return true;
}

void tui_app_free(tui_app *a)
{
    if (a->ls) {
        for (size_t i = 0; a->labs && i < a->labs->n; i++) {
            free(a->ls[i].quiz_pick);
            free(a->ls[i].quiz_ok);
            free(a->ls[i].ms);
            tui_runtable_free(&a->ls[i].table);
        }
        free(a->ls);
    }
    tui_md_free(&a->lesson);
    tui_timeline_free(&a->tl);
    free(a->prog_rows);
    memset(a, 0, sizeof *a);
}

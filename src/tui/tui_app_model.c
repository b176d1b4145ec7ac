/* tui_app_model.c - the app model's life and its selection: making it
 * (each lab's state, and the rows a lab shows before anything ran),
 * freeing it, and the selected lab, its state, its picked exercise and its
 * chosen size, which every other tui_app*.c reads. */
#include "tui/tui_app.h"

#include <stdlib.h>
#include <string.h>

#include "core/strfmt.h"
#include "tui/tui_prof.h"

const lab *tui_app_lab(const tui_app *app)
{
    if (!app->labs || app->sel >= app->labs->n)
        return NULL;
    return app->labs->v[app->sel];
}

tui_labstate *tui_app_state(tui_app *app)
{
    if (!app->labs || app->sel >= app->labs->n)
        return NULL;
    return &app->ls[app->sel];
}

static const lab_exercise *picked(const tui_app *a, size_t i)
{
    const lab *l = a->labs->v[i];
    if (l->nexercises == 0)
        return NULL;
    return &l->exercises[a->ls[i].ex_idx < l->nexercises ? a->ls[i].ex_idx : 0];
}

const lab_exercise *tui_app_exercise(const tui_app *app)
{
    return tui_app_lab(app) ? picked(app, app->sel) : NULL;
}

char *const *tui_app_sizes(const tui_app *app, size_t lab_index, size_t *count)
{
    const lab_exercise *x = picked(app, lab_index);
    *count = x ? x->nsizes : app->labs->v[lab_index]->nsizes;
    return x ? x->sizes : app->labs->v[lab_index]->sizes;
}

static const char *size_of(const tui_app *a, size_t i)
{
    size_t n = 0;
    char *const *sizes = tui_app_sizes(a, i, &n);
    if (n == 0)
        return "";
    return sizes[a->ls[i].size_idx < n ? a->ls[i].size_idx : 0];
}

const char *tui_app_size(const tui_app *app)
{
    if (!tui_app_lab(app))
        return "";
    return size_of(app, app->sel);
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

bool tui_app_init(tui_app *app, lab_set *labs, bool ascii, cl_err *err)
{
    memset(app, 0, sizeof *app);
    app->tl.item = -1;
    app->labs = labs;
    app->ascii = ascii;
    app->focus = TUI_P_LABS;
    app->quiz_answered = -1;
    if (!labs || labs->n == 0)
        return true;
    app->ls = calloc(labs->n, sizeof *app->ls);
    if (!app->ls)
        return err_set(err, "out of memory");
    for (size_t i = 0; i < labs->n; i++) {
        const lab *l = labs->v[i];
        tui_labstate *s = &app->ls[i];
        s->quiz_pick = calloc(l->nquizzes + 1, sizeof *s->quiz_pick);
        s->quiz_ok = calloc(l->nquizzes + 1, sizeof *s->quiz_ok);
        s->ms = calloc(l->nmilestones + 1, sizeof *s->ms);
        if (!s->quiz_pick || !s->quiz_ok || !s->ms) {
            tui_app_free(app);
            return err_set(err, "out of memory");
        }
        for (size_t q = 0; q < l->nquizzes; q++)
            s->quiz_pick[q] = -1;
        if (!seed_rows(app, i, err)) {
            tui_app_free(app);
            return false;
        }
    }
    return true;
}

void tui_app_free(tui_app *app)
{
    if (app->ls) {
        for (size_t i = 0; app->labs && i < app->labs->n; i++) {
            free(app->ls[i].quiz_pick);
            free(app->ls[i].quiz_ok);
            free(app->ls[i].ms);
            tui_runtable_free(&app->ls[i].table);
        }
        free(app->ls);
    }
    tui_md_free(&app->lesson);
    tui_timeline_free(&app->tl);
    free(app->prog_rows);
    memset(app, 0, sizeof *app);
}

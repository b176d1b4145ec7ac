/* milestone_probe.c - each check milestone called on made-up rows
 * (lab/milestone_probe.h). */
#include "lab/milestone_probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/strfmt.h"
#include "lab/milestone.h"

typedef struct probe_rows {
    run_result *v;
    size_t n, cap;
} probe_rows;

/* Appends a correct row of kind with every figure set; false when out of
 * memory. */
static bool add_row(probe_rows *rows, const char *variant, result_kind kind, const char *size,
                    const char *exercise)
{
    if (!grow_one((void **)&rows->v, &rows->cap, rows->n, sizeof *rows->v, 16))
        return false;
    run_result *r = &rows->v[rows->n++];
    memset(r, 0, sizeof *r);
    strfmt_copy(r->variant, sizeof r->variant, variant);
    strfmt_copy(r->size, sizeof r->size, size);
    strfmt_copy(r->exercise, sizeof r->exercise, exercise);
    r->kind = kind;
    r->status = RS_CORRECT;
    r->median_ms = r->min_ms = r->max_ms = 1.0;
    r->samples = 10;
    r->gbps = 100.0;
    r->tflops = 1.0;
    r->pct_peak_measured = 50.0;
    r->pct_peak_theory = 45.0;
    r->speedup_cpu = r->speedup_cpu_mt = r->speedup_lib = r->speedup_starter = 2.0;
    r->has_report = true;
    return true;
}

/* Every row the check of the milestone judging exercise x (NULL: the lab's
 * own) may read, at size. */
static bool make_rows(const lab *model, const lab_exercise *x, const char *size, probe_rows *rows)
{
    const char *ex = x ? x->id : "";
    bool ok = add_row(rows, "exercise", RK_EXERCISE, size, ex) &&
              add_row(rows, "cpu", RK_CPU, size, ex) && add_row(rows, "cpu_mt", RK_CPU_MT, size, ex);
    for (size_t i = 0; ok && i < model->nvariants; i++)
        ok = add_row(rows, model->variants[i].id, RK_KERNEL, size, ex);
    for (size_t i = 0; ok && x && i < x->nvariants; i++)
        ok = add_row(rows, x->variants[i].id, RK_KERNEL, size, ex);
    const char *library = x && x->library ? x->library : model->library;
    if (ok && library)
        ok = add_row(rows, library, RK_LIBRARY, size, ex);
    return ok;
}

void lab_probe_milestones(lab *model, lab_diags *diags)
{
    for (size_t i = 0; model && i < model->nmilestones; i++) {
        const lab_milestone *m = &model->milestones[i];
        const char *size = lab_milestone_size(model, i);
        if (m->quiz || !size)
            continue;
        probe_rows rows = {0};
        ms_eval ev;
        memset(&ev, 0, sizeof ev);
        if (make_rows(model, lab_milestone_exercise(model, i), size, &rows) &&
            !lab_milestone_eval_judged(model, i, rows.v, rows.n, &ev) && ev.state == MS_ERROR) {
            /* "<lab.lua>:87: msg" reads "line 87: msg" beside the lab file's own name */
            size_t plen = strlen(model->path);
            const char *why = ev.error;
            char at[32] = "";
            if (strncmp(why, model->path, plen) == 0 && why[plen] == ':') {
                char *end = NULL;
                long line = strtol(why + plen + 1, &end, 10);
                if (end && end[0] == ':' && end[1] == ' ') {
                    snprintf(at, sizeof at, "line %ld: ", line);
                    why = end + 2;
                }
            }
            lab_diags_add(diags, model->path, m->line,
                          "milestone '%s': its check fails on a correct row of every kind at "
                          "%s: %s%s",
                          m->id, size, at, why);
        }
        free(rows.v);
    }
}

/* tui_app_details.c - a row of the run table explained: every figure it
 * has, then what went wrong in plain words (supervise/diagnose.h), with
 * the compiler's output for the learner's kernel. */
#include "tui/tui_app.h"

#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "lab/labproblem.h"
#include "tui/tui_fmt.h"
#include "tui/tui_app_internal.h"
#include "supervise/diag_row.h"
#include "supervise/diagnose.h"

static bool row_failed(const tui_row *row)
{
    return row->state == ROW_FAULT ||
           (row->has_result && row->r.status != RS_CORRECT);
}

/* True when row is the learner's kernel and its message is a compiler's
 * "file:line:col: error: message [(and N more errors)]" (diag_row_compile);
 * fills the compile fields of in when not NULL, the strings in text. */
static bool compile_failure(const tui_row *row, diag_input *in, char *text, size_t n)
{
    diag_input scratch;
    char spare[768];
    if (!row->has_result)
        return false;
    if (!in) {
        in = &scratch;
        text = spare;
        n = sizeof spare;
    }
    return diag_row_compile(&row->r, in, text, n);
}

/* The timing of a measured row: median and spread, rates, share of the
 * peak and speedups, appended to b (n bytes) at at; returns the new at. */
static size_t describe_timing(bool ascii, const run_result *r, char *b, size_t n, size_t at)
{
    char t[TUI_FMT_MAX], x1[TUI_FMT_MAX], x2[TUI_FMT_MAX], x3[TUI_FMT_MAX];
    at = strfmt_append(b, n, at, "Median %s %s over %d timed runs", tui_fmt_time_ms(r->median_ms, ascii, t, sizeof t),
                tui_fmt_spread(r->spread, ascii, x1, sizeof x1), r->samples);
    at = strfmt_append(b, n, at, " (fastest %s, slowest %s)\n", tui_fmt_time_ms(r->min_ms, ascii, x2, sizeof x2),
                tui_fmt_time_ms(r->max_ms, ascii, x3, sizeof x3));
    if (r->gbps >= 0)
        at = strfmt_append(b, n, at, "Bandwidth %s\n", tui_fmt_rate(r->gbps, -1, t, sizeof t));
    if (r->tflops >= 0)
        at = strfmt_append(b, n, at, "Arithmetic %s\n", tui_fmt_rate(-1, r->tflops, t, sizeof t));
    if (r->pct_peak_measured >= 0 || r->pct_peak_theory >= 0)
        at = strfmt_append(b, n, at, "%s of the measured peak, %s of the datasheet peak\n",
                    units_pct(r->pct_peak_measured, x1, sizeof x1),
                    units_pct(r->pct_peak_theory, x2, sizeof x2));
    at = strfmt_append(b, n, at, "Speedup: %s over the CPU, %s over the multi-threaded CPU, %s over the library\n",
                tui_fmt_speedup(r->speedup_cpu, x1, sizeof x1),
                tui_fmt_speedup(r->speedup_cpu_mt, x2, sizeof x2),
                tui_fmt_speedup(r->speedup_lib, x3, sizeof x3));
    return at;
}

/* Every figure of a row with a result, appended to b (n bytes) at at;
 * returns the new at. */
static size_t describe_result(bool ascii, const tui_row *row, char *b, size_t n, size_t at)
{
    const run_result *r = &row->r;
    at = strfmt_append(b, n, at, "Result: %s\n", result_status_text(r->status));
    if (r->median_ms > 0)
        at = describe_timing(ascii, r, b, n, at);
    if (r->kind == RK_CPU || r->kind == RK_CPU_MT)
        at = strfmt_append(b, n, at, "CPU threads: %d\n", r->threads);
    if (r->status != RS_ERROR && r->status != RS_FAULT)
        at = strfmt_append(b, n, at, "Relative error %.3g against the double-precision reference\n", r->rel_err);
    for (int k = 0; k < r->nmismatch && k < RUN_MAX_MISMATCH; k++)
        at = strfmt_append(b, n, at, "  element %lld: got %.9g, expected %.9g\n", (long long)r->mismatches[k].index,
                    r->mismatches[k].got, r->mismatches[k].expected);
    if (r->seed)
        at = strfmt_append(b, n, at, "Inputs from seed %llu\n", (unsigned long long)r->seed);
    if (r->message[0] && !compile_failure(row, NULL, NULL, 0))
        at = strfmt_append(b, n, at, "%s\n", r->message);
    return at;
}

/* What went wrong with a failed row, in plain words (supervise/diagnose.h),
 * with the compiler's output for the learner's kernel, appended to b (n
 * bytes) at at; returns the new at. */
static size_t describe_failure(const tui_app *a, const lab *l, const tui_row *row, char *b,
                               size_t n, size_t at)
{
    diag_input in;
    diagnosis d;
    char cfile[768];
    const char *log = a->ls[a->sel].compile_log;
    diag_input_init(&in);
    if (row->has_result)
        diag_input_from_result(&in, &row->r);
    if (row->state == ROW_FAULT) {
        in.fault_cause = row->fault_cause[0] ? row->fault_cause : "exit";
        in.fault_message = row->note;
        /* the row the fault struck: a time limit on a lab's own row or a
         * CPU baseline is not the learner's kernel's doing */
        in.fault_variant = row->kind == RK_EXERCISE ? "exercise" : row->variant;
    }
    const lab_exercise *ex = row->exercise[0] ? lab_exercise_find(l, row->exercise) : NULL;
    in.spec = lab_problem_spec(l, ex ? ex->problem : l->problem);
    in.time_limit_s = a->time_limit_s > 0 ? a->time_limit_s : l->time_limit_s;
    compile_failure(row, &in, cfile, sizeof cfile);
    diagnose(&in, &d);
    if (d.cause != DIAG_NONE) {
        at = strfmt_append(b, n, at, "\n%s\n", d.title);
        if (d.where[0])
            at = strfmt_append(b, n, at, "at %s\n", d.where);
        if (d.cause == DIAG_COMPILE && log[0])
            at = strfmt_append(b, n, at, "\nWhat the compiler said:\n%s\n", log);
        if (d.explanation[0])
            at = strfmt_append(b, n, at, "%s\n", d.explanation);
        if (d.next_step[0])
            at = strfmt_append(b, n, at, "Next: %s\n", d.next_step);
    }
    if (row->kind == RK_EXERCISE && log[0] && d.cause != DIAG_COMPILE)
        at = strfmt_append(b, n, at, "\nWhat the compiler said:\n%s", log);
    return at;
}

/* The details overlay's text for a row: every figure, then what went wrong
 * in plain words when something did. */
void tui_app_describe_row(tui_app *app, const lab *the_lab, const tui_row *row)
{
    static const char *const states[] = {"not run yet: press r to run it", "queued", "running",
                                         "done", "the worker failed on it", "not run"};
    char *b = app->details;
    size_t n = sizeof app->details, at = 0;
    snprintf(app->details_title, sizeof app->details_title, "%s at size %s", row->label, row->size);
    if (!row->has_result) {
        at = strfmt_append(b, n, at, "%s\n", states[row->state]);
        if (row->note[0])
            at = strfmt_append(b, n, at, "%s\n", row->note);
    } else {
        at = describe_result(app->ascii, row, b, n, at);
    }
    if (row_failed(row))
        at = describe_failure(app, the_lab, row, b, n, at);
    if (app->ls[app->sel].ncu_text[0] && strcmp(app->ls[app->sel].ncu_variant, row->variant) == 0 &&
        strcmp(app->ls[app->sel].ncu_size, row->size) == 0)
        at = strfmt_append(b, n, at, "\n%s", app->ls[app->sel].ncu_text);
    (void)at;
}

unsigned tui_app_row_details(tui_app *app)
{
    const tui_row *row = tui_app_cursor_row(app);
    const lab *l = tui_app_lab(app);
    if (!row || !l)
        return 0;
    tui_app_describe_row(app, l, row);
    app->details_md = false;
    app->details_scroll = 0;
    app->overlay = TUI_OV_DETAILS;
    return TUI_F_REDRAW;
}

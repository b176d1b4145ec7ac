/* tui_runtable.h - the rows of the run table and how their cells read.
 *
 * One row per (variant, size): the CPU baselines, the vendor library, each
 * shipped variant and the learner's exercise.  Rows are announced when a run
 * starts (queued), follow the worker's progress (running, repetition k of
 * n), and end with a result, a fault or "not run".  Results stay after the
 * run, so switching sizes shows what was measured there.
 *
 * A lab of several exercises (lab/labmodel.h) keeps each exercise's rows
 * apart: a row belongs to the exercise its request measured (the row's
 * `exercise`, "" for the lab's own rows), and the table's `scope` names the
 * exercise the learner has picked.  Lookups by name and the views address
 * the rows of that exercise, and the lab's own shipped-kernel rows (its
 * rungs and experiments), which every exercise shows. */
#ifndef CUDALAB_TUI_RUNTABLE_H
#define CUDALAB_TUI_RUNTABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "tui/tui_theme.h"
#include "result/record.h"

typedef enum tui_row_state {
    ROW_IDLE,       /* never run */
    ROW_QUEUED,
    ROW_RUNNING,
    ROW_DONE,       /* has a result */
    ROW_FAULT,      /* the worker died or timed out on it */
    ROW_SKIPPED,    /* the run ended before it */
} tui_row_state;

typedef struct tui_row {
    char exercise[RUN_ID_MAX];   /* the exercise whose request measured it; "" the lab's */
    char variant[RUN_ID_MAX];
    char label[RUN_ID_MAX];
    char size[RUN_SIZE_MAX];
    result_kind kind;
    tui_row_state state;
    int rep, of;
    char phase[32];
    bool has_result;
    run_result r;
    char note[256];          /* fault or skip reason */
    char fault_cause[64];    /* "timeout", "signal", ... when the worker failed on it */
    unsigned seq;            /* order of first appearance */
    double recorded_at;      /* from the progress store (Unix time); 0: measured now */
} tui_row;

typedef struct tui_runtable {
    tui_row *v;
    size_t n, cap;
    unsigned next_seq;
    char scope[RUN_ID_MAX];      /* the exercise picked; "" the lab's own */
} tui_runtable;

typedef enum tui_runcol {
    RC_VARIANT, RC_TIME, RC_RATE, RC_PEAK, RC_XCPU, RC_XLIB, RC_CHECK, RC_COUNT
} tui_runcol;

typedef struct tui_colspec {
    tui_runcol id;
    int x, w;
    bool right;              /* right-aligned */
} tui_colspec;

void tui_runtable_free(tui_runtable *table);
/* The kind a row id implies: "cpu", "cpu_mt", "exercise", a library name
 * ("cub", "cublas", "copy"), else a shipped kernel. */
result_kind tui_runtable_kind_of(const char *variant, const char *library);
/* Finds the row for (variant, size) in scope, or NULL. */
tui_row *tui_runtable_find(tui_runtable *table, const char *variant, const char *size);
/* The row of exercise ex for (variant, size), or NULL. */
tui_row *tui_runtable_find_in(tui_runtable *table, const char *ex, const char *variant,
                              const char *size);
/* Marks (variant, size) queued, adding the row if new; a previous result is
 * dropped.  false + err when out of memory. */
bool tui_runtable_expect(tui_runtable *table, const char *variant, const char *label,
                         result_kind kind, const char *size, cl_err *err);
/* Applies a progress message: that row (of the message's exercise) runs;
 * adds it when unknown. */
bool tui_runtable_progress(tui_runtable *table, const run_progress *progress, const char *library,
                           cl_err *err);
/* Stores a result in its row (of the result's exercise; added when unknown). */
bool tui_runtable_result(tui_runtable *table, const run_result *result, cl_err *err);
/* A fault ends the running row (or, with no running row, the row named by
 * the fault at size) with the fault's message. */
void tui_runtable_fault(tui_runtable *table, const run_fault *fault, const char *size);
/* The run ended: rows still queued or running become "not run". */
void tui_runtable_finish(tui_runtable *table, const char *why);
/* A new run at size starts: rows an earlier run left "not run" there go
 * back to never run, so no stale note remains. */
void tui_runtable_forget_skipped(tui_runtable *table, const char *size);
/* Exercise ex's own rows (its kernel's) back to never run: after a reset
 * their figures and errors belong to code that is gone. */
void tui_runtable_forget_exercise(tui_runtable *table, const char *ex);
/* Indices of the rows at size in display order (CPU, multi-threaded CPU,
 * library, kernels in the order first seen, exercise).  Returns how many. */
size_t tui_runtable_view(const tui_runtable *table, const char *size, size_t *idx, size_t max);
/* The rows at size as tui_runtable_view orders them, after the rows whose
 * size is none of own[0..nown) (measurements with sizes of their own, such
 * as the profiling experiments'), which come in the order first seen. */
size_t tui_runtable_view_own(const tui_runtable *table, const char *size, const char *const *own,
                             size_t nown, size_t *idx, size_t max);
/* Drops the row for (variant, size); false when there was none. */
bool tui_runtable_remove(tui_runtable *table, const char *variant, const char *size);
/* Copies every row that has a result into out; returns how many. */
size_t tui_runtable_results(const tui_runtable *table, run_result *out, size_t max);
/* True when some variant of the table's scope has results at two sizes or
 * more: its rows sweep sizes (the by-size view plots those that ran correctly). */
bool tui_runtable_swept(const tui_runtable *table);

/* Picks the columns that fit in width (narrowest first to go: x lib, % peak,
 * rate) with their positions; returns how many, in display order. */
int tui_runtable_columns(int width, tui_colspec *out);
/* The column's heading, shortened to fit width columns where needed. */
const char *tui_runtable_colname(tui_runcol col, int width);
/* The text of one cell (width columns wide at most) and the role to draw it
 * in.  spin is the animation frame for the running row. */
void tui_runtable_cell(const tui_row *row, tui_runcol col, int width, bool ascii, unsigned spin,
                       char *buf, size_t buf_size, tui_role *role);

#endif

/* prep_check.h - is a step's output right?
 *
 * Each step writes a few outputs (prep_out), each a column or a small
 * array of a prep_state.  A check compares every element of a step's
 * outputs with its expected value, derived from the step's inputs and the
 * reference (prep_ref.h):
 *
 *   exactly   the medians, the filled columns, the row count, the kept
 *             rows, the copied columns, hour and day of week, the edges
 *             and bins, the counts, the one-hot columns;
 *   within PREP_TOL   log1p, means and deviations, z-scores, zone
 *             frequencies, zone means and the linear layer's outputs: an
 *             element is wrong when |got - expected| > PREP_TOL x
 *             max(|expected|, rms of its column), and a column is wrong
 *             when its relative error (2-norm) exceeds PREP_TOL.
 *
 * Outputs are poisoned before a run (CHECK_POISON_BITS, also as an int),
 * so an element never written reads as unwritten.  Where the outputs live
 * (host memory, or a device the engine downloads from) is the caller's:
 * prep_check_step asks a prep_src for one column at a time. */
#ifndef CUDALAB_CPU_PREP_CHECK_H
#define CUDALAB_CPU_PREP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "cpu/check.h"
#include "cpu/prep_ref.h"
#include "cpu/prep_state.h"

#define PREP_TOL 1e-4

typedef enum prep_out {
    PO_MEDIAN,        /* PREP_NUM floats */
    PO_FILLED,        /* column c of PREP_NUM, n floats */
    PO_COUNT,         /* one int: m */
    PO_KEPT_NUM,      /* column c, m floats */
    PO_KEPT_TS,       /* m ints */
    PO_KEPT_PAY,
    PO_KEPT_ZONE,
    PO_KEPT_LABEL,    /* m floats */
    PO_T,             /* column c, m floats */
    PO_STATS,         /* 2 PREP_NUM floats: means, then deviations */
    PO_EDGES,         /* PREP_EDGES floats */
    PO_COUNTS,        /* PREP_ZONES ints */
    PO_GMEAN,         /* PREP_ZONES floats */
    PO_X,             /* column j of PREP_FEATURES, m floats */
    PO_Y,             /* column j of PREP_HIDDEN, m floats */
    PO_NKINDS
} prep_out;

typedef struct prep_col {
    prep_out what;
    int col;
} prep_col;

#define PREP_MAX_OUTS 40

/* The outputs of step (none for load), in the order they are checked; returns
 * how many. */
int prep_step_outputs(prep_step step, prep_col *out);
/* Whether an output holds ints (else floats), and how many elements it
 * has for n rows of which m are kept. */
bool prep_out_is_int(prep_out out);
int64_t prep_out_count(prep_out out, int64_t rows, int64_t kept);
/* Its name in messages: "median", "filled[fare]", "kept_zone", "X[z_tip]", "Y[3]", ... */
void prep_col_name(prep_col col, char *buf, size_t buf_size);
/* Where output col lies in a host state (and its first element). */
void *prep_state_col(const prep_state *st, prep_col col);

/* Where a check reads the outputs: get returns a pointer to count
 * elements of c (it may copy them into buf, room for count elements),
 * or NULL with e set. */
typedef struct prep_src {
    const void *(*get)(void *ud, prep_col col, int64_t count, void *buf, cl_err *err);
    void *ud;
} prep_src;
/* A source reading a host state. */
prep_src prep_src_state(const prep_state *st);

/* The outcome of a check: the report of the column it is about (the
 * first wrong one, or when all are right the one with the largest relative
 * error), its name, and how many values were checked in all. */
typedef struct prep_report {
    check_report c;
    char column[48];
    int64_t total;
    int columns;
} prep_report;

/* Bytes of the buffer a check reads one output into (the longest output:
 * a column, or the per-zone arrays). */
size_t prep_check_buf_bytes(int64_t rows);
/* Checks the outputs of step read from src against the reference ref and the
 * inputs in in; buf has prep_check_buf_bytes(n) bytes.  The report is about
 * the first column that is wrong (or, when all are right, the largest
 * relative error).  false + err when src failed. */
bool prep_check_step(const prep_ref *ref, const prep_state *in, prep_step step, const prep_src *src,
                     void *buf, int threads, prep_report *out, cl_err *err);
/* Every output of fill to gemm, as after a whole run of the pipeline. */
bool prep_check_all(const prep_ref *ref, const prep_state *in, const prep_src *src, void *buf,
                    int threads, prep_report *out, cl_err *err);
/* "wrong: X[z_tip]: 12 of 1000000 checked differ; first at [17]: got 0.51,
 * expected 0.52 (rel err ...)", or "ok: 3086 values in 10 outputs checked,
 * largest rel err 2.1e-08 (X[z_tip])". */
void prep_report_describe(const prep_report *report, char *buf, size_t buf_size);

/* Poisons the outputs of step which_step in a host state (PREP_NSTEPS:
 * every step's). */
void prep_poison_state(prep_state *st, prep_step which_step);

#endif

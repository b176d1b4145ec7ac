/* prep_ref.h - the pipeline's double-precision reference.
 *
 * For each step, what its outputs must be, computed from that step's
 * inputs in a state (the "canonical" inputs every implementation of the
 * step is given) by a second, plain implementation: medians and quantile
 * edges by histogram selection on exact keys (prep_algo.h), the kept rows
 * as a list of row numbers, means and standard deviations in double over
 * two passes, counts and per-zone sums in double.  The expected value of
 * every output element follows from these and the inputs (prep_check.h). */
#ifndef CUDALAB_CPU_PREP_REF_H
#define CUDALAB_CPU_PREP_REF_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "cpu/prep_state.h"

typedef struct prep_ref {
    int64_t n;
    float median[PREP_NUM];           /* fill */
    int64_t m;                        /* filter: rows kept ... */
    int32_t *idx;                     /* ... and which (n at most) */
    double mean[PREP_NUM], sd[PREP_NUM];   /* standardize */
    float edges[PREP_EDGES];          /* binning */
    int32_t *counts;                  /* encode: PREP_ZONES */
    double *gmean;                    /* groupby: PREP_ZONES */
} prep_ref;

bool prep_ref_new(prep_ref *ref, int64_t rows, cl_err *err);
void prep_ref_free(prep_ref *ref);

/* The reference of step from its inputs in in (load, transform and gemm need
 * none: their outputs follow from their inputs alone). */
void prep_ref_step(prep_ref *ref, const prep_state *in, prep_step step, int threads);
/* Every step's, in order. */
void prep_ref_all(prep_ref *ref, const prep_state *in, int threads);

#endif

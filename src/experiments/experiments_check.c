#include "experiments/experiments.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "cpu/check.h"
#include "experiments/experiments_internal.h"

#define X_CHECK_SAMPLES 4096

/* Compares got[0..n) with want[0..n) bit for bit; the row's status and
 * message say how it went. */
void experiments_check_exact(run_result *row, const float *got, const float *want, size_t count)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < count; i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0) {
            if (bad == 0)
                first = i;
            bad++;
        }
    if (bad == 0) {
        row->status = RS_CORRECT;
        row->rel_err = 0.0;
        return;
    }
    row->status = isnan(got[first]) ? RS_UNWRITTEN : RS_WRONG;
    row->nmismatch = 1;
    row->mismatches[0].index = (int64_t)first;
    row->mismatches[0].got = (double)got[first];
    row->mismatches[0].expected = (double)want[first];
    engine_row_note(row, "%zu of %zu elements differ; first at [%zu]: got %g, expected %g", bad,
                    count, first, (double)got[first], (double)want[first]);
}

void experiments_check_report_row(run_result *row, const check_report *check)
{
    row->rel_err = check->rel_err;
    row->status = check->status == CHECK_OK          ? RS_CORRECT
                  : check->status == CHECK_UNWRITTEN ? RS_UNWRITTEN
                  : check->status == CHECK_NONFINITE ? RS_NAN
                                                     : RS_WRONG;
    row->nmismatch = check->nmismatch < RUN_MAX_MISMATCH ? check->nmismatch : RUN_MAX_MISMATCH;
    for (int i = 0; i < row->nmismatch; i++) {
        row->mismatches[i].index = check->mismatch[i].index;
        row->mismatches[i].got = check->mismatch[i].got;
        row->mismatches[i].expected = check->mismatch[i].expected;
    }
    if (check->status != CHECK_OK) {
        char d[256];
        check_describe(check, d, sizeof d);
        engine_row_note(row, "%s", d);
    }
}

/* The FMA chain of prof_fma for one element, in the same order. */
static float fma_ref(float v, int iters)
{
    float a0 = v, a1 = v + 1.0f, a2 = v + 2.0f, a3 = v + 3.0f;
    for (int k = 0; k < iters; k++) {
        a0 = fmaf(a0, 0.5f, v);
        a1 = fmaf(a1, 0.5f, v);
        a2 = fmaf(a2, 0.5f, v);
        a3 = fmaf(a3, 0.5f, v);
    }
    return (a0 + a1) + (a2 + a3);
}

/* Checks X_CHECK_SAMPLES spread elements of a prof_fma output (and the
 * whole output for unwritten elements). */
void experiments_check_fma(run_result *row, const float *in, const float *out, size_t count,
                           int iters, uint64_t seed)
{
    size_t m = count < X_CHECK_SAMPLES ? count : X_CHECK_SAMPLES;
    int64_t *idx = malloc(m * sizeof *idx);
    double *ref = malloc(m * sizeof *ref);
    if (!idx || !ref) {
        engine_row_error(row, "out of host memory for the check");
        goto cleanup;
    }
    rng g;
    rng_seed(&g, seed ^ 0x9e3779b97f4a7c15ull);
    for (size_t k = 0; k < m; k++) {
        size_t i = k == 0 ? 0 : k == m - 1 ? count - 1 : (size_t)(rng_next(&g) % count);
        idx[k] = (int64_t)i;
        ref[k] = (double)fma_ref(in[i], iters);
    }
    check_report c = check_compare(out, count, ref, idx, m, 1e-6);
    experiments_check_report_row(row, &c);
cleanup:
    free(idx);
    free(ref);
}

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
void experiments_check_exact(run_result *r, const float *got, const float *want, size_t n)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0) {
            if (bad == 0)
                first = i;
            bad++;
        }
    if (bad == 0) {
        r->status = RS_CORRECT;
        r->rel_err = 0.0;
        return;
    }
    r->status = isnan(got[first]) ? RS_UNWRITTEN : RS_WRONG;
    r->nmismatch = 1;
    r->mismatches[0].index = (int64_t)first;
    r->mismatches[0].got = (double)got[first];
    r->mismatches[0].expected = (double)want[first];
    engine_row_note(r, "%zu of %zu elements differ; first at [%zu]: got %g, expected %g", bad,
                    n, first, (double)got[first], (double)want[first]);
}

void experiments_check_report_row(run_result *r, const check_report *c)
{
    r->rel_err = c->rel_err;
    r->status = c->status == CHECK_OK          ? RS_CORRECT
                : c->status == CHECK_UNWRITTEN ? RS_UNWRITTEN
                : c->status == CHECK_NONFINITE ? RS_NAN
                                               : RS_WRONG;
    r->nmismatch = c->nmismatch < RUN_MAX_MISMATCH ? c->nmismatch : RUN_MAX_MISMATCH;
    for (int i = 0; i < r->nmismatch; i++) {
        r->mismatches[i].index = c->mismatch[i].index;
        r->mismatches[i].got = c->mismatch[i].got;
        r->mismatches[i].expected = c->mismatch[i].expected;
    }
    if (c->status != CHECK_OK) {
        char d[256];
        check_describe(c, d, sizeof d);
        engine_row_note(r, "%s", d);
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
void experiments_check_fma(run_result *r, const float *in, const float *out, size_t n, int iters,
                           uint64_t seed)
{
    size_t m = n < X_CHECK_SAMPLES ? n : X_CHECK_SAMPLES;
    int64_t *idx = malloc(m * sizeof *idx);
    double *ref = malloc(m * sizeof *ref);
    if (!idx || !ref) {
        engine_row_error(r, "out of host memory for the check");
        goto cleanup;
    }
    rng g;
    rng_seed(&g, seed ^ 0x9e3779b97f4a7c15ull);
    for (size_t k = 0; k < m; k++) {
        size_t i = k == 0 ? 0 : k == m - 1 ? n - 1 : (size_t)(rng_next(&g) % n);
        idx[k] = (int64_t)i;
        ref[k] = (double)fma_ref(in[i], iters);
    }
    check_report c = check_compare(out, n, ref, idx, m, 1e-6);
    experiments_check_report_row(r, &c);
cleanup:
    free(idx);
    free(ref);
}

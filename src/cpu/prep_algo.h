/* prep_algo.h - the algorithms under the pipeline's CPU steps.
 *
 * Floats are ordered through their keys: prep_key maps a float to an
 * unsigned integer whose order is the float's (-0 before +0, NaN after
 * +inf), so selection and sorting run on integers and the order is exact.
 * The fast paths here are the baselines' (quickselect, a radix sort, a
 * vectorised log1p, a skinny matrix product); the histogram selection is
 * the reference's, a different algorithm reaching the same exact answer. */
#ifndef CUDALAB_CPU_PREP_ALGO_H
#define CUDALAB_CPU_PREP_ALGO_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t prep_key(float f)
{
    uint32_t u;
    __builtin_memcpy(&u, &f, 4);
    return u ^ ((u >> 31) ? 0xffffffffu : 0x80000000u);
}

static inline float prep_unkey(uint32_t k)
{
    uint32_t u = k ^ ((k >> 31) ? 0x80000000u : 0xffffffffu);
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
}

/* The k-th smallest (from 0) of v[0..n), k < n; v is reordered. */
uint32_t prep_select(uint32_t *v, size_t n, size_t k);

/* Sorts keys[0..n) ascending (LSD radix, three passes of 11 bits) using tmp
 * (n more); returns where the sorted keys are (tmp).  threads > 1: each
 * pass counted and scattered by that many threads. */
uint32_t *prep_radix_sort(uint32_t *keys, uint32_t *tmp, size_t n, int threads);

/* Keys of rank[0..nr) (each < the count of non-NaN values) among the
 * non-NaN floats of v[0..n), by two passes of 16-bit histograms on
 * threads threads.  nr <= 16.  The reference's selection. */
void prep_hist_select(const float *v, size_t n, const size_t *rank, int nr, uint32_t *out,
                      int threads);

/* y[i] = min(max(log1p(x[i]), 0), hi) for x[i] > -1, vectorised (a
 * polynomial logarithm, within 2 units in the last place). */
void prep_log1p_clip(const float *x, float *y, size_t n, float hi);

/* Rows [r0, r1) of Y = X W: X has PREP_FEATURES columns and Y
 * PREP_HIDDEN, both column-major with leading dimension ld; w as
 * prep_weights.  Eight rows at a time in vector registers. */
void prep_gemm_rows(const float *X, int64_t ld, const float *w, float *Y, int64_t r0, int64_t r1);

#endif

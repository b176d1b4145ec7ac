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

static inline uint32_t prep_key(float value)
{
    uint32_t u;
    __builtin_memcpy(&u, &value, 4);
    return u ^ ((u >> 31) ? 0xffffffffu : 0x80000000u);
}

static inline float prep_unkey(uint32_t key)
{
    uint32_t u = key ^ ((key >> 31) ? 0x80000000u : 0xffffffffu);
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
}

/* The rank-th smallest (from 0) of keys[0..count), rank < count; keys is
 * reordered. */
uint32_t prep_select(uint32_t *keys, size_t count, size_t rank);

/* Sorts keys[0..count) ascending (LSD radix, three passes of 11 bits) using
 * tmp (count more); returns where the sorted keys are (tmp).  threads > 1:
 * each pass counted and scattered by that many threads. */
uint32_t *prep_radix_sort(uint32_t *keys, uint32_t *tmp, size_t count, int threads);

/* Keys of rank[0..nr) (each < the count of non-NaN values) among the non-NaN
 * floats of values[0..count), by two passes of 16-bit histograms on threads
 * threads.  nr <= 16.  The reference's selection. */
void prep_hist_select(const float *values, size_t count, const size_t *rank, int nr, uint32_t *out,
                      int threads);

/* out[i] = min(max(log1p(in[i]), 0), hi) for in[i] > -1, vectorised (a
 * polynomial logarithm, within 2 units in the last place). */
void prep_log1p_clip(const float *in, float *out, size_t count, float hi);

/* Rows [r0, r1) of hidden = features weights: features has PREP_FEATURES
 * columns and hidden PREP_HIDDEN, both column-major with leading dimension
 * ld; weights as prep_weights.  Eight rows at a time in vector registers. */
void prep_gemm_rows(const float *features, int64_t ld, const float *weights, float *hidden,
                    int64_t r0, int64_t r1);

#endif

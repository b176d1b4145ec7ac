/* pipeline.h - the profiling lab's preprocessing step on the CPU.
 *
 * A table of rows x feats float32 values, row-major (element (r, c) at
 * r * feats + c), is standardised column by column and clipped:
 *   mean_c   = (1/rows) sum_r x(r, c)
 *   var_c    = (1/rows) sum_r (x(r, c) - mean_c)^2        (population variance)
 *   out(r, c) = clamp((x(r, c) - mean_c) / sqrt(var_c), -PIPELINE_CLIP, PIPELINE_CLIP)
 * and out(r, c) = 0 in a column whose variance is 0.
 *
 * cpu_pipeline is the fast baseline: one pass for the column sums (float
 * loads, double accumulators, vectorised across a row's columns), one pass
 * for the transform; cpu_pipeline_mt splits both passes over threads.
 * ref_pipeline is the double-precision reference (two passes: mean, then
 * squared deviations). */
#ifndef CUDALAB_CPU_PIPELINE_H
#define CUDALAB_CPU_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PIPELINE_CLIP 3.0
/* Most columns a table may have (the column tables live on the stack). */
#define PIPELINE_MAX_FEATURES 4096

/* Fills x (rows x feats) with seeded values: each column has its own
 * offset in [-100, 100] and scale in [0.5, 20] around a logistic
 * distribution of unit variance, so about 1% of the values lie beyond 3
 * standard deviations and are clipped.  Deterministic for (seed, rows,
 * feats) whatever the thread count. */
void pipeline_inputs(float *x, size_t rows, size_t feats, uint64_t seed);

/* Column means and standard deviations (population) in double, two passes.
 * false when out of memory. */
bool pipeline_column_stats(const float *in, size_t rows, size_t feats, double *mean,
                           double *stdev);

/* The baseline on one thread, into out.  false (out untouched) only when
 * feats is above PIPELINE_MAX_FEATURES. */
bool cpu_pipeline(const float *in, float *out, size_t rows, size_t feats);
/* Same, over threads pthreads (threads <= 0: cpu_thread_count()). */
bool cpu_pipeline_mt(const float *in, float *out, size_t rows, size_t feats, int threads);

/* The reference in double into out (rows x feats); multi-threaded, and
 * the same for every thread count.  false when out of memory. */
bool ref_pipeline(const float *in, double *out, size_t rows, size_t feats);

#endif

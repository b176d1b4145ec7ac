/* reduce.h - sum of a float array: fast CPU baselines and a double reference. */
#ifndef CUDALAB_CPU_REDUCE_H
#define CUDALAB_CPU_REDUCE_H

#include <stddef.h>

/* Sum of values[0..count), vectorised on one thread (float lanes, many
 * accumulators). */
float cpu_reduce_sum(const float *values, size_t count);
/* Same, split over `threads` pthreads (threads <= 0: cpu_thread_count()). */
float cpu_reduce_sum_mt(const float *values, size_t count, int threads);
/* Accurate sum: compensated (Neumaier) summation in double over four
 * interleaved lanes.  Error about 1e-16 x |sum| + count x 1e-32 x
 * sum |values|. */
double ref_reduce_sum(const float *values, size_t count);

#endif

/* scan.h - the inclusive prefix sum on the CPU: the baseline (one thread,
 * and several) and the double-precision reference. */
#ifndef CUDALAB_CPU_SCAN_H
#define CUDALAB_CPU_SCAN_H

#include <stddef.h>

/* out[i] = x[0] + ... + x[i], stored in float and summed in double, on one
 * thread. */
void cpu_scan(const float *x, float *out, size_t n);
/* The same over `threads` threads (threads <= 0: cpu_thread_count()):
 * each sums its slice, the slice totals are scanned, then each scans its
 * slice from its offset. */
void cpu_scan_mt(const float *x, float *out, size_t n, int threads);
/* The reference: out[i] = x[0] + ... + x[i] summed in double. */
void ref_scan(const float *x, double *out, size_t n);

#endif

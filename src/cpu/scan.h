/* scan.h - the inclusive prefix sum on the CPU: the baseline (one thread,
 * and several) and the double-precision reference. */
#ifndef CUDALAB_CPU_SCAN_H
#define CUDALAB_CPU_SCAN_H

#include <stddef.h>

/* out[i] = in[0] + ... + in[i], stored in float and summed in double, on one
 * thread. */
void cpu_scan(const float *in, float *out, size_t count);
/* The same over `threads` threads (threads <= 0: cpu_thread_count()):
 * each sums its slice, the slice totals are scanned, then each scans its
 * slice from its offset. */
void cpu_scan_mt(const float *in, float *out, size_t count, int threads);
/* The reference: out[i] = in[0] + ... + in[i] summed in double. */
void ref_scan(const float *in, double *out, size_t count);

#endif

/* sgemm.h - row-major C = A x B with A MxK, B KxN, C MxN (no strides, no alpha/beta). */
#ifndef CUDALAB_CPU_SGEMM_H
#define CUDALAB_CPU_SGEMM_H

#include <stdint.h>

/* Cache-blocked, packed, vectorised with an FMA micro-kernel; one thread.
 * Dimensions <= 0 leave C untouched (K == 0 with M,N > 0 writes zeros). */
void cpu_sgemm(int M, int N, int K, const float *A, const float *B, float *C);
/* Same, rows of C split over `threads` pthreads (threads <= 0: cpu_thread_count()). */
void cpu_sgemm_mt(int M, int N, int K, const float *A, const float *B, float *C, int threads);
/* C[i][j] computed as a plain dot product in double. */
double ref_sgemm_at(int M, int N, int K, const float *A, const float *B, int64_t i, int64_t j);
/* Rows [r0, r1) of C in double, into C (row-major, N doubles a row): the
 * same sums in the same order as ref_sgemm_at, walked a row of B at a time
 * so that the loads are contiguous.  Rows outside [0, M) are skipped. */
void ref_sgemm_rows(int M, int N, int K, const float *A, const float *B, int64_t r0, int64_t r1,
                    double *C);

#endif

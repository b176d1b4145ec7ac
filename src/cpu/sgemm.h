/* sgemm.h - row-major C = A x B (no strides, no alpha/beta): A (lhs) is
 * rows x inner, B (rhs) inner x cols, C (out) rows x cols. */
#ifndef CUDALAB_CPU_SGEMM_H
#define CUDALAB_CPU_SGEMM_H

#include <stdint.h>

/* Cache-blocked, packed, vectorised with an FMA micro-kernel; one thread.
 * Dimensions <= 0 leave out untouched (inner == 0 with rows, cols > 0 writes
 * zeros). */
void cpu_sgemm(int rows, int cols, int inner, const float *lhs, const float *rhs, float *out);
/* Same, rows of out split over `threads` pthreads (threads <= 0:
 * cpu_thread_count()). */
void cpu_sgemm_mt(int rows, int cols, int inner, const float *lhs, const float *rhs, float *out,
                  int threads);
/* out[row][col] computed as a plain dot product in double. */
double ref_sgemm_at(int rows, int cols, int inner, const float *lhs, const float *rhs, int64_t row,
                    int64_t col);
/* Rows [r0, r1) of the product in double, into out (row-major, cols doubles a
 * row): the same sums in the same order as ref_sgemm_at, walked a row of rhs
 * at a time so that the loads are contiguous.  Rows outside [0, rows) are
 * skipped. */
void ref_sgemm_rows(int rows, int cols, int inner, const float *lhs, const float *rhs, int64_t r0,
                    int64_t r1, double *out);

#endif

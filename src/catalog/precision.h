/* precision.h - the arithmetic a matrix-multiply row computes in, and the
 * tolerance it is checked with.
 *
 * The sgemm problem's inputs and output are FP32.  A row multiplies them
 * in one of three ways: FP32 on the CUDA cores, or on the tensor cores
 * with the inputs rounded to TF32 or to BF16 (sums in FP32 in both).
 * Every row is compared with the same double-precision product of the FP32
 * inputs, so the error it shows is what its rounding costs; each precision
 * states the tolerance that cost allows. */
#ifndef CUDALAB_CATALOG_PRECISION_H
#define CUDALAB_CATALOG_PRECISION_H

typedef struct gemm_precision {
    const char *name;        /* "fp32", "tf32", "bf16" */
    const char *label;       /* "FP32", "TF32", "BF16" */
    int fraction_bits;       /* stored fraction bits of a rounded input: 23, 10, 7 */
    double tolerance;        /* relative, against the product of the FP32 inputs */
    const char *why;         /* one line: where the tolerance comes from */
} gemm_precision;

/* The precision called name ("fp32", "tf32", "bf16"); NULL name: FP32.
 * NULL when name is none of them. */
const gemm_precision *gemm_precision_find(const char *name);

#endif

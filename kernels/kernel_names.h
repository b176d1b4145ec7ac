/* kernel_names.h - the shipped launchers by name, without CUDA types.
 *
 * What the parent process may ask of kernels/ (it never includes CUDA
 * headers nor starts the CUDA runtime): whether a name is a shipped
 * launcher and which problem it solves.  Reading the tables starts nothing. */
#ifndef CUDALAB_KERNEL_NAMES_H
#define CUDALAB_KERNEL_NAMES_H

#ifdef __cplusplus
extern "C" {
#endif

/* The problem ("reduce_sum", "sgemm", "embedding", "saxpy", ...) the shipped launcher
 * called name solves; NULL when there is none of that name. */
const char *kernels_problem_of(const char *name);
/* "bf16" when the shipped launcher called name reads BF16 copies of its
 * inputs; NULL for FP32 inputs or an unknown name. */
const char *kernels_inputs_of(const char *name);

#ifdef __cplusplus
}
#endif

#endif

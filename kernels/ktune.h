/* ktune.h - alternative configurations of the fast rungs, for bench/kbench.
 *
 * Not used by the lab engine: the shipped launchers (kernels.h) use the
 * configuration picked from these by measurement (see bench/KERNELS.md).
 * Each entry is a complete launcher with the same contract as the shipped
 * one it varies, named "<rung>[<configuration>]". */
#ifndef CUDALAB_KTUNE_H
#define CUDALAB_KTUNE_H

#include <stdbool.h>

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

const shipped_kernel *kernels_tune_variants(size_t *count);

/* What one kernel of a launcher uses, from the CUDA runtime
 * (cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor). */
typedef struct kernel_resources {
    int registers;           /* per thread */
    int static_smem;         /* bytes of __shared__ arrays */
    int dynamic_smem;        /* bytes asked for at launch */
    int local_bytes;         /* per thread: spills and stack */
    int threads;             /* per block */
    int blocks_per_sm;       /* resident at once on one multiprocessor */
} kernel_resources;

/* The resources of the kernel that the matmul launcher or tuning variant
 * called name runs for an M x N output with 16-byte-aligned rows (the
 * path timed at the lab's sizes).  Starts the CUDA runtime.  false when
 * name is not a matmul launcher with a kernel of its own, or a query
 * failed. */
bool kernels_tune_resources(const char *name, int M, int N, kernel_resources *out);

/* The tuning variant whose configuration the shipped launcher called rung
 * runs for an M x N output with 16-byte-aligned rows, or NULL when it has
 * none among the variants. */
const char *kernels_tune_shipped_as(const char *rung, int M, int N);

const shipped_kernel *reduce_tune_table(size_t *count);
const shipped_kernel *matmul_tune_table(size_t *count);
const shipped_kernel *embedding_tune_table(size_t *count);

#ifdef __cplusplus
}
#endif

#endif

/* ktune.h - alternative configurations of the fast rungs, for bench/kbench.
 *
 * Not used by the lab engine: the shipped launchers (kernels.h) use the
 * configuration picked from these by measurement (see bench/KERNELS.md).
 * Each entry is a complete launcher with the same contract as the shipped
 * one it varies, named "<rung>[<configuration>]". */
#ifndef CUDALAB_KTUNE_H
#define CUDALAB_KTUNE_H

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

const shipped_kernel *kernels_tune_variants(size_t *n);

const shipped_kernel *reduce_tune_table(size_t *n);
const shipped_kernel *matmul_tune_table(size_t *n);
const shipped_kernel *embedding_tune_table(size_t *n);

#ifdef __cplusplus
}
#endif

#endif

/* builtin.h - the code of the computations cudalab knows in C
 * (catalog/builtin.h describes them): for each, the double-precision
 * reference, the CPU baselines, the library on the GPU, and how to call
 * one of its shipped kernels, all on arguments given by role.
 *
 * A declared problem that names a builtin (engine/problem_decl.c) hands
 * its buffers and scalars over by role, in the order of the catalog
 * entry's roles. */
#ifndef CUDALAB_ENGINE_BUILTIN_H
#define CUDALAB_ENGINE_BUILTIN_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "catalog/builtin.h"
#include "core/err.h"
#include "kernels.h"

/* The arguments of one call, by the role's index in the catalog entry. */
typedef struct builtin_args {
    void *host[BUILTIN_MAX_ROLES];     /* buffers in host memory (outputs: the CPU writes here) */
    void *dev[BUILTIN_MAX_ROLES];      /* buffers in device memory */
    double *ref[BUILTIN_MAX_ROLES];    /* outputs: the reference, count doubles */
    size_t count[BUILTIN_MAX_ROLES];   /* buffers: elements */
    double value[BUILTIN_MAX_ROLES];   /* scalars */
} builtin_args;

typedef struct builtin_impl {
    const builtin_desc *desc;
    /* Checks the inputs and computes ref from host (false + err: inputs the
     * computation cannot take, such as an index out of range). */
    bool (*reference)(const builtin_args *args, cl_err *err);
    /* The CPU baseline on threads threads, into the outputs' host memory. */
    void (*cpu)(const builtin_args *args, int threads);
    /* Device scratch the library and the shipped kernels need. */
    size_t (*scratch)(const builtin_args *args);
    /* The library row on the device (NULL: none). */
    cudaError_t (*library)(const builtin_args *args, void *scratch, size_t bytes,
                           cudaStream_t stream);
    /* A shipped kernel of the family (NULL: none). */
    cudaError_t (*shipped)(const shipped_kernel *kernel, const builtin_args *args, void *scratch,
                           size_t bytes, cudaStream_t stream);
} builtin_impl;

/* The code of the builtin called name, or NULL. */
const builtin_impl *builtin_impl_find(const char *name);

#endif

/* builtin.c - the code of the computations cudalab knows in C
 * (engine/builtin.h).  Each entry's roles are in the catalog's order
 * (catalog/builtin.c): the index constants below follow it. */
#include "engine/builtin.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cpu/basics.h"
#include "cpu/embedding.h"
#include "cpu/reduce.h"
#include "cpu/scan.h"
#include "gpu/kernreg.h"

/* ---- sum: input, output, n ------------------------------------------------------------ */

enum { SUM_IN, SUM_OUT, SUM_N };

static bool sum_ref(const builtin_args *a, cl_err *e)
{
    (void)e;
    a->ref[SUM_OUT][0] = ref_reduce_sum(a->host[SUM_IN], a->count[SUM_IN]);
    return true;
}

static void sum_cpu(const builtin_args *a, int threads)
{
    float *out = a->host[SUM_OUT];
    out[0] = threads == 1 ? cpu_reduce_sum(a->host[SUM_IN], a->count[SUM_IN])
                          : cpu_reduce_sum_mt(a->host[SUM_IN], a->count[SUM_IN], threads);
}

static size_t sum_scratch(const builtin_args *a)
{
    return kernels_reduce_scratch_bytes(a->count[SUM_IN]);
}

static cudaError_t sum_shipped(const shipped_kernel *k, const builtin_args *a, void *scratch,
                               size_t bytes, cudaStream_t s)
{
    if (!k->reduce)
        return cudaErrorInvalidValue;
    return k->reduce(a->dev[SUM_IN], a->count[SUM_IN], a->dev[SUM_OUT], scratch, bytes, s);
}

static cudaError_t sum_library(const builtin_args *a, void *scratch, size_t bytes, cudaStream_t s)
{
    const shipped_kernel *k = kernreg_find("cub_sum");
    return k ? sum_shipped(k, a, scratch, bytes, s) : cudaErrorInvalidValue;
}

/* ---- scan: input, output, n ----------------------------------------------------------- */

enum { SCAN_IN, SCAN_OUT, SCAN_N };

static bool scan_ref(const builtin_args *a, cl_err *e)
{
    (void)e;
    ref_scan(a->host[SCAN_IN], a->ref[SCAN_OUT], a->count[SCAN_IN]);
    return true;
}

static void scan_cpu(const builtin_args *a, int threads)
{
    if (threads == 1)
        cpu_scan(a->host[SCAN_IN], a->host[SCAN_OUT], a->count[SCAN_IN]);
    else
        cpu_scan_mt(a->host[SCAN_IN], a->host[SCAN_OUT], a->count[SCAN_IN], threads);
}

static size_t scan_scratch(const builtin_args *a)
{
    return kernels_scan_scratch_bytes(a->count[SCAN_IN]);
}

static cudaError_t scan_library(const builtin_args *a, void *scratch, size_t bytes,
                                cudaStream_t s)
{
    return kernels_cub_scan(a->dev[SCAN_IN], a->dev[SCAN_OUT], a->count[SCAN_IN], scratch, bytes,
                            s);
}

/* ---- saxpy: x, y, z, a, n ------------------------------------------------------------------ */

enum { SAXPY_X, SAXPY_Y, SAXPY_Z, SAXPY_A, SAXPY_N };

static bool saxpy_ref(const builtin_args *a, cl_err *e)
{
    (void)e;
    ref_saxpy(a->count[SAXPY_Z], (float)a->value[SAXPY_A], a->host[SAXPY_X], a->host[SAXPY_Y],
              a->ref[SAXPY_Z]);
    return true;
}

static void saxpy_cpu(const builtin_args *a, int threads)
{
    float alpha = (float)a->value[SAXPY_A];
    if (threads == 1)
        cpu_saxpy(a->count[SAXPY_Z], alpha, a->host[SAXPY_X], a->host[SAXPY_Y], a->host[SAXPY_Z]);
    else
        cpu_saxpy_mt(a->count[SAXPY_Z], alpha, a->host[SAXPY_X], a->host[SAXPY_Y],
                     a->host[SAXPY_Z], threads);
}

static size_t no_scratch(const builtin_args *a)
{
    (void)a;
    return 0;
}

static cudaError_t saxpy_shipped(const shipped_kernel *k, const builtin_args *a, void *scratch,
                                 size_t bytes, cudaStream_t s)
{
    if (!k->saxpy)
        return cudaErrorInvalidValue;
    return k->saxpy(a->count[SAXPY_Z], (float)a->value[SAXPY_A], a->dev[SAXPY_X], a->dev[SAXPY_Y],
                    a->dev[SAXPY_Z], scratch, bytes, s);
}

/* ---- histogram: data, bins, n ------------------------------------------------------------- */

enum { HIST_DATA, HIST_BINS, HIST_N };

static bool hist_ref(const builtin_args *a, cl_err *e)
{
    (void)e;
    uint32_t bins[BASICS_BINS];
    cpu_histogram(a->host[HIST_DATA], (size_t)a->value[HIST_N], bins);
    for (int b = 0; b < BASICS_BINS; b++)
        a->ref[HIST_BINS][b] = (double)bins[b];
    return true;
}

static void hist_cpu(const builtin_args *a, int threads)
{
    if (threads == 1)
        cpu_histogram(a->host[HIST_DATA], (size_t)a->value[HIST_N], a->host[HIST_BINS]);
    else
        cpu_histogram_mt(a->host[HIST_DATA], (size_t)a->value[HIST_N], a->host[HIST_BINS],
                         threads);
}

static cudaError_t hist_shipped(const shipped_kernel *k, const builtin_args *a, void *scratch,
                                size_t bytes, cudaStream_t s)
{
    (void)scratch;
    (void)bytes;
    if (!k->hist)
        return cudaErrorInvalidValue;
    return k->hist(a->dev[HIST_DATA], (size_t)a->value[HIST_N], a->dev[HIST_BINS], s);
}

/* ---- gather: W, idx, out, T, D, V ----------------------------------------------------------- */

enum { GATHER_W, GATHER_IDX, GATHER_OUT, GATHER_T, GATHER_D, GATHER_V };

static bool gather_ref(const builtin_args *a, cl_err *e)
{
    int T = (int)a->value[GATHER_T], D = (int)a->value[GATHER_D], V = (int)a->value[GATHER_V];
    const int32_t *idx = a->host[GATHER_IDX];
    int64_t bad = -1;
    if (!embedding_validate(idx, T, V, &bad))
        return err_set(e, "index %lld is %d, outside the table's rows [0,%d)", (long long)bad,
                       bad >= 0 ? idx[bad] : -1, V);
    const float *W = a->host[GATHER_W];
    for (size_t t = 0; t < (size_t)T; t++)
        for (size_t j = 0; j < (size_t)D; j++)
            a->ref[GATHER_OUT][t * (size_t)D + j] = (double)W[(size_t)idx[t] * (size_t)D + j];
    return true;
}

static void gather_cpu(const builtin_args *a, int threads)
{
    int T = (int)a->value[GATHER_T], D = (int)a->value[GATHER_D];
    if (threads == 1)
        cpu_embedding(a->host[GATHER_W], a->host[GATHER_IDX], a->host[GATHER_OUT], T, D);
    else
        cpu_embedding_mt(a->host[GATHER_W], a->host[GATHER_IDX], a->host[GATHER_OUT], T, D,
                         threads);
}

static cudaError_t gather_shipped(const shipped_kernel *k, const builtin_args *a, void *scratch,
                                  size_t bytes, cudaStream_t s)
{
    (void)scratch;
    (void)bytes;
    if (!k->embed)
        return cudaErrorInvalidValue;
    return k->embed(a->dev[GATHER_W], a->dev[GATHER_IDX], a->dev[GATHER_OUT],
                    (int)a->value[GATHER_T], (int)a->value[GATHER_D], (int)a->value[GATHER_V], s);
}

/* ---- the table --------------------------------------------------------------------------------- */

const builtin_impl *builtin_impl_find(const char *name)
{
    static builtin_impl all[] = {
        {.reference = sum_ref, .cpu = sum_cpu, .scratch = sum_scratch, .library = sum_library,
         .shipped = sum_shipped},
        {.reference = scan_ref, .cpu = scan_cpu, .scratch = scan_scratch,
         .library = scan_library},
        {.reference = saxpy_ref, .cpu = saxpy_cpu, .scratch = no_scratch,
         .shipped = saxpy_shipped},
        {.reference = hist_ref, .cpu = hist_cpu, .scratch = no_scratch, .shipped = hist_shipped},
        {.reference = gather_ref, .cpu = gather_cpu, .scratch = no_scratch,
         .shipped = gather_shipped},
    };
    static const char *const names[] = {"sum", "scan", "saxpy", "histogram", "gather"};
    for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i], name) == 0) {
            all[i].desc = builtin_find(name);
            return all[i].desc ? &all[i] : NULL;
        }
    return NULL;
}

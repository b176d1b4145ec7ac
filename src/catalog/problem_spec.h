/* problem_spec.h - the problems the engine measures, as the parent sees them.
 *
 * CUDA-free facts about each problem written in C (sgemm, gemm_bf16,
 * pipeline, and the basics lab's managed): its name, its vendor baseline,
 * how its size labels read and what they mean (dims), how many bytes and
 * FLOPs one run at a size moves, and the checker's tolerance.  A problem
 * declared in Lua (lab/probdecl.h: a lab's own, or one of lua/problems/)
 * has a spec of the same shape, whose ctx hooks read its declaration.  The engine (engine/problem.h) pairs each
 * spec with the code that makes inputs and runs kernels; the TUI, the CLI,
 * the lab checker and the sanitizer driver read only this. */
#ifndef CUDALAB_CATALOG_PROBLEM_SPEC_H
#define CUDALAB_CATALOG_PROBLEM_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define PROBLEM_MAX_DIMS 4

typedef struct problem_dims {
    int64_t dim[PROBLEM_MAX_DIMS];  /* a declared problem's dims, in its order */
    int ndims;
    int64_t n;        /* managed: elements; a declared problem: its first dim */
    int M, N, K;      /* sgemm: C is M x N, A is M x K, B is K x N */
    int64_t rows;     /* pipeline: rows of the table (its feats numeric columns are fixed) */
    int feats;
} problem_dims;

typedef struct problem_spec {
    const char *name;            /* "reduce_sum", "sgemm", "embedding", "pipeline", ... */
    const char *library;         /* its vendor baseline: "cub", "cublas", "copy"; NULL: none */
    const char *size_help;       /* accepted label forms, for error messages */
    bool bandwidth_bound;        /* percent of peak against bandwidth, else FP32 */
    bool reads_only;             /* its bytes are almost all reads: against the read-only stream */
    bool host_io;                /* inputs and output live in host memory */
    bool no_cpu;                 /* it has no CPU baseline (a declared problem without one) */
    bool managed;                /* inputs live in managed memory, written by the CPU
                                  * before every run (page migration is timed) */
    double tolerance;            /* relative, for the checker */
    bool (*parse)(const char *label, problem_dims *dims, cl_err *err);
    double (*bytes)(const problem_dims *dims);
    double (*flops)(const problem_dims *dims);   /* < 0: none */
    /* A problem that runs another problem's shipped kernels at a reduced
     * precision (gemm_bf16: the sgemm kernels in BF16): that problem's
     * name, and the precision ("bf16") its kernels and the learner's
     * inputs are in.  NULL for a problem with kernels of its own. */
    const char *kernels_of;
    const char *precision;
    /* A problem a lab declares (lab/probdecl.h) reads its sizes and counts
     * its bytes and FLOPs through these, called with ctx (its declaration);
     * NULL for the built-in problems, which use parse, bytes and flops. */
    /* For the diagnosis of a learner's wrong or NaN result (NULL: none):
     * what the buffers hold ("input holds n floats and output holds
     * exactly 1"), the usual mistake behind a wrong result, and behind NaN. */
    const char *buffers_hint, *wrong_hint, *nan_hint;
    const void *ctx;
    bool (*parse_ctx)(const void *ctx, const char *label, problem_dims *dims, cl_err *err);
    double (*bytes_ctx)(const void *ctx, const problem_dims *dims);
    double (*flops_ctx)(const void *ctx, const problem_dims *dims);
} problem_spec;

extern const problem_spec problem_spec_sgemm;
extern const problem_spec problem_spec_gemm_bf16;  /* sgemm on BF16 inputs, FP32 sums */
extern const problem_spec problem_spec_pipeline;
extern const problem_spec problem_spec_managed;     /* basics: saxpy over managed memory */

/* The problem whose shipped kernels run spec: its kernels_of, else its name. */
const char *problem_kernels_of(const problem_spec *spec);
/* The problem called name, or NULL. */
const problem_spec *problem_spec_find(const char *name);
/* The problem a lab's exercise computes, from the lab's problem: the
 * pipeline for "profiling", else problem_spec_find(lab_problem). */
const problem_spec *problem_spec_of_exercise(const char *lab_problem);

/* Bytes one run moves and FLOPs it does (< 0: none) at dims, for any problem. */
double problem_spec_bytes(const problem_spec *spec, const problem_dims *dims);
double problem_spec_flops(const problem_spec *spec, const problem_dims *dims);

/* ---- reading sizes (problem_parse.c) ---- */

/* Reads a count: "268435456", "2^28" or "1<<28", optionally followed by
 * "+k" or "-k" ("2^20+3"); spaces are allowed around the operators.  The
 * result must lie in [1, max]. */
bool problem_parse_count(const char *text, int64_t max, int64_t *value, cl_err *err);
/* Splits "AxBxC" (x or X) into up to max parts, each read by
 * problem_parse_count(..., limit); *nparts receives how many there were. */
bool problem_parse_dims(const char *text, int max, int64_t limit, int64_t *parts, int *nparts,
                        cl_err *err);
/* spec->parse with the problem's name and accepted forms in the message. */
bool problem_parse_size(const problem_spec *spec, const char *label, problem_dims *dims,
                        cl_err *err);

#endif

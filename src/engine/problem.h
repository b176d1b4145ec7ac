/* problem.h - what the engine measures: reduce_sum, sgemm, embedding, pipeline.
 *
 * A problem knows how to read its size labels, how many bytes and FLOPs one
 * run moves, how to make fresh seeded inputs, the double-precision reference
 * and the checker's tolerance, its CPU baselines, and how to call a shipped
 * launcher.  problem_data holds one size's host and device buffers; the
 * engine drives it (generate -> reference -> upload -> poison -> launch ->
 * download -> check).  A problem with host_io set (pipeline) keeps its
 * inputs and output in ordinary (pageable) host memory: the launcher moves
 * them, so the engine allocates no device buffers, upload and download do
 * nothing and poison fills the host output. */
#ifndef CUDALAB_ENGINE_PROBLEM_H
#define CUDALAB_ENGINE_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "core/err.h"
#include "cpu/check.h"
#include "gpu/buffer.h"
#include "kernels.h"
#include "result/record.h"

typedef struct problem_dims {
    int64_t n;        /* reduce_sum: elements */
    int M, N, K;      /* sgemm: C is M x N, A is M x K, B is K x N */
    int T, D, V;      /* embedding: T lookups of rows of length D from V rows */
    int64_t rows;     /* pipeline: a table of rows x feats */
    int feats;
} problem_dims;

typedef struct problem_shape {
    size_t na;        /* floats in input a (reduce x, sgemm A, embedding W) */
    size_t nb;        /* floats in input b (sgemm B) */
    size_t nidx;      /* int32 indices (embedding) */
    size_t nout;      /* floats in the output */
    size_t scratch;   /* device scratch bytes for the launchers */
} problem_shape;

typedef struct problem_data problem_data;

#define PROBLEM_MAX_ARGS 8

/* One field of the args table a learner's launcher receives (lua/exercise.md):
 * a device buffer of the problem, a host buffer (host_io problems), or an
 * integer. */
typedef struct problem_arg {
    const char *name;
    const gpu_buffer *buf;   /* NULL: an integer (or a host buffer) */
    void *host;              /* pageable host memory of count elements, or NULL */
    size_t count;            /* elements of buf */
    bool i32;                /* buf holds int32 values (else f32) */
    bool output;             /* buf is the output (poisoned before each check) */
    int64_t value;           /* the integer, when buf is NULL */
} problem_arg;

typedef struct problem_ops {
    const char *name;            /* "reduce_sum", "sgemm", "embedding", "pipeline" */
    const char *library;         /* its vendor baseline: "cub", "cublas", "copy"; NULL: none */
    const char *size_help;       /* accepted label forms, for error messages */
    bool bandwidth_bound;        /* percent of peak against bandwidth, else FP32 */
    bool host_io;                /* inputs and output live in host memory (see above) */
    double tolerance;            /* relative, for check_compare */
    bool (*parse)(const char *label, problem_dims *d, cl_err *e);
    void (*shape)(const problem_dims *d, problem_shape *s);
    double (*bytes)(const problem_dims *d);
    double (*flops)(const problem_dims *d);      /* < 0: none */
    void (*generate)(problem_data *p, uint64_t seed);
    bool (*validate)(const problem_data *p, cl_err *e);  /* inputs well formed */
    bool (*reference)(problem_data *p, cl_err *e);       /* fills ref (and ref_idx) */
    void (*cpu)(problem_data *p, int threads);           /* baseline into out; 1: one thread */
    cudaError_t (*launch)(problem_data *p, const shipped_kernel *k, cudaStream_t s);
    /* The launcher's args (at most PROBLEM_MAX_ARGS); returns how many. */
    int (*args)(const problem_data *p, problem_arg *out);
} problem_ops;

struct problem_data {
    const problem_ops *ops;
    problem_dims d;
    problem_shape sh;
    uint64_t seed;           /* of the current inputs */
    float *a, *b, *out;
    int32_t *idx;
    double *ref;             /* reference values */
    int64_t *ref_idx;        /* output index of each ref value; NULL: ref[k] is out[k] */
    size_t nref;
    gpu_buffer da, db, didx, dout, dscratch, dcopy;
};

/* The problem called name, or NULL. */
const problem_ops *problem_find(const char *name);
/* The problem a lab's exercise computes, from the lab's problem: the
 * pipeline for "profiling", else problem_find(lab_problem). */
const problem_ops *problem_of_exercise(const char *lab_problem);
const problem_ops *problem_reduce_ops(void);
const problem_ops *problem_sgemm_ops(void);
const problem_ops *problem_embedding_ops(void);
const problem_ops *problem_pipeline_ops(void);

/* Reads a count: "268435456", "2^28" or "1<<28", optionally followed by
 * "+k" or "-k" ("2^20+3"); spaces are allowed around the operators.  The
 * result must lie in [1, max]. */
bool problem_parse_count(const char *s, int64_t max, int64_t *v, cl_err *e);
/* Splits "AxBxC" (x or X) into up to max parts, each read by
 * problem_parse_count(..., limit); *nparts receives how many there were. */
bool problem_parse_dims(const char *s, int max, int64_t limit, int64_t *parts, int *nparts,
                        cl_err *e);
/* ops->parse with the problem's name and accepted forms in the message. */
bool problem_parse_size(const problem_ops *ops, const char *label, problem_dims *d, cl_err *e);

/* Host buffers for d (inputs, output, reference).  false + e when the host
 * is out of memory. */
bool problem_new(problem_data *p, const problem_ops *ops, const problem_dims *d, cl_err *e);
/* Frees host and device buffers. */
void problem_free(problem_data *p);
/* Bytes of device memory problem_device_alloc will ask for. */
size_t problem_device_bytes(const problem_data *p, bool copy_buffer);
/* Device buffers (copy_buffer: one more of the output's size, for the copy
 * baseline), after one free-memory check for the total. */
bool problem_device_alloc(problem_data *p, bool copy_buffer, cl_err *e);
void problem_device_free(problem_data *p);

/* New inputs from seed, validated, with their reference. */
bool problem_prepare(problem_data *p, uint64_t seed, cl_err *e);
/* Copies the inputs to the device. */
bool problem_upload(problem_data *p, cudaStream_t s, cl_err *e);
/* Fills the device output with the poison pattern. */
bool problem_poison(problem_data *p, cudaStream_t s, cl_err *e);
/* Copies the device output into p->out. */
bool problem_download(problem_data *p, cudaStream_t s, cl_err *e);
/* Compares p->out with the reference. */
check_report problem_check(const problem_data *p);

/* ops->args of p: the buffers and sizes a learner's launcher receives, in
 * the order lua/exercise.md lists them; returns how many (<= PROBLEM_MAX_ARGS). */
int problem_args(const problem_data *p, problem_arg *out);

/* Turns a check report into the result's status, rel_err, mismatches and a
 * message ("wrong: 3 of 4096 checked differ; first at [17]: ..."). */
void problem_report(const check_report *c, run_result *r);

/* Inputs of the derived figures of one row. */
typedef struct problem_rates {
    double bytes;             /* moved by one run */
    double flops;             /* < 0: none */
    bool bandwidth_bound;
    double peak_bw_measured_gbs;  /* 0: unknown */
    double peak_bw_theory_gbs;    /* 0: unknown */
    double peak_fp32_tflops;      /* 0: unknown */
    double cpu_ms, cpu_mt_ms, lib_ms;  /* 0: unknown */
} problem_rates;

/* Fills r's gbps, tflops, pct_peak_measured, pct_peak_theory and speedups
 * from r->median_ms (pure arithmetic; unknown figures stay -1 or 0 as
 * run_result documents). */
void problem_derive(const problem_rates *in, run_result *r);

#endif

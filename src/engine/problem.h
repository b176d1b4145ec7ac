/* problem.h - what the engine measures: the problems written in C (sgemm,
 * gemm_bf16, the basics lab's managed; the pipeline problem is measured
 * step by step: engine/pipe.h) and, through the same table of functions,
 * a problem a lab declares in Lua (engine/problem_decl.h).
 *
 * A problem pairs its CUDA-free spec (catalog/problem_spec.h: size labels,
 * bytes and FLOPs, tolerance) with how to make fresh seeded inputs, the
 * double-precision reference, its CPU baselines, and how to call a shipped
 * launcher.  problem_data holds one size's host and device buffers; the
 * engine drives it (generate -> reference -> upload -> poison -> launch ->
 * download -> check).  A problem with host_io set (none of the shipped
 * ones now) would keep its inputs and output in ordinary (pageable) host
 * memory: its launcher moves them, so the engine allocates no device
 * buffers, upload and download do nothing and poison fills the host
 * output.  A problem with managed set (managed) keeps its inputs in managed
 * memory: upload writes them on the CPU, so their pages sit in host memory
 * when a run starts. */
#ifndef CUDALAB_ENGINE_PROBLEM_H
#define CUDALAB_ENGINE_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "core/err.h"
#include "catalog/problem_spec.h"
#include "cpu/check.h"
#include "gpu/buffer.h"
#include "kernels.h"
#include "result/record.h"

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
    const gpu_buffer *buf;   /* NULL: an integer, a number (or a host buffer) */
    void *host;              /* pageable host memory of count elements, or NULL */
    size_t count;            /* elements of buf */
    bool i32;                /* buf holds int32 values (else f32) */
    bool bf16;               /* buf holds bfloat16 values (2 bytes each) */
    int dtype;               /* a luagpu_dtype, when typed (a declared problem's buffers) */
    bool typed;
    bool output;             /* buf is the output (poisoned before each check) */
    bool managed;            /* buf is managed memory (cudaMallocManaged) */
    int64_t value;           /* the integer, when buf is NULL */
    bool is_number;          /* a real number (number) rather than an integer */
    double number;
} problem_arg;

/* A device buffer a run reads: an input (never an output or scratch), and
 * the name its launcher knows it by.  count elements of elem_bytes each
 * when its elements are drawn independently of each other and of their
 * place (so that the same values in another order are inputs as likely as
 * these: the canary moves them between repetitions); elem_bytes 0 when
 * their order means something (a lab's fill function) or is not known. */
typedef struct problem_input {
    gpu_buffer *buf;
    const char *name;
    size_t count;
    int elem_bytes;
} problem_input;

typedef struct problem_ops {
    const problem_spec *spec;    /* name, sizes, bytes, flops, tolerance */
    void (*shape)(const problem_dims *dims, problem_shape *shape);
    void (*generate)(problem_data *data, uint64_t seed);
    bool (*validate)(const problem_data *data, cl_err *err);  /* inputs well formed */
    bool (*reference)(problem_data *data, cl_err *err);      /* fills ref (and ref_idx) */
    void (*cpu)(problem_data *data, int threads);  /* baseline into out; 1: one thread */
    cudaError_t (*launch)(problem_data *data, const shipped_kernel *kernel, cudaStream_t stream);
    /* The launcher's args (at most PROBLEM_MAX_ARGS); returns how many. */
    int (*args)(const problem_data *data, problem_arg *out);
    /* After a download: turns the device's output bits into the floats the
     * checker compares (histogram's uint32 counts); NULL when they are floats. */
    void (*decode)(problem_data *data);
    /* A problem whose data are arguments of its own (a lab's declared
     * problem, engine/problem_decl.h) keeps them in data->decl and handles
     * each step here; NULL for the shipped problems, whose data are the
     * fixed fields of problem_data.  problem.c calls these when set. */
    bool (*alloc_host)(problem_data *data, cl_err *err);
    void (*free_data)(problem_data *data);
    size_t (*device_bytes)(const problem_data *data, bool copy_buffer);
    bool (*alloc_device)(problem_data *data, bool copy_buffer, cl_err *err);
    void (*free_device)(problem_data *data);
    bool (*upload)(problem_data *data, cudaStream_t stream, cl_err *err);
    bool (*poison)(problem_data *data, cudaStream_t stream, cl_err *err);
    void (*poison_host)(problem_data *data);
    bool (*download)(problem_data *data, cudaStream_t stream, cl_err *err);
    check_report (*check)(const problem_data *data);
    bool (*copy_once)(problem_data *data, cudaStream_t stream, cl_err *err);
    /* The device inputs (problem_inputs); NULL: the fixed fields' */
    int (*inputs)(problem_data *data, problem_input *out, int max);
    double (*copy_bytes)(const problem_data *data);
    /* The CPU timing cache's key for this problem and size. */
    void (*cpu_key)(const problem_data *data, char *problem, size_t pn, char *size, size_t sn);
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
    /* The row being measured, set by the engine before problem_prepare: its
     * arithmetic, its check tolerance (0: the spec's), and whether its launcher reads BF16
     * copies of a and b (sgemm), which problem_upload then makes on the
     * device from the FP32 inputs, before any timing. */
    const char *precision;   /* the row's arithmetic when not FP32: "tf32", "bf16" */
    double tolerance;
    bool bf16;
    gpu_buffer da16, db16;
    struct decl_data *decl;  /* a declared problem's arguments (engine/problem_decl.h) */
    /* 0: a declared problem's inputs follow their declared distributions;
     * in (0, 1): the check after timing's, each drawn from a part of its
     * distribution this wide (engine_gpu.c fresh_inputs, decl_fill.c), so
     * that outputs which barely move with the inputs (a sum of many
     * uniform values) move there, and an answer kept from an earlier
     * call no longer passes. */
    double narrow;
};

/* The problem called name, or NULL: the problems still written in C
 * (sgemm, gemm_bf16, managed; the pipeline has engine/pipe.h).  The others
 * are declared in Lua (engine/problem_decl.h). */
const problem_ops *problem_find(const char *name);
const problem_ops *problem_sgemm_ops(void);
/* sgemm with the learner's A and B as BF16 copies (problem gemm_bf16). */
const problem_ops *problem_gemm_bf16_ops(void);
const problem_ops *problem_managed_ops(void);      /* problem_managed.c */
/* SAXPY's a at this many elements (the same for the shipped rungs, the learner's
 * args.a and the reference). */
float problem_saxpy_a(uint64_t elements);

/* Host buffers for dims (inputs, output, reference).  false + err when the host
 * is out of memory. */
bool problem_new(problem_data *data, const problem_ops *ops, const problem_dims *dims, cl_err *err);
/* Frees host and device buffers. */
void problem_free(problem_data *data);
/* Bytes of device memory problem_device_alloc will ask for. */
size_t problem_device_bytes(const problem_data *data, bool copy_buffer);
/* Device buffers (copy_buffer: one more of the output's size, for the copy
 * baseline), after one free-memory check for the total. */
bool problem_device_alloc(problem_data *data, bool copy_buffer, cl_err *err);
void problem_device_free(problem_data *data);

/* New inputs from seed, validated, with their reference. */
bool problem_prepare(problem_data *data, uint64_t seed, cl_err *err);
/* Copies the inputs to the device (managed: writes them on the CPU, after
 * waiting for the device; and makes the BF16 copies of A and B when the
 * row reads them). */
bool problem_upload(problem_data *data, cudaStream_t stream, cl_err *err);
/* Fills the device output with the poison pattern. */
bool problem_poison(problem_data *data, cudaStream_t stream, cl_err *err);
/* Copies the device output into data->out. */
bool problem_download(problem_data *data, cudaStream_t stream, cl_err *err);
/* Compares data->out with the reference, within the row's tolerance. */
check_report problem_check(const problem_data *data);
/* Fills the host output with the poison pattern (before a CPU baseline). */
void problem_poison_host(problem_data *data);
/* The copy baseline: one device-to-device copy of the output's bytes, and
 * the bytes it reads and writes. */
bool problem_copy_once(problem_data *data, cudaStream_t stream, cl_err *err);
double problem_copy_bytes(const problem_data *data);

/* The device buffers data's runs read, at most max (PROBLEM_MAX_ARGS + 2
 * holds them all): inputs, and for sgemm with BF16 copies those copies
 * too; none for a host_io or managed problem, whose inputs the host
 * writes.  Returns how many. */
int problem_inputs(problem_data *data, problem_input *out, int max);

/* ops->args of data: the buffers and sizes a learner's launcher receives, in
 * the order lua/exercise.md lists them; returns how many (<= PROBLEM_MAX_ARGS). */
int problem_args(const problem_data *data, problem_arg *out);

/* Turns a check report into the result's status, rel_err, mismatches and a
 * message ("wrong: 3 of 4096 checked differ; first at [17]: ..."). */
void problem_report(const check_report *check, run_result *row);

/* Inputs of the derived figures of one row. */
typedef struct problem_rates {
    double bytes;             /* moved by one run */
    double flops;             /* < 0: none */
    bool bandwidth_bound;
    bool reads_only;              /* percent of the read-only stream, when known */
    double peak_bw_measured_gbs;  /* copy; 0: unknown */
    double peak_bw_read_gbs;      /* read-only stream; 0: unknown */
    double peak_bw_theory_gbs;    /* 0: unknown */
    double peak_fp32_tflops;      /* 0: unknown */
    double cpu_ms, cpu_mt_ms, lib_ms;  /* 0: unknown */
} problem_rates;

/* Fills r's gbps, tflops, pct_peak_measured, pct_peak_theory and speedups
 * from r->median_ms (pure arithmetic; unknown figures stay -1 or 0 as
 * run_result documents). */
void problem_derive(const problem_rates *in, run_result *row);

#endif

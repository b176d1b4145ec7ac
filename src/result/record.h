/* record.h - the run's record: what was asked, what each row measured.
 *
 * A run_request names a lab's problem, the variants (shipped rungs) and
 * sizes to measure, and optionally the learner's kernel; the engine answers
 * with one run_result a row (a rung, the vendor library, a CPU baseline or
 * the learner's kernel at one size), run_progress while it measures, and a
 * run_fault when the work could not finish.  These plain structs are read
 * by every layer above: milestones judge them, the TUI and the CLI show
 * them, the progress store keeps them, grading reports them.  Their JSON
 * form is in result/record_json.h; nothing here touches CUDA. */
#ifndef CUDALAB_RESULT_RECORD_H
#define CUDALAB_RESULT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RUN_MAX_VARIANTS 24
#define RUN_MAX_SIZES 8
#define RUN_ID_MAX 64
#define RUN_SIZE_MAX 48
#define RUN_PATH_MAX 1024
#define RUN_MAX_MISMATCH 4

typedef enum result_kind {
    RK_KERNEL,      /* a shipped rung */
    RK_LIBRARY,     /* CUB / cuBLAS / device copy */
    RK_CPU,         /* vectorised single-thread CPU baseline */
    RK_CPU_MT,      /* multi-threaded CPU baseline */
    RK_EXERCISE,    /* the learner's kernel */
} result_kind;

typedef enum result_status {
    RS_CORRECT,
    RS_WRONG,       /* mismatches beyond tolerance */
    RS_UNWRITTEN,   /* poisoned output elements remained */
    RS_NAN,         /* NaN or Inf where the reference is finite */
    RS_ERROR,       /* could not run: message says why (no device, CUDA error, bad input) */
    RS_FAULT,       /* the worker died or timed out running it */
    RS_NO_DEVICE,   /* a GPU row that could not run: no usable CUDA device (message: why) */
} result_status;

typedef struct mismatch {
    int64_t index;
    double got, expected;
} mismatch;

typedef struct run_result {
    int run;                      /* request id */
    char variant[RUN_ID_MAX];   /* variant id, or "cpu", "cpu_mt", "cub", "cublas", "copy", "exercise" */
    char label[RUN_ID_MAX];     /* short display name */
    char size[RUN_SIZE_MAX];    /* size label as requested */
    char exercise[RUN_ID_MAX];  /* the request's exercise id: "" for the lab's own rows */
    result_kind kind;
    result_status status;
    char message[512];            /* details for RS_ERROR/RS_FAULT or a note */
    double median_ms, min_ms, max_ms, spread; /* spread: relative IQR */
    int samples;
    double gbps;                  /* < 0 when not meaningful */
    double tflops;                /* < 0 when the problem has no FLOPs */
    double pct_peak_measured;     /* % of measured copy bandwidth or FP32 peak; < 0 unknown */
    double pct_peak_theory;       /* % of datasheet-style peak; < 0 unknown */
    double speedup_cpu;           /* vs single-thread CPU baseline; 0 unknown */
    double speedup_cpu_mt;        /* vs multi-thread CPU baseline; 0 unknown */
    double speedup_lib;           /* vs the vendor library (this / library); 0 unknown */
    double speedup_starter;       /* pipeline: the lab's starter time / this time; 0 unknown */
    bool has_report;              /* pipeline exercise rows: the learner's profiling report
                                   * (report.md beside the kernel file, written by
                                   * `cudalab report`) exists */
    double rel_err;               /* ||out - ref|| / ||ref|| */
    uint64_t seed;
    int threads;                  /* CPU rows: threads used */
    int nmismatch;
    mismatch mismatches[RUN_MAX_MISMATCH];
    int code;                     /* the CUDA runtime error code (cudaError_t) behind an
                                   * RS_ERROR; 0 when none (result/cuda_codes.h) */
    double wall_ms;               /* wall-clock time the worker spent on the row: inputs,
                                   * checks, warm-up and timing; 0 unknown */
    long long cached_at;          /* a CPU row read from the cache: when it was measured
                                   * (seconds since the epoch); 0: measured in this run */
} run_result;

typedef struct run_variant {
    char id[RUN_ID_MAX];
    char kernel[RUN_ID_MAX];    /* shipped kernel name */
} run_variant;

typedef struct run_request {
    int run;                      /* id chosen by the parent */
    char lab[RUN_ID_MAX];
    char problem[RUN_ID_MAX];   /* "reduce_sum", "sgemm", "embedding" */
    char library[RUN_ID_MAX];   /* "" for none */
    int nvariants;
    run_variant variants[RUN_MAX_VARIANTS];
    int nsizes;
    char sizes[RUN_MAX_SIZES][RUN_SIZE_MAX];
    uint64_t seed;                /* 0: the worker picks one and reports it */
    double budget_s;              /* GPU time budget per variant and size (default 0.5) */
    bool cpu;                     /* run the CPU baselines */
    /* The learner's kernel (exercise); empty when none. */
    char exercise_kernel[RUN_PATH_MAX];
    char exercise_launcher[RUN_PATH_MAX];
    /* Which of the lab's exercises the request measures ("" for the lab's
     * own rows: its variants, its own exercise).  Every row and progress
     * message of the request carries it, so rows of several exercises of
     * one lab stay apart (lab/labmodel.h). */
    char exercise[RUN_ID_MAX];
    /* The lab file (lab.lua) when problem is one the lab declares
     * (lab/probdecl.h): the worker loads it for the declaration and the
     * rungs of the lab folder.  "" for a shipped problem. */
    char lab_file[RUN_PATH_MAX];
    /* One checked run of each GPU row, no warm-up and no timing (the
     * figures stay unknown); the copy baseline is skipped unless it is the
     * library.  For runs under compute-sanitizer. */
    bool check_only;
    /* Measure the CPU baselines again rather than read them from the
     * cache (the new figures replace the cached ones). */
    bool fresh_cpu;
} run_request;

typedef struct run_progress {
    int run;
    char variant[RUN_ID_MAX];
    char size[RUN_SIZE_MAX];
    char exercise[RUN_ID_MAX];  /* the request's exercise id */
    int rep, of;                  /* repetition k of n (n is an estimate) */
    char phase[32];               /* "check", "warmup", "timing", "cpu" */
} run_progress;

typedef struct run_fault {
    int run;
    char variant[RUN_ID_MAX];     /* the row at fault, or RUN_FAULT_REFERENCE */
    char cause[64];               /* "timeout", "signal", "exit", "cuda", "cancelled", "protocol" */
    char message[512];            /* plain words: "worker killed by SIGSEGV" */
    int code;                     /* cause "cuda": the CUDA runtime error code; 0 none */
} run_fault;

/* The variant of a fault that the lab's own reference caused (a declared
 * problem's reference kernel broke the CUDA context): the lab is to blame,
 * not the learner. */
#define RUN_FAULT_REFERENCE "reference"

/* Tables show a correct row's relative error from this size up: the error a
 * reduced precision (TF32, BF16) costs, not FP32's rounding. */
#define RUN_SHOWN_ERROR 1e-5

const char *result_status_name(result_status status); /* "correct", "wrong", ... */
/* The status in words for people: "wrong answer", "no CUDA device", ... */
const char *result_status_text(result_status status);
const char *result_kind_name(result_kind kind);       /* "kernel", "library", ... */
/* A row's label before the engine names it: "CPU 1 thread" for cpu, "CPU
 * threads" for cpu_mt, "CUB" for cub ..., "your kernel" for the exercise;
 * other variants are their own label. */
const char *result_row_label(const char *variant, result_kind kind);
void run_result_init(run_result *result);             /* zeros; <0 for unknown rates */

#endif

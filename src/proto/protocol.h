/* protocol.h - the messages between the parent (TUI/CLI) and the worker.
 *
 * One JSON object per line (cJSON) in each direction over pipes.
 *   parent -> worker: {"type":"run", ...run_request}   {"type":"quit"}
 *   worker -> parent: {"type":"hello","device":{...}}   once, at start
 *                     {"type":"progress", ...}          while measuring
 *                     {"type":"result", ...run_result}  one per row
 *                     {"type":"log","level":..,"msg":..}
 *                     {"type":"fault", ...}             a CUDA error the worker caught
 *                     {"type":"done","run":N}           the request is finished
 * The parent turns signals, timeouts and non-zero exits into faults itself
 * (supervise/supervisor.c); a fault is a result with a cause, never a crash. */
#ifndef CUDALAB_PROTO_PROTOCOL_H
#define CUDALAB_PROTO_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/devinfo.h"
#include "core/err.h"

#define PROTO_MAX_VARIANTS 24
#define PROTO_MAX_SIZES 8
#define PROTO_ID_MAX 64
#define PROTO_SIZE_MAX 48
#define PROTO_PATH_MAX 1024
#define PROTO_MAX_MISMATCH 4
#define PROTO_LINE_MAX (64 * 1024)   /* longest line either side accepts */

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
} result_status;

typedef struct mismatch {
    int64_t index;
    double got, expected;
} mismatch;

typedef struct run_result {
    int run;                      /* request id */
    char variant[PROTO_ID_MAX];   /* variant id, or "cpu", "cpu_mt", "cub", "cublas", "copy", "exercise" */
    char label[PROTO_ID_MAX];     /* short display name */
    char size[PROTO_SIZE_MAX];    /* size label as requested */
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
    mismatch mismatches[PROTO_MAX_MISMATCH];
} run_result;

typedef struct run_variant {
    char id[PROTO_ID_MAX];
    char kernel[PROTO_ID_MAX];    /* shipped kernel name */
} run_variant;

typedef struct run_request {
    int run;                      /* id chosen by the parent */
    char lab[PROTO_ID_MAX];
    char problem[PROTO_ID_MAX];   /* "reduce_sum", "sgemm", "embedding" */
    char library[PROTO_ID_MAX];   /* "" for none */
    int nvariants;
    run_variant variants[PROTO_MAX_VARIANTS];
    int nsizes;
    char sizes[PROTO_MAX_SIZES][PROTO_SIZE_MAX];
    uint64_t seed;                /* 0: the worker picks one and reports it */
    double budget_s;              /* GPU time budget per variant and size (default 0.5) */
    bool cpu;                     /* run the CPU baselines */
    /* The learner's kernel (exercise); empty when none. */
    char exercise_kernel[PROTO_PATH_MAX];
    char exercise_launcher[PROTO_PATH_MAX];
    /* One checked run of each GPU row, no warm-up and no timing (the
     * figures stay unknown); the copy baseline is skipped unless it is the
     * library.  For runs under compute-sanitizer. */
    bool check_only;
} run_request;

typedef struct run_progress {
    int run;
    char variant[PROTO_ID_MAX];
    char size[PROTO_SIZE_MAX];
    int rep, of;                  /* repetition k of n (n is an estimate) */
    char phase[32];               /* "check", "warmup", "timing", "cpu" */
} run_progress;

typedef struct run_fault {
    int run;
    char variant[PROTO_ID_MAX];
    char cause[64];               /* "timeout", "signal", "exit", "cuda", "cancelled", "protocol" */
    char message[512];            /* plain words: "worker killed by SIGSEGV" */
} run_fault;

typedef enum msg_type {
    MSG_INVALID, MSG_HELLO, MSG_RUN, MSG_QUIT, MSG_PROGRESS, MSG_RESULT,
    MSG_LOG, MSG_FAULT, MSG_DONE,
} msg_type;

typedef struct proto_msg {
    msg_type type;
    union {
        device_info hello;
        run_request run;
        run_progress progress;
        run_result result;
        run_fault fault;
        struct { int level; char msg[1024]; } log;  /* level: 0 info, 1 warn, 2 error */
        int done_run;
    } u;
} proto_msg;

/* Encodes a message as one JSON line with a trailing '\n' (malloc'd). */
char *proto_encode(const proto_msg *m);
/* Decodes one line (without or with its '\n').  false + e on bad input. */
bool proto_decode(const char *line, proto_msg *m, cl_err *e);

const char *result_status_name(result_status s);   /* "correct", "wrong", ... */
const char *result_kind_name(result_kind k);       /* "kernel", "library", ... */
void run_result_init(run_result *r);               /* zeros; <0 for unknown rates */

#endif

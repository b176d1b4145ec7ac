/* diagnose.h - what went wrong with the learner's kernel, in plain words.
 *
 * diagnose() is a pure function: it reads what the compiler, the engine and
 * the supervisor already report (NVRTC diagnostics, a row's status, message
 * and first mismatches, a fault's cause and message, CUDA error names such
 * as cudaErrorIllegalAddress or their texts, a launcher's Lua error) and
 * names the cause with a title, an explanation a beginner can follow (with
 * the numbers involved) and a next step.  Nothing here touches CUDA or the
 * disk. */
#ifndef CUDALAB_SUPERVISE_DIAGNOSE_H
#define CUDALAB_SUPERVISE_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "result/record.h"

typedef enum diag_cause {
    DIAG_NONE,            /* nothing wrong: the kernel is correct */
    DIAG_COMPILE,         /* the kernel file does not compile */
    DIAG_KERNEL_MISSING,  /* the launcher asked for a kernel the file does not define */
    DIAG_LAUNCH_CONFIG,   /* block, grid or shared memory the GPU cannot run */
    DIAG_MEMORY_ACCESS,   /* illegal or misaligned address */
    DIAG_KERNEL_FAULT,    /* device assert, stack overflow, illegal instruction */
    DIAG_TIMEOUT,         /* ran past the time limit: endless loop or barrier deadlock */
    DIAG_WRONG,           /* finished, but the numbers differ from the reference */
    DIAG_UNWRITTEN,       /* some output elements were never written */
    DIAG_NAN,             /* NaN or Inf where the reference is finite */
    DIAG_OUT_OF_MEMORY,   /* device memory exhausted */
    DIAG_LAUNCHER,        /* the Lua launcher raised an error */
    DIAG_NO_DEVICE,       /* no usable CUDA device */
    DIAG_CRASH,           /* the worker died (signal or exit) without a CUDA error */
    DIAG_CANCELLED,       /* the learner stopped the run */
    DIAG_NOT_OWN,         /* the launcher ran no kernel of the learner's own */
    DIAG_LAB,             /* the lab itself is broken: its reference failed */
    DIAG_OTHER,           /* something else: the message is shown as it is */
} diag_cause;

#define DIAG_MAX_MISMATCH 4

struct problem_spec;

typedef struct diag_input {
    /* The row of the learner's kernel (has_result false: no row). */
    bool has_result;
    result_status status;
    const char *message;            /* the row's message */
    int code;                       /* the row's CUDA error code (0: none) */
    int nmismatch;
    mismatch mismatches[DIAG_MAX_MISMATCH];
    double rel_err;

    /* A fault (cause NULL: none): "timeout", "signal", "exit", "cuda",
     * "cancelled", "protocol", with its message. */
    const char *fault_cause;
    const char *fault_message;
    int fault_code;                 /* the fault's CUDA error code (0: none) */
    const char *fault_variant;      /* the row running when it struck ("" or NULL: unknown) */
    /* What the worker printed (device printf, a failed device assert's
     * "file:line: ... Assertion `expr` failed."), or NULL. */
    const char *device_output;

    /* The first compile error (compile_errors 0: the file compiled). */
    int compile_errors;             /* how many errors */
    const char *compile_file;       /* as the compiler named it */
    int compile_line, compile_col;  /* 0 when unknown */
    const char *compile_message;

    /* The launcher's Lua error, "starter.lua:12: message" (NULL: none). */
    const char *launcher_error;

    const struct problem_spec *spec;  /* the problem, for its hints; NULL unknown */
    double time_limit_s;            /* the run's limit; 0 unknown */

    /* What the launch asked for (has_launch false: unknown; the numbers in
     * the messages are used then). */
    bool has_launch;
    long long block_threads;        /* x*y*z */
    long long grid_blocks;          /* along the largest axis */
    long long shared_bytes;         /* dynamic shared memory */
    /* The kernel and the device, when known (0: unknown; the limits of
     * current NVIDIA GPUs are assumed then). */
    int regs_per_thread;
    int max_threads_per_block;
    long long max_shared_per_block;
    int regs_per_sm;
} diag_input;

typedef struct diagnosis {
    diag_cause cause;
    char title[128];                /* "Your kernel read or wrote outside its buffers" */
    char where[512];                /* "starter.cu:12:5", "starter.lua:7" or "" */
    char explanation[1536];         /* what happened and why, with the numbers */
    char next_step[768];            /* what to try first */
} diagnosis;

/* Zeroes in (no result, no fault, no compile error). */
void diag_input_init(diag_input *in);
/* Fills the row fields of in from result. */
void diag_input_from_result(diag_input *in, const run_result *result);
/* Fills the fault fields of in from fault. */
void diag_input_from_fault(diag_input *in, const run_fault *fault);

/* From text a device printed, the last failed assert: "file:line" into
 * where and its expression into expr; false when there is none. */
bool diag_device_assert(const char *text, char *where, size_t wn, char *expr, size_t en);

/* Names the cause of in's trouble.  Precedence: a compile error, then a
 * fault, then a launcher error, then the row's status. */
void diagnose(const diag_input *in, diagnosis *out);

/* "compile", "launch_config", ... */
const char *diag_cause_name(diag_cause cause);
/* The diagnosis as text: title, where, explanation and next step on their
 * own lines.  Returns the length snprintf would have written. */
int diagnosis_format(const diagnosis *diag, char *buf, size_t buf_size);

#endif

/* problem_decl.h - a problem a lab declares (lab/probdecl.h), measured by
 * the engine like a shipped one.
 *
 * problem_decl_open makes a problem_ops for one request: its data are the
 * declared arguments (each buffer in host and device memory, each scalar's
 * value), made afresh at every check from the declared fills, judged
 * against the declared reference (a builtin's double-precision C code, a
 * Lua function, or a reference kernel of the lab folder run on the GPU),
 * with the builtin's CPU baselines, library row and shipped kernels when
 * it names one.  Everything the lab's Lua does (lengths, fills, judges, a
 * Lua reference) runs in the lab's sandbox, and its failures come back as
 * errors with the lab file's line, never as a crash. */
#ifndef CUDALAB_ENGINE_PROBLEM_DECL_H
#define CUDALAB_ENGINE_PROBLEM_DECL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "engine/builtin.h"
#include "engine/exercise.h"
#include "engine/problem.h"
#include "gpu/buffer.h"
#include "lab/probdecl.h"

/* The poison pattern of each type's outputs, as 32-bit words. */
#define DECL_POISON_F32 0x7fc0deadu       /* the shipped problems' (cpu/check.h) */
#define DECL_POISON_F64 0x7ff8deadu       /* twice: a NaN */
#define DECL_POISON_BF16 0x7fc17fc1u      /* two bfloat16 NaNs */
#define DECL_POISON_INT 0xdeadbeefu       /* i32, u32; u8 outputs get 0xde bytes */

typedef struct decl_buf {
    size_t count;            /* elements */
    void *host;              /* inputs as made; outputs as the run wrote them */
    double *ref;             /* outputs: the reference */
    gpu_buffer dev;          /* count elements, and DECL_GUARD_BYTES more past them */
    gpu_buffer refdev;       /* outputs, with a reference kernel: what it writes */
    int64_t overrun;         /* the first guard byte a run changed (its offset), or -1 */
} decl_buf;

/* Every buffer of a declared problem is followed on the device by this many
 * bytes filled with DECL_GUARD_BYTE: a kernel that writes past the end of
 * a buffer (the last block of a grid without its bounds check) changes
 * them, and the check says so, where the bytes beyond a buffer would
 * otherwise go unseen. */
#define DECL_GUARD_BYTES 4096
#define DECL_GUARD_BYTE 0xa5

typedef struct decl_data {
    decl_buf b[DECL_MAX_ARGS];
    double value[DECL_MAX_ARGS];    /* scalars */
    gpu_buffer scratch;             /* the builtin's library and shipped kernels */
    gpu_buffer copy;                /* the copy baseline's destination */
    char error[CL_ERR_MAX];         /* a fill that failed ("" none) */
    char label[RUN_SIZE_MAX];
} decl_data;

/* One request's problem_ops over a declaration: ops first, so a
 * problem_ops pointer leads back to it. */
typedef struct decl_problem {
    problem_ops ops;
    const problem_decl *d;
    const builtin_impl *bi;         /* NULL when it names no builtin */
    exercise *refx;                 /* the reference kernel, when it has one */
    const char *refx_msg;           /* why the reference kernel cannot run ("" when it can) */
    cudaStream_t stream;            /* where the reference kernel runs */
    bool checked;                   /* the reference kernel agreed with its Lua check */
} decl_problem;

/* Fills *dp for decl (its reference kernel, if any, opened by the caller into
 * dp->refx afterwards). */
void problem_decl_init(decl_problem *dp, const problem_decl *decl);

/* The decl_problem of a declared problem's data, for code that only runs
 * for one (its ops, and what they call): data's ops are its decl_problem's. */
static inline decl_problem *problem_decl_ops_of(const problem_data *data)
{
    return (decl_problem *)data->ops;
}
/* A timing_fn (ud: the problem_data) running the builtin's library row. */
bool problem_decl_library_once(void *ud, cudaStream_t stream, cl_err *err);

/* ---- decl_fill.c ---- */

/* (The inputs are made by probdecl_make_inputs, lab/probdecl.h.) */
/* Fills count elements of type at host with the poison pattern. */
void decl_poison_host(void *host, decl_type type, size_t count);
/* Whether element index of type at host carries the poison pattern. */
bool decl_is_poison(const void *host, decl_type type, size_t index);

/* ---- decl_judge.c ---- */

/* Judges every output of data against its reference. */
check_report decl_check_outputs(const problem_data *data);

/* ---- decl_ref.c ---- */

/* The reference of every output, into each output's ref. */
bool decl_reference(problem_data *data, cl_err *err);
/* data's arguments in host memory, as the lab's Lua functions see them. */
void decl_host_of(const problem_data *data, probdecl_host *h);
/* The builtin's arguments by role, from data's buffers. */
void decl_builtin_args(const problem_data *data, builtin_args *args);

#endif

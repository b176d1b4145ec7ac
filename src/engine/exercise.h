/* exercise.h - the learner's kernel and launcher, ready for the engine.
 *
 * exercise_open compiles the learner's .cu with NVRTC for the device's
 * architecture, loads the CUBIN with the runtime's library API
 * (cudaLibraryLoadData, cudaLibraryGetKernel), opens a sandboxed Lua state
 * with the gpu table (luagpu/luagpu.h) and runs the launcher file, which
 * returns function(gpu, k, args) (lua/exercise.md).  For each size the
 * engine hands the problem's buffers (device memory, or pageable host
 * memory for a host_io problem) to the launcher as borrowed Buffers
 * (exercise_begin_size), calls the function once per run
 * (exercise_call, a timing_fn) and ends the size (exercise_end_size), after
 * which those Buffers read as freed.  Buffers the launcher allocates itself
 * live until exercise_close, which frees them with the Lua state.
 *
 * Messages name files by their base name ("starter.lua:12: ...",
 * "starter.cu:7:3: error: ..."), as the learner knows them. */
#ifndef CUDALAB_ENGINE_EXERCISE_H
#define CUDALAB_ENGINE_EXERCISE_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "core/err.h"
#include "gpu/nvrtc.h"
#include "engine/problem.h"

struct lua_State;

#define EXERCISE_BUDGET_MS 5000   /* CPU time of one call into the launcher */

typedef struct exercise exercise;

typedef enum exercise_stage {
    EXERCISE_READY,       /* compiled, loaded, and the launcher gave its function */
    EXERCISE_COMPILE,     /* the kernel file did not compile or could not be read */
    EXERCISE_LAUNCHER,    /* the launcher file failed ("starter.lua:3: ...") */
    EXERCISE_LOAD,        /* the device refused the compiled program */
    EXERCISE_NO_DEVICE,   /* compiled, launcher loaded, but nothing can run */
} exercise_stage;

typedef struct exercise_opts {
    const char *kernel;       /* path of the learner's .cu */
    const char *launcher;     /* path of the learner's .lua */
    const char *root;         /* the folder the kernel's includes stay in; NULL: its own */
    const char *arch;         /* "sm_90"; NULL: NVRTC_DEFAULT_ARCH */
    bool device;              /* a usable device: load the program onto it */
    const char *no_device;    /* without one: why ("no CUDA device found: ...") */
    int budget_ms;            /* per call into the launcher; 0: EXERCISE_BUDGET_MS */
    bool no_cache;            /* compile without the NVRTC cache */
} exercise_opts;

/* Compiles, loads and runs the launcher file.  Returns NULL only when out
 * of memory (err says so); otherwise exercise_stage tells whether it can run
 * and why not. */
exercise *exercise_open(const exercise_opts *opts, cl_err *err);
/* Whether the launcher file at path parses as Lua, without running it;
 * when not, the error (the file named from root) into msg. */
bool exercise_launcher_parses(const char *path, const char *root, char *msg, size_t cap);
/* Frees the Lua state (with every Buffer the launcher allocated) and
 * unloads the program. */
void exercise_close(exercise *ex);

/* The stage reached; *msg (may be NULL) receives the reason when it is not
 * EXERCISE_READY: the first compile error's headline ("starter.cu:12:5:
 * error: ..."), the launcher's "starter.lua:LINE: message", a CUDA error or
 * the no-device reason. */
exercise_stage exercise_status(const exercise *ex, const char **msg);
/* The compiler's output (diagnostics, kernels, resource usage). */
const nvrtc_output *exercise_program(const exercise *ex);
/* Why ex cannot run, for a file of a lab folder: its compile error named
 * from root ("rungs/x.cu:12:5: error: ...", and how many more errors
 * follow), or its launcher's error; root NULL keeps the file's own name. */
void exercise_why(const exercise *ex, const char *root, char *out, size_t out_size);
/* Writes every diagnostic the way a compiler prints it (source line and
 * caret), errors and warnings, at most max of them, into buf; returns the
 * length written (0: none). */
size_t exercise_diagnostics(const exercise *ex, size_t max, char *buf, size_t buf_size);

/* Builds the launcher's args table for data (its device buffers borrowed, its
 * sizes, args.size = label).  The exercise must be EXERCISE_READY. */
bool exercise_begin_size(exercise *ex, const problem_data *data, const char *label, cl_err *err);
/* Builds the launcher's args with push, called in the sandbox with ud as
 * a light userdata, which must leave one table on the stack (a problem
 * whose args are not problem_args: the pipeline's); then args.size = label.
 * The exercise must be EXERCISE_READY. */
typedef int (*exercise_args_fn)(struct lua_State *L);
bool exercise_begin_table(exercise *ex, exercise_args_fn push, void *ud, const char *label,
                          cl_err *err);
/* args[key] = value (a string) for the calls that follow (the pipeline's
 * args.step). */
bool exercise_set_arg(exercise *ex, const char *key, const char *value, cl_err *err);
/* One call of the launcher's function, its launches defaulting to stream
 * (a timing_fn: ud is the exercise).  false + the launcher's error. */
bool exercise_call(void *ud, cudaStream_t stream, cl_err *err);
/* Drops the args table; the borrowed Buffers read as freed from now on. */
void exercise_end_size(exercise *ex);

/* What the launcher printed since the last exercise_clear_output ("" when
 * nothing), and the Lua traceback of its last error ("" when none). */
const char *exercise_output(const exercise *ex);
void exercise_clear_output(exercise *ex);
const char *exercise_traceback(const exercise *ex);

#endif

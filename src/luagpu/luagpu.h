/* luagpu.h - the `gpu` table: a small CUDA API for Lua launchers.
 *
 * Learners' launchers (and tests) allocate device buffers and host buffers
 * (pinned or pageable), take views of parts of them, copy between them on
 * streams, pick a shipped raw kernel by name, launch it with their own
 * grid, block and shared memory, order streams with events, and time with
 * events.  Every CUDA error becomes a Lua error
 * with CUDA's message; a bad launch configuration is refused before CUDA
 * sees it, in words ("block of 2048 threads: the limit is 1024 per block").
 * Without a device every call fails with "no CUDA device found: <reason>".
 * Nothing touches CUDA until a gpu.* function is called.  lua/gpu.md
 * documents the API for instructors and learners. */
#ifndef CUDALAB_LUAGPU_LUAGPU_H
#define CUDALAB_LUAGPU_LUAGPU_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "lab/probdecl.h"
#include "lab/sandbox.h"

struct lua_State;

/* Creates the metatables and pushes the `gpu` table (stack: +1). */
void luagpu_open(struct lua_State *L);
/* luagpu_open, then adds the table to the sandbox's globals as `gpu`. */
bool luagpu_install(lab_state *sandbox, cl_err *err);
/* What a Buffer's elements are: 32-bit float, 32-bit int, or bfloat16
 * (16 bits: FP32's sign and exponent, 7 bits of mantissa). */
typedef enum luagpu_dtype {
    LUAGPU_F32, LUAGPU_I32, LUAGPU_BF16, LUAGPU_F64, LUAGPU_U32, LUAGPU_U8,
} luagpu_dtype;
/* Bytes an element of dt takes. */
size_t luagpu_dtype_size(luagpu_dtype dt);
/* The Buffer type of a declared problem's element type (lab/probdecl.h);
 * i64, which no Buffer holds, gives f32. */
luagpu_dtype luagpu_dtype_of(decl_type type);

/* Pushes a Buffer over count elements of type dt of device memory the
 * caller owns: Lua never frees it (b:free() refuses), and
 * luagpu_release_borrowed() turns every such Buffer into a freed one, so a
 * launcher that kept one cannot reach the memory after the caller frees it. */
void luagpu_push_borrowed(struct lua_State *L, void *ptr, size_t count, luagpu_dtype dt);
/* The same for ordinary (pageable) host memory the caller owns: a host
 * Buffer (b.where == "pageable") the launcher copies from or into. */
void luagpu_push_borrowed_host(struct lua_State *L, void *ptr, size_t count, luagpu_dtype dt);
/* The same for managed memory (b.where == "managed"): kernels take it like
 * device memory, and gpu.prefetch moves its pages. */
void luagpu_push_borrowed_managed(struct lua_State *L, void *ptr, size_t count, luagpu_dtype dt);
void luagpu_release_borrowed(struct lua_State *L);
/* Pushes a Kernel for a learner's compiled kernel: func is a cudaKernel_t
 * (cudaLibraryGetKernel) used as the launch's function, params NVRTC's
 * parameter letters (gpu/nvrtc.h nvrtc_kernel.params), which gpu.launch
 * converts arguments by as lua/exercise.md describes. */
void luagpu_push_kernel(struct lua_State *L, const char *name, const void *func,
                        const char *params);
/* An exercise launcher runs the learner's own kernels only: with own_only,
 * a shipped kernel (gpu.kernel(name), or a name given to gpu.launch) is
 * refused, saying why, so that what is measured is the learner's work.
 * Also starts the count of the learner's launches at 0.  Call it where a
 * Lua error can be caught (it may allocate). */
void luagpu_set_own_only(struct lua_State *L, bool own_only);
/* How many launches of the learner's kernels this state has enqueued since
 * luagpu_set_own_only. */
long long luagpu_own_launches(struct lua_State *L);

/* The stream gpu.launch and event:record use when none is given (a
 * cudaStream_t; NULL: the legacy default stream). */
void luagpu_set_stream(struct lua_State *L, void *stream);
/* The edges of a call of the launcher, for the streams it made
 * (gpu.stream()): before it, each waits for what the launcher's stream
 * (from, a cudaStream_t) holds (the inputs just copied in, the outputs
 * just poisoned); after it, that stream (into) waits for each, so the work
 * left on them when it returned ends before whatever runs next there (the
 * engine's stop event, the download of a check).  Only events: the host
 * does not wait.  false with err when CUDA refused. */
bool luagpu_fork_streams(struct lua_State *L, void *from, cl_err *err);
bool luagpu_join_streams(struct lua_State *L, void *into, cl_err *err);
/* Whether gpu.alloc fills new Buffers with 0xFF bytes (the default: yes);
 * off under compute-sanitizer, whose initcheck must see them unwritten. */
void luagpu_fill_new_buffers(bool on);

#endif

/* luagpu_internal.h - what the pieces of the `gpu` Lua table share: the
 * userdata types and their metatable names, device and CUDA error helpers,
 * and the C functions luagpu_open registers.
 * Private to src/luagpu/luagpu*.c. */
#ifndef CUDALAB_LUAGPU_LUAGPU_INTERNAL_H
#define CUDALAB_LUAGPU_LUAGPU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime_api.h>
#include <lauxlib.h>
#include <lua.h>

#include "kernels.h"
#include "luagpu/luagpu.h"

#define MT_BUFFER "cudalab.Buffer"
#define MT_KERNEL "cudalab.Kernel"
#define MT_STREAM "cudalab.Stream"
#define MT_EVENT "cudalab.Event"
#define MAX_ARGS 32

typedef luagpu_dtype dtype;

/* ---- luagpu_dtype.c: elements of each type, to and from Lua ---- */

/* "f32", ...; whether name is a dtype. */
const char *luagpu_dtype_name(luagpu_dtype dt);
bool luagpu_dtype_parse(const char *name, luagpu_dtype *dt);
/* Writes the Lua value at idx as one element of dt into out (its size in
 * bytes); false + why when it is not a number, not whole for an integer
 * type, or out of the type's range. */
bool luagpu_elem_encode(lua_State *L, int idx, luagpu_dtype dt, unsigned char *out,
                        const char **why);
/* Pushes the element at in as a Lua number (an integer for integer types). */
void luagpu_elem_push(lua_State *L, luagpu_dtype dt, const unsigned char *in);
typedef enum { MEM_DEVICE, MEM_PINNED, MEM_PAGEABLE, MEM_MANAGED } memkind;

/* A Buffer: its own memory (ptr), cudalab's memory (borrowed), or a view
 * of part of another Buffer (base, kept alive by the view's user value,
 * and a byte offset into it; a view reads as freed once its base is). */
typedef struct lbuffer {
    void *ptr;
    size_t bytes;
    lua_Integer count;
    dtype dt;
    memkind mem;
    bool borrowed;           /* cudalab's memory: never freed from Lua */
    struct lbuffer *base;    /* a view: the Buffer whose memory it shows */
    size_t off;              /* a view: bytes from the start of base */
    lua_Integer first;       /* a view: its first element in base */
} lbuffer;

/* A kernel as Lua sees it: a shipped raw kernel (k points into the shipped
 * tables) or a learner's kernel (k points at own, whose strings live here;
 * its signature holds NVRTC's parameter letters). */
typedef struct lkernel {
    const raw_kernel *k;
    raw_kernel own;
    bool learner;
    char name[128];
    char sig[MAX_ARGS + 1];
} lkernel;

/* The kernel a launch names, with how to read its signature. */
typedef struct kref {
    const raw_kernel *k;
    bool learner;
} kref;

typedef struct lstream {
    cudaStream_t s;
    cudaEvent_t begin;       /* the launcher's stream at the start of a call: luagpu_fork_streams */
    cudaEvent_t done;        /* this stream at the end of a call: luagpu_join_streams */
    bool live;
} lstream;

typedef struct levent {
    cudaEvent_t ev;
    bool live;
} levent;

/* ---- luagpu_common.c: the device, CUDA errors, the launcher's settings ----
 * The hub (luagpu.c) registers the functions of the files below; they call
 * one another one way (kernels call buffers and streams, buffers call
 * streams) and every one of them may call these, which call none. */

/* Raises "no CUDA device found: ..." when there is no usable device. */
void luagpu_need_device(lua_State *L);
/* The device's properties, read by the first luagpu_need_device. */
const struct cudaDeviceProp *luagpu_device_prop(void);
/* Raises a Lua error for a failed CUDA call, remembering its code. */
int luagpu_cuda_fail(lua_State *L, const char *what, cudaError_t st);
/* luagpu_cuda_fail unless st is cudaSuccess. */
void luagpu_cuda_check(lua_State *L, const char *what, cudaError_t st);
/* Whether shipped kernels are refused (luagpu_set_own_only). */
bool luagpu_own_only(lua_State *L);
/* Counts one launch of a learner's kernel. */
void luagpu_count_own_launch(lua_State *L);
/* The launcher's stream, as set by luagpu_set_stream. */
cudaStream_t luagpu_default_stream(lua_State *L);
/* gpu.device() */
int luagpu_device(lua_State *L);

/* ---- luagpu_buffer.c: Buffers, host buffers, gpu.copy ---- */

const char *luagpu_mem_name(memkind mem);        /* "device", "pinned", "pageable", "managed" */
/* Host memory that kernels cannot take (pinned or pageable); managed memory
 * is not: the device reaches it, and cudaMemcpy moves it either way. */
static inline bool luagpu_on_host(memkind mem)
{
    return mem == MEM_PINNED || mem == MEM_PAGEABLE;
}
int luagpu_prefetch(lua_State *L);
void *luagpu_buf_ptr(const lbuffer *buf);        /* NULL once freed */
int luagpu_alloc(lua_State *L);
int luagpu_host_alloc(lua_State *L);
int luagpu_copy(lua_State *L);
int luagpu_buf_view(lua_State *L);
int luagpu_buf_gc(lua_State *L);
int luagpu_buf_free(lua_State *L);
int luagpu_buf_len(lua_State *L);
int luagpu_buf_tostring(lua_State *L);
int luagpu_buf_upload(lua_State *L);
int luagpu_buf_download(lua_State *L);
int luagpu_buf_fill(lua_State *L);
int luagpu_buf_index(lua_State *L);

/* ---- luagpu_kernel.c: Kernels and gpu.launch ---- */

int luagpu_kernel(lua_State *L);
int luagpu_kernels(lua_State *L);
int luagpu_kernel_index(lua_State *L);
int luagpu_kernel_tostring(lua_State *L);
int luagpu_launch(lua_State *L);

/* ---- luagpu_stream.c: Streams, Events, waits ---- */

/* The Stream at idx, or the launcher's stream when idx is none or nil. */
cudaStream_t luagpu_opt_stream(lua_State *L, int idx);
int luagpu_stream(lua_State *L);
int luagpu_stream_gc(lua_State *L);
int luagpu_stream_sync(lua_State *L);
int luagpu_stream_wait(lua_State *L);
int luagpu_stream_tostring(lua_State *L);
int luagpu_event(lua_State *L);
int luagpu_event_gc(lua_State *L);
int luagpu_event_record(lua_State *L);
int luagpu_event_sync(lua_State *L);
int luagpu_event_tostring(lua_State *L);
int luagpu_elapsed(lua_State *L);
int luagpu_synchronize(lua_State *L);
int luagpu_wait(lua_State *L);

#endif

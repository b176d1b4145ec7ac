#include "worker/luagpu.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <lauxlib.h>
#include <lua.h>

#include "core/devinfo.h"
#include "gpu/buffer.h"
#include "gpu/cudacheck.h"
#include "gpu/device.h"
#include "kernels.h"
#include "worker/engine_kernels.h"

#define MT_BUFFER "cudalab.Buffer"
#define MT_KERNEL "cudalab.Kernel"
#define MT_STREAM "cudalab.Stream"
#define MT_EVENT "cudalab.Event"
#define SMALL_MAX ((lua_Integer)1 << 20)
#define MAX_ARGS 32
#define FILL_CHUNK ((size_t)4 << 20)

typedef enum { DT_F32, DT_I32 } dtype;
typedef enum { MEM_DEVICE, MEM_PINNED, MEM_PAGEABLE } memkind;

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
    bool live;
} lstream;

typedef struct levent {
    cudaEvent_t ev;
    bool live;
} levent;

static const char KEY_STREAM = 's';
static const char KEY_BORROWED = 'b';   /* set of borrowed Buffers */

static struct {
    bool probed;
    device_info dev;
    struct cudaDeviceProp prop;
} g_gpu;

/* Raises "no CUDA device found: ..." when there is no usable device. */
static void need_device(lua_State *L)
{
    if (!g_gpu.probed) {
        g_gpu.probed = true;
        if (device_probe(0, &g_gpu.dev, NULL, 0) &&
            cudaGetDeviceProperties(&g_gpu.prop, 0) != cudaSuccess) {
            g_gpu.dev.present = false;
            snprintf(g_gpu.dev.reason, sizeof g_gpu.dev.reason,
                     "no CUDA device found: cannot read the device's properties");
        }
    }
    if (!g_gpu.dev.present)
        luaL_error(L, "%s", g_gpu.dev.reason);
}

/* Raises a Lua error for a failed CUDA call, remembering its code. */
static int cuda_fail(lua_State *L, const char *what, cudaError_t st)
{
    cudacheck_fail(NULL, st, what, __FILE__, __LINE__);
    cudaGetLastError();
    return luaL_error(L, "%s: %s", what, cudacheck_plain(st));
}

/* cuda_fail unless st is cudaSuccess. */
static void cuda_check(lua_State *L, const char *what, cudaError_t st)
{
    if (st != cudaSuccess)
        cuda_fail(L, what, st);
}

static cudaStream_t default_stream(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &KEY_STREAM);
    cudaStream_t s = (cudaStream_t)lua_touserdata(L, -1);
    lua_pop(L, 1);
    return s;
}

void luagpu_set_stream(lua_State *L, void *stream)
{
    lua_pushlightuserdata(L, stream);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &KEY_STREAM);
}

static const char *dtype_name(dtype d)
{
    return d == DT_F32 ? "f32" : "i32";
}

static const char *mem_name(memkind m)
{
    return m == MEM_DEVICE ? "device" : m == MEM_PINNED ? "pinned" : "pageable";
}

/* ---- buffers ---------------------------------------------------------- */

static lbuffer *check_buffer(lua_State *L, int idx)
{
    return luaL_checkudata(L, idx, MT_BUFFER);
}

/* The address of b's first element; NULL once b (or the base of a view)
 * was freed. */
static void *buf_ptr(const lbuffer *b)
{
    if (b->base)
        return b->base->ptr ? (char *)b->base->ptr + b->off : NULL;
    return b->ptr;
}

static lbuffer *live_buffer(lua_State *L, int idx)
{
    lbuffer *b = check_buffer(L, idx);
    if (!buf_ptr(b))
        luaL_error(L, "the buffer was freed");
    return b;
}

static void buffer_release(lbuffer *b)
{
    if (b->ptr && !b->borrowed && !b->base) {
        if (b->mem == MEM_DEVICE)
            cudaFree(b->ptr);
        else if (b->mem == MEM_PINNED)
            cudaFreeHost(b->ptr);
        else
            free(b->ptr);
    }
    b->ptr = NULL;
}

/* A new, empty Buffer userdata with room for a view's base (stack: +1). */
static lbuffer *new_buffer(lua_State *L)
{
    lbuffer *b = lua_newuserdatauv(L, sizeof *b, 1);
    memset(b, 0, sizeof *b);
    luaL_setmetatable(L, MT_BUFFER);
    return b;
}

static bool parse_dtype(const char *dt, dtype *d)
{
    if (strcmp(dt, "f32") == 0)
        *d = DT_F32;
    else if (strcmp(dt, "i32") == 0)
        *d = DT_I32;
    else
        return false;
    return true;
}

static int l_alloc(lua_State *L)
{
    need_device(L);
    lua_Integer count = luaL_checkinteger(L, 1);
    const char *dt = luaL_optstring(L, 2, "f32");
    dtype d;
    if (!parse_dtype(dt, &d))
        return luaL_error(L, "gpu.alloc: dtype must be 'f32' or 'i32', got '%s'", dt);
    if (count < 1 || count > ((lua_Integer)1 << 40))
        return luaL_error(L, "gpu.alloc: count must be between 1 and 2^40, got %I", count);
    lbuffer *b = new_buffer(L);
    gpu_buffer gb;
    cl_err e = {{0}};
    if (!buffer_alloc(&gb, (size_t)count * 4, &e))
        return luaL_error(L, "gpu.alloc(%I, '%s'): %s", count, dt, e.msg);
    b->ptr = gb.ptr;
    b->bytes = gb.bytes;
    b->count = count;
    b->dt = d;
    return 1;
}

/* gpu.host_alloc(count [, dtype [, {pinned = true|false}]]): host memory,
 * page-locked (cudaHostAlloc) unless pinned is false (malloc). */
static int l_host_alloc(lua_State *L)
{
    need_device(L);
    lua_Integer count = luaL_checkinteger(L, 1);
    const char *dt = luaL_optstring(L, 2, "f32");
    dtype d;
    if (!parse_dtype(dt, &d))
        return luaL_error(L, "gpu.host_alloc: dtype must be 'f32' or 'i32', got '%s'", dt);
    if (count < 1 || count > ((lua_Integer)1 << 40))
        return luaL_error(L, "gpu.host_alloc: count must be between 1 and 2^40, got %I", count);
    bool pinned = true;
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        if (lua_getfield(L, 3, "pinned") != LUA_TNIL)
            pinned = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    size_t bytes = (size_t)count * 4;
    lbuffer *b = new_buffer(L);
    void *p = NULL;
    if (pinned) {
        cudaError_t st = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
        if (st != cudaSuccess) {
            char what[96];
            snprintf(what, sizeof what, "gpu.host_alloc(%lld, '%s', pinned)", (long long)count,
                     dt);
            return cuda_fail(L, what, st);
        }
    } else if (!(p = malloc(bytes))) {
        char need[32];
        buffer_format_bytes(bytes, need, sizeof need);
        return luaL_error(L, "gpu.host_alloc(%I, '%s'): out of host memory (needs %s)", count, dt,
                          need);
    }
    b->ptr = p;
    b->bytes = bytes;
    b->count = count;
    b->dt = d;
    b->mem = pinned ? MEM_PINNED : MEM_PAGEABLE;
    return 1;
}

/* b:view(first, count): a Buffer over elements [first, first + count) of
 * b (first counts from 0), sharing its memory. */
static int buf_view(lua_State *L)
{
    lbuffer *b = live_buffer(L, 1);
    lua_Integer first = luaL_checkinteger(L, 2);
    lua_Integer count = luaL_checkinteger(L, 3);
    if (first < 0 || count < 1 || first > b->count || count > b->count - first)
        return luaL_error(L, "view(%I, %I) of a buffer of %I elements: need 0 <= first and "
                             "first + count <= %I, count >= 1",
                          first, count, b->count, b->count);
    lbuffer *v = new_buffer(L);
    v->base = b->base ? b->base : b;
    v->off = (b->base ? b->off : 0) + (size_t)first * 4;
    v->first = (b->base ? b->first : 0) + first;
    v->bytes = (size_t)count * 4;
    v->count = count;
    v->dt = b->dt;
    v->mem = b->mem;
    v->borrowed = b->borrowed;
    if (b->base)
        lua_getiuservalue(L, 1, 1);
    else
        lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    return 1;
}

/* __gc and __close: frees the Buffer's own memory. */
static int buf_gc(lua_State *L)
{
    buffer_release(check_buffer(L, 1));
    return 0;
}

/* b:free(): refuses cudalab's buffers, which outlive the launcher's use. */
static int buf_free(lua_State *L)
{
    lbuffer *b = check_buffer(L, 1);
    if (b->base)
        return luaL_error(L, "this Buffer is a view of another one: it has no memory of its "
                             "own to free");
    if (b->borrowed && b->ptr)
        return luaL_error(L, "this Buffer belongs to cudalab (one of the problem's arguments): it "
                             "cannot be freed");
    buffer_release(b);
    return 0;
}

static int buf_len(lua_State *L)
{
    lua_pushinteger(L, check_buffer(L, 1)->count);
    return 1;
}

static int buf_tostring(lua_State *L)
{
    lbuffer *b = check_buffer(L, 1);
    if (!buf_ptr(b)) {
        lua_pushliteral(L, "Buffer (freed)");
        return 1;
    }
    char sz[32];
    buffer_format_bytes(b->bytes, sz, sizeof sz);
    if (b->base)
        lua_pushfstring(L, "Buffer (%I x %s, %s, %s; a view from element %I)", b->count,
                        dtype_name(b->dt), sz, mem_name(b->mem), b->first);
    else
        lua_pushfstring(L, "Buffer (%I x %s, %s, %s)", b->count, dtype_name(b->dt), sz,
                        mem_name(b->mem));
    return 1;
}

/* b:upload(t): t[1..#t] into the first #t elements. */
static int buf_upload(lua_State *L)
{
    lbuffer *b = live_buffer(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 2);
    if (n > b->count)
        return luaL_error(L, "upload of %I values into a buffer of %I", n, b->count);
    if (n > SMALL_MAX)
        return luaL_error(L, "upload is for small tests: at most %I values, got %I", SMALL_MAX,
                          n);
    if (n == 0)
        return 0;
    void *host = lua_newuserdatauv(L, (size_t)n * 4, 0);
    for (lua_Integer i = 0; i < n; i++) {
        lua_geti(L, 2, i + 1);
        if (b->dt == DT_F32) {
            int ok = 0;
            lua_Number v = lua_tonumberx(L, -1, &ok);
            if (!ok)
                return luaL_error(L, "upload: value %I is not a number", i + 1);
            ((float *)host)[i] = (float)v;
        } else {
            int ok = 0;
            lua_Integer v = lua_tointegerx(L, -1, &ok);
            if (!ok || v < INT32_MIN || v > INT32_MAX)
                return luaL_error(L, "upload: value %I is not an int32", i + 1);
            ((int32_t *)host)[i] = (int32_t)v;
        }
        lua_pop(L, 1);
    }
    if (b->mem != MEM_DEVICE) {
        memcpy(buf_ptr(b), host, (size_t)n * 4);
        return 0;
    }
    need_device(L);
    cudaStream_t s = default_stream(L);
    cudaError_t st = cudaMemcpyAsync(buf_ptr(b), host, (size_t)n * 4, cudaMemcpyHostToDevice, s);
    if (st == cudaSuccess)
        st = cudaStreamSynchronize(s);
    if (st != cudaSuccess)
        return cuda_fail(L, "upload", st);
    return 0;
}

/* b:download([n]) -> table of the first n (default all) values. */
static int buf_download(lua_State *L)
{
    lbuffer *b = live_buffer(L, 1);
    lua_Integer n = luaL_optinteger(L, 2, b->count);
    if (n < 0 || n > b->count)
        return luaL_error(L, "download of %I values from a buffer of %I", n, b->count);
    if (n > SMALL_MAX)
        return luaL_error(L, "download is for small tests: at most %I values, got %I",
                          SMALL_MAX, n);
    void *host = lua_newuserdatauv(L, n ? (size_t)n * 4 : 1, 0);
    if (n > 0 && b->mem != MEM_DEVICE) {
        memcpy(host, buf_ptr(b), (size_t)n * 4);
    } else if (n > 0) {
        need_device(L);
        cudaStream_t s = default_stream(L);
        cudaError_t st = cudaMemcpyAsync(host, buf_ptr(b), (size_t)n * 4, cudaMemcpyDeviceToHost,
                                         s);
        if (st == cudaSuccess)
            st = cudaStreamSynchronize(s);
        if (st != cudaSuccess)
            return cuda_fail(L, "download", st);
    }
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 0; i < n; i++) {
        if (b->dt == DT_F32)
            lua_pushnumber(L, (lua_Number)((float *)host)[i]);
        else
            lua_pushinteger(L, ((int32_t *)host)[i]);
        lua_seti(L, -2, i + 1);
    }
    return 1;
}

/* b:fill(value): every element set to value. */
static int buf_fill(lua_State *L)
{
    lbuffer *b = live_buffer(L, 1);
    uint32_t bits;
    if (b->dt == DT_F32) {
        float f = (float)luaL_checknumber(L, 2);
        memcpy(&bits, &f, sizeof bits);
    } else {
        lua_Integer v = luaL_checkinteger(L, 2);
        if (v < INT32_MIN || v > INT32_MAX)
            return luaL_error(L, "fill: %I does not fit in int32", v);
        int32_t i = (int32_t)v;
        memcpy(&bits, &i, sizeof bits);
    }
    if (b->mem != MEM_DEVICE) {
        uint32_t *h = buf_ptr(b);
        for (size_t i = 0; i < b->bytes / 4; i++)
            h[i] = bits;
        return 0;
    }
    need_device(L);
    cudaStream_t s = default_stream(L);
    cudaError_t st;
    if ((bits & 0xff) * 0x01010101u == bits) {
        st = cudaMemsetAsync(buf_ptr(b), (int)(bits & 0xff), b->bytes, s);
        if (st != cudaSuccess)
            return cuda_fail(L, "fill", st);
        return 0;
    }
    size_t chunk = b->bytes < FILL_CHUNK ? b->bytes : FILL_CHUNK;
    uint32_t *host = lua_newuserdatauv(L, chunk, 0);
    for (size_t i = 0; i < chunk / 4; i++)
        host[i] = bits;
    for (size_t off = 0; off < b->bytes; off += chunk) {
        size_t n = b->bytes - off < chunk ? b->bytes - off : chunk;
        st = cudaMemcpyAsync((char *)buf_ptr(b) + off, host, n, cudaMemcpyHostToDevice, s);
        if (st == cudaSuccess)
            st = cudaStreamSynchronize(s);
        if (st != cudaSuccess)
            return cuda_fail(L, "fill", st);
    }
    return 0;
}

static int buf_index(lua_State *L)
{
    lbuffer *b = check_buffer(L, 1);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "size") == 0) {
        lua_pushinteger(L, (lua_Integer)b->bytes);
    } else if (strcmp(k, "count") == 0) {
        lua_pushinteger(L, b->count);
    } else if (strcmp(k, "dtype") == 0) {
        lua_pushstring(L, dtype_name(b->dt));
    } else if (strcmp(k, "where") == 0) {
        lua_pushstring(L, mem_name(b->mem));
    } else {
        lua_pushvalue(L, 2);
        lua_rawget(L, lua_upvalueindex(1));
    }
    return 1;
}

/* Pushes a borrowed Buffer of the given memory kind and records it. */
static void push_borrowed(lua_State *L, void *ptr, size_t count, bool i32, memkind mem)
{
    lbuffer *b = new_buffer(L);
    b->ptr = ptr;
    b->bytes = count * 4;
    b->count = (lua_Integer)count;
    b->dt = i32 ? DT_I32 : DT_F32;
    b->mem = mem;
    b->borrowed = true;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &KEY_BORROWED) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &KEY_BORROWED);
    }
    lua_pushvalue(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

void luagpu_push_borrowed(lua_State *L, void *ptr, size_t count, bool i32)
{
    push_borrowed(L, ptr, count, i32, MEM_DEVICE);
}

void luagpu_push_borrowed_host(lua_State *L, void *ptr, size_t count, bool i32)
{
    push_borrowed(L, ptr, count, i32, MEM_PAGEABLE);
}

void luagpu_release_borrowed(lua_State *L)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &KEY_BORROWED) == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pop(L, 1);
            lbuffer *b = luaL_testudata(L, -1, MT_BUFFER);
            if (b)
                b->ptr = NULL;
        }
    }
    lua_pop(L, 1);
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &KEY_BORROWED);
}

/* ---- kernels ----------------------------------------------------------- */

static kref check_kernel(lua_State *L, int idx)
{
    kref r = {NULL, false};
    if (lua_type(L, idx) == LUA_TSTRING) {
        const char *name = lua_tostring(L, idx);
        r.k = engine_kernels_find_raw(name);
        if (!r.k)
            luaL_error(L, "unknown kernel '%s' (names are shipped kernels: gpu.kernels() lists "
                          "them; a launcher's own kernels are k.%s)",
                       name, name);
        return r;
    }
    if (lua_isnoneornil(L, idx))
        luaL_error(L, "gpu.launch: the kernel is nil (a name the kernel file does not define?)");
    lkernel *lk = luaL_checkudata(L, idx, MT_KERNEL);
    r.k = lk->k;
    r.learner = lk->learner;
    return r;
}

static int l_kernel(lua_State *L)
{
    need_device(L);
    const char *name = luaL_checkstring(L, 1);
    const raw_kernel *k = engine_kernels_find_raw(name);
    if (!k)
        return luaL_error(L, "unknown kernel '%s'", name);
    lkernel *lk = lua_newuserdatauv(L, sizeof *lk, 0);
    memset(lk, 0, sizeof *lk);
    lk->k = k;
    luaL_setmetatable(L, MT_KERNEL);
    return 1;
}

void luagpu_push_kernel(lua_State *L, const char *name, const void *func, const char *params)
{
    lkernel *lk = lua_newuserdatauv(L, sizeof *lk, 0);
    memset(lk, 0, sizeof *lk);
    snprintf(lk->name, sizeof lk->name, "%s", name);
    snprintf(lk->sig, sizeof lk->sig, "%s", params);
    lk->own.name = lk->name;
    lk->own.func = func;
    lk->own.sig = lk->sig;
    lk->own.doc = "your kernel: x a Buffer or a 64-bit integer, i a 32-bit integer, f a float, "
                  "d a double, h and c 16- and 8-bit integers";
    lk->k = &lk->own;
    lk->learner = true;
    luaL_setmetatable(L, MT_KERNEL);
}

static int l_kernels(lua_State *L)
{
    need_device(L);
    size_t n = 0;
    const raw_kernel *all = kernels_raw(&n);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, all[i].name);
        lua_seti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int kernel_index(lua_State *L)
{
    lkernel *lk = luaL_checkudata(L, 1, MT_KERNEL);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "name") == 0)
        lua_pushstring(L, lk->k->name);
    else if (strcmp(k, "sig") == 0)
        lua_pushstring(L, lk->k->sig);
    else if (strcmp(k, "doc") == 0)
        lua_pushstring(L, lk->k->doc ? lk->k->doc : "");
    else
        lua_pushnil(L);
    return 1;
}

static int kernel_tostring(lua_State *L)
{
    lkernel *lk = luaL_checkudata(L, 1, MT_KERNEL);
    lua_pushfstring(L, "Kernel %s(%s)", lk->k->name, lk->k->sig);
    return 1;
}

/* ---- streams and events --------------------------------------------------- */

static cudaStream_t opt_stream(lua_State *L, int idx)
{
    if (lua_isnoneornil(L, idx))
        return default_stream(L);
    lstream *s = luaL_checkudata(L, idx, MT_STREAM);
    if (!s->live)
        luaL_error(L, "the stream was destroyed");
    return s->s;
}

static int l_stream(lua_State *L)
{
    need_device(L);
    lstream *s = lua_newuserdatauv(L, sizeof *s, 0);
    memset(s, 0, sizeof *s);
    luaL_setmetatable(L, MT_STREAM);
    cuda_check(L, "gpu.stream", cudaStreamCreate(&s->s));
    s->live = true;
    return 1;
}

static int stream_gc(lua_State *L)
{
    lstream *s = luaL_checkudata(L, 1, MT_STREAM);
    if (s->live)
        cudaStreamDestroy(s->s);
    s->live = false;
    return 0;
}

static int stream_sync(lua_State *L)
{
    cuda_check(L, "stream:synchronize", cudaStreamSynchronize(opt_stream(L, 1)));
    return 0;
}

static int stream_tostring(lua_State *L)
{
    lstream *s = luaL_checkudata(L, 1, MT_STREAM);
    lua_pushstring(L, s->live ? "Stream" : "Stream (destroyed)");
    return 1;
}

static levent *check_event(lua_State *L, int idx)
{
    levent *ev = luaL_checkudata(L, idx, MT_EVENT);
    if (!ev->live)
        luaL_error(L, "the event was destroyed");
    return ev;
}

static int l_event(lua_State *L)
{
    need_device(L);
    levent *ev = lua_newuserdatauv(L, sizeof *ev, 0);
    memset(ev, 0, sizeof *ev);
    luaL_setmetatable(L, MT_EVENT);
    cuda_check(L, "gpu.event", cudaEventCreate(&ev->ev));
    ev->live = true;
    return 1;
}

static int event_gc(lua_State *L)
{
    levent *ev = luaL_checkudata(L, 1, MT_EVENT);
    if (ev->live)
        cudaEventDestroy(ev->ev);
    ev->live = false;
    return 0;
}

static int event_record(lua_State *L)
{
    levent *ev = check_event(L, 1);
    cuda_check(L, "event:record", cudaEventRecord(ev->ev, opt_stream(L, 2)));
    lua_settop(L, 1);
    return 1;
}

static int event_sync(lua_State *L)
{
    levent *ev = check_event(L, 1);
    cuda_check(L, "event:synchronize", cudaEventSynchronize(ev->ev));
    return 0;
}

static int event_tostring(lua_State *L)
{
    levent *ev = luaL_checkudata(L, 1, MT_EVENT);
    lua_pushstring(L, ev->live ? "Event" : "Event (destroyed)");
    return 1;
}

/* gpu.elapsed(start, stop) -> milliseconds, waiting for stop. */
static int l_elapsed(lua_State *L)
{
    need_device(L);
    levent *a = check_event(L, 1);
    levent *b = check_event(L, 2);
    cuda_check(L, "gpu.elapsed", cudaEventSynchronize(b->ev));
    float ms = 0.0f;
    cuda_check(L, "gpu.elapsed", cudaEventElapsedTime(&ms, a->ev, b->ev));
    lua_pushnumber(L, (lua_Number)ms);
    return 1;
}

static int l_synchronize(lua_State *L)
{
    need_device(L);
    cuda_check(L, "gpu.synchronize", cudaDeviceSynchronize());
    return 0;
}

static int l_device(lua_State *L)
{
    need_device(L);
    const struct cudaDeviceProp *p = &g_gpu.prop;
    lua_createtable(L, 0, 10);
    lua_pushstring(L, g_gpu.dev.name);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, g_gpu.dev.sm_count);
    lua_setfield(L, -2, "sms");
    lua_pushfstring(L, "%d.%d", p->major, p->minor);
    lua_setfield(L, -2, "cc");
    lua_pushinteger(L, p->warpSize);
    lua_setfield(L, -2, "warp_size");
    lua_pushinteger(L, p->maxThreadsPerBlock);
    lua_setfield(L, -2, "max_threads_per_block");
    lua_pushinteger(L, p->maxThreadsPerMultiProcessor);
    lua_setfield(L, -2, "max_threads_per_sm");
    lua_pushinteger(L, (lua_Integer)p->sharedMemPerBlock);
    lua_setfield(L, -2, "shared_per_block");
    lua_pushinteger(L, (lua_Integer)p->sharedMemPerBlockOptin);
    lua_setfield(L, -2, "shared_per_block_optin");
    lua_pushinteger(L, (lua_Integer)p->l2CacheSize);
    lua_setfield(L, -2, "l2_bytes");
    return 1;
}

/* ---- launch ---------------------------------------------------------------- */

/* Reads field name of the config table at cfg as a dim3: a number n is
 * (n,1,1); a table is {x,y,z} or {x=..,y=..,z=..} with missing parts 1. */
static dim3 get_dim3(lua_State *L, int cfg, const char *name)
{
    dim3 d = {1, 1, 1};
    unsigned int *part[3] = {&d.x, &d.y, &d.z};
    static const char *const axis[3] = {"x", "y", "z"};
    int t = lua_getfield(L, cfg, name);
    if (t == LUA_TNIL)
        luaL_error(L, "gpu.launch: the configuration needs '%s'", name);
    for (int i = 0; i < 3; i++) {
        lua_Integer v = 1;
        int ok = 1;
        if (t == LUA_TNUMBER) {
            if (i == 0)
                v = lua_tointegerx(L, -1, &ok);
        } else if (t == LUA_TTABLE) {
            int ft = lua_geti(L, -1, i + 1);
            if (ft == LUA_TNIL) {
                lua_pop(L, 1);
                ft = lua_getfield(L, -1, axis[i]);
            }
            if (ft != LUA_TNIL)
                v = lua_tointegerx(L, -1, &ok);
            lua_pop(L, 1);
        } else {
            luaL_error(L, "gpu.launch: '%s' must be a number or a table {x, y, z}", name);
        }
        if (!ok || v < 1 || v > 0x7fffffff)
            luaL_error(L, "gpu.launch: %s.%s must be a positive integer", name, axis[i]);
        *part[i] = (unsigned int)v;
    }
    lua_pop(L, 1);
    return d;
}

/* Refuses a configuration the device cannot run, in words. */
static void check_config(lua_State *L, const raw_kernel *k, dim3 grid, dim3 block,
                         size_t shared)
{
    const struct cudaDeviceProp *p = &g_gpu.prop;
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    if (threads > (unsigned long long)p->maxThreadsPerBlock)
        luaL_error(L, "block of %d threads: the limit is %d per block", (int)threads,
                   p->maxThreadsPerBlock);
    unsigned int bd[3] = {block.x, block.y, block.z};
    unsigned int gd[3] = {grid.x, grid.y, grid.z};
    static const char *const axis[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; i++) {
        if (bd[i] > (unsigned int)p->maxThreadsDim[i])
            luaL_error(L, "block.%s of %d: the limit is %d", axis[i], (int)bd[i],
                       p->maxThreadsDim[i]);
        if (gd[i] > (unsigned int)p->maxGridSize[i])
            luaL_error(L, "grid.%s of %d blocks: the limit is %d", axis[i], (int)gd[i],
                       p->maxGridSize[i]);
    }
    struct cudaFuncAttributes fa;
    cuda_check(L, "gpu.launch", cudaFuncGetAttributes(&fa, k->func));
    if (threads > (unsigned long long)fa.maxThreadsPerBlock)
        luaL_error(L, "block of %d threads: kernel %s can run at most %d per block (it uses %d "
                      "registers per thread)",
                   (int)threads, k->name, fa.maxThreadsPerBlock, fa.numRegs);
    size_t limit = p->sharedMemPerBlockOptin > p->sharedMemPerBlock ? p->sharedMemPerBlockOptin
                                                                     : p->sharedMemPerBlock;
    if (shared + fa.sharedSizeBytes > limit)
        luaL_error(L, "shared memory of %d bytes (plus %d static): the limit is %d per block",
                   (int)shared, (int)fa.sharedSizeBytes, (int)limit);
    if (shared > (size_t)fa.maxDynamicSharedSizeBytes)
        cuda_check(L, "gpu.launch (raising the shared-memory limit)",
                   cudaFuncSetAttribute(k->func, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)shared));
}

typedef union arg_value {
    void *p;
    int32_t i;
    uint32_t u;
    int64_t l;
    uint16_t h;
    uint8_t c;
    float f;
    double d;
} arg_value;

/* Reads an integer argument in [lo, hi] or raises an error naming it. */
static lua_Integer int_arg(lua_State *L, const raw_kernel *k, int n, int idx, lua_Integer lo,
                           lua_Integer hi, const char *what)
{
    int ok = 0;
    lua_Integer iv = lua_tointegerx(L, idx, &ok);
    if (!ok)
        luaL_error(L, "%s: argument %d must be an integer, got %s", k->name, n,
                   luaL_typename(L, idx));
    if (iv < lo || iv > hi)
        luaL_error(L, "%s: argument %d (%I) does not fit in %s", k->name, n, iv, what);
    return iv;
}

static void *buffer_arg(lua_State *L, const raw_kernel *k, int n, int idx)
{
    lbuffer *b = luaL_testudata(L, idx, MT_BUFFER);
    if (!b)
        luaL_error(L, "%s: argument %d must be a Buffer, got %s", k->name, n,
                   luaL_typename(L, idx));
    if (!buf_ptr(b))
        luaL_error(L, "%s: argument %d is a Buffer that was freed%s", k->name, n,
                   b->borrowed ? " (a problem's buffers last only while its size runs)" : "");
    if (b->mem != MEM_DEVICE)
        luaL_error(L, "%s: argument %d is a %s host Buffer: kernels take device Buffers (move the "
                      "data with gpu.copy first)",
                   k->name, n, mem_name(b->mem));
    return buf_ptr(b);
}

/* Converts a learner kernel's argument by NVRTC's letter (lua/exercise.md). */
static void convert_learner_arg(lua_State *L, const raw_kernel *k, int n, int idx, char code,
                                arg_value *v)
{
    int ok = 0;
    switch (code) {
    case 'x':
        if (luaL_testudata(L, idx, MT_BUFFER)) {
            v->p = buffer_arg(L, k, n, idx);
            return;
        }
        if (lua_type(L, idx) != LUA_TNUMBER)
            luaL_error(L, "%s: argument %d (a pointer or 64-bit integer) must be a Buffer or an "
                          "integer, got %s",
                       k->name, n, luaL_typename(L, idx));
        v->l = (int64_t)int_arg(L, k, n, idx, LUA_MININTEGER, LUA_MAXINTEGER, "64 bits");
        return;
    case 'i':
        v->u = (uint32_t)int_arg(L, k, n, idx, INT32_MIN, (lua_Integer)UINT32_MAX, "32 bits");
        return;
    case 'h':
        v->h = (uint16_t)int_arg(L, k, n, idx, INT16_MIN, UINT16_MAX, "16 bits");
        return;
    case 'c':
        if (lua_type(L, idx) == LUA_TBOOLEAN) {
            v->c = (uint8_t)lua_toboolean(L, idx);
            return;
        }
        v->c = (uint8_t)int_arg(L, k, n, idx, INT8_MIN, UINT8_MAX, "8 bits");
        return;
    case 'f':
    case 'd': {
        lua_Number x = lua_tonumberx(L, idx, &ok);
        if (!ok)
            luaL_error(L, "%s: argument %d must be a number, got %s", k->name, n,
                       luaL_typename(L, idx));
        if (code == 'f')
            v->f = (float)x;
        else
            v->d = (double)x;
        return;
    }
    case 'b':
        luaL_error(L, "%s: parameter %d is a struct passed by value, which launchers cannot "
                      "pass: give the kernel its fields as separate parameters",
                   k->name, n);
        return;
    default:
        luaL_error(L, "%s: unknown parameter type '%c' in its signature", k->name, code);
    }
}

/* Converts a shipped raw kernel's argument by its signature letter. */
static void convert_arg(lua_State *L, const raw_kernel *k, int n, int idx, char code,
                        arg_value *v)
{
    int ok = 0;
    switch (code) {
    case 'p':
        v->p = buffer_arg(L, k, n, idx);
        return;
    case 'i':
        v->i = (int32_t)int_arg(L, k, n, idx, INT32_MIN, INT32_MAX, "int32");
        return;
    case 'u':
        v->u = (uint32_t)int_arg(L, k, n, idx, 0, (lua_Integer)UINT32_MAX, "uint32");
        return;
    case 'l':
        v->l = (int64_t)int_arg(L, k, n, idx, LUA_MININTEGER, LUA_MAXINTEGER, "int64");
        return;
    case 'f':
    case 'd': {
        lua_Number x = lua_tonumberx(L, idx, &ok);
        if (!ok)
            luaL_error(L, "%s: argument %d must be a number, got %s", k->name, n,
                       luaL_typename(L, idx));
        if (code == 'f')
            v->f = (float)x;
        else
            v->d = (double)x;
        return;
    }
    default:
        luaL_error(L, "%s: unknown parameter type '%c' in its signature", k->name, code);
    }
}

/* gpu.launch(kernel, {grid=, block=, shared=, stream=}, args...) */
static int l_launch(lua_State *L)
{
    need_device(L);
    kref kr = check_kernel(L, 1);
    const raw_kernel *k = kr.k;
    luaL_checktype(L, 2, LUA_TTABLE);
    dim3 grid = get_dim3(L, 2, "grid");
    dim3 block = get_dim3(L, 2, "block");
    lua_getfield(L, 2, "shared");
    lua_Integer shared = 0;
    if (!lua_isnil(L, -1)) {
        int ok = 0;
        shared = lua_tointegerx(L, -1, &ok);
        if (!ok || shared < 0)
            return luaL_error(L, "gpu.launch: shared must be a byte count >= 0");
    }
    lua_pop(L, 1);
    lua_getfield(L, 2, "stream");
    cudaStream_t s = opt_stream(L, lua_gettop(L));
    lua_pop(L, 1);

    size_t nsig = strlen(k->sig);
    int nargs = lua_gettop(L) - 2;
    if (nsig > MAX_ARGS)
        return luaL_error(L, "%s: too many parameters (%d)", k->name, (int)nsig);
    if ((size_t)nargs != nsig)
        return luaL_error(L, "%s takes %d argument%s (%s), got %d", k->name, (int)nsig,
                          nsig == 1 ? "" : "s", k->sig, nargs);
    arg_value vals[MAX_ARGS];
    void *params[MAX_ARGS];
    for (int i = 0; i < nargs; i++) {
        memset(&vals[i], 0, sizeof vals[i]);
        if (kr.learner)
            convert_learner_arg(L, k, i + 1, i + 3, k->sig[i], &vals[i]);
        else
            convert_arg(L, k, i + 1, i + 3, k->sig[i], &vals[i]);
        params[i] = &vals[i];
    }
    check_config(L, k, grid, block, (size_t)shared);
    cudaError_t st = cudaLaunchKernel(k->func, grid, block, params, (size_t)shared, s);
    if (st == cudaSuccess)
        st = cudaGetLastError();
    if (st != cudaSuccess) {
        char what[128];
        snprintf(what, sizeof what, "gpu.launch(%s)", k->name);
        return cuda_fail(L, what, st);
    }
    return 0;
}

/* ---- copies and waits ---------------------------------------------------------- */

static bool ranges_overlap(const void *a, const void *b, size_t n)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + n && y < x + n;
}

/* gpu.copy(dst, src [, bytes [, stream]]): bytes (default: all of src)
 * from src to dst, either way between host and device or within one.  A
 * copy that touches the device is queued on the stream (the launcher's
 * default when none is given) with cudaMemcpyAsync; one between two host
 * Buffers waits for that stream, then copies on the CPU. */
static int l_copy(lua_State *L)
{
    need_device(L);
    lbuffer *d = live_buffer(L, 1);
    lbuffer *src = live_buffer(L, 2);
    size_t n = src->bytes;
    if (!lua_isnoneornil(L, 3)) {
        lua_Integer v = luaL_checkinteger(L, 3);
        if (v < 0 || (lua_Unsigned)v > src->bytes)
            return luaL_error(L, "gpu.copy: %I bytes from a Buffer of %I bytes", v,
                              (lua_Integer)src->bytes);
        n = (size_t)v;
    }
    if (n > d->bytes)
        return luaL_error(L, "gpu.copy: %I bytes into a Buffer of %I bytes (pass the byte count, "
                             "or copy into a larger Buffer)",
                          (lua_Integer)n, (lua_Integer)d->bytes);
    cudaStream_t st = opt_stream(L, 4);
    if (n == 0)
        return 0;
    void *dp = buf_ptr(d);
    const void *sp = buf_ptr(src);
    bool dh = d->mem != MEM_DEVICE, sh = src->mem != MEM_DEVICE;
    if (dh == sh && ranges_overlap(dp, sp, n))
        return luaL_error(L, "gpu.copy: the source and destination overlap");
    cudaError_t e;
    if (dh && sh) {
        e = cudaStreamSynchronize(st);
        if (e != cudaSuccess)
            return cuda_fail(L, "gpu.copy (waiting for the stream)", e);
        memcpy(dp, sp, n);
        return 0;
    }
    enum cudaMemcpyKind kind = dh   ? cudaMemcpyDeviceToHost
                               : sh ? cudaMemcpyHostToDevice
                                    : cudaMemcpyDeviceToDevice;
    e = cudaMemcpyAsync(dp, sp, n, kind, st);
    if (e != cudaSuccess) {
        char what[96];
        snprintf(what, sizeof what, "gpu.copy (%s to %s)", mem_name(src->mem), mem_name(d->mem));
        return cuda_fail(L, what, e);
    }
    return 0;
}

/* gpu.wait(event [, stream]): later work on the stream (default: the
 * launcher's) waits until the event has happened. */
static int l_wait(lua_State *L)
{
    need_device(L);
    levent *ev = check_event(L, 1);
    cudaStream_t s = opt_stream(L, 2);
    cuda_check(L, "gpu.wait", cudaStreamWaitEvent(s, ev->ev, 0));
    return 0;
}

/* s:wait(event) */
static int stream_wait(lua_State *L)
{
    cudaStream_t s = opt_stream(L, 1);
    levent *ev = check_event(L, 2);
    cuda_check(L, "stream:wait", cudaStreamWaitEvent(s, ev->ev, 0));
    return 0;
}

/* ---- registration -------------------------------------------------------- */

static void new_meta(lua_State *L, const char *name, const luaL_Reg *meta)
{
    luaL_newmetatable(L, name);
    luaL_setfuncs(L, meta, 0);
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
}

void luagpu_open(lua_State *L)
{
    static const luaL_Reg buf_methods[] = {
        {"upload", buf_upload}, {"download", buf_download}, {"fill", buf_fill},
        {"free", buf_free},     {"view", buf_view},         {NULL, NULL},
    };
    static const luaL_Reg buf_meta[] = {
        {"__gc", buf_gc},     {"__close", buf_gc},   {"__len", buf_len},
        {"__tostring", buf_tostring}, {NULL, NULL},
    };
    static const luaL_Reg kernel_meta[] = {
        {"__index", kernel_index}, {"__tostring", kernel_tostring}, {NULL, NULL},
    };
    static const luaL_Reg stream_meta[] = {
        {"__gc", stream_gc}, {"__close", stream_gc}, {"__tostring", stream_tostring},
        {NULL, NULL},
    };
    static const luaL_Reg stream_methods[] = {
        {"synchronize", stream_sync}, {"destroy", stream_gc}, {"wait", stream_wait},
        {NULL, NULL},
    };
    static const luaL_Reg event_meta[] = {
        {"__gc", event_gc}, {"__close", event_gc}, {"__tostring", event_tostring},
        {NULL, NULL},
    };
    static const luaL_Reg event_methods[] = {
        {"record", event_record}, {"synchronize", event_sync}, {"destroy", event_gc},
        {NULL, NULL},
    };
    static const luaL_Reg gpu_funcs[] = {
        {"alloc", l_alloc},       {"host_alloc", l_host_alloc}, {"kernel", l_kernel},
        {"kernels", l_kernels},   {"launch", l_launch},     {"synchronize", l_synchronize},
        {"copy", l_copy},         {"wait", l_wait},         {"stream", l_stream},
        {"event", l_event},       {"elapsed", l_elapsed},   {"device", l_device},
        {NULL, NULL},
    };

    new_meta(L, MT_BUFFER, buf_meta);
    luaL_newlib(L, buf_methods);
    lua_pushcclosure(L, buf_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);

    new_meta(L, MT_KERNEL, kernel_meta);
    lua_pop(L, 1);

    new_meta(L, MT_STREAM, stream_meta);
    luaL_newlib(L, stream_methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);

    new_meta(L, MT_EVENT, event_meta);
    luaL_newlib(L, event_methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);

    luaL_newlib(L, gpu_funcs);
}

static int open_protected(lua_State *L)
{
    luagpu_open(L);
    return 1;
}

bool luagpu_install(lab_state *s, cl_err *e)
{
    lua_State *L = sandbox_lua(s);
    if (!lua_checkstack(L, 8))
        return err_set(e, "Lua stack overflow");
    lua_pushcfunction(L, open_protected);
    if (!sandbox_pcall(s, 0, 1, e))
        return err_prefix(e, "cannot register the gpu table");
    return sandbox_set_global(s, "gpu", e);
}

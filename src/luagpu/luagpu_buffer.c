#include "luagpu/luagpu.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/buffer.h"
#include "luagpu/luagpu_internal.h"

#define SMALL_MAX ((lua_Integer)1 << 20)
#define FILL_CHUNK ((size_t)4 << 20)

static const char KEY_BORROWED = 'b';   /* set of borrowed Buffers */

static const char *dtype_name(dtype d)
{
    return luagpu_dtype_name(d);
}

static size_t esize(dtype d)
{
    return luagpu_dtype_size(d);
}

const char *luagpu_mem_name(memkind mem)
{
    return mem == MEM_DEVICE ? "device" : mem == MEM_PINNED ? "pinned"
                                      : mem == MEM_MANAGED ? "managed" : "pageable";
}

/* ---- buffers ---------------------------------------------------------- */

static lbuffer *check_buffer(lua_State *L, int idx)
{
    return luaL_checkudata(L, idx, MT_BUFFER);
}

/* The address of buf's first element; NULL once buf (or the base of a view)
 * was freed. */
void *luagpu_buf_ptr(const lbuffer *buf)
{
    if (buf->base)
        return buf->base->ptr ? (char *)buf->base->ptr + buf->off : NULL;
    return buf->ptr;
}

static lbuffer *live_buffer(lua_State *L, int idx)
{
    lbuffer *b = check_buffer(L, idx);
    if (!luagpu_buf_ptr(b))
        sandbox_raise(L, "the buffer was freed");
    return b;
}

static void buffer_release(lbuffer *b)
{
    if (b->ptr && !b->borrowed && !b->base) {
        if (b->mem == MEM_DEVICE || b->mem == MEM_MANAGED)
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
    return luagpu_dtype_parse(dt, d);
}

#define DTYPES "'f32', 'f64', 'i32', 'u32', 'u8' or 'bf16'"

static bool fill_new = true;

void luagpu_fill_new_buffers(bool on)
{
    fill_new = on;
}

int luagpu_alloc(lua_State *L)
{
    luagpu_need_device(L);
    lua_Integer count = luaL_checkinteger(L, 1);
    const char *dt = luaL_optstring(L, 2, "f32");
    dtype d;
    if (!parse_dtype(dt, &d))
        return luaL_error(L, "gpu.alloc: dtype must be " DTYPES ", got '%s'", dt);
    if (count < 1 || count > ((lua_Integer)1 << 40))
        return luaL_error(L, "gpu.alloc: count must be between 1 and 2^40, got %I", count);
    lbuffer *b = new_buffer(L);
    gpu_buffer gb;
    cl_err e = {{0}};
    if (!buffer_alloc(&gb, (size_t)count * esize(d), &e))
        return luaL_error(L, "gpu.alloc(%I, '%s'): %s", count, dt, e.msg);
    b->ptr = gb.ptr;
    b->bytes = gb.bytes;
    b->count = count;
    b->dt = d;
    /* New memory holds whatever was there before, often zeros in a fresh
     * process: a launcher that reads it before writing it would pass by
     * luck.  cudalab fills it with 0xFF bytes (a NaN in f32, f64 and bf16,
     * -1 in i32, the largest u32 and u8), queued before any launch. */
    if (fill_new) {
        cudaError_t st = cudaMemsetAsync(gb.ptr, 0xFF, gb.bytes, luagpu_default_stream(L));
        if (st != cudaSuccess)
            return luagpu_cuda_fail(L, "gpu.alloc", st);
    }
    return 1;
}

/* gpu.host_alloc(count [, dtype [, {pinned = true|false}]]): host memory,
 * page-locked (cudaHostAlloc) unless pinned is false (malloc). */
int luagpu_host_alloc(lua_State *L)
{
    luagpu_need_device(L);
    lua_Integer count = luaL_checkinteger(L, 1);
    const char *dt = luaL_optstring(L, 2, "f32");
    dtype d;
    if (!parse_dtype(dt, &d))
        return luaL_error(L, "gpu.host_alloc: dtype must be " DTYPES ", got '%s'", dt);
    if (count < 1 || count > ((lua_Integer)1 << 40))
        return luaL_error(L, "gpu.host_alloc: count must be between 1 and 2^40, got %I", count);
    bool pinned = true;
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        if (lua_getfield(L, 3, "pinned") != LUA_TNIL)
            pinned = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    size_t bytes = (size_t)count * esize(d);
    lbuffer *b = new_buffer(L);
    void *p = NULL;
    if (pinned) {
        cudaError_t st = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
        if (st != cudaSuccess) {
            char what[96];
            snprintf(what, sizeof what, "gpu.host_alloc(%lld, '%s', pinned)", (long long)count,
                     dt);
            return luagpu_cuda_fail(L, what, st);
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
int luagpu_buf_view(lua_State *L)
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
    v->off = (b->base ? b->off : 0) + (size_t)first * esize(b->dt);
    v->first = (b->base ? b->first : 0) + first;
    v->bytes = (size_t)count * esize(b->dt);
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
int luagpu_buf_gc(lua_State *L)
{
    buffer_release(check_buffer(L, 1));
    return 0;
}

/* b:free(): refuses cudalab's buffers, which outlive the launcher's use. */
int luagpu_buf_free(lua_State *L)
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

int luagpu_buf_len(lua_State *L)
{
    lua_pushinteger(L, check_buffer(L, 1)->count);
    return 1;
}

int luagpu_buf_tostring(lua_State *L)
{
    lbuffer *b = check_buffer(L, 1);
    if (!luagpu_buf_ptr(b)) {
        lua_pushliteral(L, "Buffer (freed)");
        return 1;
    }
    char sz[32];
    buffer_format_bytes(b->bytes, sz, sizeof sz);
    if (b->base)
        lua_pushfstring(L, "Buffer (%I x %s, %s, %s; a view from element %I)", b->count,
                        dtype_name(b->dt), sz, luagpu_mem_name(b->mem), b->first);
    else
        lua_pushfstring(L, "Buffer (%I x %s, %s, %s)", b->count, dtype_name(b->dt), sz,
                        luagpu_mem_name(b->mem));
    return 1;
}

/* b:upload(t): t[1..#t] into the first #t elements. */
int luagpu_buf_upload(lua_State *L)
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
    const size_t es = esize(b->dt);
    void *host = lua_newuserdatauv(L, (size_t)n * es, 0);
    for (lua_Integer i = 0; i < n; i++) {
        lua_geti(L, 2, i + 1);
        const char *why = NULL;
        if (!luagpu_elem_encode(L, -1, b->dt, (unsigned char *)host + (size_t)i * es, &why))
            return luaL_error(L, "upload: value %I %s for a %s buffer", i + 1, why,
                              dtype_name(b->dt));
        lua_pop(L, 1);
    }
    if (luagpu_on_host(b->mem)) {
        memcpy(luagpu_buf_ptr(b), host, (size_t)n * es);
        return 0;
    }
    luagpu_need_device(L);
    cudaStream_t s = luagpu_default_stream(L);
    cudaError_t st = cudaMemcpyAsync(luagpu_buf_ptr(b), host, (size_t)n * es, cudaMemcpyDefault, s);
    if (st == cudaSuccess)
        st = cudaStreamSynchronize(s);
    if (st != cudaSuccess)
        return luagpu_cuda_fail(L, "upload", st);
    return 0;
}

/* b:download([n]) -> table of the first n (default all) values. */
int luagpu_buf_download(lua_State *L)
{
    lbuffer *b = live_buffer(L, 1);
    lua_Integer n = luaL_optinteger(L, 2, b->count);
    if (n < 0 || n > b->count)
        return luaL_error(L, "download of %I values from a buffer of %I", n, b->count);
    if (n > SMALL_MAX)
        return luaL_error(L, "download is for small tests: at most %I values, got %I",
                          SMALL_MAX, n);
    const size_t es = esize(b->dt);
    void *host = lua_newuserdatauv(L, n ? (size_t)n * es : 1, 0);
    if (n > 0 && luagpu_on_host(b->mem)) {
        memcpy(host, luagpu_buf_ptr(b), (size_t)n * es);
    } else if (n > 0) {
        luagpu_need_device(L);
        cudaStream_t s = luagpu_default_stream(L);
        cudaError_t st = cudaMemcpyAsync(host, luagpu_buf_ptr(b), (size_t)n * es, cudaMemcpyDefault,
                                         s);
        if (st == cudaSuccess)
            st = cudaStreamSynchronize(s);
        if (st != cudaSuccess)
            return luagpu_cuda_fail(L, "download", st);
    }
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 0; i < n; i++) {
        luagpu_elem_push(L, b->dt, (const unsigned char *)host + (size_t)i * es);
        lua_seti(L, -2, i + 1);
    }
    return 1;
}

/* b:fill(value): every element set to value. */
int luagpu_buf_fill(lua_State *L)
{
    lbuffer *b = live_buffer(L, 1);
    const size_t es = esize(b->dt);
    unsigned char elem[8];
    const char *why = NULL;
    if (!luagpu_elem_encode(L, 2, b->dt, elem, &why))
        return luaL_error(L, "fill: the value %s for a %s buffer", why, dtype_name(b->dt));
    if (luagpu_on_host(b->mem)) {
        unsigned char *h = luagpu_buf_ptr(b);
        for (size_t i = 0; i < b->bytes; i += es)
            memcpy(h + i, elem, es);
        return 0;
    }
    luagpu_need_device(L);
    cudaStream_t s = luagpu_default_stream(L);
    cudaError_t st;
    bool same = true;
    for (size_t i = 1; i < es; i++)
        same &= elem[i] == elem[0];
    if (same) {
        st = cudaMemsetAsync(luagpu_buf_ptr(b), elem[0], b->bytes, s);
        if (st != cudaSuccess)
            return luagpu_cuda_fail(L, "fill", st);
        return 0;
    }
    /* a chunk of whole 8-byte words holds whole elements of every size */
    size_t chunk = b->bytes < FILL_CHUNK ? b->bytes : FILL_CHUNK;
    size_t words = (chunk + 7) / 8;
    unsigned char *host = lua_newuserdatauv(L, words * 8, 0);
    for (size_t i = 0; i < words * 8; i += es)
        memcpy(host + i, elem, es);
    for (size_t off = 0; off < b->bytes; off += chunk) {
        size_t n = b->bytes - off < chunk ? b->bytes - off : chunk;
        st = cudaMemcpyAsync((char *)luagpu_buf_ptr(b) + off, host, n, cudaMemcpyDefault, s);
        if (st == cudaSuccess)
            st = cudaStreamSynchronize(s);
        if (st != cudaSuccess)
            return luagpu_cuda_fail(L, "fill", st);
    }
    return 0;
}

int luagpu_buf_index(lua_State *L)
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
        lua_pushstring(L, luagpu_mem_name(b->mem));
    } else {
        lua_pushvalue(L, 2);
        lua_rawget(L, lua_upvalueindex(1));
    }
    return 1;
}

/* Pushes a borrowed Buffer of the given memory kind and records it. */
static void push_borrowed(lua_State *L, void *ptr, size_t count, luagpu_dtype dt, memkind mem)
{
    lbuffer *b = new_buffer(L);
    b->ptr = ptr;
    b->bytes = count * luagpu_dtype_size(dt);
    b->count = (lua_Integer)count;
    b->dt = (dtype)dt;
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

void luagpu_push_borrowed(lua_State *L, void *ptr, size_t count, luagpu_dtype dt)
{
    push_borrowed(L, ptr, count, dt, MEM_DEVICE);
}

void luagpu_push_borrowed_host(lua_State *L, void *ptr, size_t count, luagpu_dtype dt)
{
    push_borrowed(L, ptr, count, dt, MEM_PAGEABLE);
}

void luagpu_push_borrowed_managed(lua_State *L, void *ptr, size_t count, luagpu_dtype dt)
{
    push_borrowed(L, ptr, count, dt, MEM_MANAGED);
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
int luagpu_copy(lua_State *L)
{
    luagpu_need_device(L);
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
    cudaStream_t st = luagpu_opt_stream(L, 4);
    if (n == 0)
        return 0;
    void *dp = luagpu_buf_ptr(d);
    const void *sp = luagpu_buf_ptr(src);
    bool dh = luagpu_on_host(d->mem), sh = luagpu_on_host(src->mem);
    if (dh == sh && ranges_overlap(dp, sp, n))
        return luaL_error(L, "gpu.copy: the source and destination overlap");
    cudaError_t e;
    if (dh && sh) {
        e = cudaStreamSynchronize(st);
        if (e != cudaSuccess)
            return luagpu_cuda_fail(L, "gpu.copy (waiting for the stream)", e);
        memcpy(dp, sp, n);
        return 0;
    }
    enum cudaMemcpyKind kind = d->mem == MEM_MANAGED || src->mem == MEM_MANAGED ? cudaMemcpyDefault
                               : dh ? cudaMemcpyDeviceToHost
                               : sh ? cudaMemcpyHostToDevice
                                    : cudaMemcpyDeviceToDevice;
    e = cudaMemcpyAsync(dp, sp, n, kind, st);
    if (e != cudaSuccess) {
        char what[96];
        snprintf(what, sizeof what, "gpu.copy (%s to %s)", luagpu_mem_name(src->mem), luagpu_mem_name(d->mem));
        return luagpu_cuda_fail(L, what, e);
    }
    return 0;
}

/* gpu.prefetch(b [, to [, stream]]): moves the pages of the managed Buffer b
 * to the device (to = "device", the default) or to host memory ("host"),
 * in stream order, with cudaMemPrefetchAsync; returns at once. */
int luagpu_prefetch(lua_State *L)
{
    luagpu_need_device(L);
    lbuffer *b = live_buffer(L, 1);
    const char *to = luaL_optstring(L, 2, "device");
    bool dev = strcmp(to, "device") == 0;
    if (!dev && strcmp(to, "host") != 0)
        return luaL_error(L, "gpu.prefetch: to must be 'device' or 'host', got '%s'", to);
    if (b->mem != MEM_MANAGED)
        return luaL_error(L, "gpu.prefetch: a %s Buffer stays where it is; prefetch moves "
                             "managed memory (the managed problem's args.x and args.y)",
                          luagpu_mem_name(b->mem));
    cudaStream_t st = luagpu_opt_stream(L, 3);
    int ordinal = 0;
    luagpu_cuda_check(L, "gpu.prefetch", cudaGetDevice(&ordinal));
    struct cudaMemLocation loc;
    memset(&loc, 0, sizeof loc);
    loc.type = dev ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
    loc.id = dev ? ordinal : 0;
    luagpu_cuda_check(L, "gpu.prefetch", cudaMemPrefetchAsync(luagpu_buf_ptr(b), b->bytes, loc,
                                                              0, st));
    return 0;
}

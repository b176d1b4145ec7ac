#include "luagpu/luagpu.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/kernreg.h"
#include "luagpu/luagpu_internal.h"

/* ---- kernels ----------------------------------------------------------- */

/* Raises the refusal of shipped kernel name in an exercise launcher. */
static void refuse_shipped(lua_State *L, const char *name)
{
    sandbox_raise(L, "'%s' is one of cudalab's shipped kernels: an exercise launcher runs only "
                     "the kernels of your own file (k.<name>), so that what is measured and "
                     "judged is your work",
                  name);
}

static kref check_kernel(lua_State *L, int idx)
{
    kref r = {NULL, false};
    if (lua_type(L, idx) == LUA_TSTRING) {
        const char *name = lua_tostring(L, idx);
        r.k = kernreg_find_raw(name);
        if (r.k && luagpu_own_only(L))
            refuse_shipped(L, name);
        if (!r.k)
            sandbox_raise(L, "unknown kernel '%s' (names are shipped kernels: gpu.kernels() lists "
                          "them; a launcher's own kernels are k.%s)",
                       name, name);
        return r;
    }
    if (lua_isnoneornil(L, idx))
        sandbox_raise(L, "gpu.launch: the kernel is nil (a name the kernel file does not define?)");
    lkernel *lk = luaL_checkudata(L, idx, MT_KERNEL);
    r.k = lk->k;
    r.learner = lk->learner;
    if (!r.learner && luagpu_own_only(L))
        refuse_shipped(L, r.k->name);
    return r;
}

int luagpu_kernel(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    const raw_kernel *k = kernreg_find_raw(name);
    if (k && luagpu_own_only(L))
        refuse_shipped(L, name);
    luagpu_need_device(L);
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

int luagpu_kernels(lua_State *L)
{
    luagpu_need_device(L);
    size_t n = 0;
    const raw_kernel *all = kernels_raw(&n);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, all[i].name);
        lua_seti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

int luagpu_kernel_index(lua_State *L)
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

int luagpu_kernel_tostring(lua_State *L)
{
    lkernel *lk = luaL_checkudata(L, 1, MT_KERNEL);
    lua_pushfstring(L, "Kernel %s(%s)", lk->k->name, lk->k->sig);
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
        sandbox_raise(L, "gpu.launch: the configuration needs '%s'", name);
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
            sandbox_raise(L, "gpu.launch: '%s' must be a number or a table {x, y, z}", name);
        }
        if (!ok || v < 1 || v > 0x7fffffff)
            sandbox_raise(L, "gpu.launch: %s.%s must be a positive integer", name, axis[i]);
        *part[i] = (unsigned int)v;
    }
    lua_pop(L, 1);
    return d;
}

/* Refuses a configuration the device cannot run, in words. */
static void check_config(lua_State *L, const raw_kernel *k, dim3 grid, dim3 block,
                         size_t shared)
{
    const struct cudaDeviceProp *p = luagpu_device_prop();
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    if (threads > (unsigned long long)p->maxThreadsPerBlock)
        sandbox_raise(L, "block of %d threads: the limit is %d per block", (int)threads,
                   p->maxThreadsPerBlock);
    unsigned int bd[3] = {block.x, block.y, block.z};
    unsigned int gd[3] = {grid.x, grid.y, grid.z};
    static const char *const axis[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; i++) {
        if (bd[i] > (unsigned int)p->maxThreadsDim[i])
            sandbox_raise(L, "block.%s of %d: the limit is %d", axis[i], (int)bd[i],
                       p->maxThreadsDim[i]);
        if (gd[i] > (unsigned int)p->maxGridSize[i])
            sandbox_raise(L, "grid.%s of %d blocks: the limit is %d", axis[i], (int)gd[i],
                       p->maxGridSize[i]);
    }
    struct cudaFuncAttributes fa;
    luagpu_cuda_check(L, "gpu.launch", cudaFuncGetAttributes(&fa, k->func));
    if (threads > (unsigned long long)fa.maxThreadsPerBlock)
        sandbox_raise(L, "block of %d threads: kernel %s can run at most %d per block (it uses %d "
                      "registers per thread)",
                   (int)threads, k->name, fa.maxThreadsPerBlock, fa.numRegs);
    size_t limit = p->sharedMemPerBlockOptin > p->sharedMemPerBlock ? p->sharedMemPerBlockOptin
                                                                     : p->sharedMemPerBlock;
    if (shared + fa.sharedSizeBytes > limit)
        sandbox_raise(L, "shared memory of %d bytes (plus %d static): the limit is %d per block",
                   (int)shared, (int)fa.sharedSizeBytes, (int)limit);
    if (shared > (size_t)fa.maxDynamicSharedSizeBytes)
        luagpu_cuda_check(L, "gpu.launch (raising the shared-memory limit)",
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
        sandbox_raise(L, "%s: argument %d must be an integer, got %s", k->name, n,
                   luaL_typename(L, idx));
    if (iv < lo || iv > hi)
        sandbox_raise(L, "%s: argument %d (%lld) does not fit in %s", k->name, n, (long long)iv, what);
    return iv;
}

static void *buffer_arg(lua_State *L, const raw_kernel *k, int n, int idx)
{
    lbuffer *b = luaL_testudata(L, idx, MT_BUFFER);
    if (!b)
        sandbox_raise(L, "%s: argument %d must be a Buffer, got %s", k->name, n,
                   luaL_typename(L, idx));
    if (!luagpu_buf_ptr(b))
        sandbox_raise(L, "%s: argument %d is a Buffer that was freed%s", k->name, n,
                   b->borrowed ? " (a problem's buffers last only while its size runs)" : "");
    if (luagpu_on_host(b->mem))
        sandbox_raise(L, "%s: argument %d is a %s host Buffer: kernels take device Buffers (move the "
                      "data with gpu.copy first)",
                   k->name, n, luagpu_mem_name(b->mem));
    return luagpu_buf_ptr(b);
}

/* A float ('f') or double ('d') argument. */
static void float_arg(lua_State *L, const raw_kernel *k, int n, int idx, char code, arg_value *v)
{
    int ok = 0;
    lua_Number x = lua_tonumberx(L, idx, &ok);
    if (!ok)
        sandbox_raise(L, "%s: argument %d must be a number, got %s", k->name, n, luaL_typename(L, idx));
    if (code == 'f')
        v->f = (float)x;
    else
        v->d = (double)x;
}

/* Converts a learner kernel's argument by NVRTC's letter (lua/exercise.md). */
static void convert_learner_arg(lua_State *L, const raw_kernel *k, int n, int idx, char code,
                                arg_value *v)
{
    switch (code) {
    case 'x':
        if (luaL_testudata(L, idx, MT_BUFFER)) {
            v->p = buffer_arg(L, k, n, idx);
            return;
        }
        if (lua_type(L, idx) != LUA_TNUMBER)
            sandbox_raise(L, "%s: argument %d (a pointer or 64-bit integer) must be a Buffer or an "
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
    case 'd':
        float_arg(L, k, n, idx, code, v);
        return;
    case 'b':
        sandbox_raise(L, "%s: parameter %d is a struct passed by value, which launchers cannot "
                      "pass: give the kernel its fields as separate parameters",
                   k->name, n);
        return;
    default:
        sandbox_raise(L, "%s: unknown parameter type '%c' in its signature", k->name, code);
    }
}

/* Converts a shipped raw kernel's argument by its signature letter. */
static void convert_arg(lua_State *L, const raw_kernel *k, int n, int idx, char code,
                        arg_value *v)
{
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
    case 'd':
        float_arg(L, k, n, idx, code, v);
        return;
    default:
        sandbox_raise(L, "%s: unknown parameter type '%c' in its signature", k->name, code);
    }
}

/* gpu.launch(kernel, {grid=, block=, shared=, stream=}, args...) */
int luagpu_launch(lua_State *L)
{
    kref kr = check_kernel(L, 1);
    luagpu_need_device(L);
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
    cudaStream_t s = luagpu_opt_stream(L, lua_gettop(L));
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
        return luagpu_cuda_fail(L, what, st);
    }
    if (kr.learner)
        luagpu_count_own_launch(L);
    return 0;
}

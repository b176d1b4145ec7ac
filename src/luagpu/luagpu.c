#include "luagpu/luagpu.h"

#include <stdio.h>

#include "core/devinfo.h"
#include "gpu/cudacheck.h"
#include "gpu/device.h"
#include "luagpu/luagpu_internal.h"

static const char KEY_STREAM = 's';

static struct {
    bool probed;
    device_info dev;
    struct cudaDeviceProp prop;
} g_gpu;

/* Raises "no CUDA device found: ..." when there is no usable device. */
void luagpu_need_device(lua_State *L)
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
        sandbox_raise(L, "%s", g_gpu.dev.reason);
}

/* The device's properties, read by the first luagpu_need_device. */
const struct cudaDeviceProp *luagpu_device_prop(void)
{
    return &g_gpu.prop;
}

/* Raises a Lua error for a failed CUDA call, remembering its code. */
int luagpu_cuda_fail(lua_State *L, const char *what, cudaError_t st)
{
    cudacheck_fail(NULL, st, what, __FILE__, __LINE__);
    cudaGetLastError();
    return luaL_error(L, "%s: %s", what, cudacheck_plain(st));
}

/* luagpu_cuda_fail unless st is cudaSuccess. */
void luagpu_cuda_check(lua_State *L, const char *what, cudaError_t st)
{
    if (st != cudaSuccess)
        luagpu_cuda_fail(L, what, st);
}

cudaStream_t luagpu_default_stream(lua_State *L)
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

static const char KEY_OWN_ONLY = 0, KEY_OWN_LAUNCHES = 0;

void luagpu_set_own_only(lua_State *L, bool own_only)
{
    lua_pushboolean(L, own_only);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &KEY_OWN_ONLY);
    lua_pushinteger(L, 0);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &KEY_OWN_LAUNCHES);
}

bool luagpu_own_only(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &KEY_OWN_ONLY);
    bool on = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return on;
}

long long luagpu_own_launches(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &KEY_OWN_LAUNCHES);
    long long n = (long long)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return n;
}

void luagpu_count_own_launch(lua_State *L)
{
    /* The key exists (luagpu_set_own_only made it): setting it allocates
     * nothing. */
    lua_Integer n = (lua_Integer)luagpu_own_launches(L) + 1;
    lua_pushinteger(L, n);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &KEY_OWN_LAUNCHES);
}

static int l_device(lua_State *L)
{
    luagpu_need_device(L);
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
        {"upload", luagpu_buf_upload},
        {"download", luagpu_buf_download},
        {"fill", luagpu_buf_fill},
        {"free", luagpu_buf_free},
        {"view", luagpu_buf_view},
        {NULL, NULL},
    };
    static const luaL_Reg buf_meta[] = {
        {"__gc", luagpu_buf_gc},
        {"__close", luagpu_buf_gc},
        {"__len", luagpu_buf_len},
        {"__tostring", luagpu_buf_tostring},
        {NULL, NULL},
    };
    static const luaL_Reg kernel_meta[] = {
        {"__index", luagpu_kernel_index},
        {"__tostring", luagpu_kernel_tostring},
        {NULL, NULL},
    };
    static const luaL_Reg stream_meta[] = {
        {"__gc", luagpu_stream_gc},
        {"__close", luagpu_stream_gc},
        {"__tostring", luagpu_stream_tostring},
        {NULL, NULL},
    };
    static const luaL_Reg stream_methods[] = {
        {"synchronize", luagpu_stream_sync},
        {"destroy", luagpu_stream_gc},
        {"wait", luagpu_stream_wait},
        {NULL, NULL},
    };
    static const luaL_Reg event_meta[] = {
        {"__gc", luagpu_event_gc},
        {"__close", luagpu_event_gc},
        {"__tostring", luagpu_event_tostring},
        {NULL, NULL},
    };
    static const luaL_Reg event_methods[] = {
        {"record", luagpu_event_record},
        {"synchronize", luagpu_event_sync},
        {"destroy", luagpu_event_gc},
        {NULL, NULL},
    };
    static const luaL_Reg gpu_funcs[] = {
        {"alloc", luagpu_alloc},
        {"host_alloc", luagpu_host_alloc},
        {"kernel", luagpu_kernel},
        {"kernels", luagpu_kernels},
        {"launch", luagpu_launch},
        {"synchronize", luagpu_synchronize},
        {"copy", luagpu_copy},
        {"prefetch", luagpu_prefetch},
        {"wait", luagpu_wait},
        {"stream", luagpu_stream},
        {"event", luagpu_event},
        {"elapsed", luagpu_elapsed},
        {"device", l_device},
        {NULL, NULL},
    };

    new_meta(L, MT_BUFFER, buf_meta);
    luaL_newlib(L, buf_methods);
    lua_pushcclosure(L, luagpu_buf_index, 1);
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

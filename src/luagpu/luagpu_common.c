/* luagpu_common.c - what every piece of the `gpu` table uses and that
 * calls no other piece: the device (probed once, gpu.device()), CUDA
 * errors as Lua errors, and the launcher's settings in the registry (its
 * stream, own-only and the count of its own launches). */
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

/* gpu.device(): the device's name, SMs, compute capability and limits. */
int luagpu_device(lua_State *L)
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

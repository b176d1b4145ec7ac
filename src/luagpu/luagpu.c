/* luagpu.c - registering the `gpu` table and its metatables, and adding
 * it to a sandbox's globals. */
#include "luagpu/luagpu.h"

#include "luagpu/luagpu_internal.h"

/* ---- registration -------------------------------------------------------- */

static void new_meta(lua_State *L, const char *name, const luaL_Reg *meta)
{
    luaL_newmetatable(L, name);
    luaL_setfuncs(L, meta, 0);
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
}

/* The Buffer metatable: its methods behind an __index that also reads
 * b.count, b.dtype, ... (luagpu_buf_index). */
static void open_buffer_meta(lua_State *L)
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
    new_meta(L, MT_BUFFER, buf_meta);
    luaL_newlib(L, buf_methods);
    lua_pushcclosure(L, luagpu_buf_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

static void open_kernel_meta(lua_State *L)
{
    static const luaL_Reg kernel_meta[] = {
        {"__index", luagpu_kernel_index},
        {"__tostring", luagpu_kernel_tostring},
        {NULL, NULL},
    };
    new_meta(L, MT_KERNEL, kernel_meta);
    lua_pop(L, 1);
}

static void open_stream_meta(lua_State *L)
{
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
    new_meta(L, MT_STREAM, stream_meta);
    luaL_newlib(L, stream_methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

static void open_event_meta(lua_State *L)
{
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
    new_meta(L, MT_EVENT, event_meta);
    luaL_newlib(L, event_methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

void luagpu_open(lua_State *L)
{
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
        {"device", luagpu_device},
        {NULL, NULL},
    };
    open_buffer_meta(L);
    open_kernel_meta(L);
    open_stream_meta(L);
    open_event_meta(L);
    luaL_newlib(L, gpu_funcs);
}

static int open_protected(lua_State *L)
{
    luagpu_open(L);
    return 1;
}

bool luagpu_install(lab_state *sandbox, cl_err *err)
{
    lua_State *L = sandbox_lua(sandbox);
    if (!lua_checkstack(L, 8))
        return err_set(err, "Lua stack overflow");
    lua_pushcfunction(L, open_protected);
    if (!sandbox_pcall(sandbox, 0, 1, err))
        return err_prefix(err, "cannot register the gpu table");
    return sandbox_set_global(sandbox, "gpu", err);
}

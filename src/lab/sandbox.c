/* sandbox.c - creating and freeing a sandboxed Lua state. */
#include "lab/sandbox.h"
#include "lab/sandbox_internal.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdlib.h>
#include <string.h>

/* Copies the named fields (names ends in NULL) of the table at src into a
 * new table (pushed). */
static void copy_fields(lua_State *L, int src, const char *const *names)
{
    size_t n = 0;
    while (names[n])
        n++;
    src = lua_absindex(L, src);
    lua_createtable(L, 0, (int)n);
    for (size_t i = 0; i < n; i++) {
        lua_getfield(L, src, names[i]);
        lua_setfield(L, -2, names[i]);
    }
}

/* Copies every field of the table at src into a new table (pushed). */
static void copy_table(lua_State *L, int src)
{
    src = lua_absindex(L, src);
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, src)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
    }
}

/* The weak set of read-only views, in the registry. */
static void make_frozen_set(lua_State *L)
{
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sandbox_key_frozen);
}

/* Opens the libraries the allowed globals are copied from, without dofile
 * and loadfile. */
static void open_libraries(lua_State *L)
{
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},         {LUA_STRLIBNAME, luaopen_string},
        {LUA_TABLIBNAME, luaopen_table},   {LUA_MATHLIBNAME, luaopen_math},
        {LUA_UTF8LIBNAME, luaopen_utf8},   {LUA_COLIBNAME, luaopen_coroutine},
        {LUA_OSLIBNAME, luaopen_os},
    };
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
        luaL_requiref(L, libs[i].name, libs[i].func, 0);
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    lua_setglobal(L, "dofile");
    lua_pushnil(L);
    lua_setglobal(L, "loadfile");
}

/* Pushes the allowed globals (sandbox_absent.c's allow-lists), copied from
 * the global table at g and the loaded libraries at loaded, with the
 * sandbox's own base functions and the guards for what is left out. */
static int push_api(lua_State *L, int g, int loaded)
{
    copy_fields(L, g, sandbox_allowed_base);
    int api = lua_gettop(L);
    sandbox_replace_base(L, g, loaded, api);
    for (size_t i = 0; sandbox_allowed_libs[i]; i++) {
        const char *lib = sandbox_allowed_libs[i];
        lua_getfield(L, loaded, lib);
        copy_table(L, -1);
        if (strcmp(lib, LUA_STRLIBNAME) == 0)
            sandbox_guard_library(L, -1, LUA_STRLIBNAME, "dump");
        lua_setfield(L, api, lib);
        lua_pop(L, 1);
    }
    lua_getfield(L, loaded, LUA_OSLIBNAME);
    copy_fields(L, -1, sandbox_allowed_os);
    sandbox_guard_library(L, -1, LUA_OSLIBNAME, NULL);
    lua_setfield(L, api, LUA_OSLIBNAME);
    lua_pop(L, 1);
    sandbox_guard_library(L, api, NULL, "require io debug dofile loadfile package");
    return api;
}

/* Stores the allowed globals at api, their read-only view and the
 * metatable of every private _ENV (whose __index is the view) in the
 * registry. */
static void publish_api(lua_State *L, int api)
{
    lua_pushvalue(L, api);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sandbox_key_api);
    lua_pushvalue(L, api);
    sandbox_freeze_value(L);                          /* api's tables become views too */
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sandbox_key_view);

    lua_createtable(L, 0, 2);                 /* ... view envmt */
    lua_insert(L, -2);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, LOCKED);
    lua_setfield(L, -2, "__metatable");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sandbox_key_envmt);
}

static int sb_setup(lua_State *L)
{
    luaL_checkstack(L, 16, "sandbox set-up");
    make_frozen_set(L);
    open_libraries(L);

    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    int loaded = lua_gettop(L);
    lua_pushglobaltable(L);
    int g = lua_gettop(L);
    int api = push_api(L, g, loaded);
    publish_api(L, api);

    lua_pushliteral(L, "");
    if (lua_getmetatable(L, -1)) {
        lua_pushliteral(L, LOCKED);
        lua_setfield(L, -2, "__metatable");
    }
    return 0;
}

int sandbox_set_budget(lab_state *sandbox, int ms)
{
    int before = sandbox->budget_ms;
    if (ms > 0)
        sandbox->budget_ms = ms;
    return before;
}

lab_state *sandbox_new(size_t mem_limit, int budget_ms, cl_err *err)
{
    lab_state *s = calloc(1, sizeof *s);
    if (!s) {
        err_set(err, "out of memory creating a Lua state");
        return NULL;
    }
    s->limit = mem_limit ? mem_limit : SANDBOX_DEFAULT_MEM;
    s->budget_ms = budget_ms > 0 ? budget_ms : SANDBOX_DEFAULT_BUDGET_MS;
    s->L = lua_newstate(sandbox_alloc, s);
    if (!s->L) {
        free(s);
        err_set(err, "cannot create a Lua state (memory limit too small?)");
        return NULL;
    }
    lua_sethook(s->L, sandbox_hook, LUA_MASKCOUNT, HOOK_EVERY);
    lua_pushcfunction(s->L, sb_setup);
    if (!sandbox_pcall(s, 0, 0, err)) {
        err_prefix(err, "cannot set up the Lua sandbox");
        sandbox_free(s);
        return NULL;
    }
    return s;
}

void sandbox_free(lab_state *sandbox)
{
    if (!sandbox)
        return;
    if (sandbox->L) {
        sandbox->depth = 1;
        sandbox->time_hit = false;
        sandbox_arm_deadline(sandbox);
        lua_close(sandbox->L);
    }
    free(sandbox);
}

struct lua_State *sandbox_lua(lab_state *sandbox)
{
    return sandbox->L;
}

/* sandbox.c - creating and freeing a sandboxed Lua state. */
#include "lab/sandbox.h"
#include "lab/sandbox_internal.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdlib.h>

/* Registry keys (their addresses). */
const char sandbox_key_api = 'a';     /* allowed globals, writable from C only */
const char sandbox_key_view = 'v';    /* read-only view of sandbox_key_api */
const char sandbox_key_frozen = 'f';  /* weak set of read-only views */
const char sandbox_key_envmt = 'm';   /* metatable of every private _ENV */

lab_state *sandbox_state_of(lua_State *L)
{
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return ud;
}

/* Copies the named fields of the table at src into a new table (pushed). */
static void copy_fields(lua_State *L, int src, const char *const *names, size_t n)
{
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

static int sb_setup(lua_State *L)
{
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},         {LUA_STRLIBNAME, luaopen_string},
        {LUA_TABLIBNAME, luaopen_table},   {LUA_MATHLIBNAME, luaopen_math},
        {LUA_UTF8LIBNAME, luaopen_utf8},   {LUA_COLIBNAME, luaopen_coroutine},
        {LUA_OSLIBNAME, luaopen_os},
    };
    static const char *const base_names[] = {
        "assert", "error", "getmetatable", "ipairs", "next", "pairs", "pcall",
        "rawequal", "rawget", "rawlen", "select", "tonumber", "tostring", "type",
        "_VERSION",
    };
    static const char *const os_names[] = {"time", "clock"};
    static const char *const copied[] = {
        LUA_TABLIBNAME, LUA_MATHLIBNAME, LUA_UTF8LIBNAME, LUA_COLIBNAME,
    };

    luaL_checkstack(L, 16, "sandbox set-up");
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &sandbox_key_frozen);

    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
        luaL_requiref(L, libs[i].name, libs[i].func, 0);
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    lua_setglobal(L, "dofile");
    lua_pushnil(L);
    lua_setglobal(L, "loadfile");

    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    int loaded = lua_gettop(L);
    lua_pushglobaltable(L);
    int g = lua_gettop(L);

    copy_fields(L, g, base_names, sizeof base_names / sizeof base_names[0]);
    int api = lua_gettop(L);
    sandbox_replace_base(L, g, loaded, api);
    lua_getfield(L, loaded, LUA_STRLIBNAME);
    copy_table(L, -1);
    sandbox_guard_library(L, -1, LUA_STRLIBNAME, "dump");
    lua_setfield(L, api, LUA_STRLIBNAME);
    lua_pop(L, 1);
    for (size_t i = 0; i < sizeof copied / sizeof copied[0]; i++) {
        lua_getfield(L, loaded, copied[i]);
        copy_table(L, -1);
        lua_setfield(L, api, copied[i]);
        lua_pop(L, 1);
    }
    lua_getfield(L, loaded, LUA_OSLIBNAME);
    copy_fields(L, -1, os_names, sizeof os_names / sizeof os_names[0]);
    sandbox_guard_library(L, -1, LUA_OSLIBNAME, NULL);
    lua_setfield(L, api, LUA_OSLIBNAME);
    lua_pop(L, 1);

    sandbox_guard_library(L, api, NULL, "require io debug dofile loadfile package");
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

    lua_pushliteral(L, "");
    if (lua_getmetatable(L, -1)) {
        lua_pushliteral(L, LOCKED);
        lua_setfield(L, -2, "__metatable");
    }
    return 0;
}

int sandbox_set_budget(lab_state *s, int ms)
{
    int before = s->budget_ms;
    if (ms > 0)
        s->budget_ms = ms;
    return before;
}

lab_state *sandbox_new(size_t mem_limit, int budget_ms, cl_err *e)
{
    lab_state *s = calloc(1, sizeof *s);
    if (!s) {
        err_set(e, "out of memory creating a Lua state");
        return NULL;
    }
    s->limit = mem_limit ? mem_limit : SANDBOX_DEFAULT_MEM;
    s->budget_ms = budget_ms > 0 ? budget_ms : SANDBOX_DEFAULT_BUDGET_MS;
    s->L = lua_newstate(sandbox_alloc, s);
    if (!s->L) {
        free(s);
        err_set(e, "cannot create a Lua state (memory limit too small?)");
        return NULL;
    }
    lua_sethook(s->L, sandbox_hook, LUA_MASKCOUNT, HOOK_EVERY);
    lua_pushcfunction(s->L, sb_setup);
    if (!sandbox_pcall(s, 0, 0, e)) {
        err_prefix(e, "cannot set up the Lua sandbox");
        sandbox_free(s);
        return NULL;
    }
    return s;
}

void sandbox_free(lab_state *s)
{
    if (!s)
        return;
    if (s->L) {
        s->depth = 1;
        s->time_hit = false;
        sandbox_arm_deadline(s);
        lua_close(s->L);
    }
    free(s);
}

struct lua_State *sandbox_lua(lab_state *s)
{
    return s->L;
}

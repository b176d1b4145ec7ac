/* sandbox_base.c - the sandbox's own versions of base and library
 * functions (print, load, xpcall, string.rep, ...) and located(). */
#include "lab/sandbox_internal.h"

#include <lauxlib.h>
#include <lualib.h>
#include <string.h>

void sandbox_push_private_env(lua_State *L)
{
    lua_newtable(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sandbox_key_envmt);
    lua_setmetatable(L, -2);
}

static int sb_rawset(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    if (sandbox_is_frozen(L, 1))
        return sandbox_raise_at_caller(L, "attempt to modify a read-only table");
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

static int sb_setmetatable(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int t = lua_type(L, 2);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
        return sandbox_raise_at_caller(L, "cannot change a protected metatable");
    lua_pushliteral(L, "__gc");
    if (t == LUA_TTABLE && lua_rawget(L, 2) != LUA_TNIL)
        return sandbox_raise_at_caller(L, "__gc metamethods are not allowed in labs");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

/* load(chunk [, name [, mode [, env]]]): text only; without env the chunk
 * gets a fresh private _ENV. */
static int sb_load(lua_State *L)
{
    lua_settop(L, 4);
    if (lua_type(L, 3) == LUA_TSTRING && strcmp(lua_tostring(L, 3), "t") != 0) {
        lua_pushnil(L);
        lua_pushliteral(L, "load: only text chunks are allowed (mode \"t\")");
        return 2;
    }
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    if (lua_isnil(L, 4)) {
        sandbox_push_private_env(L);
        lua_replace(L, 4);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 4, LUA_MULTRET);
    return lua_gettop(L);
}

/* An error raised by the count hook calls the message handler while hooks
 * are off, so a Lua handler that loops would never be stopped: once the
 * budget is spent, the handler is skipped and the message passes as is. */
static int sb_handler(lua_State *L)
{
    if (sandbox_state_of(L)->time_hit)
        return 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int finish_xpcall(lua_State *L, int status, lua_KContext extra)
{
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

/* xpcall(f, msgh, ...) with msgh guarded by sb_handler. */
static int sb_xpcall(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, sb_handler, 1);
    lua_replace(L, 2);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, finish_xpcall);
    return finish_xpcall(L, status, 2);
}

/* Library functions whose C loops run without the count hook are guarded
 * so that a few bytes of Lua cannot keep them busy for hours. */

/* string.rep: an empty string repeated 10^15 times loops 10^15 times. */
static int sb_rep(lua_State *L)
{
    size_t l, lsep = 0;
    luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &lsep);
    if (n > 0 && l + lsep == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* table.insert and table.remove shift elements up to #t, which a __len
 * metamethod can make as large as it likes. */
static int sb_tshift(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    if (sandbox_is_frozen(L, 1))
        return sandbox_raise_at_caller(L, "attempt to modify a read-only table");
    if (luaL_getmetafield(L, 1, "__len") != LUA_TNIL)
        return sandbox_raise_at_caller(L, "table.insert and table.remove do not take tables with __len in labs");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

#define MOVE_MAX ((lua_Integer)1 << 24)

/* table.move(a, f, e, t [, a2]) over at most MOVE_MAX elements. */
static int sb_tmove(lua_State *L)
{
    lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
    if (e >= f && (f < 0 ? e >= MOVE_MAX + f : e - f >= MOVE_MAX))
        return sandbox_raise_at_caller(L, "table.move: more than 2^24 elements");
    int tt = lua_isnoneornil(L, 5) ? 1 : 5;
    if (sandbox_is_frozen(L, tt))
        return sandbox_raise_at_caller(L, "attempt to modify a read-only table");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* Replaces field name of the table at idx by cfn with the old value as
 * its upvalue. */
static void wrap_field(lua_State *L, int idx, const char *name, lua_CFunction cfn)
{
    idx = lua_absindex(L, idx);
    lua_getfield(L, idx, name);
    lua_pushcclosure(L, cfn, 1);
    lua_setfield(L, idx, name);
}

static int sb_collectgarbage(lua_State *L)
{
    static const char *const allowed[] = {"collect", "count", "step", "isrunning"};
    const char *opt = luaL_optstring(L, 1, "collect");
    bool ok = false;
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        ok = ok || strcmp(opt, allowed[i]) == 0;
    if (!ok) {
        lua_pushfstring(L, "collectgarbage('%s') is not allowed in labs", opt);
        return sandbox_raise_at_caller(L, lua_tostring(L, -1));
    }
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

static void out_append(lab_state *s, const char *p, size_t n)
{
    if (s->out_full)
        return;
    if (n > SANDBOX_OUTPUT_MAX - s->outlen) {
        static const char trunc[] = "[output truncated]\n";
        memcpy(s->out + s->outlen, trunc, sizeof trunc);
        s->outlen += sizeof trunc - 1;
        s->out_full = true;
        return;
    }
    memcpy(s->out + s->outlen, p, n);
    s->outlen += n;
    s->out[s->outlen] = '\0';
}

static int sb_print(lua_State *L)
{
    lab_state *s = sandbox_state_of(L);
    int n = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        size_t len;
        const char *str = luaL_tolstring(L, i, &len);
        if (i > 1)
            out_append(s, "\t", 1);
        out_append(s, str, len);
        lua_pop(L, 1);
    }
    out_append(s, "\n", 1);
    return 0;
}

/* The function returned by located(fn): calls fn(file, line, ...) with the
 * place it was called from.  Being a C function, it keeps its caller on
 * the stack even when called as `return lab { ... }`. */
static int sb_locatedcall(lua_State *L)
{
    int n = lua_gettop(L);
    const char *src;
    int line = sandbox_caller(L, &src);       /* args src */
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);                         /* fn args src */
    lua_insert(L, 2);                         /* fn src args */
    lua_pushinteger(L, line);
    lua_insert(L, 3);                         /* fn src line args */
    lua_call(L, n + 2, LUA_MULTRET);
    return lua_gettop(L);
}

int sandbox_located(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, 1);
    lua_pushcclosure(L, sb_locatedcall, 1);
    return 1;
}

void sandbox_replace_base(lua_State *L, int globals, int loaded, int api)
{
    lua_pushcfunction(L, sb_print);
    lua_setfield(L, api, "print");
    lua_pushcfunction(L, sb_rawset);
    lua_setfield(L, api, "rawset");
    lua_pushcfunction(L, sb_xpcall);
    lua_setfield(L, api, "xpcall");
    lua_pushcfunction(L, sb_setmetatable);
    lua_setfield(L, api, "setmetatable");
    lua_getfield(L, globals, "load");
    lua_pushcclosure(L, sb_load, 1);
    lua_setfield(L, api, "load");
    lua_getfield(L, globals, "collectgarbage");
    lua_pushcclosure(L, sb_collectgarbage, 1);
    lua_setfield(L, api, "collectgarbage");

    lua_getfield(L, loaded, LUA_STRLIBNAME);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    wrap_field(L, -1, "rep", sb_rep);
    sandbox_guard_patterns(L, -1);
    lua_getfield(L, loaded, LUA_TABLIBNAME);
    wrap_field(L, -1, "insert", sb_tshift);
    wrap_field(L, -1, "remove", sb_tshift);
    wrap_field(L, -1, "move", sb_tmove);
    lua_pop(L, 2);
}

/* sandbox_readonly.c - read-only views of tables. */
#include "lab/sandbox.h"
#include "lab/sandbox_internal.h"

#include <lauxlib.h>

static int ro_newindex(lua_State *L)
{
    return sandbox_raise_at_caller(L, "attempt to modify a read-only table");
}

/* Pushes the table behind the read-only view at idx. */
static void ro_target(lua_State *L, int idx)
{
    if (!lua_getmetatable(L, idx))
        sandbox_raise(L, "not a read-only view");
    lua_getfield(L, -1, "__index");
    lua_remove(L, -2);
}

static int ro_len(lua_State *L)
{
    ro_target(L, 1);
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
    return 1;
}

static int ro_next(lua_State *L)
{
    lua_settop(L, 2);
    ro_target(L, 1);
    lua_pushvalue(L, 2);
    if (lua_next(L, -2))
        return 2;
    lua_pushnil(L);
    return 1;
}

/* A table behind the view with a __pairs of its own (a row view's that
 * notes reads, lab/rowview.c) is iterated by it. */
static int ro_pairs(lua_State *L)
{
    ro_target(L, 1);
    if (luaL_getmetafield(L, -1, "__pairs") != LUA_TNIL) {
        lua_insert(L, -2);
        lua_call(L, 1, 3);
        return 3;
    }
    lua_pop(L, 1);
    lua_pushcfunction(L, ro_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

bool sandbox_is_frozen(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sandbox_key_frozen);
    lua_pushvalue(L, idx);
    bool f = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return f;
}

/* Replaces the table at the top by its read-only view; tables inside are
 * frozen in place first.  seen (absolute index) maps table -> view. */
static void freeze_top(lua_State *L, int seen)
{
    luaL_checkstack(L, 8, "freezing a table");
    if (lua_type(L, -1) != LUA_TTABLE || sandbox_is_frozen(L, -1))
        return;
    int t = lua_gettop(L);
    lua_pushvalue(L, t);
    if (lua_rawget(L, seen) != LUA_TNIL) {
        lua_replace(L, t);
        return;
    }
    lua_pop(L, 1);
    lua_newtable(L);                          /* t view */
    lua_createtable(L, 0, 5);                 /* t view mt */
    lua_pushvalue(L, t);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, ro_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, ro_len);
    lua_setfield(L, -2, "__len");
    lua_pushcfunction(L, ro_pairs);
    lua_setfield(L, -2, "__pairs");
    lua_pushliteral(L, LOCKED);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);                  /* t view */
    lua_pushvalue(L, t);
    lua_pushvalue(L, -2);
    lua_rawset(L, seen);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sandbox_key_frozen);
    lua_pushvalue(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    lua_pushnil(L);                           /* t view key */
    while (lua_next(L, t)) {                  /* t view key value */
        if (lua_type(L, -1) == LUA_TTABLE) {
            freeze_top(L, seen);
            lua_pushvalue(L, -2);
            lua_insert(L, -2);                /* t view key key view2 */
            lua_rawset(L, t);
        } else {
            lua_pop(L, 1);
        }
    }
    lua_replace(L, t);                        /* view */
}

void sandbox_freeze_value(lua_State *L)
{
    lua_newtable(L);
    lua_insert(L, -2);
    freeze_top(L, lua_absindex(L, -2));
    lua_remove(L, -2);
}

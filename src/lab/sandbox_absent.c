/* sandbox_absent.c - what lab files may use (the allow-lists the set-up
 * in sandbox.c copies from), and what they cannot, said plainly.
 *
 * Reading a global the sandbox leaves out on purpose (require, io, debug,
 * ...) or a field of os other than time and clock raises "file:line: 'io'
 * is not available in lab files (the sandbox allows: ...)" instead of
 * Lua's "attempt to index a nil value".  Any other absent global still
 * reads as nil.  The guard is the __index of the tables behind the
 * read-only views, so it runs only when a lookup misses: allowed names
 * cost what they did. */
#include "lab/sandbox_internal.h"

#include <lauxlib.h>
#include <lualib.h>
#include <string.h>

const char *const sandbox_allowed_base[] = {
    "assert", "error", "getmetatable", "ipairs", "next", "pairs", "pcall",
    "rawequal", "rawget", "rawlen", "select", "tonumber", "tostring", "type",
    "_VERSION", NULL,
};
const char *const sandbox_allowed_libs[] = {
    LUA_STRLIBNAME, LUA_TABLIBNAME, LUA_MATHLIBNAME, LUA_UTF8LIBNAME, LUA_COLIBNAME, NULL,
};
const char *const sandbox_allowed_os[] = {"time", "clock", NULL};

/* Adds the names as "a, b and c", each after prefix. */
static void add_names(luaL_Buffer *b, const char *prefix, const char *const *names)
{
    for (size_t i = 0; names[i]; i++) {
        if (i > 0)
            luaL_addstring(b, names[i + 1] ? ", " : " and ");
        luaL_addstring(b, prefix);
        luaL_addstring(b, names[i]);
    }
}

/* Pushes "the sandbox allows: ..." from the allow-lists.  The base
 * functions are named by a few examples: the sandbox's own print, load,
 * xpcall, ... join the ones kept as they are. */
static void push_allowed(lua_State *L)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "the sandbox allows: the base functions such as print, pairs and pcall; ");
    add_names(&b, "", sandbox_allowed_libs);
    luaL_addstring(&b, "; ");
    add_names(&b, LUA_OSLIBNAME ".", sandbox_allowed_os);
    luaL_pushresult(&b);
}

static int raise_absent(lua_State *L, const char *what)
{
    push_allowed(L);
    lua_pushfstring(L, "%s is not available in lab files (%s)", what, lua_tostring(L, -1));
    return sandbox_raise_at_caller(L, lua_tostring(L, -1));
}

/* __index of a guarded table: (t, key) -> the error naming "'<key>'" (the
 * globals: upvalue 1 is nil) or "<library>.<key>" for a string key in the
 * list of upvalue 2 (any string key when it is nil), else nil. */
static int absent_field(lua_State *L)
{
    if (lua_type(L, 2) != LUA_TSTRING || lua_rawlen(L, 2) == 0)
        return 0;
    const char *lib = lua_tostring(L, lua_upvalueindex(1));
    const char *k = lua_tostring(L, 2);
    if (lua_type(L, lua_upvalueindex(2)) == LUA_TSTRING) {
        size_t kl = strlen(k);
        const char *list = lua_tostring(L, lua_upvalueindex(2)), *p = list;
        bool found = false;
        while (!found && (p = strstr(p, k)) != NULL) {
            found = (p == list || p[-1] == ' ') && (p[kl] == ' ' || p[kl] == '\0');
            p += kl;
        }
        if (!found)
            return 0;
    }
    if (lib)
        lua_pushfstring(L, "%s.%s", lib, k);
    else
        lua_pushfstring(L, "'%s'", k);
    return raise_absent(L, lua_tostring(L, -1));
}

void sandbox_guard_library(lua_State *L, int idx, const char *lib, const char *names)
{
    idx = lua_absindex(L, idx);
    lua_createtable(L, 0, 1);
    if (lib)
        lua_pushstring(L, lib);
    else
        lua_pushnil(L);
    if (names)
        lua_pushstring(L, names);
    else
        lua_pushnil(L);
    lua_pushcclosure(L, absent_field, 2);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, idx);
}

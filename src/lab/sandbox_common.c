/* sandbox_common.c - what every piece of the sandbox uses and that calls
 * no other piece: the registry keys, the lab_state behind a Lua state, a
 * function's source as messages name it, and raising an error at the Lua
 * line that caused it. */
#include "lab/sandbox.h"
#include "lab/sandbox_internal.h"

#include <lauxlib.h>
#include <stdarg.h>
#include <stdio.h>

#include "core/invariant.h"

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

const char *sandbox_display_source(const lua_Debug *ar)
{
    return ar->source[0] == '@' ? ar->source + 1 : ar->short_src;
}

/* Describes the innermost Lua function below the running C function that
 * has a current line: its source and line (NULL, 0 when none). */
int sandbox_caller(lua_State *L, const char **src)
{
    lua_Debug ar;
    for (int lv = 1; lua_getstack(L, lv, &ar); lv++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
            *src = lua_pushstring(L, sandbox_display_source(&ar));
            return ar.currentline;
        }
    }
    *src = NULL;
    lua_pushnil(L);
    return 0;
}

/* Raises "file:line: message" naming the innermost Lua line, also when the
 * error comes from a C function called by another C function. */
int sandbox_raise_at_caller(lua_State *L, const char *msg)
{
    const char *src;
    int line = sandbox_caller(L, &src);
    if (src)
        lua_pushfstring(L, "%s:%d: %s", src, line, msg);
    else
        lua_pushstring(L, msg);
    return lua_error(L);
}

void sandbox_raise(lua_State *L, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    luaL_where(L, 1);
    lua_pushstring(L, msg);
    lua_concat(L, 2);
    lua_error(L);
    CL_UNREACHABLE();
}

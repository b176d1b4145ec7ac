/* sandbox_errors.c - the one protected call into Lua and its message
 * handler: errors as "file:line: message", limits named plainly. */
#include "lab/sandbox.h"
#include "lab/sandbox_internal.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

/* Lua shortens long chunk names to "...tail"; writes msg into out with the
 * whole path put back when full or a function on the stack explains the
 * shortened prefix. */
void sandbox_restore_source(lua_State *L, const char *msg, const char *full, char *out,
                            size_t out_size)
{
    snprintf(out, out_size, "%s", msg);
    const char *colon = strchr(msg, ':');
    if (strncmp(msg, "...", 3) != 0 || !colon)
        return;
    size_t tail = (size_t)(colon - msg) - 3;
    const char *cands[32];
    size_t nc = 0;
    if (full)
        cands[nc++] = full;
    lua_Debug ar;
    for (int lv = 0; nc < 32 && lua_getstack(L, lv, &ar); lv++)
        if (lua_getinfo(L, "S", &ar) && ar.source[0] == '@')
            cands[nc++] = ar.source + 1;
    for (size_t i = 0; i < nc; i++) {
        size_t len = strlen(cands[i]);
        if (len >= tail && strncmp(cands[i] + len - tail, msg + 3, tail) == 0) {
            snprintf(out, out_size, "%s%s", cands[i], colon);
            return;
        }
    }
}

static int sb_msgh(lua_State *L)
{
    lab_state *s = sandbox_state_of(L);
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (!s->time_hit && luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
        else
            msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    char full[CL_ERR_MAX];
    sandbox_restore_source(L, msg, NULL, full, sizeof full);
    /* A traceback of a deep stack takes a while (one that overflowed, most of
     * all); it is bounded work of the sandbox's own, so it is not charged to
     * the script: the error it reports stays the error that happened. */
    s->reporting = true;
    luaL_traceback(L, L, full, 1);
    s->reporting = false;
    snprintf(s->trace, sizeof s->trace, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    lua_pushstring(L, full);
    return 1;
}

static void function_name(lua_State *L, int fidx, char *out, size_t n)
{
    lua_Debug ar;
    lua_pushvalue(L, fidx);
    if (lua_getinfo(L, ">S", &ar))
        snprintf(out, n, "%s", sandbox_display_source(&ar));
    else
        snprintf(out, n, "lua");
}

/* sandbox_pcall, naming the call `what` in messages that have no line. */
bool sandbox_pcall_named(lab_state *sandbox, int nargs, int nresults, const char *name, cl_err *err)
{
    lua_State *L = sandbox->L;
    int fidx = lua_gettop(L) - nargs;
    if (!lua_checkstack(L, 4)) {
        lua_settop(L, fidx - 1);
        return err_set(err, "Lua stack overflow");
    }
    char what[512];
    if (name)
        snprintf(what, sizeof what, "%s", name);
    else
        function_name(L, fidx, what, sizeof what);
    lua_pushcfunction(L, sb_msgh);
    lua_insert(L, fidx);
    bool outer = sandbox->depth == 0;
    if (outer) {
        sandbox->mem_hit = sandbox->time_hit = false;
        sandbox->time_msg[0] = sandbox->trace[0] = sandbox->mem_where[0] = sandbox->last_where[0] =
            '\0';
        sandbox_arm_deadline(sandbox);
        lua_sethook(L, sandbox_hook, LUA_MASKCOUNT, HOOK_EVERY);
    }
    sandbox->depth++;
    int st = lua_pcall(L, nargs, nresults, fidx);
    sandbox->depth--;
    sandbox->reporting = false;
    lua_remove(L, fidx);
    if (st == LUA_OK)
        return true;
    const char *msg = lua_tostring(L, -1);
    if (!msg)
        msg = "unknown error";
    if (sandbox->time_hit && !sandbox->time_msg[0])
        snprintf(sandbox->time_msg, sizeof sandbox->time_msg,
                 "%s: script ran longer than %d ms (infinite loop?)", what, sandbox->budget_ms);
    if (sandbox->time_hit && sandbox->mem_hit) {
        char lim[48];
        sandbox_limit_text(sandbox, lim, sizeof lim);
        err_set(err, "%s, after exceeding its memory limit of %s", sandbox->time_msg, lim);
    } else if (sandbox->time_hit) {
        err_set(err, "%s", sandbox->time_msg);
    } else if (st == LUA_ERRMEM
               || (sandbox->mem_hit && (st == LUA_ERRERR || strstr(msg, "not enough memory")))) {
        char lim[48];
        sandbox_limit_text(sandbox, lim, sizeof lim);
        err_set(err, "%s: script exceeded its memory limit of %s",
                sandbox->mem_where[0] ? sandbox->mem_where : what, lim);
    } else {
        err_set(err, "%s", msg);
    }
    lua_pop(L, 1);
    return false;
}

bool sandbox_pcall(lab_state *sandbox, int nargs, int nresults, cl_err *err)
{
    return sandbox_pcall_named(sandbox, nargs, nresults, NULL, err);
}

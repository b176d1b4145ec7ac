/* sandbox_run.c - running chunks, adding globals, reading output. */
#include "lab/sandbox.h"
#include "lab/sandbox_internal.h"

#include <lauxlib.h>
#include <string.h>

#include "core/fsguard.h"
#include "core/paths.h"

/* (chunk, args...) -> chunk's results, run with a fresh private _ENV. */
static int sb_runchunk(lua_State *L)
{
    sandbox_push_private_env(L);
    if (!lua_setupvalue(L, 1, 1))
        lua_pop(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* (path as a light userdata) -> chunk | nil, message, out_of_memory */
static int sb_loadfile(lua_State *L)
{
    const char *path = lua_touserdata(L, 1);
    int st = luaL_loadfilex(L, path, "t");
    if (st == LUA_OK)
        return 1;
    const char *msg = lua_tostring(L, -1);
    char full[CL_ERR_MAX];
    sandbox_restore_source(L, msg ? msg : "cannot load", path, full, sizeof full);
    lua_pushnil(L);
    lua_pushstring(L, full);
    lua_pushboolean(L, st == LUA_ERRMEM);
    return 3;
}

/* Pushes the compiled chunk, or returns false with the message in e.  The
 * file must be a regular file inside its own folder (core/fsguard.h): lab
 * files and launchers are untrusted. */
static bool load_chunk(lab_state *s, const char *path, cl_err *e)
{
    lua_State *L = s->L;
    char real[CL_PATH_MAX];
    if (!fsguard_resolve(path, NULL, real, sizeof real, e))
        return false;
    if (!lua_checkstack(L, 6))
        return err_set(e, "Lua stack overflow");
    s->mem_hit = false;
    lua_pushcfunction(L, sb_loadfile);
    lua_pushlightuserdata(L, (void *)path);
    int st = lua_pcall(L, 1, 3, 0);
    bool mem = st == LUA_ERRMEM || (st == LUA_OK && lua_toboolean(L, -1));
    if (st == LUA_OK && !lua_isnil(L, -3)) {
        lua_pop(L, 2);
        return true;
    }
    if (mem) {
        char lim[48];
        sandbox_limit_text(s, lim, sizeof lim);
        err_set(e, "%s: script exceeded its memory limit of %s", path, lim);
    } else {
        const char *msg = lua_tostring(L, st == LUA_OK ? -2 : -1);
        err_set(e, "%s", msg ? msg : "cannot load the file");
    }
    lua_pop(L, st == LUA_OK ? 3 : 1);
    return false;
}

static bool run_loaded(lab_state *s, const char *path, int nargs, int nresults, cl_err *e)
{
    lua_State *L = s->L;
    int top = lua_gettop(L) - nargs - 1;
    if (!lua_checkstack(L, 4)) {
        lua_settop(L, top);
        return err_set(e, "Lua stack overflow");
    }
    lua_pushcfunction(L, sb_runchunk);
    lua_insert(L, top + 1);
    if (!sandbox_pcall_named(s, nargs + 1, LUA_MULTRET, path, e))
        return false;
    int got = lua_gettop(L) - top;
    if (nresults != LUA_MULTRET) {
        if (got > nresults)
            lua_settop(L, top + nresults);
        for (; got < nresults; got++)
            lua_pushnil(L);
    }
    return true;
}

bool sandbox_parsefile(lab_state *sandbox, const char *path, cl_err *err)
{
    if (!load_chunk(sandbox, path, err))
        return false;
    lua_pop(sandbox->L, 1);
    return true;
}

bool sandbox_dofile(lab_state *sandbox, const char *path, int nresults, cl_err *err)
{
    if (!load_chunk(sandbox, path, err))
        return false;
    return run_loaded(sandbox, path, 0, nresults, err);
}

bool sandbox_dofile_trusted(lab_state *sandbox, const char *path, int nresults, cl_err *err)
{
    if (!load_chunk(sandbox, path, err))
        return false;
    lua_pushcfunction(sandbox->L, sandbox_located);
    return run_loaded(sandbox, path, 1, nresults, err);
}

/* ---- adding globals ------------------------------------------------------ */

/* Adds the value at the top to the allowed globals under the name just
 * below it; pops both. */
static void api_set(lua_State *L)
{
    sandbox_freeze_value(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sandbox_key_api);
    lua_insert(L, -3);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/* (name as a light userdata, value) */
static int sb_setglobal_c(lua_State *L)
{
    lua_settop(L, 2);
    lua_pushstring(L, lua_touserdata(L, 1));
    lua_replace(L, 1);
    api_set(L);
    return 0;
}

/* (table) */
static int sb_expose(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            return luaL_error(L, "exposed names must be strings");
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        api_set(L);
    }
    return 0;
}

static int sb_freeze(lua_State *L)
{
    lua_settop(L, 1);
    sandbox_freeze_value(L);
    return 1;
}

bool sandbox_set_global(lab_state *sandbox, const char *name, cl_err *err)
{
    lua_State *L = sandbox->L;
    if (!lua_checkstack(L, 4))
        return err_set(err, "Lua stack overflow");
    lua_pushcfunction(L, sb_setglobal_c);
    lua_insert(L, -2);
    lua_pushlightuserdata(L, (void *)name);
    lua_insert(L, -2);                        /* fn name value */
    return sandbox_pcall(sandbox, 2, 0, err);
}

bool sandbox_expose(lab_state *sandbox, cl_err *err)
{
    if (!lua_checkstack(sandbox->L, 4))
        return err_set(err, "Lua stack overflow");
    lua_pushcfunction(sandbox->L, sb_expose);
    lua_insert(sandbox->L, -2);
    return sandbox_pcall(sandbox, 1, 0, err);
}

bool sandbox_freeze(lab_state *sandbox, cl_err *err)
{
    if (!lua_checkstack(sandbox->L, 4))
        return err_set(err, "Lua stack overflow");
    lua_pushcfunction(sandbox->L, sb_freeze);
    lua_insert(sandbox->L, -2);
    return sandbox_pcall(sandbox, 1, 1, err);
}

/* ---- output -------------------------------------------------------------- */

const char *sandbox_output(const lab_state *sandbox)
{
    return sandbox->outlen ? sandbox->out : "";
}

void sandbox_clear_output(lab_state *sandbox)
{
    sandbox->outlen = 0;
    sandbox->out[0] = '\0';
    sandbox->out_full = false;
}

const char *sandbox_traceback(const lab_state *sandbox)
{
    return sandbox->trace;
}

/* probview.c - views of a declared problem's host memory for Lua
 * (lab/probview.h). */
#include "lab/probview.h"

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/bf16.h"

#define MT_VIEW "cudalab.View"

typedef struct view {
    void *ptr;
    size_t count;
    decl_type type;
    bool writable;
    const uint64_t *epoch_now;   /* the state's epoch (anchored in its registry) */
    uint64_t epoch;              /* the epoch it was made in */
} view;

/* The registry key of the state's view epoch: a full userdata holding a
 * counter that probview_expire moves on. */
static const char epoch_key = 0;

/* The state's epoch counter, made on first use (raises on no memory). */
static uint64_t *epoch_of(lua_State *L)
{
    uint64_t *e;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &epoch_key) == LUA_TUSERDATA) {
        e = lua_touserdata(L, -1);
        lua_pop(L, 1);
        return e;
    }
    lua_pop(L, 1);
    e = lua_newuserdatauv(L, sizeof *e, 0);
    *e = 0;
    lua_rawsetp(L, LUA_REGISTRYINDEX, &epoch_key);
    return e;
}

void probview_expire(lua_State *L)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &epoch_key) == LUA_TUSERDATA)
        ++*(uint64_t *)lua_touserdata(L, -1);
    lua_pop(L, 1);
}

/* The view at 1, still valid. */
static const view *check_view(lua_State *L)
{
    const view *v = luaL_checkudata(L, 1, MT_VIEW);
    if (*v->epoch_now != v->epoch)
        luaL_error(L, "this view has expired: a view is valid only during the call it was "
                      "handed to (keep the values, not the view)");
    return v;
}

double probview_get(const void *ptr, decl_type type, size_t elem)
{
    switch (type) {
    case DT_F32:
        return (double)((const float *)ptr)[elem];
    case DT_F64:
        return ((const double *)ptr)[elem];
    case DT_I32:
        return (double)((const int32_t *)ptr)[elem];
    case DT_U32:
        return (double)((const uint32_t *)ptr)[elem];
    case DT_U8:
        return (double)((const uint8_t *)ptr)[elem];
    case DT_BF16:
        return (double)bf16_to_float(((const uint16_t *)ptr)[elem]);
    case DT_I64:
        return (double)((const int64_t *)ptr)[elem];
    }
    return NAN;
}

/* v rounded to a whole number within [lo, hi]. */
static double whole(double v, double lo, double hi)
{
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

void probview_set(void *ptr, decl_type type, size_t elem, double value)
{
    switch (type) {
    case DT_F32:
        ((float *)ptr)[elem] = (float)value;
        return;
    case DT_F64:
        ((double *)ptr)[elem] = value;
        return;
    case DT_I32:
        ((int32_t *)ptr)[elem] = (int32_t)whole(value, INT32_MIN, INT32_MAX);
        return;
    case DT_U32:
        ((uint32_t *)ptr)[elem] = (uint32_t)whole(value, 0, UINT32_MAX);
        return;
    case DT_U8:
        ((uint8_t *)ptr)[elem] = (uint8_t)whole(value, 0, 255);
        return;
    case DT_BF16:
        ((uint16_t *)ptr)[elem] = bf16_from_float((float)value);
        return;
    case DT_I64:
        ((int64_t *)ptr)[elem] = (int64_t)whole(value, -9.2e18, 9.2e18);
        return;
    }
}

/* The element index of the key at 2: an integer in [0, count). */
static size_t index_of(lua_State *L, const view *v)
{
    int ok = 0;
    lua_Integer i = lua_tointegerx(L, 2, &ok);
    if (!ok)
        luaL_error(L, "a view is indexed by whole numbers from 0, got %s", luaL_typename(L, 2));
    if (i < 0 || (size_t)i >= v->count)
        luaL_error(L, "index %I is outside the view (0 to %I)", i, (lua_Integer)v->count - 1);
    return (size_t)i;
}

static int view_index(lua_State *L)
{
    const view *v = check_view(L);
    size_t i = index_of(L, v);
    double x = probview_get(v->ptr, v->type, i);
    if (decl_type_integral(v->type))
        lua_pushinteger(L, (lua_Integer)x);
    else
        lua_pushnumber(L, (lua_Number)x);
    return 1;
}

static int view_newindex(lua_State *L)
{
    const view *v = check_view(L);
    if (!v->writable)
        return luaL_error(L, "this view is read-only (an input, or the output being judged)");
    size_t i = index_of(L, v);
    int ok = 0;
    lua_Number x = lua_tonumberx(L, 3, &ok);
    if (!ok)
        return luaL_error(L, "a view takes numbers, got %s", luaL_typename(L, 3));
    probview_set(v->ptr, v->type, i, (double)x);
    return 0;
}

static int view_len(lua_State *L)
{
    const view *v = check_view(L);
    lua_pushinteger(L, (lua_Integer)v->count);
    return 1;
}

static int view_tostring(lua_State *L)
{
    const view *v = luaL_checkudata(L, 1, MT_VIEW);   /* reads no element: also once expired */
    lua_pushfstring(L, "view (%I x %s%s)", (lua_Integer)v->count, decl_type_name(v->type),
                    v->writable ? "" : ", read-only");
    return 1;
}

void probview_push(lua_State *L, void *ptr, size_t count, decl_type type, bool writable)
{
    const uint64_t *now = epoch_of(L);
    view *v = lua_newuserdatauv(L, sizeof *v, 0);
    *v = (view){.ptr = ptr, .count = count, .type = type, .writable = writable,
                .epoch_now = now, .epoch = *now};
    if (luaL_newmetatable(L, MT_VIEW)) {
        static const luaL_Reg m[] = {{"__index", view_index},
                                     {"__newindex", view_newindex},
                                     {"__len", view_len},
                                     {"__tostring", view_tostring},
                                     {NULL, NULL}};
        luaL_setfuncs(L, m, 0);
        lua_pushliteral(L, "locked");
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
}

/* pipe_args.c - the args table a pipeline launcher receives (lua/exercise.md):
 * the device buffers of the state as borrowed Buffers, the row count and
 * the column stride.  The engine sets args.step before each call. */
#include <lauxlib.h>
#include <lua.h>

#include "engine/pipe.h"
#include "luagpu/luagpu.h"

static void put(lua_State *L, const char *name, void *ptr, long long count, bool i32)
{
    luagpu_push_borrowed(L, ptr, (size_t)count, i32 ? LUAGPU_I32 : LUAGPU_F32);
    lua_setfield(L, -2, name);
}

/* (pipe_dev) -> args */
static int push_args(lua_State *L)
{
    const pipe_dev *d = lua_touserdata(L, 1);
    const pipe_bufs *b = &d->b;
    long long s = b->stride;
    lua_createtable(L, 0, 28);
    lua_pushinteger(L, (lua_Integer)b->n);
    lua_setfield(L, -2, "n");
    lua_pushinteger(L, (lua_Integer)s);
    lua_setfield(L, -2, "stride");
    lua_pushstring(L, "");
    lua_setfield(L, -2, "step");
    put(L, "num", b->num, PREP_NUM * s, false);
    put(L, "ts", b->ts, s, true);
    put(L, "pay", b->pay, s, true);
    put(L, "zone", b->zone, s, true);
    put(L, "label", b->label, s, false);
    put(L, "median", b->median, PREP_NUM, false);
    put(L, "filled", b->filled, PREP_NUM * s, false);
    put(L, "count", b->count, 1, true);
    put(L, "kept_num", b->kept_num, PREP_NUM * s, false);
    put(L, "kept_ts", b->kept_ts, s, true);
    put(L, "kept_pay", b->kept_pay, s, true);
    put(L, "kept_zone", b->kept_zone, s, true);
    put(L, "kept_label", b->kept_label, s, false);
    put(L, "t", b->t, PREP_NUM * s, false);
    put(L, "stats", b->stats, 2 * PREP_NUM, false);
    put(L, "edges", b->edges, PREP_EDGES, false);
    put(L, "counts", b->counts, PREP_ZONES, true);
    put(L, "gmean", b->gmean, PREP_ZONES, false);
    put(L, "X", b->X, PREP_FEATURES * s, false);
    return 1;
}

bool pipe_args_begin(exercise *ex, const pipe_dev *dev, const char *label, cl_err *err)
{
    return exercise_begin_table(ex, push_args, (void *)dev, label, err);
}

#include "luagpu/luagpu.h"

#include <stdio.h>
#include <string.h>

#include "gpu/cudacheck.h"
#include "luagpu/luagpu_internal.h"

/* ---- streams and events --------------------------------------------------- */

cudaStream_t luagpu_opt_stream(lua_State *L, int idx)
{
    if (lua_isnoneornil(L, idx))
        return luagpu_default_stream(L);
    lstream *s = luaL_checkudata(L, idx, MT_STREAM);
    if (!s->live)
        sandbox_raise(L, "the stream was destroyed");
    return s->s;
}

/* The launcher's streams, as the keys of a weak-keyed table. */
static const char KEY_STREAMS = 0;

/* (stream) -> (stream): s among the launcher's streams. */
static void remember_stream(lua_State *L)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &KEY_STREAMS) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &KEY_STREAMS);
    }
    lua_pushvalue(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

int luagpu_stream(lua_State *L)
{
    luagpu_need_device(L);
    lstream *s = lua_newuserdatauv(L, sizeof *s, 0);
    memset(s, 0, sizeof *s);
    luaL_setmetatable(L, MT_STREAM);
    luagpu_cuda_check(L, "gpu.stream", cudaStreamCreate(&s->s));
    cudaError_t st = cudaEventCreateWithFlags(&s->begin, cudaEventDisableTiming);
    if (st == cudaSuccess) {
        st = cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming);
        if (st != cudaSuccess)
            cudaEventDestroy(s->begin);
    }
    if (st != cudaSuccess) {
        cudaStreamDestroy(s->s);
        luagpu_cuda_fail(L, "gpu.stream", st);
    }
    s->live = true;
    remember_stream(L);
    return 1;
}

int luagpu_stream_gc(lua_State *L)
{
    lstream *s = luaL_checkudata(L, 1, MT_STREAM);
    if (s->live) {
        cudaStreamDestroy(s->s);
        cudaEventDestroy(s->begin);
        cudaEventDestroy(s->done);
    }
    s->live = false;
    return 0;
}

/* Orders each live stream of the launcher with the launcher's stream:
 * fork, each waits for what that stream holds so far; else that stream
 * waits for what each holds. */
static bool order_streams(lua_State *L, cudaStream_t launcher, bool fork, cl_err *err)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &KEY_STREAMS) != LUA_TTABLE) {
        lua_pop(L, 1);
        return true;
    }
    bool ok = true;
    lua_pushnil(L);
    while (ok && lua_next(L, -2)) {
        lstream *s = lua_touserdata(L, -2);
        lua_pop(L, 1);
        if (!s || !s->live)
            continue;
        cudaEvent_t ev = fork ? s->begin : s->done;
        cudaError_t st = cudaEventRecord(ev, fork ? launcher : s->s);
        if (st == cudaSuccess)
            st = cudaStreamWaitEvent(fork ? s->s : launcher, ev, 0);
        if (st != cudaSuccess) {
            ok = cudacheck_fail(err, st,
                                fork ? "ordering a gpu.stream() after the launcher's stream"
                                     : "joining a gpu.stream() to the launcher's stream",
                                __FILE__, __LINE__);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    return ok;
}

bool luagpu_fork_streams(lua_State *L, void *from, cl_err *err)
{
    return order_streams(L, (cudaStream_t)from, true, err);
}

bool luagpu_join_streams(lua_State *L, void *into, cl_err *err)
{
    return order_streams(L, (cudaStream_t)into, false, err);
}

int luagpu_stream_sync(lua_State *L)
{
    luagpu_cuda_check(L, "stream:synchronize", cudaStreamSynchronize(luagpu_opt_stream(L, 1)));
    return 0;
}

int luagpu_stream_tostring(lua_State *L)
{
    lstream *s = luaL_checkudata(L, 1, MT_STREAM);
    lua_pushstring(L, s->live ? "Stream" : "Stream (destroyed)");
    return 1;
}

static levent *check_event(lua_State *L, int idx)
{
    levent *ev = luaL_checkudata(L, idx, MT_EVENT);
    if (!ev->live)
        sandbox_raise(L, "the event was destroyed");
    return ev;
}

int luagpu_event(lua_State *L)
{
    luagpu_need_device(L);
    levent *ev = lua_newuserdatauv(L, sizeof *ev, 0);
    memset(ev, 0, sizeof *ev);
    luaL_setmetatable(L, MT_EVENT);
    luagpu_cuda_check(L, "gpu.event", cudaEventCreate(&ev->ev));
    ev->live = true;
    return 1;
}

int luagpu_event_gc(lua_State *L)
{
    levent *ev = luaL_checkudata(L, 1, MT_EVENT);
    if (ev->live)
        cudaEventDestroy(ev->ev);
    ev->live = false;
    return 0;
}

int luagpu_event_record(lua_State *L)
{
    levent *ev = check_event(L, 1);
    luagpu_cuda_check(L, "event:record", cudaEventRecord(ev->ev, luagpu_opt_stream(L, 2)));
    lua_settop(L, 1);
    return 1;
}

int luagpu_event_sync(lua_State *L)
{
    levent *ev = check_event(L, 1);
    luagpu_cuda_check(L, "event:synchronize", cudaEventSynchronize(ev->ev));
    return 0;
}

int luagpu_event_tostring(lua_State *L)
{
    levent *ev = luaL_checkudata(L, 1, MT_EVENT);
    lua_pushstring(L, ev->live ? "Event" : "Event (destroyed)");
    return 1;
}

/* gpu.elapsed(start, stop) -> milliseconds, waiting for stop. */
int luagpu_elapsed(lua_State *L)
{
    luagpu_need_device(L);
    levent *a = check_event(L, 1);
    levent *b = check_event(L, 2);
    luagpu_cuda_check(L, "gpu.elapsed", cudaEventSynchronize(b->ev));
    float ms = 0.0f;
    luagpu_cuda_check(L, "gpu.elapsed", cudaEventElapsedTime(&ms, a->ev, b->ev));
    lua_pushnumber(L, (lua_Number)ms);
    return 1;
}

int luagpu_synchronize(lua_State *L)
{
    luagpu_need_device(L);
    luagpu_cuda_check(L, "gpu.synchronize", cudaDeviceSynchronize());
    return 0;
}

/* gpu.wait(event [, stream]): later work on the stream (default: the
 * launcher's) waits until the event has happened. */
int luagpu_wait(lua_State *L)
{
    luagpu_need_device(L);
    levent *ev = check_event(L, 1);
    cudaStream_t s = luagpu_opt_stream(L, 2);
    luagpu_cuda_check(L, "gpu.wait", cudaStreamWaitEvent(s, ev->ev, 0));
    return 0;
}

/* s:wait(event) */
int luagpu_stream_wait(lua_State *L)
{
    cudaStream_t s = luagpu_opt_stream(L, 1);
    levent *ev = check_event(L, 2);
    luagpu_cuda_check(L, "stream:wait", cudaStreamWaitEvent(s, ev->ev, 0));
    return 0;
}

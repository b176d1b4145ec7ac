#include "lab/sandbox.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HOOK_EVERY 1000      /* instructions between two clock checks */
#define TRACE_MAX 2048
#define LOCKED "locked"

struct lab_state {
    lua_State *L;
    size_t used, limit;
    int budget_ms;
    int depth;               /* nested sandbox_pcall calls in progress */
    struct timespec deadline, cpu_deadline;   /* wall clock, this thread's CPU time */
    bool mem_hit, time_hit;
    bool reporting;          /* the message handler is writing a traceback */
    unsigned alloc_ticks;
    char time_msg[512];
    char trace[TRACE_MAX];
    char out[SANDBOX_OUTPUT_MAX + 32];
    size_t outlen;
    bool out_full;
};

/* Registry keys (their addresses). */
static const char KEY_API = 'a';     /* allowed globals, writable from C only */
static const char KEY_VIEW = 'v';    /* read-only view of KEY_API */
static const char KEY_FROZEN = 'f';  /* weak set of read-only views */
static const char KEY_ENVMT = 'm';   /* metatable of every private _ENV */

static lab_state *state_of(lua_State *L)
{
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return ud;
}

/* ---- memory limit -------------------------------------------------------- */

static bool past_deadline(const lab_state *s);
static void sb_hook(lua_State *L, lua_Debug *ar);

/* A script can spend long in few instructions (each one a big string
 * operation), so growth also checks the clock, now and then: past the
 * deadline it fails and the hook stops the script at its next instruction. */
static bool alloc_over_time(lab_state *s, size_t grow)
{
    if (s->depth == 0 || s->reporting)
        return false;
    if (s->time_hit)
        return true;
    if (grow < 4096 && (++s->alloc_ticks & 63) != 0)
        return false;
    if (!past_deadline(s))
        return false;
    s->time_hit = true;
    lua_sethook(s->L, sb_hook, LUA_MASKCOUNT, 1);
    return true;
}

static void *sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    lab_state *s = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        s->used -= old;
        return NULL;
    }
    if (nsize > old && alloc_over_time(s, nsize - old))
        return NULL;
    /* Once a call into Lua has hit the limit, it gets no more memory until it
     * returns: a script that catches the error and carries on still ends
     * with the memory-limit message. */
    if (nsize > old && s->mem_hit && s->depth > 0)
        return NULL;
    if (nsize > old && nsize - old > s->limit - s->used) {
        s->mem_hit = true;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (!p) {
        if (nsize <= old)
            return ptr;
        s->mem_hit = true;
        return NULL;
    }
    s->used = s->used - old + nsize;
    return p;
}

static void limit_text(const lab_state *s, char *out, size_t n)
{
    if (s->limit % (1u << 20) == 0)
        snprintf(out, n, "%zu MiB", s->limit >> 20);
    else if (s->limit % 1024 == 0)
        snprintf(out, n, "%zu KiB", s->limit >> 10);
    else
        snprintf(out, n, "%zu bytes", s->limit);
}

/* ---- time limit ---------------------------------------------------------- */

static bool clock_reached(clockid_t clk, const struct timespec *t)
{
    struct timespec now;
    clock_gettime(clk, &now);
    if (now.tv_sec != t->tv_sec)
        return now.tv_sec > t->tv_sec;
    return now.tv_nsec >= t->tv_nsec;
}

/* The budget counts the CPU time of the thread running Lua, so a busy
 * machine does not stop a script that would finish in time on its own.
 * That CPU time never runs ahead of the wall clock, so the cheap wall
 * clock is read first and the CPU clock only once its deadline is past. */
static bool past_deadline(const lab_state *s)
{
    return clock_reached(CLOCK_MONOTONIC, &s->deadline)
           && clock_reached(CLOCK_THREAD_CPUTIME_ID, &s->cpu_deadline);
}

static void deadline_after(clockid_t clk, int ms, struct timespec *t)
{
    clock_gettime(clk, t);
    long long ns = (long long)t->tv_nsec + (long long)ms * 1000000LL;
    t->tv_sec += (time_t)(ns / 1000000000LL);
    t->tv_nsec = (long)(ns % 1000000000LL);
}

static void arm_deadline(lab_state *s)
{
    deadline_after(CLOCK_MONOTONIC, s->budget_ms, &s->deadline);
    deadline_after(CLOCK_THREAD_CPUTIME_ID, s->budget_ms, &s->cpu_deadline);
}

static const char *display_source(const lua_Debug *ar)
{
    return ar->source[0] == '@' ? ar->source + 1 : ar->short_src;
}

/* Once the budget is spent the hook fires on every instruction, so a
 * script that catches the error with pcall cannot keep running. */
static void sb_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lab_state *s = state_of(L);
    if (s->depth == 0)
        return;
    if (!s->time_hit && !past_deadline(s)) {
        if (lua_gethookcount(L) != HOOK_EVERY)
            lua_sethook(L, sb_hook, LUA_MASKCOUNT, HOOK_EVERY);
        return;
    }
    s->time_hit = true;
    if (!s->time_msg[0]) {
        lua_Debug d;
        if (lua_getstack(L, 0, &d) && lua_getinfo(L, "Sl", &d) && d.currentline > 0)
            snprintf(s->time_msg, sizeof s->time_msg,
                     "%s:%d: script ran longer than %d ms (infinite loop?)",
                     display_source(&d), d.currentline, s->budget_ms);
        else
            snprintf(s->time_msg, sizeof s->time_msg,
                     "script ran longer than %d ms (infinite loop?)", s->budget_ms);
    }
    lua_sethook(L, sb_hook, LUA_MASKCOUNT, 1);
    lua_pushstring(L, s->time_msg);
    lua_error(L);
}

/* ---- error messages ------------------------------------------------------ */

/* Lua shortens long chunk names to "...tail"; writes msg into out with the
 * whole path put back when full or a function on the stack explains the
 * shortened prefix. */
static void restore_source(lua_State *L, const char *msg, const char *full, char *out, size_t n)
{
    snprintf(out, n, "%s", msg);
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
            snprintf(out, n, "%s%s", cands[i], colon);
            return;
        }
    }
}

static int sb_msgh(lua_State *L)
{
    lab_state *s = state_of(L);
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (!s->time_hit && luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
        else
            msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    char full[CL_ERR_MAX];
    restore_source(L, msg, NULL, full, sizeof full);
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
        snprintf(out, n, "%s", display_source(&ar));
    else
        snprintf(out, n, "lua");
}

/* sandbox_pcall, naming the call `what` in messages that have no line. */
static bool pcall_named(lab_state *s, int nargs, int nresults, const char *name, cl_err *e)
{
    lua_State *L = s->L;
    int fidx = lua_gettop(L) - nargs;
    if (!lua_checkstack(L, 4)) {
        lua_settop(L, fidx - 1);
        return err_set(e, "Lua stack overflow");
    }
    char what[512];
    if (name)
        snprintf(what, sizeof what, "%s", name);
    else
        function_name(L, fidx, what, sizeof what);
    lua_pushcfunction(L, sb_msgh);
    lua_insert(L, fidx);
    bool outer = s->depth == 0;
    if (outer) {
        s->mem_hit = s->time_hit = false;
        s->time_msg[0] = s->trace[0] = '\0';
        arm_deadline(s);
        lua_sethook(L, sb_hook, LUA_MASKCOUNT, HOOK_EVERY);
    }
    s->depth++;
    int st = lua_pcall(L, nargs, nresults, fidx);
    s->depth--;
    s->reporting = false;
    lua_remove(L, fidx);
    if (st == LUA_OK)
        return true;
    const char *msg = lua_tostring(L, -1);
    if (!msg)
        msg = "unknown error";
    if (s->time_hit && !s->time_msg[0])
        snprintf(s->time_msg, sizeof s->time_msg,
                 "%s: script ran longer than %d ms (infinite loop?)", what, s->budget_ms);
    if (s->time_hit && s->mem_hit) {
        char lim[48];
        limit_text(s, lim, sizeof lim);
        err_set(e, "%s, after exceeding its memory limit of %s", s->time_msg, lim);
    } else if (s->time_hit) {
        err_set(e, "%s", s->time_msg);
    } else if (st == LUA_ERRMEM
               || (s->mem_hit && (st == LUA_ERRERR || strstr(msg, "not enough memory")))) {
        char lim[48];
        limit_text(s, lim, sizeof lim);
        err_set(e, "%s: script exceeded its memory limit of %s", what, lim);
    } else {
        err_set(e, "%s", msg);
    }
    lua_pop(L, 1);
    return false;
}

bool sandbox_pcall(lab_state *s, int nargs, int nresults, cl_err *e)
{
    return pcall_named(s, nargs, nresults, NULL, e);
}

/* ---- read-only tables ---------------------------------------------------- */

static int raise_at_caller(lua_State *L, const char *msg);

static int ro_newindex(lua_State *L)
{
    return raise_at_caller(L, "attempt to modify a read-only table");
}

/* Pushes the table behind the read-only view at idx. */
static void ro_target(lua_State *L, int idx)
{
    if (!lua_getmetatable(L, idx))
        luaL_error(L, "not a read-only view");
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

static int ro_pairs(lua_State *L)
{
    lua_pushcfunction(L, ro_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

static bool is_frozen(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &KEY_FROZEN);
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
    if (lua_type(L, -1) != LUA_TTABLE || is_frozen(L, -1))
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
    lua_rawgetp(L, LUA_REGISTRYINDEX, &KEY_FROZEN);
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

static void freeze_value(lua_State *L)
{
    lua_newtable(L);
    lua_insert(L, -2);
    freeze_top(L, lua_absindex(L, -2));
    lua_remove(L, -2);
}

/* ---- replacements for base functions ------------------------------------- */

static void push_private_env(lua_State *L)
{
    lua_newtable(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &KEY_ENVMT);
    lua_setmetatable(L, -2);
}

static int sb_rawset(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    if (is_frozen(L, 1))
        return raise_at_caller(L, "attempt to modify a read-only table");
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
        return raise_at_caller(L, "cannot change a protected metatable");
    lua_pushliteral(L, "__gc");
    if (t == LUA_TTABLE && lua_rawget(L, 2) != LUA_TNIL)
        return raise_at_caller(L, "__gc metamethods are not allowed in labs");
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
        push_private_env(L);
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
    if (state_of(L)->time_hit)
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
    if (is_frozen(L, 1))
        return raise_at_caller(L, "attempt to modify a read-only table");
    if (luaL_getmetafield(L, 1, "__len") != LUA_TNIL)
        return raise_at_caller(L, "table.insert and table.remove do not take tables with __len in labs");
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
        return raise_at_caller(L, "table.move: more than 2^24 elements");
    int tt = lua_isnoneornil(L, 5) ? 1 : 5;
    if (is_frozen(L, tt))
        return raise_at_caller(L, "attempt to modify a read-only table");
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
        return raise_at_caller(L, lua_tostring(L, -1));
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
    lab_state *s = state_of(L);
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

/* Describes the innermost Lua function below the running C function that
 * has a current line: its source and line (NULL, 0 when none). */
static int lua_caller(lua_State *L, const char **src)
{
    lua_Debug ar;
    for (int lv = 1; lua_getstack(L, lv, &ar); lv++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
            *src = lua_pushstring(L, display_source(&ar));
            return ar.currentline;
        }
    }
    *src = NULL;
    lua_pushnil(L);
    return 0;
}

/* Raises "file:line: message" naming the innermost Lua line, also when the
 * error comes from a C function called by another C function. */
static int raise_at_caller(lua_State *L, const char *msg)
{
    const char *src;
    int line = lua_caller(L, &src);
    if (src)
        lua_pushfstring(L, "%s:%d: %s", src, line, msg);
    else
        lua_pushstring(L, msg);
    return lua_error(L);
}

/* The function returned by located(fn): calls fn(file, line, ...) with the
 * place it was called from.  Being a C function, it keeps its caller on
 * the stack even when called as `return lab { ... }`. */
static int sb_locatedcall(lua_State *L)
{
    int n = lua_gettop(L);
    const char *src;
    int line = lua_caller(L, &src);           /* args src */
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);                         /* fn args src */
    lua_insert(L, 2);                         /* fn src args */
    lua_pushinteger(L, line);
    lua_insert(L, 3);                         /* fn src line args */
    lua_call(L, n + 2, LUA_MULTRET);
    return lua_gettop(L);
}

static int sb_located(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, 1);
    lua_pushcclosure(L, sb_locatedcall, 1);
    return 1;
}

/* ---- state set-up -------------------------------------------------------- */

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
    lua_rawsetp(L, LUA_REGISTRYINDEX, &KEY_FROZEN);

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
    lua_pushcfunction(L, sb_print);
    lua_setfield(L, api, "print");
    lua_pushcfunction(L, sb_rawset);
    lua_setfield(L, api, "rawset");
    lua_pushcfunction(L, sb_xpcall);
    lua_setfield(L, api, "xpcall");
    lua_pushcfunction(L, sb_setmetatable);
    lua_setfield(L, api, "setmetatable");
    lua_getfield(L, g, "load");
    lua_pushcclosure(L, sb_load, 1);
    lua_setfield(L, api, "load");
    lua_getfield(L, g, "collectgarbage");
    lua_pushcclosure(L, sb_collectgarbage, 1);
    lua_setfield(L, api, "collectgarbage");

    lua_getfield(L, loaded, LUA_STRLIBNAME);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    wrap_field(L, -1, "rep", sb_rep);
    lua_getfield(L, loaded, LUA_TABLIBNAME);
    wrap_field(L, -1, "insert", sb_tshift);
    wrap_field(L, -1, "remove", sb_tshift);
    wrap_field(L, -1, "move", sb_tmove);
    lua_pop(L, 1);
    copy_table(L, -1);
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
    lua_setfield(L, api, LUA_OSLIBNAME);
    lua_pop(L, 1);

    lua_pushvalue(L, api);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &KEY_API);
    lua_pushvalue(L, api);
    freeze_value(L);                          /* api's tables become views too */
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &KEY_VIEW);

    lua_createtable(L, 0, 2);                 /* ... view envmt */
    lua_insert(L, -2);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, LOCKED);
    lua_setfield(L, -2, "__metatable");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &KEY_ENVMT);

    lua_pushliteral(L, "");
    if (lua_getmetatable(L, -1)) {
        lua_pushliteral(L, LOCKED);
        lua_setfield(L, -2, "__metatable");
    }
    return 0;
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
    s->L = lua_newstate(sb_alloc, s);
    if (!s->L) {
        free(s);
        err_set(e, "cannot create a Lua state (memory limit too small?)");
        return NULL;
    }
    lua_sethook(s->L, sb_hook, LUA_MASKCOUNT, HOOK_EVERY);
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
        arm_deadline(s);
        lua_close(s->L);
    }
    free(s);
}

struct lua_State *sandbox_lua(lab_state *s)
{
    return s->L;
}

/* ---- running chunks ------------------------------------------------------ */

/* (chunk, args...) -> chunk's results, run with a fresh private _ENV. */
static int sb_runchunk(lua_State *L)
{
    push_private_env(L);
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
    restore_source(L, msg ? msg : "cannot load", path, full, sizeof full);
    lua_pushnil(L);
    lua_pushstring(L, full);
    lua_pushboolean(L, st == LUA_ERRMEM);
    return 3;
}

/* Pushes the compiled chunk, or returns false with the message in e. */
static bool load_chunk(lab_state *s, const char *path, cl_err *e)
{
    lua_State *L = s->L;
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
        limit_text(s, lim, sizeof lim);
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
    if (!pcall_named(s, nargs + 1, LUA_MULTRET, path, e))
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

bool sandbox_dofile(lab_state *s, const char *path, int nresults, cl_err *e)
{
    if (!load_chunk(s, path, e))
        return false;
    return run_loaded(s, path, 0, nresults, e);
}

bool sandbox_dofile_trusted(lab_state *s, const char *path, int nresults, cl_err *e)
{
    if (!load_chunk(s, path, e))
        return false;
    lua_pushcfunction(s->L, sb_located);
    return run_loaded(s, path, 1, nresults, e);
}

/* ---- adding globals ------------------------------------------------------ */

/* Adds the value at the top to the allowed globals under the name just
 * below it; pops both. */
static void api_set(lua_State *L)
{
    freeze_value(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &KEY_API);
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
    freeze_value(L);
    return 1;
}

bool sandbox_set_global(lab_state *s, const char *name, cl_err *e)
{
    lua_State *L = s->L;
    if (!lua_checkstack(L, 4))
        return err_set(e, "Lua stack overflow");
    lua_pushcfunction(L, sb_setglobal_c);
    lua_insert(L, -2);
    lua_pushlightuserdata(L, (void *)name);
    lua_insert(L, -2);                        /* fn name value */
    return sandbox_pcall(s, 2, 0, e);
}

bool sandbox_expose(lab_state *s, cl_err *e)
{
    if (!lua_checkstack(s->L, 4))
        return err_set(e, "Lua stack overflow");
    lua_pushcfunction(s->L, sb_expose);
    lua_insert(s->L, -2);
    return sandbox_pcall(s, 1, 0, e);
}

bool sandbox_freeze(lab_state *s, cl_err *e)
{
    if (!lua_checkstack(s->L, 4))
        return err_set(e, "Lua stack overflow");
    lua_pushcfunction(s->L, sb_freeze);
    lua_insert(s->L, -2);
    return sandbox_pcall(s, 1, 1, e);
}

/* ---- output -------------------------------------------------------------- */

const char *sandbox_output(const lab_state *s)
{
    return s->outlen ? s->out : "";
}

void sandbox_clear_output(lab_state *s)
{
    s->outlen = 0;
    s->out[0] = '\0';
    s->out_full = false;
}

const char *sandbox_traceback(const lab_state *s)
{
    return s->trace;
}

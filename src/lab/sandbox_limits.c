/* sandbox_limits.c - the memory limit (the allocator) and the time budget
 * (the count hook). */
#include "lab/sandbox_internal.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>

static bool past_deadline(const lab_state *s);

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
    lua_sethook(s->L, sandbox_hook, LUA_MASKCOUNT, 1);
    return true;
}

/* Writes "file:line" of the innermost Lua function of L with a current
 * line into out; false when there is none. */
static bool lua_where(lua_State *L, char *out, size_t n)
{
    lua_Debug ar;
    for (int lv = 0; lua_getstack(L, lv, &ar); lv++)
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
            snprintf(out, n, "%s:%d", sandbox_display_source(&ar), ar.currentline);
            return true;
        }
    return false;
}

/* Notes where the script was when the memory limit was first hit, for the
 * message.  Up to Lua 5.4.4 the call stack stays readable during every
 * allocation, so the line is exact; later releases turn the stack's
 * pointers into offsets while they move it (ldo.c, relstack), so there the
 * line the count hook saw last stands in. */
static void note_mem_where(lab_state *s)
{
    if (s->mem_where[0] || !s->L || s->depth == 0 || s->reporting)
        return;
#if LUA_VERSION_RELEASE_NUM <= 50404
    if (lua_where(s->L, s->mem_where, sizeof s->mem_where))
        return;
#endif
    snprintf(s->mem_where, sizeof s->mem_where, "%s", s->last_where);
}

void *sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
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
        note_mem_where(s);
        s->mem_hit = true;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (!p) {
        if (nsize <= old)
            return ptr;
        note_mem_where(s);
        s->mem_hit = true;
        return NULL;
    }
    s->used = s->used - old + nsize;
    return p;
}

void sandbox_limit_text(const lab_state *sandbox, char *out, size_t out_size)
{
    if (sandbox->limit % (1u << 20) == 0)
        snprintf(out, out_size, "%zu MiB", sandbox->limit >> 20);
    else if (sandbox->limit % 1024 == 0)
        snprintf(out, out_size, "%zu KiB", sandbox->limit >> 10);
    else
        snprintf(out, out_size, "%zu bytes", sandbox->limit);
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

void sandbox_arm_deadline(lab_state *sandbox)
{
    deadline_after(CLOCK_MONOTONIC, sandbox->budget_ms, &sandbox->deadline);
    deadline_after(CLOCK_THREAD_CPUTIME_ID, sandbox->budget_ms, &sandbox->cpu_deadline);
}

/* Once the budget is spent the hook fires on every instruction, so a
 * script that catches the error with pcall cannot keep running. */
void sandbox_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lab_state *s = sandbox_state_of(L);
    if (s->depth == 0)
        return;
    lua_where(L, s->last_where, sizeof s->last_where);
    if (!s->time_hit && !past_deadline(s)) {
        if (lua_gethookcount(L) != HOOK_EVERY)
            lua_sethook(L, sandbox_hook, LUA_MASKCOUNT, HOOK_EVERY);
        return;
    }
    s->time_hit = true;
    if (!s->time_msg[0]) {
        lua_Debug d;
        if (lua_getstack(L, 0, &d) && lua_getinfo(L, "Sl", &d) && d.currentline > 0)
            snprintf(s->time_msg, sizeof s->time_msg,
                     "%s:%d: script ran longer than %d ms (infinite loop?)",
                     sandbox_display_source(&d), d.currentline, s->budget_ms);
        else
            snprintf(s->time_msg, sizeof s->time_msg,
                     "script ran longer than %d ms (infinite loop?)", s->budget_ms);
    }
    lua_sethook(L, sandbox_hook, LUA_MASKCOUNT, 1);
    lua_pushstring(L, s->time_msg);
    lua_error(L);
}

/* sandbox_patterns.c - string.find, match, gmatch and gsub with a bound on
 * their CPU time.
 *
 * Lua's pattern matcher backtracks inside one C call, where the count hook
 * never runs: ten '.-' against 30 bytes take minutes.  Each call first
 * bounds its own cost from the pattern's shape and the subject's length.
 * A call that is cheap by that bound runs as usual.  One that may not be
 * runs once in a forked copy of this process, limited to what is left of
 * the time budget; when that copy finishes in time the call is made here
 * for real (it costs the same again, so the budget holds within a factor
 * of two), and when it does not the call fails with "file:line: ...".
 * gmatch's trial runs the whole iteration, so the iterator it hands out
 * runs unguarded. */
#include "lab/sandbox_internal.h"

#include <errno.h>
#include <lauxlib.h>
#include <lualib.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

/* Steps a call may take without a trial run (at a few ns a step, about a
 * tenth of a second at worst). */
#define DIRECT_STEPS 5e7
#define COST_CAP 1e30

/* ---- the cost bound ------------------------------------------------------ */

static double mul(double a, double b)
{
    double r = a * b;
    return r > COST_CAP ? COST_CAP : r;
}

/* Whether p (length m) has none of the characters that make a pattern. */
static bool plain_text(const char *p, size_t m)
{
    return strpbrk(p, "^$*+?.([%-") == NULL && strlen(p) == m;
}

/* An upper bound on the matcher's steps for one start position of pattern
 * p (length m) over a subject of n bytes: each unbounded repetition can
 * try every length (n + 1), each optional item two ways, and each %b or
 * back reference can scan the whole subject. */
static double steps_per_start(const char *p, size_t m, size_t n, bool *anchored, int *reps)
{
    double cost = 1.0, span = (double)n + 1.0;
    int items = 0;
    size_t i = 0;
    *anchored = m > 0 && p[0] == '^';
    if (*anchored)
        i = 1;
    while (i < m) {
        char c = p[i];
        items++;
        if (c == '(' || c == ')') {
            i++;
            continue;
        }
        if (c == '$' && i + 1 == m)
            break;
        if (c == '%' && i + 1 < m) {
            char d = p[i + 1];
            if (d == 'b') {
                cost = mul(cost, span);
                i += 4;
                continue;
            }
            if (d == 'f') {
                i += 2;
                /* the set that follows */
                if (i < m && p[i] == '[') {
                    i++;
                    if (i < m && p[i] == '^')
                        i++;
                    do {
                        if (i < m && p[i] == '%')
                            i++;
                        i++;
                    } while (i < m && p[i] != ']');
                    i++;
                }
                continue;
            }
            if (d >= '0' && d <= '9') {
                cost = mul(cost, span);
                i += 2;
                continue;
            }
            i += 2;
        } else if (c == '[') {
            i++;
            if (i < m && p[i] == '^')
                i++;
            do {
                if (i < m && p[i] == '%')
                    i++;
                i++;
            } while (i < m && p[i] != ']');
            i++;
        } else {
            i++;
        }
        if (i < m) {
            char q = p[i];
            if (q == '*' || q == '+' || q == '-') {
                cost = mul(cost, span);
                (*reps)++;
                i++;
            } else if (q == '?') {
                cost = mul(cost, 2.0);
                i++;
            }
        }
    }
    return mul(cost, (double)items + 1.0);
}

/* The bound for a whole call of a matching function over s (length n)
 * with pattern p (length m); plain: string.find's fourth argument.  reps:
 * the pattern's unbounded repetitions. */
static double call_steps(const char *p, size_t m, size_t n, bool plain, bool may_anchor,
                         int *reps)
{
    *reps = 0;
    if (plain || plain_text(p, m))
        return mul((double)n + 1.0, (double)m + 1.0);
    bool anchored;
    double per = steps_per_start(p, m, n, &anchored, reps);
    return anchored && may_anchor ? per : mul(per, (double)n + 1.0);
}

/* ---- the trial run ------------------------------------------------------- */

static long remaining_ms(const lab_state *s)
{
    struct timespec now;
    if (s->depth == 0)
        return s->budget_ms;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    long long ms = (long long)(s->cpu_deadline.tv_sec - now.tv_sec) * 1000LL +
                   (s->cpu_deadline.tv_nsec - now.tv_nsec) / 1000000L;
    return ms < 1 ? 1 : ms > s->budget_ms ? s->budget_ms : (long)ms;
}

typedef enum { TRIAL_DONE, TRIAL_SLOW, TRIAL_FAILED } trial;

/* Calls the function at index 1 with the arguments above it in a forked
 * copy of this process, limited to ms of CPU time; with iterate, calls the
 * function it returns until that returns nil.  The stack is left as it
 * was. */
static trial trial_run(lua_State *L, long ms, bool iterate)
{
    int fds[2];
    if (pipe(fds) != 0)
        return TRIAL_FAILED;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return TRIAL_FAILED;
    }
    if (pid == 0) {
        close(fds[0]);
        signal(SIGPROF, SIG_DFL);
        struct itimerval it = {{0, 0}, {ms / 1000, (ms % 1000) * 1000}};
        setitimer(ITIMER_PROF, &it, NULL);
        int n = lua_gettop(L);
        for (int i = 1; i <= n; i++)
            lua_pushvalue(L, i);
        if (lua_pcall(L, n - 1, 1, 0) == LUA_OK && iterate) {
            int iter = lua_gettop(L);
            do {
                lua_settop(L, iter);
                lua_pushvalue(L, iter);
            } while (lua_pcall(L, 0, 1, 0) == LUA_OK && !lua_isnil(L, -1));
        }
        _exit(0);
    }
    close(fds[1]);
    /* The child's CPU time is what counts; the wall clock only guards
     * against a child that cannot get any CPU at all. */
    struct pollfd pf = {fds[0], POLLIN, 0};
    int wall = (int)(ms * 4 + 2000), r;
    do
        r = poll(&pf, 1, wall);
    while (r < 0 && errno == EINTR);
    if (r == 0)
        kill(pid, SIGKILL);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return TRIAL_FAILED;
    if (r == 0 || (WIFSIGNALED(status) && WTERMSIG(status) == SIGPROF))
        return TRIAL_SLOW;
    return TRIAL_DONE;
}

/* ---- the guarded functions ----------------------------------------------- */

/* Runs the original (upvalue 1) on the arguments, first on trial when the
 * bound says it may be slow. */
static int guarded_call(lua_State *L, const char *name, double steps, int reps, size_t n,
                        bool iterate)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    if (steps > DIRECT_STEPS) {
        lab_state *s = sandbox_state_of(L);
        long ms = remaining_ms(s);
        trial t = trial_run(L, ms, iterate);
        if (t == TRIAL_SLOW) {
            char msg[320];
            snprintf(msg, sizeof msg,
                     "string.%s: the %s takes too long on a %zu-byte string "
                     "(stopped after %ld ms of CPU)%s",
                     name, reps ? "pattern" : "call", n, ms,
                     reps > 1 ? "; its repetitions backtrack into each other: use fewer "
                                "'.-', '.*' or '+', or anchor the pattern"
                              : "");
            return sandbox_raise_at_caller(L, msg);
        }
    }
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* find (plain: its fourth argument may ask for a plain search), match,
 * gsub and gmatch (whose trial runs the whole iteration) share this. */
static int pattern_call(lua_State *L, const char *name, bool plain_arg, bool gmatch)
{
    size_t n, m;
    luaL_checklstring(L, 1, &n);
    const char *p = luaL_checklstring(L, 2, &m);
    int reps;
    double steps = call_steps(p, m, n, plain_arg && lua_toboolean(L, 4), !gmatch, &reps);
    return guarded_call(L, name, steps, reps, n, gmatch);
}

static int sb_find(lua_State *L) { return pattern_call(L, "find", true, false); }
static int sb_match(lua_State *L) { return pattern_call(L, "match", false, false); }
static int sb_gsub(lua_State *L) { return pattern_call(L, "gsub", false, false); }
/* gmatch: a costly iteration is tried whole, in the forked copy, before
 * the original iterator is handed out. */
static int sb_gmatch(lua_State *L) { return pattern_call(L, "gmatch", false, true); }

static void wrap(lua_State *L, int lib, const char *name, lua_CFunction f)
{
    lua_getfield(L, lib, name);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, lib, name);
}

void sandbox_guard_patterns(lua_State *L, int strlib)
{
    strlib = lua_absindex(L, strlib);
    wrap(L, strlib, "find", sb_find);
    wrap(L, strlib, "match", sb_match);
    wrap(L, strlib, "gmatch", sb_gmatch);
    wrap(L, strlib, "gsub", sb_gsub);
}

/* rowview.c - the read-only view of results a milestone check receives
 * (lab/rowview.h). */
#include "lab/rowview.h"

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

static const char *const row_fields[] = {
    "variant", "label", "size", "kind", "status", "correct", "message", "run", "samples",
    "median_ms", "min_ms", "max_ms", "spread", "gbps", "tflops", "pct_peak", "pct_peak_theory",
    "speedup_cpu", "speedup_cpu_mt", "speedup_lib", "speedup_starter", "has_report", "rel_err",
    "threads", NULL,
};

static const char *const view_fields[] = {
    "exercise", "exercises", "variants", "library", "cpu", "cpu_mt", "all", NULL,
};

const char *const *rowview_row_fields(void)
{
    return row_fields;
}

/* ---- strict tables ------------------------------------------------------------ */

/* Levenshtein distance of a and b, stopping at 9. */
static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 32 || lb > 32)
        return 9;
    int prev[33], cur[33];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, sizeof cur);
    }
    return prev[lb];
}

/* __index of a strict table (upvalue 1: its field names as a light
 * userdata, upvalue 2: what it is, for the message): nil for a known
 * field the engine left unset, an error naming the field otherwise. */
static int strict_index(lua_State *L)
{
    const char *const *names = lua_touserdata(L, lua_upvalueindex(1));
    if (lua_type(L, 2) != LUA_TSTRING)
        return 0;
    const char *k = lua_tostring(L, 2);
    const char *best = NULL;
    int bestd = 3;
    for (size_t i = 0; names[i]; i++) {
        if (strcmp(k, names[i]) == 0)
            return 0;
        int d = distance(k, names[i]);
        if (d < bestd) {
            best = names[i];
            bestd = d;
        }
    }
    char hint[96] = "";
    if (best)
        snprintf(hint, sizeof hint, " (did you mean '%s'?)", best);
    return luaL_error(L, "%s has no field '%s'%s", lua_tostring(L, lua_upvalueindex(2)), k,
                      hint);
}

/* ---- rows that did not run ------------------------------------------------------ */

/* Registry key: what the check read first of a row that did not run (a
 * string), absent when it read none since rowview_push. */
static const char unrun_key = 0;

/* Records the row behind upvalue 2 (its description) as read. */
static void note_unrun(lua_State *L)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &unrun_key) == LUA_TNIL) {
        lua_pushvalue(L, lua_upvalueindex(2));
        lua_rawsetp(L, LUA_REGISTRYINDEX, &unrun_key);
    }
    lua_pop(L, 1);
}

/* __index of a row that did not run (upvalue 1: its fields, strict;
 * upvalue 2: its description): notes the read, then reads the field. */
static int unrun_index(lua_State *L)
{
    note_unrun(L);
    lua_settop(L, 2);
    lua_gettable(L, lua_upvalueindex(1));
    return 1;
}

/* The iterator of unrun_pairs: (fields, key) -> the next key and value. */
static int unrun_next(lua_State *L)
{
    lua_settop(L, 2);
    if (lua_next(L, 1))
        return 2;
    lua_pushnil(L);
    return 1;
}

/* __pairs of a row that did not run: notes the read, iterates its fields. */
static int unrun_pairs(lua_State *L)
{
    note_unrun(L);
    lua_pushcfunction(L, unrun_next);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushnil(L);
    return 3;
}

/* Whether a row holds a measurement of its code: it ran (right, wrong, a
 * fault while running), as opposed to one that could not run (no device, a
 * compile error, nothing to run). */
static bool row_ran(const run_result *r)
{
    return r->status != RS_ERROR && r->status != RS_NO_DEVICE;
}

/* Replaces the strict row table on top, of a row r that did not run, by an
 * empty table whose reads are noted (unrun_index, unrun_pairs). */
static void wrap_unrun(lua_State *L, const run_result *r)
{
    int fields = lua_gettop(L);
    lua_newtable(L);                                       /* fields row */
    lua_createtable(L, 0, 2);                              /* fields row mt */
    char what[RUN_ID_MAX + RUN_SIZE_MAX + 64];
    snprintf(what, sizeof what, "%s at %s %s", r->label[0] ? r->label : r->variant, r->size,
             r->status == RS_NO_DEVICE ? "did not run (no CUDA device)"
                                       : "could not run (its row says why)");
    for (int i = 0; i < 2; i++) {
        lua_pushvalue(L, fields);
        lua_pushstring(L, what);
        lua_pushcclosure(L, i ? unrun_pairs : unrun_index, 2);
        lua_setfield(L, -2, i ? "__pairs" : "__index");
    }
    lua_setmetatable(L, -2);                               /* fields row */
    lua_remove(L, fields);
}

bool rowview_unrun_read(lua_State *L, char *what, size_t n)
{
    bool read = lua_rawgetp(L, LUA_REGISTRYINDEX, &unrun_key) == LUA_TSTRING;
    if (read && what && n)
        snprintf(what, n, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return read;
}

/* Gives the table on top a strict metatable for names. */
static void make_strict(lua_State *L, const char *const *names, const char *what)
{
    lua_createtable(L, 0, 1);
    lua_pushlightuserdata(L, (void *)names);
    lua_pushstring(L, what);
    lua_pushcclosure(L, strict_index, 2);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
}

/* ---- rows --------------------------------------------------------------------- */

/* One factor of a size label: 4096, 2^12 or 1<<12; -1 when unreadable. */
static double factor(const char *s, const char **end)
{
    char *p;
    double a = strtod(s, &p);
    if (p == s)
        return -1;
    while (*p == ' ')
        p++;
    if (*p == '^' || (p[0] == '<' && p[1] == '<')) {
        bool shift = *p == '<';
        p += shift ? 2 : 1;
        char *q;
        double b = strtod(p, &q);
        if (q == p)
            return -1;
        a = shift ? ldexp(a, (int)b) : pow(a, b);
        p = q;
    }
    while (*p == ' ')
        p++;
    *end = p;
    return a;
}

/* How big a size label is (product of its factors, or the bytes of a
 * label such as "256 MiB"); -1 when unreadable. */
static double size_magnitude(const char *label)
{
    double bytes;
    if (units_parse_bytes(label, &bytes))
        return bytes;
    double m = 1;
    const char *p = label;
    for (;;) {
        double f = factor(p, &p);
        if (f < 0)
            return -1;
        m *= f;
        if (*p == '\0')
            return m;
        if (*p != 'x' && *p != 'X')
            return -1;
        p++;
    }
}

static void set_num(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static void set_str(lua_State *L, const char *k, const char *v)
{
    lua_pushstring(L, v);
    lua_setfield(L, -2, k);
}

/* Pushes one row as a table; values the engine marks unknown are nil. */
static void push_row(lua_State *L, const run_result *r)
{
    lua_createtable(L, 0, 24);
    set_str(L, "variant", r->variant);
    set_str(L, "label", r->label);
    set_str(L, "size", r->size);
    set_str(L, "kind", result_kind_name(r->kind));
    set_str(L, "status", result_status_name(r->status));
    lua_pushboolean(L, r->status == RS_CORRECT);
    lua_setfield(L, -2, "correct");
    set_str(L, "message", r->message);
    lua_pushinteger(L, r->run);
    lua_setfield(L, -2, "run");
    lua_pushinteger(L, r->samples);
    lua_setfield(L, -2, "samples");
    if (r->median_ms > 0) {
        set_num(L, "median_ms", r->median_ms);
        set_num(L, "min_ms", r->min_ms);
        set_num(L, "max_ms", r->max_ms);
        set_num(L, "spread", r->spread);
    }
    if (r->gbps >= 0)
        set_num(L, "gbps", r->gbps);
    if (r->tflops >= 0)
        set_num(L, "tflops", r->tflops);
    if (r->pct_peak_measured >= 0)
        set_num(L, "pct_peak", r->pct_peak_measured);
    if (r->pct_peak_theory >= 0)
        set_num(L, "pct_peak_theory", r->pct_peak_theory);
    if (r->speedup_cpu > 0)
        set_num(L, "speedup_cpu", r->speedup_cpu);
    if (r->speedup_cpu_mt > 0)
        set_num(L, "speedup_cpu_mt", r->speedup_cpu_mt);
    if (r->speedup_lib > 0)
        set_num(L, "speedup_lib", r->speedup_lib);
    if (r->speedup_starter > 0)
        set_num(L, "speedup_starter", r->speedup_starter);
    lua_pushboolean(L, r->has_report);
    lua_setfield(L, -2, "has_report");
    if (r->status == RS_CORRECT || r->status == RS_WRONG)
        set_num(L, "rel_err", r->rel_err);
    if (r->kind == RK_CPU || r->kind == RK_CPU_MT) {
        lua_pushinteger(L, r->threads);
        lua_setfield(L, -2, "threads");
    }
}

/* Index of the row of the given kind (and variant, when not NULL) at the
 * largest size; the later row wins a tie.  -1 when there is none. */
static long pick(const run_result *rs, size_t n, result_kind k, const char *variant)
{
    long best = -1;
    double bm = 0;
    for (size_t i = 0; i < n; i++) {
        if (rs[i].kind != k || (variant && strcmp(rs[i].variant, variant) != 0))
            continue;
        double m = size_magnitude(rs[i].size);
        if (best < 0 || m >= bm) {
            best = (long)i;
            bm = m;
        }
    }
    return best;
}

/* The row of kind k called variant at the largest size, else any row of
 * that kind (a problem with several rows of a kind, such as the
 * pipeline's one a step, names the main one "exercise", "cpu", ...). */
static long pick_named(const run_result *rs, size_t n, result_kind k, const char *variant)
{
    long i = pick(rs, n, k, variant);
    return i >= 0 ? i : pick(rs, n, k, NULL);
}

/* Sets field k of the table on top to row i (absolute index of r.all). */
static void set_row(lua_State *L, const char *k, int all, long i)
{
    if (i < 0)
        return;
    lua_rawgeti(L, all, (lua_Integer)i + 1);
    lua_setfield(L, -2, k);
}


/* Pushes a table of the rows of kind k by variant id, each at the largest
 * size it was measured. */
static void push_by_variant(lua_State *L, const run_result *rs, size_t n, int all,
                            result_kind k)
{
    lua_newtable(L);
    for (size_t i = 0; i < n; i++) {
        if (rs[i].kind != k)
            continue;
        bool seen = lua_getfield(L, -1, rs[i].variant) != LUA_TNIL;
        lua_pop(L, 1);
        if (!seen)
            set_row(L, rs[i].variant, all, pick(rs, n, k, rs[i].variant));
    }
}

void rowview_push(lua_State *L, const run_result *rs, size_t nrows)
{
    luaL_checkstack(L, 16, "milestone check");
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &unrun_key);
    lua_createtable(L, 0, 8);                              /* r */
    int r = lua_gettop(L);
    lua_createtable(L, (int)(nrows < 1000000 ? nrows : 1000000), 0);
    int all = lua_gettop(L);
    for (size_t i = 0; i < nrows; i++) {
        push_row(L, &rs[i]);
        make_strict(L, row_fields, "a row");
        if (!row_ran(&rs[i]))
            wrap_unrun(L, &rs[i]);
        lua_rawseti(L, all, (lua_Integer)i + 1);
    }
    lua_pushvalue(L, r);                                   /* r all r */
    set_row(L, "exercise", all, pick_named(rs, nrows, RK_EXERCISE, "exercise"));
    set_row(L, "library", all, pick(rs, nrows, RK_LIBRARY, NULL));
    set_row(L, "cpu", all, pick_named(rs, nrows, RK_CPU, "cpu"));
    set_row(L, "cpu_mt", all, pick_named(rs, nrows, RK_CPU_MT, "cpu_mt"));
    push_by_variant(L, rs, nrows, all, RK_EXERCISE);
    lua_setfield(L, -2, "exercises");
    push_by_variant(L, rs, nrows, all, RK_KERNEL);
    lua_setfield(L, -2, "variants");
    lua_pop(L, 1);                                         /* r all */
    lua_setfield(L, r, "all");
    make_strict(L, view_fields, "r");
}

/* probdecl_fill.c - a declared input's fill at one size (lab/probdecl.h):
 * its parameters evaluated and checked, by `check` at each of a lab's sizes
 * and before the values are drawn, with the same messages; then its values
 * drawn, for the engine's checks and for `check`'s run of the lab's
 * reference, by the same code.
 *
 * Seeded distributions are drawn in fixed chunks over several threads
 * (core/rng.h), so a seed gives the same inputs on every machine; a Lua
 * fill function returns a list of values, bounded to 2^20. */
#include "lab/probdecl.h"

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "lab/labmodel.h"
#include "lab/probview.h"
#include "lab/sandbox.h"

bool probdecl_fill_params(const problem_decl *decl, int arg, const problem_dims *dims,
                          double p[3], cl_err *err)
{
    const decl_arg *a = &decl->args[arg];
    const int line = a->line ? a->line : decl->line;
    memset(p, 0, 3 * sizeof *p);
    if (a->fill.kind == FILL_FN) {
        size_t count = 0;
        if (!probdecl_length(decl, arg, dims, &count, err))
            return false;
        if (count > PROBDECL_FILL_FN_MAX)
            return err_set(err, "%s:%d: arg '%s' has %zu elements at this size: a fill function "
                                "makes at most 2^20 (use a distribution for larger inputs)",
                           decl->file, line, a->name, count);
        return true;
    }
    for (int k = 0; k < a->fill.np; k++)
        if (!probdecl_eval(decl, &a->fill.p[k], dims, &p[k], err))
            return false;
    const decl_fill_kind kind = a->fill.kind;
    const bool ranged = kind == FILL_INTEGERS || kind == FILL_ZIPF;
    const double lo = kind == FILL_ZIPF ? p[1] : p[0], hi = kind == FILL_ZIPF ? p[2] : p[1];
    if (ranged && (lo != floor(lo) || hi != floor(hi) || hi < lo))
        return err_set(err, "%s:%d: arg '%s': integers need whole bounds lo <= hi, got %g and %g",
                       decl->file, line, a->name, lo, hi);
    if (kind == FILL_UNIFORM && !(p[1] > p[0]))
        return err_set(err, "%s:%d: arg '%s': uniform needs lo < hi, got %g and %g", decl->file,
                       line, a->name, p[0], p[1]);
    if (kind == FILL_ZIPF && !(p[0] > 0.0))
        return err_set(err, "%s:%d: arg '%s': zipf needs an exponent s > 0, got %g", decl->file,
                       line, a->name, p[0]);
    if (kind == FILL_NORMAL && !(p[1] >= 0.0))
        return err_set(err, "%s:%d: arg '%s': normal needs a deviation sd >= 0, got %g",
                       decl->file, line, a->name, p[1]);
    return true;
}

/* ---- drawing the values ---------------------------------------------------------- */

#define ZIPF_TABLE_MAX ((size_t)1 << 22)

typedef struct fill_job {
    decl_fill_kind kind;
    decl_type type;
    void *host;
    double p[3];
    const double *zipf_cdf;  /* small ranges: the cumulative distribution */
    size_t zipf_n;
} fill_job;

/* A standard normal deviate (Box-Muller; one of the pair). */
static double normal(rng *r)
{
    double u1 = rng_uniform(r), u2 = rng_uniform(r);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* A Zipf deviate k in [0, n): P(k) proportional to (k + 1)^-s.  Up to
 * ZIPF_TABLE_MAX values exactly, by the cumulative distribution j->zipf_cdf;
 * beyond, by inverting the continuous power law (close, not exact). */
static uint64_t zipf(const fill_job *j, rng *r, double s, uint64_t n)
{
    double u = rng_uniform(r);
    if (n <= 1)
        return 0;
    if (j->zipf_cdf) {
        size_t lo = 0, hi = j->zipf_n - 1;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (j->zipf_cdf[mid] < u)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }
    double x = fabs(s - 1.0) < 1e-9
                   ? exp(u * log((double)n + 1.0))
                   : pow(1.0 + u * (pow((double)n + 1.0, 1.0 - s) - 1.0), 1.0 / (1.0 - s));
    uint64_t k = (uint64_t)floor(x);
    return k < 1 ? 0 : k > n ? n - 1 : k - 1;
}

static void fill_chunk(rng *r, size_t from, size_t to, void *ud)
{
    const fill_job *j = ud;
    for (size_t i = from; i < to; i++) {
        double v;
        switch (j->kind) {
        case FILL_UNIFORM:
            v = j->p[0] + (j->p[1] - j->p[0]) * rng_uniform(r);
            if (v >= j->p[1])
                v = j->p[0];
            break;
        case FILL_NORMAL:
            v = j->p[0] + j->p[1] * normal(r);
            break;
        case FILL_INTEGERS:
            v = j->p[0] + (double)rng_below64(r, (uint64_t)(j->p[1] - j->p[0]) + 1);
            break;
        case FILL_ZIPF:
            v = j->p[1] + (double)zipf(j, r, j->p[0], (uint64_t)(j->p[2] - j->p[1]) + 1);
            break;
        default:
            v = j->p[0];
            break;
        }
        probview_set(j->host, j->type, i, v);
    }
}

/* (decl, arg index, dims, n, seed) -> the fill function's list */
static int call_fill(lua_State *L)
{
    const problem_decl *d = lua_touserdata(L, 1);
    int i = (int)lua_tointeger(L, 2);
    const problem_dims *dims = lua_touserdata(L, 3);
    lua_rawgeti(L, LUA_REGISTRYINDEX, d->args[i].fill.ref);
    lua_pushinteger(L, (lua_Integer)lua_tointeger(L, 4));
    probdecl_push_size(L, d, dims);
    lua_pushinteger(L, (lua_Integer)lua_tointeger(L, 5));
    lua_call(L, 3, 1);
    return 1;
}

/* A Lua fill function's count values into host; it gets the check's
 * seed, a whole number below 2^31, to vary its values from check to
 * check. */
static bool fill_lua(const problem_decl *d, int i, const problem_dims *dims, void *host,
                     size_t count, uint64_t seed, cl_err *e)
{
    const decl_arg *a = &d->args[i];
    lab_state *s = d->lab->ls;
    lua_State *L = sandbox_lua(s);
    int top = lua_gettop(L);
    lua_pushcfunction(L, call_fill);
    lua_pushlightuserdata(L, (void *)d);
    lua_pushinteger(L, i);
    lua_pushlightuserdata(L, (void *)dims);
    lua_pushinteger(L, (lua_Integer)count);
    lua_pushinteger(L, (lua_Integer)(seed & 0x7fffffffu));
    if (!sandbox_pcall(s, 5, 1, e)) {
        lua_settop(L, top);
        return false;
    }
    bool ok = true;
    if (lua_type(L, -1) != LUA_TTABLE || lua_rawlen(L, -1) != count) {
        err_set(e, "%s:%d: arg '%s': the fill function must return a list of %zu values, got %s",
                d->file, a->line, a->name, count,
                lua_type(L, -1) == LUA_TTABLE ? "a list of another length" : luaL_typename(L, -1));
        ok = false;
    }
    for (size_t k = 0; ok && k < count; k++) {
        lua_rawgeti(L, -1, (lua_Integer)k + 1);
        int isnum = 0;
        double v = (double)lua_tonumberx(L, -1, &isnum);
        lua_pop(L, 1);
        if (!isnum || (decl_type_integral(a->type) && v != floor(v))) {
            err_set(e, "%s:%d: arg '%s': value %zu of the fill function is not %s", d->file,
                    a->line, a->name, k + 1, decl_type_integral(a->type) ? "a whole number"
                                                                         : "a number");
            ok = false;
        } else {
            probview_set(host, a->type, k, v);
        }
    }
    lua_settop(L, top);
    return ok;
}

/* The parameters of j narrowed to a share f of the declared distribution
 * (probdecl_make_input); every value drawn stays one the declaration allows. */
static void narrow_fill(fill_job *j, double f)
{
    if (!(f > 0.0 && f < 1.0))
        return;
    switch (j->kind) {
    case FILL_UNIFORM:
        j->p[1] = j->p[0] + (j->p[1] - j->p[0]) * f;
        break;
    case FILL_NORMAL:
        j->p[0] += j->p[1] * 2.0 * (1.0 - f);
        break;
    case FILL_INTEGERS:
        j->p[1] = j->p[0] + floor((j->p[1] - j->p[0]) * f);
        break;
    case FILL_ZIPF:
        j->p[2] = j->p[1] + floor((j->p[2] - j->p[1]) * f);
        break;
    default:
        break;
    }
}

bool probdecl_make_input(const problem_decl *decl, int arg, const problem_dims *dims, void *host,
                         size_t count, uint64_t seed, double narrow, cl_err *err)
{
    const decl_arg *a = &decl->args[arg];
    fill_job j = {.kind = a->fill.kind, .type = a->type, .host = host};
    if (!probdecl_fill_params(decl, arg, dims, j.p, err))
        return false;
    if (a->fill.kind == FILL_FN)
        return fill_lua(decl, arg, dims, host, count, seed, err);
    bool ranged = j.kind == FILL_INTEGERS || j.kind == FILL_ZIPF;
    double lo = j.kind == FILL_ZIPF ? j.p[1] : j.p[0], hi = j.kind == FILL_ZIPF ? j.p[2] : j.p[1];
    narrow_fill(&j, narrow);
    if (j.kind == FILL_ZIPF)
        hi = j.p[2];
    double *cdf = NULL;
    size_t range = ranged ? (size_t)(hi - lo) + 1 : 0;
    if (j.kind == FILL_ZIPF && range <= ZIPF_TABLE_MAX) {
        cdf = malloc(range * sizeof *cdf);
        if (!cdf)
            return err_set(err, "out of host memory for the Zipf table");
        double sum = 0.0;
        for (size_t k = 0; k < range; k++)
            cdf[k] = sum += pow((double)k + 1.0, -j.p[0]);
        for (size_t k = 0; k < range; k++)
            cdf[k] /= sum;
        j.zipf_cdf = cdf;
        j.zipf_n = range;
    }
    rng_fill_chunks(count, seed, fill_chunk, &j);
    free(cdf);
    return true;
}

bool probdecl_make_inputs(const problem_decl *decl, const probdecl_host *h, uint64_t seed,
                          double narrow, cl_err *err)
{
    for (int i = 0; i < decl->nargs; i++) {
        if (!decl->args[i].buffer || decl->args[i].output)
            continue;
        uint64_t s = seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(i + 1));
        if (!probdecl_make_input(decl, i, h->dims, h->host[i], h->count[i], s, narrow, err))
            return false;
    }
    return true;
}

/* decl_fill.c - a declared problem's fresh inputs and its outputs' poison
 * (engine/problem_decl.h).
 *
 * Seeded distributions are drawn in fixed chunks over several threads
 * (core/rng.h), so a seed gives the same inputs on every machine; a Lua
 * fill function returns a list of values, bounded to 2^20. */
#include "engine/problem_decl.h"

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

/* A Lua fill function's values into b->host; it gets the check's seed,
 * a whole number below 2^31, to vary its values from check to check. */
static bool fill_lua(const problem_decl *d, int i, const problem_dims *dims, decl_buf *b,
                     uint64_t seed, cl_err *e)
{
    const decl_arg *a = &d->args[i];
    lab_state *s = d->lab->ls;
    lua_State *L = sandbox_lua(s);
    int top = lua_gettop(L);
    lua_pushcfunction(L, call_fill);
    lua_pushlightuserdata(L, (void *)d);
    lua_pushinteger(L, i);
    lua_pushlightuserdata(L, (void *)dims);
    lua_pushinteger(L, (lua_Integer)b->count);
    lua_pushinteger(L, (lua_Integer)(seed & 0x7fffffffu));
    if (!sandbox_pcall(s, 5, 1, e)) {
        lua_settop(L, top);
        return false;
    }
    bool ok = true;
    if (lua_type(L, -1) != LUA_TTABLE || lua_rawlen(L, -1) != b->count) {
        err_set(e, "%s:%d: arg '%s': the fill function must return a list of %zu values, got %s",
                d->file, a->line, a->name, b->count,
                lua_type(L, -1) == LUA_TTABLE ? "a list of another length" : luaL_typename(L, -1));
        ok = false;
    }
    for (size_t k = 0; ok && k < b->count; k++) {
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
            probview_set(b->host, a->type, k, v);
        }
    }
    lua_settop(L, top);
    return ok;
}

/* The parameters of j narrowed to a share f of the declared distribution
 * (decl_make_input); every value drawn stays one the declaration allows. */
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

bool decl_make_input(const problem_decl *decl, int arg, const problem_dims *dims, decl_buf *buf,
                     uint64_t seed, double narrow, cl_err *err)
{
    const decl_arg *a = &decl->args[arg];
    fill_job j = {.kind = a->fill.kind, .type = a->type, .host = buf->host};
    if (!probdecl_fill_params(decl, arg, dims, j.p, err))
        return false;
    if (a->fill.kind == FILL_FN)
        return fill_lua(decl, arg, dims, buf, seed, err);
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
    rng_fill_chunks(buf->count, seed, fill_chunk, &j);
    free(cdf);
    return true;
}

void decl_poison_host(void *host, decl_type type, size_t count)
{
    size_t bytes = count * decl_type_size(type);
    uint32_t w = type == DT_F32                     ? DECL_POISON_F32
                 : type == DT_F64 || type == DT_I64 ? DECL_POISON_F64
                 : type == DT_BF16                  ? DECL_POISON_BF16
                                                    : DECL_POISON_INT;
    unsigned char *p = host;
    for (size_t k = 0; k + 4 <= bytes; k += 4)
        memcpy(p + k, &w, 4);
    for (size_t k = bytes / 4 * 4; k < bytes; k++)
        p[k] = 0xde;
    if (type == DT_U8)
        memset(p, 0xde, bytes);
}

bool decl_is_poison(const void *host, decl_type type, size_t index)
{
    const unsigned char *p = host;
    switch (type) {
    case DT_F32:
    case DT_I32:
    case DT_U32: {
        uint32_t w;
        memcpy(&w, p + 4 * index, 4);
        return w == (type == DT_F32 ? DECL_POISON_F32 : DECL_POISON_INT);
    }
    case DT_F64:
    case DT_I64: {
        uint32_t w[2];
        memcpy(w, p + 8 * index, 8);
        return w[0] == DECL_POISON_F64 && w[1] == DECL_POISON_F64;
    }
    case DT_BF16: {
        uint16_t h;
        memcpy(&h, p + 2 * index, 2);
        return h == (uint16_t)(DECL_POISON_BF16 & 0xffffu);
    }
    case DT_U8:
        return p[index] == 0xde;
    }
    return false;
}

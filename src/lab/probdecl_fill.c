/* probdecl_fill.c - a declared input's fill at one size: its parameters
 * evaluated and checked (lab/probdecl.h), by `check` at each of a lab's
 * sizes and by the engine before it draws the values, with the same
 * messages. */
#include "lab/probdecl.h"

#include <math.h>
#include <string.h>

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

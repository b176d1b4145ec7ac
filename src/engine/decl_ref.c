/* decl_ref.c - a declared problem's reference (engine/problem_decl.h):
 * the builtin's double-precision C code, the lab's Lua function over views
 * of the arguments, or the lab's reference kernel run on the GPU, checked
 * once a request against its Lua check at a small size.  The Lua calls
 * themselves are lab/probcall.c's, which `cudalab check` makes too. */
#include "engine/problem_decl.h"

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cudacheck.h"
#include "lab/probcall.h"
#include "lab/probview.h"
#include "luagpu/luagpu.h"

void decl_builtin_args(const problem_data *data, builtin_args *args)
{
    const decl_problem *dp = problem_decl_ops_of(data);
    memset(args, 0, sizeof *args);
    if (!dp->bi)
        return;
    for (int r = 0; r < dp->bi->desc->nroles; r++) {
        int i = probdecl_role(dp->d, dp->bi->desc->roles[r].name);
        if (i < 0)
            continue;
        decl_buf *b = &data->decl->b[i];
        args->host[r] = b->host;
        args->dev[r] = b->dev.ptr;
        args->ref[r] = b->ref;
        args->count[r] = b->count;
        args->value[r] = data->decl->value[i];
    }
}

void decl_host_of(const problem_data *data, probdecl_host *h)
{
    const problem_decl *d = problem_decl_ops_of(data)->d;
    memset(h, 0, sizeof *h);
    h->dims = &data->d;
    for (int i = 0; i < d->nargs; i++) {
        h->host[i] = data->decl->b[i].host;
        h->count[i] = data->decl->b[i].count;
        h->value[i] = data->decl->value[i];
    }
}

/* ---- a Lua reference --------------------------------------------------------------- */

/* Runs Lua reference fn (lab/probcall.h) into out[i], each output's array;
 * an element it leaves unwritten or NaN is an error. */
static bool run_lua_ref(problem_data *p, int fn, double **out, cl_err *e)
{
    const problem_decl *d = problem_decl_ops_of(p)->d;
    probdecl_host h;
    decl_host_of(p, &h);
    size_t elems = 0;
    for (int i = 0; i < d->nargs; i++)
        elems += d->args[i].buffer ? h.count[i] : 0;
    if (elems > PROBDECL_LUA_REF_MAX)
        return err_set(e, "%s:%d: problem %s: its Lua reference runs where the buffers hold at "
                          "most " PROBDECL_LUA_REF_MAX_TEXT " elements; this size has %zu",
                       d->file, d->line, d->name, elems);
    if (!probcall_reference(d, fn, &h, out, e))
        return err_prefix(e, "the lab's reference failed");
    return true;
}

/* ---- a reference kernel ---------------------------------------------------------------- */

/* The reference launcher's args: the inputs, and each output's reference
 * buffer (f64 with ref_f64). */
static int push_ref_args(lua_State *L)
{
    const problem_data *p = lua_touserdata(L, 1);
    const problem_decl *d = problem_decl_ops_of(p)->d;
    lua_createtable(L, 0, d->nargs);
    for (int i = 0; i < d->nargs; i++) {
        const decl_arg *a = &d->args[i];
        const decl_buf *b = &p->decl->b[i];
        if (!a->buffer)
            lua_pushnumber(L, (lua_Number)p->decl->value[i]);
        else if (a->output)
            luagpu_push_borrowed(L, b->refdev.ptr, b->count,
                                 (luagpu_dtype)(d->ref_f64 ? LUAGPU_F64 : luagpu_dtype_of(a->type)));
        else
            luagpu_push_borrowed(L, b->dev.ptr, b->count, luagpu_dtype_of(a->type));
        lua_setfield(L, -2, a->name);
    }
    return 1;
}

/* Runs the reference kernel on p's inputs and reads its outputs back as
 * doubles into each output's ref. */
static bool run_ref_kernel(problem_data *p, cl_err *e)
{
    decl_problem *dp = problem_decl_ops_of(p);
    const problem_decl *d = dp->d;
    if (!dp->refx)
        return err_set(e, "%s:%d: problem %s: the reference kernel cannot run: %s", d->file,
                       d->line, d->name, dp->refx_msg && dp->refx_msg[0] ? dp->refx_msg
                                                                        : "it was not opened");
    cudaStream_t s = dp->stream;
    if (!problem_upload(p, s, e))
        return false;
    /* all-ones bytes: NaN in a float output, so an element the reference
     * leaves unwritten is caught below rather than read as stale data */
    for (int i = 0; i < d->nargs; i++) {
        if (!d->args[i].output)
            continue;
        decl_type t = d->ref_f64 ? DT_F64 : d->args[i].type;
        CUDA_CHECK(e, cudaMemsetAsync(p->decl->b[i].refdev.ptr, 0xFF,
                                      p->decl->b[i].count * decl_type_size(t), s));
    }
    if (!exercise_begin_table(dp->refx, push_ref_args, p, p->decl->label, e) ||
        !exercise_call(dp->refx, s, e)) {
        exercise_end_size(dp->refx);
        return err_prefix(e, "%s:%d: problem %s: the reference kernel", d->file, d->line, d->name);
    }
    exercise_end_size(dp->refx);
    cudaError_t se = cudaStreamSynchronize(s);
    if (se != cudaSuccess)
        return err_set(e, "%s:%d: problem %s: the reference kernel failed: %s", d->file,
                       d->line, d->name, cudaGetErrorString(se));
    for (int i = 0; i < d->nargs; i++) {
        if (!d->args[i].output)
            continue;
        decl_buf *b = &p->decl->b[i];
        decl_type t = d->ref_f64 ? DT_F64 : d->args[i].type;
        void *tmp = malloc(b->count * decl_type_size(t));
        if (!tmp)
            return err_set(e, "out of host memory for the reference");
        bool ok = buffer_download(&b->refdev, tmp, b->count * decl_type_size(t), s, e);
        for (size_t k = 0; ok && k < b->count; k++) {
            b->ref[k] = probview_get(tmp, t, k);
            if (!isfinite(b->ref[k]))
                ok = err_set(e, "%s:%d: problem %s: the reference kernel left %s[%zu] %s",
                             d->file, d->line, d->name, d->args[i].name, k,
                             isnan(b->ref[k]) ? "unwritten (or NaN)" : "infinite");
        }
        free(tmp);
        if (!ok)
            return false;
    }
    return true;
}

/* Once a request, at a size small enough: the kernel's reference against
 * the Lua check, element by element. */
static bool cross_check(problem_data *p, cl_err *e)
{
    decl_problem *dp = problem_decl_ops_of(p);
    const problem_decl *d = dp->d;
    double *out[DECL_MAX_ARGS] = {0};
    bool ok = true;
    for (int i = 0; i < d->nargs && ok; i++)
        if (d->args[i].output && !(out[i] = malloc(p->decl->b[i].count * sizeof(double))))
            ok = err_set(e, "out of host memory for the reference's check");
    ok = ok && run_lua_ref(p, d->ref_check, out, e);
    for (int i = 0; i < d->nargs && ok; i++) {
        const decl_buf *b = &p->decl->b[i];
        for (size_t k = 0; d->args[i].output && k < b->count && ok; k++) {
            double diff = fabs(out[i][k] - b->ref[k]);
            if (diff > 1e-6 * (fabs(out[i][k]) > 1.0 ? fabs(out[i][k]) : 1.0))
                ok = err_set(e, "%s:%d: problem %s: the reference kernel and its Lua check "
                                "disagree at %s[%zu]: %.17g against %.17g",
                             d->file, d->line, d->name, d->args[i].name, k, b->ref[k],
                             out[i][k]);
        }
    }
    for (int i = 0; i < d->nargs; i++)
        free(out[i]);
    if (ok)
        dp->checked = true;
    return ok;
}

bool decl_reference(problem_data *data, cl_err *err)
{
    decl_problem *dp = problem_decl_ops_of(data);
    const problem_decl *d = dp->d;
    switch (d->ref) {
    case REF_BUILTIN: {
        builtin_args a;
        decl_builtin_args(data, &a);
        if (!dp->bi)
            return err_set(err, "%s:%d: problem %s has no builtin", d->file, d->line, d->name);
        return dp->bi->reference(&a, err);
    }
    case REF_LUA: {
        double *out[DECL_MAX_ARGS] = {0};
        for (int i = 0; i < d->nargs; i++)
            out[i] = data->decl->b[i].ref;
        return run_lua_ref(data, d->ref_fn, out, err);
    }
    case REF_KERNEL:
        break;
    }
    if (!run_ref_kernel(data, err))
        return false;
    size_t elems = 0;
    for (int i = 0; i < d->nargs; i++)
        elems += d->args[i].buffer ? data->decl->b[i].count : 0;
    if (!dp->checked && d->ref_check != LUA_NOREF && elems <= PROBDECL_LUA_REF_MAX)
        return cross_check(data, err);
    return true;
}

/* engine_decl.c - a request whose problem the lab declares
 * (engine/engine_internal.h): the lab loaded in the worker, the problem's
 * ops, its reference kernel and the rungs of the lab folder, each compiled
 * with NVRTC inside the lab folder (a Python rung: engine_python.c); and
 * the builtin's library row. */
#include "engine/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "engine/engine_internal.h"
#include "engine/problem_decl.h"
#include "lab/labmodel.h"
#include "lab/labproblem.h"

/* <lab folder>/name into out. */
static bool in_lab(const lab *l, const char *name, char *out, size_t n)
{
    return name && paths_join(out, n, l->dir, name);
}

/* The reference kernel of the lab folder, opened into c->decl->refx when it
 * can run; why it cannot in c->ref_msg. */
static void open_reference(engine_ctx *c, const problem_decl *d)
{
    char kernel[CL_PATH_MAX], launcher[CL_PATH_MAX];
    exercise *x = NULL;
    c->decl->refx_msg = c->ref_msg;
    if (!in_lab(c->lab, d->ref_file, kernel, sizeof kernel) ||
        !in_lab(c->lab, d->ref_launcher, launcher, sizeof launcher)) {
        snprintf(c->ref_msg, sizeof c->ref_msg, "the path of the reference kernel is too long");
        return;
    }
    engine_launcher_open(c, kernel, launcher, c->lab->dir, false, "the lab's reference kernel",
                         &x, c->ref_msg, sizeof c->ref_msg);
    if (x && exercise_status(x, NULL) == EXERCISE_READY)
        c->decl->refx = x;
    else if (x)
        exercise_close(x);
}

/* Each variant of the request that is a rung of the lab folder. */
static void open_rungs(engine_ctx *c)
{
    for (int i = 0; i < c->req->nvariants; i++) {
        const lab_variant *v = lab_variant_find(c->lab, c->req->variants[i].id);
        if (v && v->python) {
            char path[CL_PATH_MAX], why[CL_ERR_MAX];
            if (!in_lab(c->lab, v->python, path, sizeof path))
                snprintf(why, sizeof why, "%s: the path of its file is too long", v->python);
            else
                c->py[i] = engine_python_open(path, v->python, why, sizeof why);
            if (!c->py[i] && (c->rung_msg[i] = calloc(1, CL_ERR_MAX)))
                snprintf(c->rung_msg[i], CL_ERR_MAX, "%s", why);
            continue;
        }
        if (!v || !v->file)
            continue;
        char kernel[CL_PATH_MAX], launcher[CL_PATH_MAX], what[RUN_ID_MAX + 16];
        c->rung_msg[i] = calloc(1, CL_ERR_MAX);
        if (!c->rung_msg[i])
            continue;
        snprintf(what, sizeof what, "rung '%s'", v->id);
        if (!in_lab(c->lab, v->file, kernel, sizeof kernel) ||
            !in_lab(c->lab, v->launcher, launcher, sizeof launcher)) {
            snprintf(c->rung_msg[i], CL_ERR_MAX, "%s: the path of its files is too long", what);
            continue;
        }
        engine_launcher_open(c, kernel, launcher, c->lab->dir, false, what, &c->rung[i],
                             c->rung_msg[i], CL_ERR_MAX);
    }
}

bool engine_decl_open(engine_ctx *ctx, char *msg, size_t msg_size)
{
    char home[CL_PATH_MAX];
    cl_err e = {{0}};
    if (!paths_home(home, sizeof home, &e)) {
        snprintf(msg, msg_size, "%s", e.msg);
        return false;
    }
    lab_diags d = {0};
    ctx->lab = ctx->req->lab_file[0] ? lab_load(ctx->req->lab_file, home, &d)
                                     : lab_load_problem(ctx->req->problem, home, &d);
    if (!ctx->lab) {
        if (d.n > 0 && d.v[0].line > 0)
            snprintf(msg, msg_size, "%s:%d: %s", d.v[0].file, d.v[0].line, d.v[0].msg);
        else if (d.n > 0)
            snprintf(msg, msg_size, "%s", d.v[0].msg);
        else
            snprintf(msg, msg_size, "the lab %s could not be loaded", ctx->req->lab_file);
        lab_diags_free(&d);
        return false;
    }
    lab_diags_free(&d);
    const problem_decl *pd = lab_problem_decl(ctx->lab, ctx->req->problem);
    if (!pd) {
        snprintf(msg, msg_size, "the lab %s declares no problem '%s'", ctx->lab->id,
                 ctx->req->problem);
        return false;
    }
    ctx->decl = calloc(1, sizeof *ctx->decl);
    if (!ctx->decl) {
        snprintf(msg, msg_size, "out of memory");
        return false;
    }
    problem_decl_init(ctx->decl, pd);
    ctx->decl->stream = engine_g.stream;
    ctx->ops = &ctx->decl->ops;
    /* compiled without a device too (engine.c); not for the CPU rows alone */
    if (pd->ref == REF_KERNEL && !engine_cpu_only(ctx->req))
        open_reference(ctx, pd);
    open_rungs(ctx);
    return true;
}

void engine_decl_close(engine_ctx *ctx)
{
    for (int i = 0; i < RUN_MAX_VARIANTS; i++) {
        exercise_close(ctx->rung[i]);
        ctx->rung[i] = NULL;
        engine_python_close(ctx->py[i]);
        ctx->py[i] = NULL;
        free(ctx->rung_msg[i]);
        ctx->rung_msg[i] = NULL;
    }
    if (ctx->decl)
        exercise_close(ctx->decl->refx);
    free(ctx->decl);
    ctx->decl = NULL;
    lab_free(ctx->lab);
    ctx->lab = NULL;
}

bool engine_decl_library(engine_ctx *ctx, problem_data *data, const row_rates *rates,
                         run_result *row)
{
    gpu_target t = {.once = problem_decl_library_once, .ud = data, .p = data, .library = true};
    return engine_gpu_measure(ctx, &t, rates, row);
}

#include "engine/engine.h"

#include <stdio.h>
#include <string.h>
#include <nvtx3/nvToolsExt.h>

#include "catalog/precision.h"
#include "core/clock.h"
#include "core/rng.h"
#include "cpu/cpuinfo.h"
#include "kernels.h"
#include "engine/engine_internal.h"
#include "gpu/kernreg.h"
#include "catalog/pipeline_files.h"
#include "engine/pipe.h"
#include "engine/problem.h"
#include "engine/problem_decl.h"

/* Within one phase of one row, at most one progress message this often. */
#define PROGRESS_EVERY_S 0.1

/* ---- one size --------------------------------------------------------- */

typedef struct size_rows {
    run_result lib, cpu, cpu_mt;
    bool have_lib, have_cpu;
} size_rows;

static void emit_held(engine_ctx *c, size_rows *h)
{
    if (h->have_lib)
        engine_row_emit(&c->rows, &h->lib);
    if (h->have_cpu) {
        engine_row_emit(&c->rows, &h->cpu);
        engine_row_emit(&c->rows, &h->cpu_mt);
    }
    h->have_lib = false;
    h->have_cpu = false;
}

static void variant_row(const engine_ctx *c, const run_variant *v, run_result *r)
{
    engine_row_start(&c->rows, r, v->id, v->id, RK_KERNEL);
}


/* Every row of this size as an RS_ERROR with msg. */
static void emit_all_errors(engine_ctx *c, const char *msg)
{
    run_result r;
    for (int i = 0; i < c->req->nvariants; i++) {
        variant_row(c, &c->req->variants[i], &r);
        engine_row_error(&r, msg);
        engine_row_emit(&c->rows, &r);
    }
    if (c->req->library[0]) {
        engine_row_start(&c->rows, &r, c->req->library,
                         result_row_label(c->req->library, RK_LIBRARY), RK_LIBRARY);
        engine_row_error(&r, msg);
        engine_row_emit(&c->rows, &r);
    }
    engine_launcher_exercise_error_row(c, msg, false);
    if (c->req->cpu) {
        engine_row_start(&c->rows, &r, "cpu", "CPU", RK_CPU);
        engine_row_error(&r, msg);
        engine_row_emit(&c->rows, &r);
        engine_row_start(&c->rows, &r, "cpu_mt", "CPU threads", RK_CPU_MT);
        engine_row_error(&r, msg);
        engine_row_emit(&c->rows, &r);
    }
}

/* The shipped launcher for the library name, or NULL for "copy" (*copy set)
 * and for an unknown name (*copy clear). */
static const shipped_kernel *library_kernel(const char *lib, bool *copy)
{
    *copy = strcmp(lib, "copy") == 0;
    if (*copy)
        return NULL;
    if (strcmp(lib, "cublas") == 0)
        return kernreg_find("cublas_sgemm");
    return kernreg_find(lib);
}

/* Checks that k may run for this problem; false + message in r otherwise. */
static bool kernel_usable(const engine_ctx *c, const char *name, const shipped_kernel *k,
                          run_result *r)
{
    if (!k) {
        snprintf(r->message, sizeof r->message, "unknown kernel '%s'", name);
        r->status = RS_ERROR;
        return false;
    }
    const char *pn = c->decl ? (c->decl->bi && c->decl->bi->desc->kernels
                                    ? c->decl->bi->desc->kernels : "")
                             : problem_kernels_of(c->ops->spec);
    if (!k->problem || strcmp(k->problem, pn) != 0) {
        snprintf(r->message, sizeof r->message, "kernel '%s' computes %s, not %s", name,
                 k->problem ? k->problem : "something else", c->ops->spec->name);
        r->status = RS_ERROR;
        return false;
    }
    const char *want = c->ops->spec->precision;
    if (want && !(k->precision && strcmp(k->precision, want) == 0 && k->gemm_bf16)) {
        const gemm_precision *g = gemm_precision_find(k->precision);
        snprintf(r->message, sizeof r->message,
                 "kernel '%s' multiplies %s inputs; problem %s takes kernels that read %s copies",
                 name, g && k->gemm_bf16 ? g->label : "FP32", c->ops->spec->name,
                 gemm_precision_find(want) ? gemm_precision_find(want)->label : want);
        r->status = RS_ERROR;
        return false;
    }
    bool set = c->decl != NULL || (strcmp(pn, "sgemm") == 0 && (k->sgemm || k->gemm_bf16)) ||
               ((strcmp(pn, "saxpy") == 0 || strcmp(pn, "managed") == 0) && k->saxpy);
    if (!set) {
        snprintf(r->message, sizeof r->message, "kernel '%s' has no %s launcher", name,
                 c->ops->spec->name);
        r->status = RS_ERROR;
        return false;
    }
    int cc = engine_g.dev.cc_major * 10 + engine_g.dev.cc_minor;
    if (k->cc_needs && engine_g.dev.present && !kernels_runs_on(k, cc)) {
        /* Built for one architecture (sm_90a): the rung names what it needs. */
        snprintf(r->message, sizeof r->message,
                 "unavailable on this GPU: %s needs %s; this GPU is %d.%d", name, k->cc_needs,
                 engine_g.dev.cc_major, engine_g.dev.cc_minor);
        r->status = RS_ERROR;
        return false;
    }
    if (k->min_cc > 0 && engine_g.dev.present && cc < k->min_cc) {
        const gemm_precision *g = gemm_precision_find(k->precision);
        snprintf(r->message, sizeof r->message,
                 "unavailable on this GPU: %s needs compute capability %d.%d or newer%s%s%s; this "
                 "GPU is %d.%d",
                 name, k->min_cc / 10, k->min_cc % 10, g ? " (" : "", g ? g->label : "",
                 g ? " tensor cores came with Ampere)" : "", engine_g.dev.cc_major,
                 engine_g.dev.cc_minor);
        r->status = RS_ERROR;
        return false;
    }
    return true;
}

/* The row's arithmetic (k NULL: the problem's own): its check tolerance and
 * whether it reads BF16 copies of the inputs. */
static void row_arith(problem_data *p, const shipped_kernel *k)
{
    const gemm_precision *g = k && k->precision ? gemm_precision_find(k->precision) : NULL;
    p->precision = g ? k->precision : NULL;
    p->tolerance = g ? g->tolerance : 0.0;
    /* a problem in BF16 (gemm_bf16) hands BF16 copies to every row */
    const char *own = p->ops->spec->precision;
    p->bf16 = k ? k->gemm_bf16 != NULL : own && strcmp(own, "bf16") == 0;
}

/* Whether k computes in the problem's own precision, whose library is the
 * main one (gemm_bf16's BF16 kernels beside cuBLAS BF16). */
static bool own_precision(const engine_ctx *c, const shipped_kernel *k)
{
    const char *own = c->ops->spec->precision;
    return own && k->precision && strcmp(own, k->precision) == 0;
}

/* ---- cuBLAS beside the rows of another precision ---------------------------- */

#define PREC_LIBS 4

/* The vendor library's row at each precision the request's rungs compute
 * in (TF32, BF16), measured before them so that their "x lib" compares
 * with the library at the same precision. */
typedef struct prec_libs {
    const char *prec[PREC_LIBS];
    double ms[PREC_LIBS];
    int n;
} prec_libs;

/* The shipped library launcher of this problem that computes in prec. */
static const shipped_kernel *library_in(const char *problem, const char *prec)
{
    size_t n = 0;
    const shipped_kernel *all = kernels_shipped(&n);
    for (size_t i = 0; i < n; i++)
        if (all[i].library && all[i].precision && strcmp(all[i].precision, prec) == 0 &&
            strcmp(all[i].problem, problem) == 0)
            return &all[i];
    return NULL;
}

/* Measures and emits the library row of each precision of the requested
 * rungs; false only when the context broke. */
static bool precision_libraries(engine_ctx *c, problem_data *p, const row_rates *x, prec_libs *pl)
{
    const run_request *req = c->req;
    for (int i = 0; i < req->nvariants; i++) {
        const run_variant *v = &req->variants[i];
        const shipped_kernel *k = kernreg_find(v->kernel[0] ? v->kernel : v->id);
        if (!k || !k->precision || k->library || own_precision(c, k) || pl->n == PREC_LIBS)
            continue;
        bool seen = false;
        for (int j = 0; j < pl->n; j++)
            seen |= strcmp(pl->prec[j], k->precision) == 0;
        if (seen)
            continue;
        pl->prec[pl->n] = k->precision;
        pl->ms[pl->n] = 0.0;
        const shipped_kernel *lib = library_in(c->ops->spec->name, k->precision);
        if (!lib) {
            pl->n++;
            continue;
        }
        const gemm_precision *g = gemm_precision_find(k->precision);
        char label[RUN_ID_MAX];
        snprintf(label, sizeof label, "%s %s", result_row_label(req->library, RK_LIBRARY), g ? g->label : "");
        run_result r;
        engine_row_start(&c->rows, &r, lib->name, label, RK_LIBRARY);
        if (kernel_usable(c, lib->name, lib, &r)) {
            row_arith(p, lib);
            shipped_call sc = {lib, p};
            gpu_target t = {.once = engine_gpu_shipped_once, .ud = &sc, .p = p, .library = true};
            bool ok = engine_gpu_measure(c, &t, x, &r);
            row_arith(p, NULL);
            if (!ok)
                return false;
        }
        if (r.status == RS_CORRECT)
            pl->ms[pl->n] = r.median_ms;
        pl->n++;
        engine_row_emit(&c->rows, &r);
    }
    return true;
}

/* x with the library time of k's precision. */
static row_rates rates_for(const engine_ctx *c, const row_rates *x, const prec_libs *pl,
                           const shipped_kernel *k)
{
    row_rates y = *x;
    if (k && k->precision && !k->library && !own_precision(c, k)) {
        y.lib_ms = 0.0;
        for (int j = 0; j < pl->n; j++)
            if (strcmp(pl->prec[j], k->precision) == 0)
                y.lib_ms = pl->ms[j];
    }
    return y;
}

/* What the request's library row is. */
typedef struct lib_plan {
    bool want;                  /* a library row */
    bool copy;                  /* the device-to-device copy */
    bool decl;                  /* a declared problem's builtin library */
    int bar;                    /* a rung that is the bar (its index), or -1 */
    const shipped_kernel *k;    /* a shipped library launcher */
    char id[RUN_ID_MAX], label[RUN_ID_MAX];
} lib_plan;

static void plan_library(const engine_ctx *c, lib_plan *lp)
{
    const run_request *req = c->req;
    memset(lp, 0, sizeof *lp);
    lp->bar = -1;
    if (!req->library[0])
        return;
    snprintf(lp->id, sizeof lp->id, "%s", req->library);
    snprintf(lp->label, sizeof lp->label, "%s", result_row_label(req->library, RK_LIBRARY));
    const builtin_desc *b = c->decl && c->decl->bi ? c->decl->bi->desc : NULL;
    if (c->decl && strcmp(req->library, "copy") != 0) {
        for (int i = 0; i < req->nvariants; i++)
            if (strcmp(req->variants[i].id, req->library) == 0)
                lp->bar = i;
        if (lp->bar >= 0)
            return;
        lp->want = true;
        lp->decl = b && b->library &&
                   (strcmp(req->library, "builtin") == 0 || strcmp(req->library, b->library) == 0);
        if (lp->decl) {
            snprintf(lp->id, sizeof lp->id, "%s", b->library);
            snprintf(lp->label, sizeof lp->label, "%s", b->library_label);
        }
        return;
    }
    lp->want = true;
    lp->k = library_kernel(req->library, &lp->copy);
}

/* The CPU baselines of this size, held in h until the size ends. */
static void cpu_rows(engine_ctx *c, problem_data *p, size_rows *h, row_rates *x)
{
    engine_row_start(&c->rows, &h->cpu, "cpu", "CPU 1 thread", RK_CPU);
    engine_rows_cpu(c, p, 1, &h->cpu);
    int n = cpu_thread_count();
    char lab[RUN_ID_MAX];
    snprintf(lab, sizeof lab, "CPU %d threads", n);
    engine_row_start(&c->rows, &h->cpu_mt, "cpu_mt", lab, RK_CPU_MT);
    engine_rows_cpu(c, p, n, &h->cpu_mt);
    h->have_cpu = true;
    if (h->cpu.status == RS_CORRECT)
        x->cpu_ms = h->cpu.median_ms;
    if (h->cpu_mt.status == RS_CORRECT)
        x->cpu_mt_ms = h->cpu_mt.median_ms;
}

/* Every GPU row of this size as not run: no device (no_device), or msg. */
static void rows_not_run(engine_ctx *c, size_rows *h, const lib_plan *lp, const char *msg,
                         bool no_device)
{
    run_result r;
    /* a reference kernel that does not compile is the lab's error, device or not */
    bool compiled_only = no_device;
    if (no_device && c->ref_msg[0]) {
        msg = c->ref_msg;
        no_device = false;
    }
    for (int i = 0; i < c->req->nvariants; i++) {
        variant_row(c, &c->req->variants[i], &r);
        bool unavailable = c->rung_msg[i] && strncmp(c->rung_msg[i], "unavailable: ", 13) == 0;
        if (compiled_only && unavailable && no_device) {
            /* a Python rung whose packages are missing: the device's
             * absence first, what python3 lacks beside it */
            char both[CL_ERR_MAX * 2];
            snprintf(both, sizeof both, "%s; and this row is %s", msg, c->rung_msg[i]);
            engine_row_no_device(&r, both);
        } else if (compiled_only && c->rung_msg[i] && c->rung_msg[i][0])
            engine_row_error(&r, c->rung_msg[i]);   /* a rung that does not compile */
        else if (no_device)
            engine_row_no_device(&r, msg);
        else
            engine_row_error(&r, msg);
        engine_row_emit(&c->rows, &r);
    }
    if (lp->want && no_device)
        engine_row_no_device(&h->lib, msg);
    else if (lp->want)
        engine_row_error(&h->lib, msg);
    h->have_lib = lp->want;
    engine_launcher_exercise_error_row(c, msg, no_device);
}

/* The library row (held in h) and its time in x; false only when the
 * context broke. */
static bool library_row(engine_ctx *c, problem_data *p, size_rows *h, row_rates *x,
                        const lib_plan *lp)
{
    bool alive = true;
    if (lp->copy) {
        gpu_target t = {.once = engine_gpu_copy_once, .ud = p, .p = p, .copy = true};
        alive = engine_gpu_measure(c, &t, x, &h->lib);
    } else if (lp->decl) {
        alive = engine_decl_library(c, p, x, &h->lib);
    } else if (!lp->k) {
        snprintf(h->lib.message, sizeof h->lib.message,
                 c->decl ? "unknown library '%s' for this problem (its builtin has none: use "
                           "\"copy\" or one of the lab's rungs)"
                         : "unknown library '%s' (the engine knows cub, cublas and copy)",
                 c->req->library);
    } else if (kernel_usable(c, c->req->library, lp->k, &h->lib)) {
        shipped_call sc = {lp->k, p};
        gpu_target t = {.once = engine_gpu_shipped_once, .ud = &sc, .p = p, .library = true};
        row_arith(p, lp->k);
        alive = engine_gpu_measure(c, &t, x, &h->lib);
        row_arith(p, NULL);
    }
    h->have_lib = true;
    if (h->lib.status == RS_CORRECT)
        x->lib_ms = h->lib.median_ms;
    return alive;
}

/* Variant i of the request at this size into r: a rung of the lab folder
 * or a shipped kernel.  false only when the context broke. */
static bool variant_measure(engine_ctx *c, int i, problem_data *p, const row_rates *x,
                            const prec_libs *pl, run_result *r)
{
    const run_variant *v = &c->req->variants[i];
    variant_row(c, v, r);
    if (c->py[i])
        return engine_python_measure(c, c->py[i], p, c->rows.size, x, r);
    if (c->rung_msg[i]) {
        if (!c->rung[i] || exercise_status(c->rung[i], NULL) != EXERCISE_READY) {
            const char *why = NULL;
            if (c->rung[i])
                exercise_status(c->rung[i], &why);
            engine_row_error(r, c->rung_msg[i][0] ? c->rung_msg[i] : why ? why : "cannot run");
            return true;
        }
        return engine_launcher_measure(c, c->rung[i], p, c->rows.size, x, r);
    }
    const char *name = v->kernel[0] ? v->kernel : v->id;
    const shipped_kernel *k = kernreg_find(name);
    if (!kernel_usable(c, name, k, r))
        return true;
    shipped_call sc = {k, p};
    gpu_target t = {.once = engine_gpu_shipped_once, .ud = &sc, .p = p, .library = k->library != 0};
    row_rates y = rates_for(c, x, pl, k);
    row_arith(p, k);
    bool ok = engine_gpu_measure(c, &t, &y, r);
    row_arith(p, NULL);
    return ok;
}

/* Every variant of the request at this size, emitted; the bar, measured
 * before the others to set x's library time, in its place. */
static bool variant_rows(engine_ctx *c, problem_data *p, row_rates *x, const prec_libs *pl,
                         int bar)
{
    run_result bar_row;
    if (bar >= 0) {
        if (!variant_measure(c, bar, p, x, pl, &bar_row))
            return false;
        if (bar_row.status == RS_CORRECT) {
            x->lib_ms = bar_row.median_ms;
            engine_rows_derive(c, p, false, x, &engine_g.dev, &bar_row);
        }
    }
    for (int i = 0; i < c->req->nvariants; i++) {
        run_result r;
        if (i == bar)
            r = bar_row;
        else if (!variant_measure(c, i, p, x, pl, &r))
            return false;
        engine_row_emit(&c->rows, &r);
    }
    return true;
}

static bool run_size(engine_ctx *c, const char *label)
{
    const run_request *req = c->req;
    c->rows.size = label;
    cl_err e = {{0}};
    problem_dims d;
    problem_data p;
    if (!problem_parse_size(c->ops->spec, label, &d, &e) || !problem_new(&p, c->ops, &d, &e)) {
        emit_all_errors(c, e.msg);
        return true;
    }
    row_arith(&p, NULL);
    bool alive = true;
    size_rows h;
    memset(&h, 0, sizeof h);
    row_rates x = {0};
    if (req->cpu && c->ops->cpu)
        cpu_rows(c, &p, &h, &x);
    if (engine_cpu_only(req))
        goto finish;
    lib_plan lp;
    plan_library(c, &lp);
    if (lp.want)
        engine_row_start(&c->rows, &h.lib, lp.id, lp.label, RK_LIBRARY);

    if (!engine_g.dev.present) {
        rows_not_run(c, &h, &lp, engine_g.dev.reason, true);
        goto finish;
    }
    if (!problem_device_alloc(&p, lp.copy, &e)) {
        rows_not_run(c, &h, &lp, e.msg, false);
        goto finish;
    }
    if (lp.want && !(alive = library_row(c, &p, &h, &x, &lp)))
        goto finish;
    /* The precision libraries are emitted now and the main one at the end,
     * so that the main one stays the last library row of the size. */
    prec_libs pl;
    memset(&pl, 0, sizeof pl);
    if (lp.want && lp.k && !(alive = precision_libraries(c, &p, &x, &pl)))
        goto finish;
    if (!(alive = variant_rows(c, &p, &x, &pl, lp.bar)))
        goto finish;
    if (c->req->exercise_kernel[0] && !engine_launcher_exercise_row(c, &p, label, &x))
        alive = false;

finish:
    if (h.have_cpu) {
        if (h.cpu.median_ms > 0.0)
            engine_rows_derive(c, &p, false, &x, NULL, &h.cpu);
        if (h.cpu_mt.median_ms > 0.0)
            engine_rows_derive(c, &p, false, &x, NULL, &h.cpu_mt);
    }
    emit_held(c, &h);
    problem_free(&p);
    c->rows.size = NULL;
    return alive;
}

/* Every size of the request, with the learner's kernel when it has one. */
static bool run_sizes(engine_ctx *c, bool want_ex)
{
    nvtxRangePushA(c->ops->spec->name);
    if (want_ex)
        engine_launcher_open_exercise(c);
    bool alive = true;
    for (int s = 0; s < c->req->nsizes && alive; s++)
        alive = run_size(c, c->req->sizes[s]);
    exercise_close(c->ex);
    c->ex = NULL;
    engine_python_close(c->pyex);
    c->pyex = NULL;
    nvtxRangePop();
    return alive;
}

bool engine_run(const run_request *req, const engine_sink *sink, run_fault *fault)
{
    if (!engine_g.probed) {
        device_info tmp;
        engine_probe(&tmp);
    }
    engine_ctx c = {
        .req = req,
        .rows = {.sink = sink, .fault = fault, .run = req->run, .exercise = req->exercise,
                 .progress_every_s = PROGRESS_EVERY_S},
    };
    if (engine_g.note[0]) {
        engine_row_log(&c.rows, 1, engine_g.note);
        engine_g.note[0] = '\0';
    }
    bool want_ex = req->exercise_kernel[0] != '\0';
    c.seed = req->seed ? req->seed : rng_fresh_seed();
    if (strcmp(req->problem, PIPELINE_PROBLEM) == 0)
        return pipe_run(&c);
    if (req->lab_file[0] || !problem_find(req->problem)) {
        char msg[CL_ERR_MAX];
        bool alive = true;
        if (engine_decl_open(&c, msg, sizeof msg))
            alive = run_sizes(&c, want_ex);
        else
            for (int s = 0; s < req->nsizes; s++) {
                c.rows.size = req->sizes[s];
                emit_all_errors(&c, msg);
            }
        engine_decl_close(&c);
        return alive;
    }
    c.ops = problem_find(req->problem);
    if (!c.ops) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "unknown problem '%s' (the engine knows sgemm, gemm_bf16, pipeline, managed and "
                 "the problems of lua/problems/)",
                 req->problem);
        for (int s = 0; s < req->nsizes; s++) {
            c.rows.size = req->sizes[s];
            emit_all_errors(&c, msg);
        }
        return true;
    }
    return run_sizes(&c, want_ex);
}

/* pipe_run.c - a request for the pipeline problem, size by size (pipe.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nvtx3/nvToolsExt.h>

#include "catalog/pipeline_files.h"
#include "cpu/cpuinfo.h"
#include "cpu/prep_file.h"
#include "engine/pipe.h"
#include "engine/pipe_timeline.h"
#include "gpu/cudacheck.h"
#include "gpu/cupti.h"

#define LOAD_THREADS 8
#define LOAD_CHUNK ((size_t)8 << 20)

/* ---- what a row runs ------------------------------------------------------------ */

typedef struct pipe_call {
    pipe_size *z;
    exercise *x;                   /* NULL: the shipped steps */
    prep_step step;                /* PREP_NSTEPS: end to end */
} pipe_call;

static bool load(pipe_size *z, cl_err *e)
{
    return pipe_load(&z->loader, z->path, z->dev.raw.ptr, prep_table_bytes(z->n), e);
}

static bool shipped_once(void *ud, cudaStream_t s, cl_err *e)
{
    const pipe_call *pc = ud;
    pipe_size *z = pc->z;
    bool whole = pc->step == PREP_NSTEPS;
    if ((whole || pc->step == PREP_LOAD) && !load(z, e))
        return false;
    int first = whole ? PREP_FILL : (int)pc->step, last = whole ? PREP_GEMM : (int)pc->step;
    for (int k = first; k <= last && k != PREP_LOAD; k++)
        CUDA_CHECK_LAUNCH(e, pipe_step(k, &z->dev.b, s));
    return true;
}

/* The launcher's step, or load, its steps and the hand-off end to end;
 * everything it queued, on any stream, counts. */
static bool launcher_once(void *ud, cudaStream_t s, cl_err *e)
{
    const pipe_call *pc = ud;
    pipe_size *z = pc->z;
    bool whole = pc->step == PREP_NSTEPS;
    if (whole && !load(z, e))
        return false;
    int first = whole ? PREP_FIRST_OWN : (int)pc->step;
    int last = whole ? PREP_LAST_OWN : (int)pc->step;
    for (int k = first; k <= last; k++)
        if (!exercise_set_arg(pc->x, "step", prep_step_id((prep_step)k), e) ||
            !exercise_call(pc->x, s, e))
            return false;
    if (whole) {
        int m = 0;
        CUDA_CHECK(e, cudaDeviceSynchronize());
        CUDA_CHECK(e, pipe_kept_rows(&z->dev.b, &m, s));
        CUDA_CHECK_LAUNCH(e, pipe_gemm_rows(&z->dev.b, m, s));
    }
    CUDA_CHECK(e, cudaDeviceSynchronize());
    return true;
}

/* ---- rows that cannot run ------------------------------------------------------- */

typedef struct run_plan {
    bool want_ex, want_starter, want_timelines;
} run_plan;

/* The learner's rows of this size as RS_ERRORs: why their kernel cannot
 * run when that is known, else msg. */
static void exercise_error_rows(engine_ctx *c, const char *msg, bool no_device)
{
    run_result r;
    const char *why = c->ex_msg[0] ? c->ex_msg : msg;
    no_device = no_device && !c->ex_msg[0];
    for (int k = PREP_FIRST_OWN; k <= PREP_LAST_OWN; k++) {
        char id[RUN_ID_MAX], label[RUN_ID_MAX];
        pipe_row_id("exercise", (prep_step)k, id, sizeof id);
        snprintf(label, sizeof label, "your %s", prep_step_id((prep_step)k));
        engine_row_start(&c->rows, &r, id, label, RK_EXERCISE);
        if (no_device)
            engine_row_no_device(&r, why);
        else
            engine_row_error(&r, why);
        engine_row_emit(&c->rows, &r);
    }
    engine_row_start(&c->rows, &r, "exercise", "your pipeline", RK_EXERCISE);
    if (no_device)
        engine_row_no_device(&r, why);
    else
        engine_row_error(&r, why);
    engine_row_emit(&c->rows, &r);
}

/* Every GPU row of this size as an RS_ERROR with msg (the CPU rows too
 * when cpu is set); RS_NO_DEVICE instead when no_device is set. */
static void error_rows(engine_ctx *c, const run_plan *p, const char *msg, bool cpu,
                       bool no_device)
{
    run_result r;
    const run_request *req = c->req;
    for (int i = 0; i < req->nvariants; i++) {
        const char *id = req->variants[i].id;
        if (strcmp(id, PIPELINE_VARIANT_STARTER) == 0 || strcmp(id, PIPELINE_VARIANT_TIMELINE) == 0)
            continue;
        engine_row_start(&c->rows, &r, id, id, RK_KERNEL);
        if (no_device)
            engine_row_no_device(&r, msg);
        else
            engine_row_error(&r, msg);
        engine_row_emit(&c->rows, &r);
    }
    if (p->want_starter) {
        engine_row_start(&c->rows, &r, PIPELINE_VARIANT_STARTER, "the lab's starter", RK_KERNEL);
        if (c->starter_msg[0])
            engine_row_error(&r, c->starter_msg);
        else if (no_device)
            engine_row_no_device(&r, msg);
        else
            engine_row_error(&r, msg);
        engine_row_emit(&c->rows, &r);
    }
    if (p->want_ex)
        exercise_error_rows(c, msg, no_device);
    if (cpu && req->cpu) {
        engine_row_start(&c->rows, &r, "cpu", "CPU", RK_CPU);
        engine_row_error(&r, msg);
        engine_row_emit(&c->rows, &r);
        engine_row_start(&c->rows, &r, "cpu_mt", "CPU threads", RK_CPU_MT);
        engine_row_error(&r, msg);
        engine_row_emit(&c->rows, &r);
    }
}

/* ---- the shipped rows ----------------------------------------------------------- */

static bool shipped_rows(pipe_size *z)
{
    engine_ctx *c = z->c;
    for (int i = 0; i < c->req->nvariants; i++) {
        const char *id = c->req->variants[i].id;
        if (strcmp(id, PIPELINE_VARIANT_STARTER) == 0 || strcmp(id, PIPELINE_VARIANT_TIMELINE) == 0)
            continue;
        run_result r;
        bool whole = strcmp(id, PIPELINE_VARIANT_E2E) == 0;
        int step = whole ? PREP_NSTEPS : prep_step_find(id);
        engine_row_start(&c->rows, &r, id, whole ? "end to end" : id, RK_KERNEL);
        if (step < 0) {
            char msg[256];
            snprintf(msg, sizeof msg,
                     "the pipeline has no step '%s' (its steps: load, fill, filter, transform, "
                     "standardize, binning, encode, groupby, gemm; and '%s' end to end)",
                     id, PIPELINE_VARIANT_E2E);
            engine_row_error(&r, msg);
        } else {
            pipe_call pc = {z, NULL, (prep_step)step};
            pipe_target t = {.once = shipped_once, .ud = &pc, .step = (prep_step)step,
                             .library = true};
            if (!pipe_measure(z, &t, &r))
                return false;
        }
        engine_row_emit(&c->rows, &r);
    }
    return true;
}

/* ---- launchers: the learner's and the starter ----------------------------------------- */

static void record_timeline(pipe_size *z, pipe_call *pc, const char *which)
{
    engine_ctx *c = z->c;
    cl_err e = {{0}};
    char msg[CL_PATH_MAX + 256];
    timeline t;
    engine_row_progress(&c->rows, "timeline", 0, 1);
    if (!pipe_dev_poison(&z->dev, PREP_NSTEPS, engine_g.stream, &e) ||
        !pipeline_record(engine_g.dev.name, launcher_once, pc, engine_g.stream, &t, &e)) {
        snprintf(msg, sizeof msg, "timeline of the %s not recorded: %s", which, e.msg);
        engine_row_log(&c->rows, 1, msg);
        return;
    }
    if (!pipeline_save_timeline(&t, which, msg, sizeof msg, &e)) {
        char w[CL_ERR_MAX + 64];
        snprintf(w, sizeof w, "timeline of the %s not saved: %s", which, e.msg);
        engine_row_log(&c->rows, 1, w);
    } else {
        engine_row_log(&c->rows, 0, msg);
    }
    if (cupti_warnings()[0])
        engine_row_log(&c->rows, 1, cupti_warnings());
    timeline_free(&t);
}

/* Measures a launcher's rows: each of its steps (learner) and end to end;
 * with record, one more end-to-end call on a timeline.  *whole gets the
 * end-to-end row.  false only when the context broke. */
static bool launcher_rows(pipe_size *z, exercise *x, bool learner, bool record, run_result *whole)
{
    engine_ctx *c = z->c;
    const char *prefix = learner ? "exercise" : PIPELINE_VARIANT_STARTER;
    cl_err e = {{0}};
    bool alive = true, usable = pipe_args_begin(x, &z->dev, z->label, &e);
    int first = learner ? PREP_FIRST_OWN : PREP_NSTEPS;
    for (int k = first; k <= PREP_NSTEPS && alive; k++) {
        run_result r;
        char id[RUN_ID_MAX], label[RUN_ID_MAX];
        if (k == PREP_NSTEPS) {
            snprintf(id, sizeof id, "%s", prefix);
            snprintf(label, sizeof label, "%s", learner ? "your pipeline" : "the lab's starter");
        } else {
            if (k > PREP_LAST_OWN)
                continue;
            pipe_row_id(prefix, (prep_step)k, id, sizeof id);
            snprintf(label, sizeof label, "your %s", prep_step_id((prep_step)k));
        }
        engine_row_start(&c->rows, &r, id, label, learner ? RK_EXERCISE : RK_KERNEL);
        if (!usable) {
            engine_row_error(&r, e.msg);
        } else {
            pipe_call pc = {z, x, (prep_step)k};
            pipe_target t = {.once = launcher_once, .ud = &pc, .step = (prep_step)k,
                             .library = false};
            alive = pipe_measure(z, &t, &r);
            if (alive && r.status == RS_ERROR)
                engine_launcher_log_trace(c, x);
        }
        if (k == PREP_NSTEPS)
            *whole = r;
        else if (alive)
            engine_row_emit(&c->rows, &r);
    }
    if (alive && usable && record && whole->status == RS_CORRECT && !c->req->check_only) {
        pipe_call pc = {z, x, PREP_NSTEPS};
        c->rows.variant = whole->variant;
        record_timeline(z, &pc, learner ? "exercise" : PIPELINE_VARIANT_STARTER);
        c->rows.variant = NULL;
    }
    exercise_end_size(x);
    engine_launcher_flush(c, x);
    return alive;
}

static bool ready(const exercise *x)
{
    return x && exercise_status(x, NULL) == EXERCISE_READY;
}

static bool launcher_side(pipe_size *z, const run_plan *p)
{
    engine_ctx *c = z->c;
    run_result st, mine;
    bool have_starter = false;
    if (p->want_starter) {
        if (!ready(c->starter)) {
            const char *why = NULL;
            if (c->starter)
                exercise_status(c->starter, &why);
            engine_row_start(&c->rows, &st, PIPELINE_VARIANT_STARTER, "the lab's starter",
                             RK_KERNEL);
            engine_row_error(&st, c->starter_msg[0] ? c->starter_msg
                                  : why && why[0]   ? why
                                                    : "the lab's starter cannot run");
        } else if (!launcher_rows(z, c->starter, false, p->want_timelines, &st)) {
            return false;
        }
        if (st.median_ms > 0.0)
            st.speedup_starter = 1.0;
        engine_row_emit(&c->rows, &st);
        have_starter = st.status == RS_CORRECT && st.median_ms > 0.0;
    }
    if (!p->want_ex)
        return true;
    if (!ready(c->ex)) {
        const char *why = NULL;
        if (c->ex)
            exercise_status(c->ex, &why);
        exercise_error_rows(c, why && why[0] ? why : "your kernel cannot run", false);
        return true;
    }
    if (!launcher_rows(z, c->ex, true, p->want_timelines, &mine))
        return false;
    if (have_starter && mine.median_ms > 0.0)
        mine.speedup_starter = st.median_ms / mine.median_ms;
    mine.has_report = pipeline_report_exists(c->req->exercise_kernel);
    engine_row_emit(&c->rows, &mine);
    return true;
}

/* ---- one size ----------------------------------------------------------------------- */

static bool gpu_rows(pipe_size *z, const run_plan *p)
{
    engine_ctx *c = z->c;
    cl_err e = {{0}};
    if (!engine_g.dev.present) {
        error_rows(c, p, engine_g.dev.reason, false, true);
        return true;
    }
    if (!pipe_dev_alloc(&z->dev, &z->st, &e)) {
        error_rows(c, p, e.msg, false, false);
        return true;
    }
    int threads = cpu_thread_count() < LOAD_THREADS ? cpu_thread_count() : LOAD_THREADS;
    if (!pipe_loader_init(&z->loader, threads, LOAD_CHUNK, &e)) {
        error_rows(c, p, e.msg, false, false);
        pipe_dev_free(&z->dev);
        return true;
    }
    bool alive = shipped_rows(z) && launcher_side(z, p);
    pipe_loader_free(&z->loader);
    pipe_dev_free(&z->dev);
    return alive;
}

static bool run_size(engine_ctx *c, const run_plan *p, const char *label)
{
    c->rows.size = label;
    cl_err e = {{0}};
    problem_dims d;
    if (!problem_parse_size(&problem_spec_pipeline, label, &d, &e)) {
        error_rows(c, p, e.msg, true, false);
        c->rows.size = NULL;
        return true;
    }
    pipe_size *z = calloc(1, sizeof *z);
    if (!z) {
        error_rows(c, p, "out of host memory", true, false);
        c->rows.size = NULL;
        return true;
    }
    z->c = c;
    z->label = label;
    z->n = d.rows;
    z->seed = c->req->seed ? c->req->seed : PREP_DEFAULT_SEED;
    bool alive = true, filled = false;
    char note[CL_PATH_MAX + 256];
    if (!prep_state_new(&z->st, z->n, z->seed, &e) || !prep_ref_new(&z->ref, z->n, &e) ||
        !(z->buf = malloc(prep_check_buf_bytes(z->n)))) {
        if (!e.msg[0])
            err_set(&e, "out of host memory");
        error_rows(c, p, e.msg, true, false);
        goto done;
    }
    engine_row_progress(&c->rows, "data", 0, 1);
    if (!prep_file_ensure(z->n, z->seed, z->st.raw_block, 0, z->path, sizeof z->path, &filled,
                          note, sizeof note, &e) ||
        (!filled && !prep_file_read(z->path, z->st.raw_block, z->n, 0, &e))) {
        error_rows(c, p, e.msg, true, false);
        goto done;
    }
    if (note[0])
        engine_row_log(&c->rows, 0, note);
    if (!pipe_cpu_rows(z, &e)) {
        error_rows(c, p, e.msg, true, false);
        goto done;
    }
    if (!engine_cpu_only(c->req))
        alive = gpu_rows(z, p);
done:
    prep_ref_free(&z->ref);
    prep_state_free(&z->st);
    free(z->buf);
    free(z);
    c->rows.size = NULL;
    return alive;
}

bool pipe_run(engine_ctx *ctx)
{
    const run_request *req = ctx->req;
    run_plan p = {.want_ex = req->exercise_kernel[0] != '\0'};
    for (int i = 0; i < req->nvariants; i++) {
        p.want_starter |= strcmp(req->variants[i].id, PIPELINE_VARIANT_STARTER) == 0;
        p.want_timelines |= strcmp(req->variants[i].id, PIPELINE_VARIANT_TIMELINE) == 0;
    }
    p.want_timelines &= !req->check_only;
    nvtxRangePushA(PIPELINE_PROBLEM);
    if (p.want_ex)
        engine_launcher_open_exercise(ctx);
    if (p.want_starter)
        engine_launcher_open_starter(ctx);
    bool alive = true;
    if (req->nsizes == 0)
        alive = run_size(ctx, &p, PIPELINE_DEFAULT_SIZE);
    for (int s = 0; s < req->nsizes && alive; s++)
        alive = run_size(ctx, &p, req->sizes[s]);
    exercise_close(ctx->ex);
    exercise_close(ctx->starter);
    ctx->ex = ctx->starter = NULL;
    nvtxRangePop();
    return alive;
}

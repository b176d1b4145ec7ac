#include "worker/engine.h"
#include "worker/experiments.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include "core/paths.h"
#include "core/rng.h"
#include "cpu/cpuinfo.h"
#include "gpu/buffer.h"
#include "gpu/cudacheck.h"
#include "gpu/cupti.h"
#include "gpu/device.h"
#include "gpu/peak.h"
#include "gpu/timing.h"
#include "kernels.h"
#include "worker/engine_cpu.h"
#include "worker/engine_kernels.h"
#include "worker/exercise.h"
#include "worker/pipeline.h"
#include "worker/problem.h"

#define MIB (1024.0 * 1024.0)

typedef struct engine_state {
    bool probed;
    device_info dev;
    char note[512];          /* said once, in the first run's log */
    cudaStream_t stream;
    bool have_stream;
    gpu_buffer flush;
    bool flush_tried;
} engine_state;

static engine_state g;

/* One request in flight. */
typedef struct engine_ctx {
    const run_request *req;
    const engine_sink *sink;
    run_fault *fault;
    const problem_ops *ops;
    uint64_t seed;           /* next check's seed */
    const char *size;        /* label of the size being measured */
    const char *variant;     /* id of the row being measured */
    char last_phase[32];     /* progress throttling: what was sent last, and when */
    char last_variant[PROTO_ID_MAX];
    double last_sent;
    exercise *ex;            /* the learner's kernel, when the request has one */
    char ex_msg[CL_ERR_MAX]; /* why it cannot run ("" when it can) */
    bool experiments;        /* the request's variants named experiments, already run */
    bool want_starter;       /* pipeline: measure the lab's starter (worker/pipeline.h) */
    bool want_timelines;     /* pipeline: record one call of each launcher with CUPTI */
    exercise *starter;       /* the lab's starter launcher */
    char starter_msg[CL_ERR_MAX];
} engine_ctx;

#define PROGRESS_EVERY_S 0.1

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What a GPU row runs: once() enqueues one complete run on the stream (a
 * shipped launcher, the vendor library, the device-to-device copy, or one
 * call of the learner's launcher); every row is checked, timed and derived
 * the same way. */
typedef struct gpu_target {
    timing_fn once;
    void *ud;
    problem_data *p;
    bool copy;               /* the copy baseline: nothing to check */
    bool library;            /* failures carry the library's own message */
    bool sync_device;        /* each run ends with a device-wide wait (launchers that use
                              * streams of their own: their work counts in full) */
} gpu_target;

typedef struct shipped_call {
    const shipped_kernel *k;
    problem_data *p;
} shipped_call;

static void log_msg(const engine_ctx *c, int level, const char *msg)
{
    if (c->sink && c->sink->log)
        c->sink->log(c->sink->ud, level, msg);
}

static void emit(const engine_ctx *c, run_result *r)
{
    r->run = c->req->run;
    if (c->sink && c->sink->result)
        c->sink->result(c->sink->ud, r);
}

/* Sends a progress message when the phase or row changed, or at most every
 * PROGRESS_EVERY_S seconds within one. */
static void progress(engine_ctx *c, const char *phase, int rep, int of)
{
    if (!c->sink || !c->sink->progress)
        return;
    const char *variant = c->variant ? c->variant : "";
    double t = now_s();
    if (strcmp(phase, c->last_phase) == 0 && strcmp(variant, c->last_variant) == 0 &&
        t - c->last_sent < PROGRESS_EVERY_S)
        return;
    snprintf(c->last_phase, sizeof c->last_phase, "%s", phase);
    snprintf(c->last_variant, sizeof c->last_variant, "%s", variant);
    c->last_sent = t;
    run_progress p;
    memset(&p, 0, sizeof p);
    p.run = c->req->run;
    snprintf(p.variant, sizeof p.variant, "%s", variant);
    snprintf(p.size, sizeof p.size, "%s", c->size ? c->size : "");
    snprintf(p.phase, sizeof p.phase, "%s", phase);
    p.rep = rep;
    p.of = of;
    c->sink->progress(c->sink->ud, &p);
}

static void timing_progress(void *ud, const char *phase, int rep, int of)
{
    progress(ud, phase, rep, of);
}

static void cpu_progress(void *ud, int rep, int of)
{
    progress(ud, "cpu", rep, of);
}

static void row_init(const engine_ctx *c, run_result *r, const char *variant, const char *label,
                     result_kind kind)
{
    run_result_init(r);
    r->run = c->req->run;
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    snprintf(r->label, sizeof r->label, "%s", label);
    snprintf(r->size, sizeof r->size, "%s", c->size);
    r->kind = kind;
    r->status = RS_ERROR;
}

static void exercise_error_row(engine_ctx *c, const char *msg);

static void row_error(run_result *r, const char *msg)
{
    r->status = RS_ERROR;
    snprintf(r->message, sizeof r->message, "%s", msg);
}

static const char *library_label(const char *lib)
{
    if (strcmp(lib, "cub") == 0)
        return "CUB";
    if (strcmp(lib, "cublas") == 0)
        return "cuBLAS";
    if (strcmp(lib, "copy") == 0)
        return "device copy";
    return lib;
}

/* ---- the device ------------------------------------------------------ */

void engine_probe(device_info *out)
{
    char note[256] = "";
    if (!g.probed) {
        memset(&g, 0, sizeof g);
        g.probed = true;
        device_probe(0, &g.dev, note, sizeof note);
        if (note[0])
            snprintf(g.note, sizeof g.note, "%s", note);
        if (g.dev.present) {
            cl_err e = {{0}};
            cudaError_t st = cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking);
            if (st != cudaSuccess) {
                g.dev.present = false;
                snprintf(g.dev.reason, sizeof g.dev.reason,
                         "no CUDA device found: cannot create a stream: %s",
                         cudaGetErrorString(st));
            } else {
                g.have_stream = true;
                const char *no_peak = getenv(ENGINE_NO_PEAK_ENV);
                if (no_peak && no_peak[0] && strcmp(no_peak, "0") != 0) {
                    snprintf(g.note + strlen(g.note), sizeof g.note - strlen(g.note),
                             "%sthe copy bandwidth was not measured (%s is set)",
                             g.note[0] ? "; " : "", ENGINE_NO_PEAK_ENV);
                } else {
                    nvtxRangePushA("peak bandwidth");
                    if (!peak_get(&g.dev, g.stream, false, &e))
                        snprintf(g.note + strlen(g.note), sizeof g.note - strlen(g.note),
                                 "%sthe copy bandwidth could not be measured: %s",
                                 g.note[0] ? "; " : "", e.msg);
                    nvtxRangePop();
                }
            }
        }
    }
    *out = g.dev;
}

void engine_shutdown(void)
{
    if (!g.probed)
        return;
    buffer_free(&g.flush);
    if (g.have_stream)
        cudaStreamDestroy(g.stream);
    g.have_stream = false;
    if (g.dev.present)
        kernels_shutdown();
    g.probed = false;
}

/* A buffer of twice the L2, for flushing between repetitions; NULL when it
 * cannot be had (the timing then runs warm and says so). */
static void *flush_buffer(size_t *bytes)
{
    if (!g.flush_tried) {
        g.flush_tried = true;
        size_t l2 = (size_t)(g.dev.l2_mib * MIB);
        if (l2 > 0 && !buffer_alloc(&g.flush, 2 * l2, NULL))
            cudaGetLastError();
    }
    *bytes = g.flush.bytes;
    return g.flush.ptr;
}

/* After a failed CUDA call: true (and the row an RS_ERROR) when the context
 * still works; false with the fault filled when it is broken. */
static bool gpu_failed(const engine_ctx *c, run_result *r, const cl_err *e, bool library)
{
    cudaError_t code = cudacheck_last();
    cudaError_t s1 = cudaDeviceSynchronize();
    cudaError_t s2 = cudaGetLastError();
    cudaError_t sticky = cudacheck_is_sticky(code) ? code
                         : cudacheck_is_sticky(s1) ? s1
                         : cudacheck_is_sticky(s2) ? s2
                                                    : cudaSuccess;
    if (sticky != cudaSuccess) {
        run_fault *f = c->fault;
        memset(f, 0, sizeof *f);
        f->run = c->req->run;
        snprintf(f->variant, sizeof f->variant, "%s", r->variant);
        snprintf(f->cause, sizeof f->cause, "cuda");
        snprintf(f->message, sizeof f->message, "%s", cudacheck_plain(sticky));
        return false;
    }
    const char *lib = library ? kernels_library_error() : "";
    if (lib && lib[0])
        snprintf(r->message, sizeof r->message, "%s (%s)", e->msg, lib);
    else
        snprintf(r->message, sizeof r->message, "%s", e->msg);
    r->status = RS_ERROR;
    return true;
}

static bool shipped_once(void *ud, cudaStream_t s, cl_err *e)
{
    shipped_call *sc = ud;
    CUDA_CHECK_LAUNCH(e, sc->p->ops->launch(sc->p, sc->k, s));
    return true;
}

static bool copy_once(void *ud, cudaStream_t s, cl_err *e)
{
    problem_data *p = ud;
    CUDA_CHECK(e, cudaMemcpyAsync(p->dcopy.ptr, p->dout.ptr, p->dout.bytes,
                                  cudaMemcpyDeviceToDevice, s));
    return true;
}

static bool target_once(void *ud, cudaStream_t s, cl_err *e)
{
    gpu_target *t = ud;
    if (!t->once(t->ud, s, e))
        return false;
    if (t->sync_device)
        CUDA_CHECK(e, cudaDeviceSynchronize());
    return true;
}

/* Poison, one run, download, check. */
static bool checked_run(gpu_target *t, check_report *rep, cl_err *e)
{
    problem_data *p = t->p;
    if (!problem_poison(p, g.stream, e) || !target_once(t, g.stream, e))
        return false;
    CUDA_CHECK(e, cudaStreamSynchronize(g.stream));
    CUDA_CHECK(e, cudaGetLastError());
    if (!problem_download(p, g.stream, e))
        return false;
    *rep = problem_check(p);
    return true;
}

typedef struct row_rates {
    double cpu_ms, cpu_mt_ms, lib_ms;
} row_rates;

/* dev NULL: no percent-of-peak figures (CPU rows). */
static void derive(const engine_ctx *c, const problem_data *p, bool copy, const row_rates *x,
                   const device_info *dev, run_result *r)
{
    problem_rates in;
    memset(&in, 0, sizeof in);
    in.bytes = copy ? 8.0 * (double)p->sh.nout : c->ops->bytes(&p->d);
    in.flops = copy ? -1.0 : c->ops->flops(&p->d);
    in.bandwidth_bound = copy || c->ops->bandwidth_bound;
    if (dev) {
        in.peak_bw_measured_gbs = dev->peak_bw_measured_gbs;
        in.peak_bw_theory_gbs = dev->peak_bw_theory_gbs;
        in.peak_fp32_tflops = dev->peak_fp32_tflops;
    }
    in.cpu_ms = x->cpu_ms;
    in.cpu_mt_ms = x->cpu_mt_ms;
    in.lib_ms = x->lib_ms;
    problem_derive(&in, r);
    if (c->ops->host_io) {
        /* bound by the host link, not by the device's memory */
        r->pct_peak_measured = -1.0;
        r->pct_peak_theory = -1.0;
    }
}

/* Appends what a host_io row's GB/s counts to its message. */
static void note_host_bytes(const problem_data *p, const engine_ctx *c, run_result *r)
{
    char each[32];
    buffer_format_bytes((size_t)(c->ops->bytes(&p->d) / 2.0), each, sizeof each);
    size_t len = strlen(r->message);
    snprintf(r->message + len, sizeof r->message - len,
             "%sGB/s counts the table once into the GPU and once back (%s each way) per "
             "second of end-to-end time, copies included; device-memory traffic is not counted",
             len ? "; " : "", each);
}

/* Measures one GPU row into r: check with fresh inputs, time, recheck.
 * false only when the context broke (fault filled). */
static bool measure_gpu(engine_ctx *c, gpu_target *t, const row_rates *x, run_result *r)
{
    problem_data *p = t->p;
    cl_err e = {{0}};
    c->variant = r->variant;
    cudacheck_reset();
    nvtxRangePushA(r->variant);
    bool ok = false;

    uint64_t seed = c->seed++;
    r->seed = seed;
    progress(c, "check", 0, 1);
    if (!problem_prepare(p, seed, &e)) {
        row_error(r, e.msg);
        ok = true;
        goto done;
    }
    check_report first = {0}, last = {0};
    if (!problem_upload(p, g.stream, &e))
        goto gpu_error;
    if (t->copy) {
        if (!target_once(t, g.stream, &e))
            goto gpu_error;
        CUDA_CHECK_GOTO(&e, cudaStreamSynchronize(g.stream), gpu_error);
    } else if (!checked_run(t, &first, &e)) {
        goto gpu_error;
    }
    progress(c, "check", 1, 1);

    if (c->req->check_only) {
        if (t->copy) {
            r->status = RS_CORRECT;
            snprintf(r->message, sizeof r->message, "check-only run: not timed");
        } else {
            problem_report(&first, r);
        }
        ok = true;
        goto done;
    }

    size_t flush_bytes = 0;
    void *flush = c->ops->host_io ? NULL : flush_buffer(&flush_bytes);
    timing_opts o = {
        .stream = g.stream,
        .budget_s = c->req->budget_s > 0.0 ? c->req->budget_s : TIMING_DEFAULT_BUDGET_S,
        .working_set = (size_t)(t->copy ? 8.0 * (double)p->sh.nout : c->ops->bytes(&p->d)),
        .l2_bytes = (size_t)(g.dev.l2_mib * MIB),
        .flush = flush,
        .flush_bytes = flush_bytes,
        .progress = timing_progress,
        .progress_ud = c,
    };
    timing_result tr;
    if (!timing_run(&o, target_once, t, &tr, &e))
        goto gpu_error;
    r->median_ms = tr.s.median;
    r->min_ms = tr.s.min;
    r->max_ms = tr.s.max;
    r->spread = tr.s.spread;
    r->samples = (int)tr.s.n;

    if (t->copy) {
        r->status = RS_CORRECT;
        char sz[32];
        buffer_format_bytes(p->dout.bytes, sz, sizeof sz);
        snprintf(r->message, sizeof r->message,
                 "cudaMemcpyAsync device to device of %s (the output's size): the bandwidth "
                 "a kernel that reads and writes every byte once can hope for",
                 sz);
    } else {
        progress(c, "check", 1, 2);
        if (!checked_run(t, &last, &e))
            goto gpu_error;
        if (first.status != CHECK_OK) {
            problem_report(&first, r);
        } else if (last.status != CHECK_OK) {
            problem_report(&last, r);
            char m[sizeof r->message];
            snprintf(m, sizeof m, "after timing: %s", r->message);
            snprintf(r->message, sizeof r->message, "%s", m);
        } else {
            problem_report(&first, r);
        }
    }
    if (!tr.flushed && o.working_set < 4 * o.l2_bytes && !c->ops->host_io) {
        size_t len = strlen(r->message);
        snprintf(r->message + len, sizeof r->message - len,
                 "%sL2 not flushed between repetitions (no room for a flush buffer)",
                 len ? "; " : "");
    }
    derive(c, p, t->copy, x, &g.dev, r);
    if (c->ops->host_io)
        note_host_bytes(p, c, r);
    ok = true;
    goto done;

gpu_error:
    ok = gpu_failed(c, r, &e, t->library);
done:
    nvtxRangePop();
    c->variant = NULL;
    return ok;
}

/* ---- CPU rows -------------------------------------------------------- */

static void cpu_row(engine_ctx *c, problem_data *p, int threads, run_result *r)
{
    bool mt = threads != 1 || r->kind == RK_CPU_MT;
    cl_err e = {{0}};
    engine_cpu_timing t;
    c->variant = r->variant;
    nvtxRangePushA(r->variant);
    uint64_t seed = c->seed++;
    if (!engine_cpu_baseline(p, threads, seed, true, cpu_progress, c, &t, &e)) {
        row_error(r, e.msg);
        goto done;
    }
    r->status = t.status;
    r->median_ms = t.median_ms;
    r->min_ms = t.min_ms;
    r->max_ms = t.max_ms;
    r->spread = t.spread;
    r->samples = t.samples;
    r->rel_err = t.rel_err;
    r->seed = t.seed;
    r->threads = threads;
    char when[32] = "";
    time_t at = (time_t)t.measured_at;
    struct tm tmv;
    if (localtime_r(&at, &tmv))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tmv);
    const char *model = cpu_model_name();
    snprintf(r->message, sizeof r->message, "%s, %s, %s%d thread%s; %s; measured %s%s",
             model[0] ? model : "unknown CPU", cpu_simd_path(), mt ? "multi-threaded, up to " : "",
             threads, threads == 1 ? "" : "s", t.check, when, t.cached ? ", cached" : "");
done:
    nvtxRangePop();
    c->variant = NULL;
}

/* ---- one size --------------------------------------------------------- */

typedef struct size_rows {
    run_result lib, cpu, cpu_mt;
    bool have_lib, have_cpu;
} size_rows;

static void emit_held(const engine_ctx *c, size_rows *h)
{
    if (h->have_lib)
        emit(c, &h->lib);
    if (h->have_cpu) {
        emit(c, &h->cpu);
        emit(c, &h->cpu_mt);
    }
    h->have_lib = false;
    h->have_cpu = false;
}

static void variant_row(const engine_ctx *c, const run_variant *v, run_result *r)
{
    row_init(c, r, v->id, v->id, RK_KERNEL);
}

static void starter_error_row(engine_ctx *c, const char *msg);

/* Whether a request's variant is measured as a shipped-kernel row: not
 * for experiments (already run) nor for the pipeline's own names. */
static bool variant_is_row(const engine_ctx *c, const run_variant *v)
{
    if (c->experiments)
        return false;
    if (c->ops && c->ops->host_io)
        return strcmp(v->id, PIPELINE_VARIANT_STARTER) != 0 &&
               strcmp(v->id, PIPELINE_VARIANT_TIMELINE) != 0;
    return true;
}

/* Every row of this size as an RS_ERROR with msg. */
static void emit_all_errors(engine_ctx *c, const char *msg)
{
    run_result r;
    for (int i = 0; i < c->req->nvariants; i++) {
        if (!variant_is_row(c, &c->req->variants[i]))
            continue;
        variant_row(c, &c->req->variants[i], &r);
        row_error(&r, msg);
        emit(c, &r);
    }
    starter_error_row(c, msg);
    if (c->req->library[0]) {
        row_init(c, &r, c->req->library, library_label(c->req->library), RK_LIBRARY);
        row_error(&r, msg);
        emit(c, &r);
    }
    exercise_error_row(c, msg);
    if (c->req->cpu) {
        row_init(c, &r, "cpu", "CPU", RK_CPU);
        row_error(&r, msg);
        emit(c, &r);
        row_init(c, &r, "cpu_mt", "CPU threads", RK_CPU_MT);
        row_error(&r, msg);
        emit(c, &r);
    }
}

/* The shipped launcher for the library name, or NULL for "copy" (*copy set)
 * and for an unknown name (*copy clear). */
static const shipped_kernel *library_kernel(const char *lib, bool *copy)
{
    *copy = strcmp(lib, "copy") == 0;
    if (*copy)
        return NULL;
    if (strcmp(lib, "cub") == 0)
        return engine_kernels_find("cub_sum");
    if (strcmp(lib, "cublas") == 0)
        return engine_kernels_find("cublas_sgemm");
    return engine_kernels_find(lib);
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
    if (!k->problem || strcmp(k->problem, c->ops->name) != 0) {
        snprintf(r->message, sizeof r->message, "kernel '%s' computes %s, not %s", name,
                 k->problem ? k->problem : "something else", c->ops->name);
        r->status = RS_ERROR;
        return false;
    }
    bool set = (strcmp(c->ops->name, "reduce_sum") == 0 && k->reduce) ||
               (strcmp(c->ops->name, "sgemm") == 0 && k->sgemm) ||
               (strcmp(c->ops->name, "embedding") == 0 && k->embed);
    if (!set) {
        snprintf(r->message, sizeof r->message, "kernel '%s' has no %s launcher", name,
                 c->ops->name);
        r->status = RS_ERROR;
        return false;
    }
    return true;
}

/* ---- the learner's kernel ------------------------------------------------ */

#define EXERCISE_MAX_DIAGS 10
#define LOG_CHUNK 960

/* Sends text to the log in pieces that fit a log message, split at line
 * ends where possible; the first piece starts with prefix. */
static void log_text(const engine_ctx *c, int level, const char *prefix, const char *text)
{
    size_t len = strlen(text);
    while (len > 0 && text[len - 1] == '\n')
        len--;
    for (size_t off = 0; off < len;) {
        size_t n = len - off;
        if (n > LOG_CHUNK) {
            n = LOG_CHUNK;
            for (size_t k = LOG_CHUNK; k > LOG_CHUNK / 2; k--)
                if (text[off + k - 1] == '\n') {
                    n = k;
                    break;
                }
        }
        char msg[LOG_CHUNK + 128];
        snprintf(msg, sizeof msg, "%s%.*s", off == 0 ? prefix : "", (int)n, text + off);
        size_t ml = strlen(msg);
        while (ml > 0 && msg[ml - 1] == '\n')
            msg[--ml] = '\0';
        log_msg(c, level, msg);
        off += n;
    }
}

/* "sm_90" for the device, or NULL (NVRTC's default) without one. */
static const char *device_arch(char *buf, size_t n)
{
    if (!g.dev.present || g.dev.cc_major <= 0)
        return NULL;
    snprintf(buf, n, "sm_%d%d", g.dev.cc_major, g.dev.cc_minor);
    return buf;
}

/* What the compiler said: every diagnostic (errors at level 2, warnings at
 * 1) and each kernel's registers, shared memory and spills (level 0). */
static void log_program(const engine_ctx *c, const exercise *x)
{
    const nvrtc_output *prog = exercise_program(x);
    size_t shown = 0;
    for (size_t i = 0; i < prog->ndiags && shown < EXERCISE_MAX_DIAGS; i++) {
        const nvrtc_diag *d = &prog->diags[i];
        if (d->severity == NVRTC_SEV_REMARK)
            continue;
        char text[NVRTC_TEXT_MAX * 3 + NVRTC_FILE_MAX];
        nvrtc_diag_format(d, text, sizeof text);
        log_text(c, d->severity == NVRTC_SEV_ERROR ? 2 : 1, "", text);
        shown++;
    }
    if (prog->compile_error)
        return;
    for (size_t i = 0; i < prog->nkernels; i++) {
        const nvrtc_kernel *k = &prog->kernels[i];
        if (k->registers < 0)
            continue;
        char spills[64] = "no spills";
        if (k->spill_stores > 0 || k->spill_loads > 0)
            snprintf(spills, sizeof spills, "spills %d B stored, %d B loaded",
                     k->spill_stores > 0 ? k->spill_stores : 0,
                     k->spill_loads > 0 ? k->spill_loads : 0);
        char msg[512];
        snprintf(msg, sizeof msg,
                 "your kernel %s (%s): %d registers a thread, %d B static shared memory, %s",
                 k->base, prog->arch, k->registers, k->shared_bytes > 0 ? k->shared_bytes : 0,
                 spills);
        log_msg(c, 0, msg);
    }
}

/* Compiles and loads a kernel file and its launcher: into *x, with why it
 * cannot run (or "") in msg.  learner: the learner's own files, whose
 * compiler output goes to the log. */
static void open_launcher(engine_ctx *c, const char *kernel, const char *launcher, bool learner,
                          exercise **x, char *msg, size_t n)
{
    char arch[16];
    exercise_opts o = {
        .kernel = kernel,
        .launcher = launcher,
        .arch = device_arch(arch, sizeof arch),
        .device = g.dev.present,
        .no_device = g.dev.reason,
    };
    cl_err e = {{0}};
    *x = exercise_open(&o, &e);
    if (!*x) {
        snprintf(msg, n, "%s", e.msg);
        return;
    }
    const char *why = NULL;
    exercise_stage st = exercise_status(*x, &why);
    if (learner)
        log_program(c, *x);
    if (st == EXERCISE_READY || st == EXERCISE_NO_DEVICE) {
        msg[0] = '\0';
        return;
    }
    snprintf(msg, n, "%s%s", learner ? "" : "the lab's starter: ", why);
    if (st == EXERCISE_COMPILE) {
        const nvrtc_output *prog = exercise_program(*x);
        int errors = 0;
        for (size_t i = 0; i < prog->ndiags; i++)
            errors += prog->diags[i].severity == NVRTC_SEV_ERROR;
        size_t len = strlen(msg);
        if (errors > 1)
            snprintf(msg + len, n - len, " (and %d more error%s)", errors - 1,
                     errors > 2 ? "s" : "");
    } else if (st == EXERCISE_LAUNCHER && exercise_traceback(*x)[0]) {
        log_text(c, 2, "", exercise_traceback(*x));
    }
}

/* Compiles and loads the learner's kernel and launcher once a request. */
static void open_exercise(engine_ctx *c)
{
    open_launcher(c, c->req->exercise_kernel, c->req->exercise_launcher, true, &c->ex, c->ex_msg,
                  sizeof c->ex_msg);
}

/* The lab's starter of the pipeline problem, once a request. */
static void open_starter(engine_ctx *c)
{
    char kernel[CL_PATH_MAX], launcher[CL_PATH_MAX];
    cl_err e = {{0}};
    if (!pipeline_starter_files(kernel, sizeof kernel, launcher, sizeof launcher, &e)) {
        snprintf(c->starter_msg, sizeof c->starter_msg, "%s", e.msg);
        return;
    }
    open_launcher(c, kernel, launcher, false, &c->starter, c->starter_msg,
                  sizeof c->starter_msg);
}

/* Sends what a launcher printed to the log and forgets it. */
static void flush_launcher_output(const engine_ctx *c, exercise *x)
{
    if (!x)
        return;
    const char *out = exercise_output(x);
    if (out[0])
        log_text(c, 0, x == c->ex ? "your launcher printed: " : "the starter printed: ", out);
    exercise_clear_output(x);
}

/* The starter row of this size as an RS_ERROR (when the request has one). */
static void starter_error_row(engine_ctx *c, const char *msg)
{
    if (!c->want_starter)
        return;
    run_result r;
    row_init(c, &r, PIPELINE_VARIANT_STARTER, "the lab's starter", RK_KERNEL);
    row_error(&r, c->starter_msg[0] ? c->starter_msg : msg);
    emit(c, &r);
}

/* Records one call of the launcher x (its args set) with CUPTI and
 * announces the saved trace; failures are warnings in the log. */
static void record_timeline(engine_ctx *c, exercise *x, problem_data *p, const char *which)
{
    cl_err e = {{0}};
    char msg[CL_PATH_MAX + 256];
    timeline t;
    progress(c, "timeline", 0, 1);
    if (!problem_poison(p, g.stream, &e) ||
        !pipeline_record(g.dev.name, exercise_call, x, g.stream, &t, &e)) {
        snprintf(msg, sizeof msg, "timeline of the %s not recorded: %s", which, e.msg);
        log_msg(c, 1, msg);
        return;
    }
    if (!pipeline_save_timeline(&t, which, msg, sizeof msg, &e)) {
        char w[CL_ERR_MAX + 64];
        snprintf(w, sizeof w, "timeline of the %s not saved: %s", which, e.msg);
        log_msg(c, 1, w);
    } else {
        log_msg(c, 0, msg);
    }
    if (cupti_warnings()[0])
        log_msg(c, 1, cupti_warnings());
    timeline_free(&t);
}

/* Measures a Lua launcher (the learner's or the starter) at this size into
 * r; with record set, then records one more call on a timeline.  false only when the
 * context broke. */
static bool launcher_measure(engine_ctx *c, exercise *x, problem_data *p, const char *label,
                             const row_rates *rates, bool record, run_result *r)
{
    cl_err e = {{0}};
    bool alive = true;
    if (!exercise_begin_size(x, p, label, &e)) {
        row_error(r, e.msg);
    } else {
        gpu_target t = {exercise_call, x, p, false, false, c->ops->host_io};
        alive = measure_gpu(c, &t, rates, r);
        if (alive && r->status == RS_ERROR && exercise_traceback(x)[0])
            log_text(c, 2, "", exercise_traceback(x));
        if (alive && record && r->status == RS_CORRECT && !c->req->check_only) {
            const char *which = x == c->ex ? "exercise" : PIPELINE_VARIANT_STARTER;
            c->variant = r->variant;
            record_timeline(c, x, p, which);
            c->variant = NULL;
        }
    }
    exercise_end_size(x);
    flush_launcher_output(c, x);
    return alive;
}

/* Measures the lab's starter at this size into r (emitted by the caller).
 * false only when the context broke. */
static bool starter_row(engine_ctx *c, problem_data *p, const char *label, const row_rates *x,
                        run_result *r)
{
    row_init(c, r, PIPELINE_VARIANT_STARTER, "the lab's starter", RK_KERNEL);
    if (!c->starter || exercise_status(c->starter, NULL) != EXERCISE_READY) {
        const char *why = NULL;
        if (c->starter)
            exercise_status(c->starter, &why);
        row_error(r, c->starter_msg[0] ? c->starter_msg
                     : why && why[0]     ? why
                                         : "the lab's starter cannot run");
        return true;
    }
    bool alive = launcher_measure(c, c->starter, p, label, x, c->want_timelines, r);
    if (alive && r->median_ms > 0.0)
        r->speedup_starter = 1.0;
    return alive;
}

/* The exercise row of this size as an RS_ERROR: why the learner's kernel
 * cannot run when that is known, else msg. */
static void exercise_error_row(engine_ctx *c, const char *msg)
{
    if (!c->req->exercise_kernel[0])
        return;
    run_result r;
    row_init(c, &r, "exercise", "your kernel", RK_EXERCISE);
    row_error(&r, c->ex_msg[0] ? c->ex_msg : msg);
    emit(c, &r);
}

/* Pipeline rows: the speedup over the starter row (when it ran correct)
 * and whether the learner's report is there. */
static void pipeline_figures(const engine_ctx *c, const run_result *starter, run_result *r)
{
    if (starter && starter->status == RS_CORRECT && starter->median_ms > 0.0 &&
        r->median_ms > 0.0)
        r->speedup_starter = starter->median_ms / r->median_ms;
    r->has_report = pipeline_report_exists(c->req->exercise_kernel);
}

/* Measures the learner's kernel at this size like any other row (for the
 * pipeline, against the starter row when there is one).  false only when
 * the context broke. */
static bool exercise_row(engine_ctx *c, problem_data *p, const char *label, const row_rates *x,
                         const run_result *starter)
{
    if (!c->ex || exercise_status(c->ex, NULL) != EXERCISE_READY) {
        const char *why = NULL;
        if (c->ex)
            exercise_status(c->ex, &why);
        exercise_error_row(c, why && why[0] ? why : "your kernel cannot run");
        return true;
    }
    run_result r;
    row_init(c, &r, "exercise", "your kernel", RK_EXERCISE);
    bool alive = launcher_measure(c, c->ex, p, label, x, c->want_timelines, &r);
    if (c->ops->host_io)
        pipeline_figures(c, starter, &r);
    if (alive)
        emit(c, &r);
    return alive;
}

static bool run_size(engine_ctx *c, const char *label)
{
    const run_request *req = c->req;
    c->size = label;
    cl_err e = {{0}};
    problem_dims d;
    if (!problem_parse_size(c->ops, label, &d, &e)) {
        emit_all_errors(c, e.msg);
        return true;
    }
    problem_data p;
    if (!problem_new(&p, c->ops, &d, &e)) {
        emit_all_errors(c, e.msg);
        return true;
    }
    bool alive = true;
    size_rows h;
    memset(&h, 0, sizeof h);
    row_rates x = {0};

    if (req->cpu) {
        row_init(c, &h.cpu, "cpu", "CPU 1 thread", RK_CPU);
        cpu_row(c, &p, 1, &h.cpu);
        int n = cpu_thread_count();
        char lab[PROTO_ID_MAX];
        snprintf(lab, sizeof lab, "CPU %d threads", n);
        row_init(c, &h.cpu_mt, "cpu_mt", lab, RK_CPU_MT);
        cpu_row(c, &p, n, &h.cpu_mt);
        h.have_cpu = true;
        if (h.cpu.status == RS_CORRECT)
            x.cpu_ms = h.cpu.median_ms;
        if (h.cpu_mt.status == RS_CORRECT)
            x.cpu_mt_ms = h.cpu_mt.median_ms;
    }

    bool want_lib = req->library[0] != '\0';
    bool lib_copy = false;
    const shipped_kernel *libk = want_lib ? library_kernel(req->library, &lib_copy) : NULL;
    if (want_lib)
        row_init(c, &h.lib, req->library, library_label(req->library), RK_LIBRARY);

    if (!g.dev.present) {
        run_result r;
        for (int i = 0; i < req->nvariants; i++) {
            if (!variant_is_row(c, &req->variants[i]))
                continue;
            variant_row(c, &req->variants[i], &r);
            row_error(&r, g.dev.reason);
            emit(c, &r);
        }
        if (want_lib)
            row_error(&h.lib, g.dev.reason);
        h.have_lib = want_lib;
        starter_error_row(c, g.dev.reason);
        exercise_error_row(c, g.dev.reason);
        goto finish;
    }

    if (!problem_device_alloc(&p, lib_copy, &e)) {
        run_result r;
        for (int i = 0; i < req->nvariants; i++) {
            if (!variant_is_row(c, &req->variants[i]))
                continue;
            variant_row(c, &req->variants[i], &r);
            row_error(&r, e.msg);
            emit(c, &r);
        }
        if (want_lib)
            row_error(&h.lib, e.msg);
        h.have_lib = want_lib;
        starter_error_row(c, e.msg);
        exercise_error_row(c, e.msg);
        goto finish;
    }

    if (lib_copy) {
        gpu_target t = {copy_once, &p, &p, true, false, false};
        if (!measure_gpu(c, &t, &x, &h.lib)) {
            alive = false;
            goto finish;
        }
    }
    if (want_lib && !lib_copy && !libk) {
        snprintf(h.lib.message, sizeof h.lib.message,
                 "unknown library '%s' (the engine knows cub, cublas and copy)", req->library);
    } else if (want_lib && !lib_copy && kernel_usable(c, req->library, libk, &h.lib)) {
        shipped_call sc = {libk, &p};
        gpu_target t = {shipped_once, &sc, &p, false, true, false};
        if (!measure_gpu(c, &t, &x, &h.lib)) {
            alive = false;
            goto finish;
        }
    }
    h.have_lib = want_lib;
    if (want_lib && h.lib.status == RS_CORRECT)
        x.lib_ms = h.lib.median_ms;

    for (int i = 0; i < req->nvariants; i++) {
        const run_variant *v = &req->variants[i];
        if (!variant_is_row(c, v))
            continue;
        run_result r;
        variant_row(c, v, &r);
        const char *name = v->kernel[0] ? v->kernel : v->id;
        const shipped_kernel *k = engine_kernels_find(name);
        if (c->ops->host_io) {
            snprintf(r.message, sizeof r.message,
                     "the %s problem has no shipped kernels: its variants are '%s' and '%s'",
                     c->ops->name, PIPELINE_VARIANT_STARTER, PIPELINE_VARIANT_TIMELINE);
        } else if (kernel_usable(c, name, k, &r)) {
            shipped_call sc = {k, &p};
            gpu_target t = {shipped_once, &sc, &p, false, k->library != 0, false};
            if (!measure_gpu(c, &t, &x, &r)) {
                alive = false;
                goto finish;
            }
        }
        emit(c, &r);
    }
    run_result st;
    bool have_starter = false;
    if (c->want_starter) {
        if (!starter_row(c, &p, label, &x, &st)) {
            alive = false;
            goto finish;
        }
        emit(c, &st);
        have_starter = true;
    }
    if (c->req->exercise_kernel[0] && !exercise_row(c, &p, label, &x, have_starter ? &st : NULL)) {
        alive = false;
        goto finish;
    }

finish:
    if (h.have_cpu) {
        if (h.cpu.median_ms > 0.0)
            derive(c, &p, false, &x, NULL, &h.cpu);
        if (h.cpu_mt.median_ms > 0.0)
            derive(c, &p, false, &x, NULL, &h.cpu_mt);
    }
    emit_held(c, &h);
    problem_free(&p);
    c->size = NULL;
    return alive;
}

bool engine_run(const run_request *req, const engine_sink *sink, run_fault *fault)
{
    if (!g.probed) {
        device_info tmp;
        engine_probe(&tmp);
    }
    engine_ctx c = {.req = req, .sink = sink, .fault = fault};
    if (g.note[0]) {
        log_msg(&c, 1, g.note);
        g.note[0] = '\0';
    }
    bool want_ex = req->exercise_kernel[0] != '\0';
    if (strcmp(req->problem, EXPERIMENTS_PROBLEM) == 0) {
        if (!want_ex || req->nvariants > 0) {
            bool alive = experiments_run(req, sink, fault);
            if (!alive || !want_ex)
                return alive;
        }
        c.experiments = true;
    }
    c.seed = req->seed ? req->seed : rng_fresh_seed();
    c.ops = c.experiments ? problem_pipeline_ops() : problem_find(req->problem);
    if (!c.ops) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "unknown problem '%s' (the engine knows reduce_sum, sgemm, embedding, pipeline "
                 "and profiling)",
                 req->problem);
        for (int s = 0; s < req->nsizes; s++) {
            c.size = req->sizes[s];
            emit_all_errors(&c, msg);
        }
        return true;
    }
    if (c.ops->host_io) {
        for (int i = 0; i < req->nvariants && !c.experiments; i++) {
            c.want_starter |= strcmp(req->variants[i].id, PIPELINE_VARIANT_STARTER) == 0;
            c.want_timelines |= strcmp(req->variants[i].id, PIPELINE_VARIANT_TIMELINE) == 0;
        }
        c.want_starter |= want_ex;
        c.want_starter &= !req->check_only;
        c.want_timelines &= !req->check_only;
    }
    nvtxRangePushA(c.ops->name);
    if (want_ex)
        open_exercise(&c);
    if (c.want_starter)
        open_starter(&c);
    bool alive = true;
    if (req->nsizes == 0 && c.ops->host_io)
        alive = run_size(&c, PIPELINE_DEFAULT_SIZE);
    for (int s = 0; s < req->nsizes && alive; s++)
        alive = run_size(&c, req->sizes[s]);
    exercise_close(c.ex);
    exercise_close(c.starter);
    nvtxRangePop();
    return alive;
}

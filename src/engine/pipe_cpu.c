/* pipe_cpu.c - the pipeline's CPU rows, and the canonical state.
 *
 * One side (one thread, or all of them) runs the whole pipeline from the
 * file: once checked, step by step against the reference, then timed, a
 * clock around each step and one around the run, until engine_cpu's
 * stopping rule (at least three runs or about a second; one run when a
 * run takes over 3 s).  Each step's median and the run's go to the cache
 * of CPU timings (engine_cpu.h), keyed "pipeline.<step>" and "pipeline",
 * with the verdict of the checked run; a later request reads both and runs
 * the pipeline once, unchecked, for the canonical state.  The state the last run
 * leaves is the canonical one: every GPU row's inputs, and the reference's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/jsoncache.h"
#include "core/stats.h"
#include "cpu/cpuinfo.h"
#include "cpu/prep_cpu.h"
#include "cpu/prep_file.h"
#include "engine/engine_cpu.h"
#include "engine/pipe.h"

#define CPU_MAX_RUNS 64

typedef struct cpu_side {
    int threads;
    result_status status[PREP_NSTEPS + 1];
    char check[PREP_NSTEPS + 1][256];
    engine_cpu_timing t[PREP_NSTEPS + 1];   /* [PREP_NSTEPS]: end to end */
    bool cached;
} cpu_side;

static void key_of(const pipe_size *z, int threads, int step, engine_cpu_key *k)
{
    memset(k, 0, sizeof *k);
    if (step == PREP_NSTEPS)
        snprintf(k->problem, sizeof k->problem, "pipeline");
    else
        snprintf(k->problem, sizeof k->problem, "pipeline.%s", prep_step_id((prep_step)step));
    snprintf(k->size, sizeof k->size, "%lld", (long long)z->n);
    snprintf(k->cpu, sizeof k->cpu, "%s", cpu_model_name()[0] ? cpu_model_name() : "unknown CPU");
    snprintf(k->simd, sizeof k->simd, "%s", cpu_simd_path());
    k->threads = threads;
    k->multi = threads != 1;
}

/* One run of every step, each after poisoning its outputs, checked against
 * the reference of its own inputs. */
static bool checked_run(pipe_size *z, cpu_side *side, uint64_t table_sum, cl_err *e)
{
    prep_state *st = &z->st;
    prep_src src = prep_src_state(st);
    result_status all = RS_CORRECT;
    snprintf(side->check[PREP_NSTEPS], sizeof side->check[0], "every step checked");
    for (int s = PREP_LOAD; s <= PREP_GEMM; s++) {
        prep_poison_state(st, (prep_step)s);
        if (!prep_cpu_step(st, (prep_step)s, z->path, side->threads, e))
            return false;
        prep_report rep;
        if (s == PREP_LOAD) {
            bool same = prep_checksum(st->raw_block, prep_table_bytes(st->n), 0) == table_sum;
            side->status[s] = same ? RS_CORRECT : RS_WRONG;
            snprintf(side->check[s], sizeof side->check[s], "%s",
                     same ? "ok: the table read matches the data set's checksum"
                          : "wrong: the table read differs from the data set");
        } else {
            prep_ref_step(&z->ref, st, (prep_step)s, 0);
            if (!prep_check_step(&z->ref, st, (prep_step)s, &src, z->buf, 0, &rep, e))
                return false;
            run_result tmp;
            memset(&tmp, 0, sizeof tmp);
            problem_report(&rep.c, &tmp);
            side->status[s] = tmp.status;
            prep_report_describe(&rep, side->check[s], sizeof side->check[s]);
        }
        if (side->status[s] != RS_CORRECT && all == RS_CORRECT) {
            all = side->status[s];
            snprintf(side->check[PREP_NSTEPS], sizeof side->check[0], "%s: %s",
                     prep_step_id((prep_step)s), side->check[s]);
        }
    }
    side->status[PREP_NSTEPS] = all;
    z->have_canon = true;
    return true;
}

static void progress(pipe_size *z, int rep, int of)
{
    engine_row_progress(&z->c->rows, "cpu", rep, of);
}

/* Times runs of the whole pipeline on side->threads threads. */
static bool timed_runs(pipe_size *z, cpu_side *side, cl_err *e)
{
    double *v = malloc((size_t)CPU_MAX_RUNS * (PREP_NSTEPS + 1) * sizeof *v);
    if (!v)
        return err_set(e, "out of host memory for timing samples");
    int n = 0;
    double t0 = clock_now_s();
    while (n < CPU_MAX_RUNS && !engine_cpu_should_stop(n, clock_now_s() - t0)) {
        double a = clock_now_s();
        for (int s = PREP_LOAD; s <= PREP_GEMM; s++) {
            double b = clock_now_s();
            if (!prep_cpu_step(&z->st, (prep_step)s, z->path, side->threads, e)) {
                free(v);
                return false;
            }
            v[s * CPU_MAX_RUNS + n] = (clock_now_s() - b) * 1e3;
        }
        v[PREP_NSTEPS * CPU_MAX_RUNS + n] = (clock_now_s() - a) * 1e3;
        n++;
        progress(z, n, n + 1);
    }
    for (int s = 0; s <= PREP_NSTEPS; s++) {
        stats_summary sum = stats_summarise(v + s * CPU_MAX_RUNS, (size_t)n);
        engine_cpu_timing *t = &side->t[s];
        t->median_ms = sum.median;
        t->min_ms = sum.min;
        t->max_ms = sum.max;
        t->spread = sum.spread;
        t->samples = n;
        t->status = side->status[s];
        snprintf(t->check, sizeof t->check, "%s", side->check[s]);
        t->seed = z->seed;
        t->measured_at = (long long)time(NULL);
    }
    free(v);
    return true;
}

/* The cached timings of every step and the whole run, or false. */
static bool from_cache(const pipe_size *z, cpu_side *side, const char *json)
{
    for (int s = 0; s <= PREP_NSTEPS; s++) {
        engine_cpu_key k;
        key_of(z, side->threads, s, &k);
        if (!engine_cpu_cache_lookup(json, &k, &side->t[s]) || side->t[s].status != RS_CORRECT)
            return false;
    }
    return true;
}

typedef struct side_entries {
    const pipe_size *z;
    const cpu_side *side;
} side_entries;

/* A jsoncache_update_fn: json with every step of a side (ud) replaced. */
static char *with_side(const char *json, void *ud)
{
    const side_entries *se = ud;
    char *doc = NULL;
    for (int s = 0; s <= PREP_NSTEPS; s++) {
        engine_cpu_key k;
        key_of(se->z, se->side->threads, s, &k);
        char *next = engine_cpu_cache_update(doc ? doc : json, &k, &se->side->t[s]);
        free(doc);
        if (!next)
            return NULL;
        doc = next;
    }
    return doc;
}

static void to_cache(const pipe_size *z, const cpu_side *side, const char *path)
{
    for (int s = 0; s <= PREP_NSTEPS; s++)
        if (side->t[s].status != RS_CORRECT)
            return;
    side_entries se = {z, side};
    jsoncache_update(path, 4u << 20, with_side, &se, NULL);
}

/* The data set's checksum, which the load step of a checked run is held to. */
typedef struct data_sum {
    uint64_t value;
    bool known;
} data_sum;

/* Measures (or reads from the cache) one side; its check run leaves the
 * canonical state. */
static bool measure_side(pipe_size *z, cpu_side *side, data_sum *sum, cl_err *e)
{
    char path[CL_PATH_MAX];
    bool have_path = engine_cpu_cache_path(path, sizeof path, NULL);
    char *json = have_path ? jsoncache_read(path, 4u << 20) : NULL;
    side->cached = !z->c->req->fresh_cpu && from_cache(z, side, json);
    free(json);
    if (side->cached)
        return true;
    if (!sum->known) {     /* read once, and only when a side is measured */
        sum->value = prep_checksum(z->st.raw_block, prep_table_bytes(z->n), 0);
        sum->known = true;
    }
    if (!checked_run(z, side, sum->value, e) || !timed_runs(z, side, e))
        return false;
    if (have_path)
        to_cache(z, side, path);
    return true;
}

static void emit_side(pipe_size *z, const cpu_side *side, bool mt)
{
    const char *model = cpu_model_name();
    for (int k = 0; k <= PREP_NSTEPS; k++) {
        int s = k < PREP_NSTEPS ? k : PREP_NSTEPS;
        char id[RUN_ID_MAX], label[RUN_ID_MAX];
        if (s == PREP_NSTEPS) {
            snprintf(id, sizeof id, "%s", mt ? "cpu_mt" : "cpu");
            snprintf(label, sizeof label, "CPU %d thread%s, end to end", side->threads,
                     side->threads == 1 ? "" : "s");
        } else {
            pipe_row_id(mt ? "cpu_mt" : "cpu", (prep_step)s, id, sizeof id);
            snprintf(label, sizeof label, "CPU%s %s", mt ? " threads" : "",
                     prep_step_id((prep_step)s));
        }
        run_result r;
        engine_row_start(&z->c->rows, &r, id, label, mt ? RK_CPU_MT : RK_CPU);
        const engine_cpu_timing *t = &side->t[s];
        r.status = t->status;
        r.median_ms = t->median_ms;
        r.min_ms = t->min_ms;
        r.max_ms = t->max_ms;
        r.spread = t->spread;
        r.samples = t->samples;
        r.seed = z->seed;
        r.threads = side->threads;
        r.cached_at = side->cached ? t->measured_at : 0;
        double bytes = s == PREP_NSTEPS ? (double)prep_table_bytes(z->n)
                                        : prep_step_bytes((prep_step)s, z->n, z->st.m);
        if (r.median_ms > 0.0)
            r.gbps = bytes / (r.median_ms * 1e-3) / 1e9;
        char when[32] = "";
        time_t at = (time_t)t->measured_at;
        struct tm tmv;
        if (localtime_r(&at, &tmv))
            strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tmv);
        snprintf(r.message, sizeof r.message, "%s, %s, %d thread%s; %s; measured %s%s",
                 model[0] ? model : "unknown CPU", cpu_simd_path(), side->threads,
                 side->threads == 1 ? "" : "s", t->check, when, side->cached ? ", cached" : "");
        engine_row_emit(&z->c->rows, &r);
        double *ms = mt ? z->cpu_mt_ms : z->cpu_ms;
        ms[s] = r.status == RS_CORRECT ? r.median_ms : 0.0;
    }
}

/* Every step once on all threads, unchecked: the canonical state. */
static bool canonical_run(pipe_size *z, int threads, cl_err *e)
{
    for (int s = PREP_LOAD; s <= PREP_GEMM; s++)
        if (!prep_cpu_step(&z->st, (prep_step)s, z->path, threads, e))
            return false;
    z->have_canon = true;
    return true;
}

bool pipe_cpu_rows(pipe_size *psize, cl_err *err)
{
    int all = cpu_thread_count();
    data_sum sum = {0, false};
    psize->c->rows.variant = "cpu";
    if (psize->c->req->cpu) {
        static cpu_side one, many;
        memset(&one, 0, sizeof one);
        memset(&many, 0, sizeof many);
        one.threads = 1;
        many.threads = all;
        if (!measure_side(psize, &one, &sum, err) || !measure_side(psize, &many, &sum, err)) {
            psize->c->rows.variant = NULL;
            return false;
        }
        /* both came from the cache, each checked when it was measured on
         * this machine: one plain run leaves the canonical state */
        if (!psize->have_canon && !canonical_run(psize, all, err)) {
            psize->c->rows.variant = NULL;
            return false;
        }
        emit_side(psize, &one, false);
        emit_side(psize, &many, true);
    } else if (!canonical_run(psize, all, err)) {
        psize->c->rows.variant = NULL;
        return false;
    }
    /* the GPU rows' reference: none when there are none */
    if (!engine_cpu_only(psize->c->req))
        prep_ref_all(&psize->ref, &psize->st, all);
    psize->c->rows.variant = NULL;
    return true;
}

#include "engine/engine_cpu.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/jsoncache.h"
#include "core/paths.h"
#include "core/stats.h"
#include "cpu/cpuinfo.h"

#define CPU_CACHE_FILE "cpu_baselines.json"
#define CPU_CACHE_LIST "baselines"
#define CPU_CACHE_MAX (4u << 20)
#define CPU_MAX_RUNS 200
#define CPU_MIN_RUNS 3
#define CPU_TARGET_S 1.0
#define CPU_LONG_S 3.0

void engine_cpu_key_make(const problem_data *data, int threads, engine_cpu_key *key)
{
    memset(key, 0, sizeof *key);
    snprintf(key->problem, sizeof key->problem, "%s", data->ops->spec->name);
    if (data->ops->cpu_key)
        data->ops->cpu_key(data, key->problem, sizeof key->problem, key->size, sizeof key->size);
    else if (data->d.M > 0)
        snprintf(key->size, sizeof key->size, "%dx%dx%d", data->d.M, data->d.N, data->d.K);
    else if (data->d.rows > 0)
        snprintf(key->size, sizeof key->size, "%lldx%d", (long long)data->d.rows, data->d.feats);
    else
        snprintf(key->size, sizeof key->size, "%lld", (long long)data->d.n);
    snprintf(key->cpu, sizeof key->cpu, "%s",
             cpu_model_name()[0] ? cpu_model_name() : "unknown CPU");
    snprintf(key->simd, sizeof key->simd, "%s", cpu_simd_path());
    key->threads = threads;
    key->multi = threads != 1;
}

static bool key_matches(const cJSON *o, const engine_cpu_key *k)
{
    return jsoncache_str_is(o, "problem", k->problem) && jsoncache_str_is(o, "size", k->size) &&
           jsoncache_str_is(o, "cpu", k->cpu) && jsoncache_str_is(o, "simd", k->simd) &&
           (int)jsoncache_num(o, "threads", -1) == k->threads &&
           jsoncache_str_is(o, "mode", k->multi ? "multi" : "single");
}

static bool status_from_name(const char *name, result_status *s)
{
    for (int i = RS_CORRECT; i <= RS_FAULT; i++) {
        if (strcmp(result_status_name((result_status)i), name) == 0) {
            *s = (result_status)i;
            return true;
        }
    }
    return false;
}

typedef struct cpu_found {
    const engine_cpu_key *k;
    engine_cpu_timing *t;
} cpu_found;

/* A cached figure whose samples spread wider than this (their
 * interquartile range over the median) is measured again. */
#define CPU_CACHE_MAX_SPREAD 1.0

/* Whether a cached timing has the samples its measurement should have
 * taken (engine_cpu_should_stop, their time bounded from above by the
 * slowest one's) and a spread that is not a busy machine's. */
static bool sampled_enough(const engine_cpu_timing *t)
{
    double elapsed_s = t->samples * t->max_ms * 1.05e-3;
    return engine_cpu_should_stop(t->samples, elapsed_s) &&
           (t->samples < 2 || t->spread <= CPU_CACHE_MAX_SPREAD);
}

static bool take_entry(const cJSON *it, void *ud)
{
    const cpu_found *c = ud;
    if (!key_matches(it, c->k))
        return false;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(it, "status");
    const cJSON *chk = cJSON_GetObjectItemCaseSensitive(it, "check");
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(it, "seed");
    engine_cpu_timing t;
    memset(&t, 0, sizeof t);
    t.median_ms = jsoncache_num(it, "median_ms", 0);
    t.min_ms = jsoncache_num(it, "min_ms", 0);
    t.max_ms = jsoncache_num(it, "max_ms", 0);
    t.spread = jsoncache_num(it, "spread", 0);
    t.samples = (int)jsoncache_num(it, "samples", 0);
    t.rel_err = jsoncache_num(it, "rel_err", 0);
    t.measured_at = (long long)jsoncache_num(it, "measured_at", 0);
    /* a figure of too few samples or a wide spread (a busy machine) is
     * not kept: it is measured again, and the new one replaces it */
    if (!(t.median_ms > 0.0) || t.samples < 1 || !sampled_enough(&t) || !cJSON_IsString(st) ||
        !status_from_name(st->valuestring, &t.status))
        return false;
    if (cJSON_IsString(chk))
        snprintf(t.check, sizeof t.check, "%s", chk->valuestring);
    if (cJSON_IsString(seed))
        t.seed = strtoull(seed->valuestring, NULL, 10);
    t.cached = true;
    *c->t = t;
    return true;
}

bool engine_cpu_cache_lookup(const char *json, const engine_cpu_key *key, engine_cpu_timing *timing)
{
    cpu_found c = {key, timing};
    return jsoncache_find(json, CPU_CACHE_LIST, take_entry, &c);
}

typedef struct cpu_new {
    const engine_cpu_key *k;
    const engine_cpu_timing *t;
} cpu_new;

static bool same_key(const cJSON *it, void *ud)
{
    const cpu_new *c = ud;
    return key_matches(it, c->k);
}

static bool fill_entry(cJSON *ent, void *ud)
{
    const cpu_new *c = ud;
    const engine_cpu_key *k = c->k;
    const engine_cpu_timing *t = c->t;
    char seed[32];
    snprintf(seed, sizeof seed, "%" PRIu64, t->seed);
    return cJSON_AddStringToObject(ent, "problem", k->problem) &&
           cJSON_AddStringToObject(ent, "size", k->size) &&
           cJSON_AddStringToObject(ent, "cpu", k->cpu) &&
           cJSON_AddStringToObject(ent, "simd", k->simd) &&
           cJSON_AddNumberToObject(ent, "threads", k->threads) &&
           cJSON_AddStringToObject(ent, "mode", k->multi ? "multi" : "single") &&
           cJSON_AddNumberToObject(ent, "median_ms", t->median_ms) &&
           cJSON_AddNumberToObject(ent, "min_ms", t->min_ms) &&
           cJSON_AddNumberToObject(ent, "max_ms", t->max_ms) &&
           cJSON_AddNumberToObject(ent, "spread", t->spread) &&
           cJSON_AddNumberToObject(ent, "samples", t->samples) &&
           cJSON_AddStringToObject(ent, "status", result_status_name(t->status)) &&
           cJSON_AddNumberToObject(ent, "rel_err", t->rel_err) &&
           cJSON_AddStringToObject(ent, "check", t->check) &&
           cJSON_AddStringToObject(ent, "seed", seed) &&
           cJSON_AddNumberToObject(ent, "measured_at", (double)t->measured_at);
}

char *engine_cpu_cache_update(const char *json, const engine_cpu_key *key,
                              const engine_cpu_timing *timing)
{
    cpu_new c = {key, timing};
    return jsoncache_replace(json, CPU_CACHE_LIST, same_key, fill_entry, &c);
}

/* A jsoncache_update_fn: json with one cpu_new entry (ud) replaced. */
static char *cache_with_entry(const char *json, void *ud)
{
    const cpu_new *c = ud;
    return engine_cpu_cache_update(json, c->k, c->t);
}

bool engine_cpu_cache_path(char *out, size_t out_size, cl_err *err)
{
    return jsoncache_path(CPU_CACHE_FILE, out, out_size, err);
}

bool engine_cpu_should_stop(int runs, double elapsed_s)
{
    if (runs >= CPU_MAX_RUNS)
        return true;
    if (runs < 1 || elapsed_s < CPU_TARGET_S)
        return false;
    return runs >= CPU_MIN_RUNS || elapsed_s >= CPU_LONG_S;
}

bool engine_cpu_measure(problem_data *data, int threads, uint64_t seed,
                        engine_cpu_progress_fn progress, void *ud, engine_cpu_timing *out,
                        cl_err *err)
{
    memset(out, 0, sizeof *out);
    out->seed = seed;
    if (!problem_prepare(data, seed, err))
        return false;
    problem_poison_host(data);
    data->ops->cpu(data, threads);
    check_report c = problem_check(data);
    run_result tmp;
    memset(&tmp, 0, sizeof tmp);
    problem_report(&c, &tmp);
    out->status = tmp.status;
    out->rel_err = tmp.rel_err;
    snprintf(out->check, sizeof out->check, "%s", tmp.message);

    double *v = malloc(CPU_MAX_RUNS * sizeof *v);
    if (!v)
        return err_set(err, "out of host memory for timing samples");
    int n = 0, est = CPU_MIN_RUNS;
    double t0 = clock_now_s();
    while (!engine_cpu_should_stop(n, clock_now_s() - t0)) {
        double a = clock_now_s();
        data->ops->cpu(data, threads);
        v[n++] = (clock_now_s() - a) * 1e3;
        if (n == 1 && v[0] > 0.0) {
            double runs = CPU_TARGET_S * 1e3 / v[0];
            est = runs >= CPU_MAX_RUNS ? CPU_MAX_RUNS : runs < CPU_MIN_RUNS ? CPU_MIN_RUNS : (int)runs + 1;
        }
        if (progress)
            progress(ud, n, est > n ? est : n);
    }
    stats_summary s = stats_summarise(v, (size_t)n);
    free(v);
    out->median_ms = s.median;
    out->min_ms = s.min;
    out->max_ms = s.max;
    out->spread = s.spread;
    out->samples = n;
    out->measured_at = (long long)time(NULL);
    return true;
}

bool engine_cpu_baseline(problem_data *data, int threads, uint64_t seed, bool use_cache,
                         engine_cpu_progress_fn progress, void *ud, engine_cpu_timing *out,
                         cl_err *err)
{
    engine_cpu_key k;
    engine_cpu_key_make(data, threads, &k);
    char path[CL_PATH_MAX];
    bool have_path = engine_cpu_cache_path(path, sizeof path, NULL);
    char *json = have_path ? jsoncache_read(path, CPU_CACHE_MAX) : NULL;
    if (use_cache && engine_cpu_cache_lookup(json, &k, out)) {
        free(json);
        return true;
    }
    if (!engine_cpu_measure(data, threads, seed, progress, ud, out, err)) {
        free(json);
        return false;
    }
    free(json);
    if (out->status == RS_CORRECT && have_path) {
        cpu_new c = {&k, out};
        jsoncache_update(path, CPU_CACHE_MAX, cache_with_entry, &c, NULL);
    }
    return true;
}

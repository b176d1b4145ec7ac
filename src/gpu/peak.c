#include "gpu/peak.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/jsoncache.h"
#include "core/paths.h"
#include "gpu/buffer.h"
#include "gpu/cudacheck.h"
#include "gpu/device.h"
#include "gpu/timing.h"
#include "peak_read.h"

#define PEAK_CACHE_FILE "peak_bandwidth.json"
#define PEAK_CACHE_LIST "devices"
#define PEAK_CACHE_MAX (1u << 20)
#define MIB ((size_t)1 << 20)

static bool entry_matches(const cJSON *it, const peak_key *k)
{
    const cJSON *drv = cJSON_GetObjectItemCaseSensitive(it, "driver");
    return jsoncache_str_is(it, "name", k->name) && jsoncache_str_is(it, "pci", k->pci) &&
           cJSON_IsNumber(drv) && (int)drv->valuedouble == k->driver;
}

typedef struct peak_find {
    const peak_key *k;
    peak_figures f;
} peak_find;

static bool take_entry(const cJSON *it, void *ud)
{
    peak_find *f = ud;
    double copy = jsoncache_num(it, "copy_gbs", 0.0);
    double read = jsoncache_num(it, "stream_gbs", 0.0);
    if (!entry_matches(it, f->k) || !(copy > 0.0) || !(read > 0.0))
        return false;
    f->f.copy_gbs = copy;
    f->f.read_gbs = read;
    return true;
}

bool peak_cache_lookup(const char *json, const peak_key *key, peak_figures *figures)
{
    peak_find pf = {key, {0.0, 0.0}};
    if (!jsoncache_find(json, PEAK_CACHE_LIST, take_entry, &pf))
        return false;
    *figures = pf.f;
    return true;
}

typedef struct peak_new {
    const peak_key *k;
    peak_figures f;
    long long when;
} peak_new;

static bool same_slot(const cJSON *it, void *ud)
{
    const peak_new *p = ud;
    return jsoncache_str_is(it, "pci", p->k->pci);
}

static bool fill_entry(cJSON *ent, void *ud)
{
    const peak_new *p = ud;
    return cJSON_AddStringToObject(ent, "name", p->k->name) &&
           cJSON_AddStringToObject(ent, "pci", p->k->pci) &&
           cJSON_AddNumberToObject(ent, "driver", p->k->driver) &&
           cJSON_AddNumberToObject(ent, "copy_gbs", p->f.copy_gbs) &&
           cJSON_AddNumberToObject(ent, "stream_gbs", p->f.read_gbs) &&
           cJSON_AddNumberToObject(ent, "measured_at", (double)p->when);
}

char *peak_cache_update(const char *json, const peak_key *key, const peak_figures *figures,
                        long long when)
{
    peak_new p = {key, *figures, when};
    return jsoncache_replace(json, PEAK_CACHE_LIST, same_slot, fill_entry, &p);
}

/* A jsoncache_update_fn: json with the peak_new (ud) entry replaced. */
static char *with_peak(const char *json, void *ud)
{
    const peak_new *p = ud;
    return peak_cache_update(json, p->k, &p->f, p->when);
}

bool peak_cache_path(char *out, size_t out_size, cl_err *err)
{
    return jsoncache_path(PEAK_CACHE_FILE, out, out_size, err);
}

size_t peak_copy_bytes(size_t free_bytes, size_t l2_bytes)
{
    size_t b = 512 * MIB;
    if (b > free_bytes / 4)
        b = free_bytes / 4;
    if (b < 8 * l2_bytes && 8 * l2_bytes <= free_bytes / 4)
        b = 8 * l2_bytes;
    b -= b % MIB;
    return b < MIB ? MIB : b;
}

typedef struct copy_job {
    void *dst;
    const void *src;
    size_t bytes;
} copy_job;

static bool copy_once(void *ud, cudaStream_t s, cl_err *e)
{
    copy_job *j = ud;
    CUDA_CHECK(e, cudaMemcpyAsync(j->dst, j->src, j->bytes, cudaMemcpyDeviceToDevice, s));
    return true;
}

typedef struct read_job {
    const void *src;
    size_t n4;
    float *sink;
    int kind;
} read_job;

static bool read_once(void *ud, cudaStream_t s, cl_err *e)
{
    read_job *j = ud;
    CUDA_CHECK(e, launch_peak_read(j->src, j->n4, j->sink, j->kind, s));
    return true;
}

/* The median of timing fn over o, as GB/s for bytes moved. */
static bool time_gbs(const timing_opts *o, timing_fn fn, void *job, double bytes, double *gbs,
                     cl_err *e)
{
    timing_result r;
    if (!timing_run(o, fn, job, &r, e))
        return false;
    if (r.s.median <= 0.0)
        return err_set(e, "it took no measurable time");
    *gbs = bytes / (r.s.median * 1e-3) / 1e9;
    return true;
}

bool peak_measure(cudaStream_t stream, size_t l2_bytes, peak_figures *figures, cl_err *err)
{
    bool ok = false;
    gpu_buffer a = {0}, b = {0}, sink = {0};
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(err, cudaMemGetInfo(&free_b, &total_b));
    size_t bytes = peak_copy_bytes(free_b, l2_bytes);
    if (!buffer_alloc(&a, bytes, err) || !buffer_alloc(&b, bytes, err) ||
        !buffer_alloc(&sink, peak_read_sink_floats() * sizeof(float), err))
        goto cleanup;
    CUDA_CHECK_GOTO(err, cudaMemsetAsync(a.ptr, 1, bytes, stream), cleanup);
    CUDA_CHECK_GOTO(err, cudaMemsetAsync(b.ptr, 0, bytes, stream), cleanup);
    timing_opts o = {.stream = stream, .budget_s = 0.3, .working_set = 2 * bytes,
                     .l2_bytes = l2_bytes, .min_samples = 10, .max_samples = 200,
                     .target_spread = 0.01};
    copy_job cj = {b.ptr, a.ptr, bytes};
    if (!time_gbs(&o, copy_once, &cj, 2.0 * (double)bytes, &figures->copy_gbs, err)) {
        err_prefix(err, "the copy");
        goto cleanup;
    }
    /* The stream reads one buffer as large as both copy buffers, so its
     * start and its tail weigh as little as they can. */
    buffer_free(&a);
    buffer_free(&b);
    if (!buffer_alloc(&a, 2 * bytes, err))
        goto cleanup;
    CUDA_CHECK_GOTO(err, cudaMemsetAsync(a.ptr, 1, 2 * bytes, stream), cleanup);
    o.working_set = 2 * bytes;
    /* Several ways of reading; the fastest is what the device can do. */
    o.budget_s = 0.15;
    figures->read_gbs = 0.0;
    for (int k = 0; k < peak_read_kinds(); k++) {
        read_job rj = {.src = a.ptr, .n4 = 2 * bytes / 16, .sink = sink.ptr, .kind = k};
        double gbs = 0.0;
        if (!time_gbs(&o, read_once, &rj, (double)(2 * bytes / 16 * 16), &gbs, err)) {
            err_prefix(err, "the read-only stream");
            goto cleanup;
        }
        if (gbs > figures->read_gbs)
            figures->read_gbs = gbs;
    }
    ok = true;
cleanup:
    buffer_free(&a);
    buffer_free(&b);
    buffer_free(&sink);
    if (!ok)
        err_prefix(err, "measuring the memory bandwidth");
    return ok;
}

bool peak_get(device_info *info, cudaStream_t stream, bool force, cl_err *err)
{
    peak_key k;
    memset(&k, 0, sizeof k);
    snprintf(k.name, sizeof k.name, "%s", info->name);
    k.driver = info->driver_version;
    if (!device_pci_bus_id(info->ordinal, k.pci, sizeof k.pci, err))
        return false;

    char path[CL_PATH_MAX];
    bool have_path = peak_cache_path(path, sizeof path, NULL);
    char *json = have_path ? jsoncache_read(path, PEAK_CACHE_MAX) : NULL;
    peak_figures f = {0.0, 0.0};
    if (!force && peak_cache_lookup(json, &k, &f)) {
        info->peak_bw_measured_gbs = f.copy_gbs;
        info->peak_bw_read_gbs = f.read_gbs;
        info->peak_bw_cached = true;
        free(json);
        return true;
    }
    if (!peak_measure(stream, (size_t)(info->l2_mib * 1024.0 * 1024.0), &f, err)) {
        free(json);
        return false;
    }
    info->peak_bw_measured_gbs = f.copy_gbs;
    info->peak_bw_read_gbs = f.read_gbs;
    info->peak_bw_cached = false;
    free(json);
    if (have_path) {
        peak_new pn = {.k = &k, .f = f, .when = (long long)time(NULL)};
        jsoncache_update(path, PEAK_CACHE_MAX, with_peak, &pn, NULL);
    }
    return true;
}

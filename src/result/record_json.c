#include "result/record_json.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/jsonf.h"
#include "result/record_names.h"

static int clamp_count(int n, int max)
{
    return n < 0 ? 0 : n > max ? max : n;
}

bool record_put_device(cJSON *obj, const device_info *dev)
{
    return cJSON_AddBoolToObject(obj, "present", dev->present)
        && jsonf_put_str(obj, "reason", dev->reason)
        && jsonf_put_int(obj, "ordinal", dev->ordinal)
        && jsonf_put_str(obj, "name", dev->name)
        && jsonf_put_int(obj, "cc_major", dev->cc_major)
        && jsonf_put_int(obj, "cc_minor", dev->cc_minor)
        && jsonf_put_int(obj, "sm_count", dev->sm_count)
        && jsonf_put_double(obj, "mem_total_gib", dev->mem_total_gib)
        && jsonf_put_double(obj, "mem_free_gib", dev->mem_free_gib)
        && jsonf_put_double(obj, "l2_mib", dev->l2_mib)
        && jsonf_put_double(obj, "sm_clock_mhz", dev->sm_clock_mhz)
        && jsonf_put_double(obj, "mem_clock_mhz", dev->mem_clock_mhz)
        && jsonf_put_int(obj, "bus_width_bits", dev->bus_width_bits)
        && jsonf_put_int(obj, "driver_version", dev->driver_version)
        && jsonf_put_int(obj, "runtime_version", dev->runtime_version)
        && jsonf_put_str(obj, "nvrtc_version", dev->nvrtc_version)
        && jsonf_put_double(obj, "peak_bw_theory_gbs", dev->peak_bw_theory_gbs)
        && jsonf_put_double(obj, "peak_fp32_tflops", dev->peak_fp32_tflops)
        && jsonf_put_double(obj, "peak_bw_measured_gbs", dev->peak_bw_measured_gbs)
        && jsonf_put_double(obj, "peak_bw_read_gbs", dev->peak_bw_read_gbs)
        && cJSON_AddBoolToObject(obj, "peak_bw_cached", dev->peak_bw_cached);
}

bool record_put_request(cJSON *obj, const run_request *req)
{
    if (!(jsonf_put_int(obj, "run", req->run) && jsonf_put_str(obj, "lab", req->lab)
          && jsonf_put_str(obj, "problem", req->problem)
          && jsonf_put_str(obj, "library", req->library)))
        return false;
    cJSON *vars = cJSON_AddArrayToObject(obj, "variants");
    if (!vars)
        return false;
    int nv = clamp_count(req->nvariants, RUN_MAX_VARIANTS);
    for (int i = 0; i < nv; i++) {
        cJSON *v = cJSON_CreateObject();
        if (!v)
            return false;
        if (!cJSON_AddItemToArray(vars, v)) {
            cJSON_Delete(v);
            return false;
        }
        if (!(jsonf_put_str(v, "id", req->variants[i].id)
              && jsonf_put_str(v, "kernel", req->variants[i].kernel)))
            return false;
    }
    cJSON *sizes = cJSON_AddArrayToObject(obj, "sizes");
    if (!sizes)
        return false;
    int ns = clamp_count(req->nsizes, RUN_MAX_SIZES);
    for (int i = 0; i < ns; i++) {
        cJSON *sz = cJSON_CreateString(req->sizes[i]);
        if (!sz)
            return false;
        if (!cJSON_AddItemToArray(sizes, sz)) {
            cJSON_Delete(sz);
            return false;
        }
    }
    return jsonf_put_u64(obj, "seed", req->seed)
        && jsonf_put_double(obj, "budget_s", req->budget_s)
        && cJSON_AddBoolToObject(obj, "cpu", req->cpu)
        && jsonf_put_str(obj, "exercise_kernel", req->exercise_kernel)
        && jsonf_put_str(obj, "exercise_launcher", req->exercise_launcher)
        && (!req->exercise[0] || jsonf_put_str(obj, "exercise", req->exercise))
        && (!req->lab_file[0] || jsonf_put_str(obj, "lab_file", req->lab_file))
        && cJSON_AddBoolToObject(obj, "check_only", req->check_only)
        && (!req->fresh_cpu || cJSON_AddBoolToObject(obj, "fresh_cpu", true));
}

bool record_put_progress(cJSON *obj, const run_progress *progress)
{
    return jsonf_put_int(obj, "run", progress->run)
        && jsonf_put_str(obj, "variant", progress->variant)
        && jsonf_put_str(obj, "size", progress->size) && jsonf_put_int(obj, "rep", progress->rep)
        && jsonf_put_int(obj, "of", progress->of) && jsonf_put_str(obj, "phase", progress->phase)
        && (!progress->exercise[0] || jsonf_put_str(obj, "exercise", progress->exercise));
}

/* A figure of a row, or null when the row has none: untimed rows (no
 * samples: not run, no device, an error) carry no time, and an unknown
 * speedup is 0 in the struct. */
static bool put_timed(cJSON *o, const char *k, double v, bool known)
{
    return known ? jsonf_put_double(o, k, v) : cJSON_AddNullToObject(o, k) != NULL;
}

bool record_put_result(cJSON *obj, const run_result *result)
{
    bool timed = result->samples > 0;
    if (!(jsonf_put_int(obj, "run", result->run) && jsonf_put_str(obj, "variant", result->variant)
          && jsonf_put_str(obj, "label", result->label) && jsonf_put_str(obj, "size", result->size)
          && jsonf_put_str(obj, "kind", result_kind_name(result->kind))
          && jsonf_put_str(obj, "status", result_status_name(result->status))
          && jsonf_put_str(obj, "message", result->message)
          && put_timed(obj, "median_ms", result->median_ms, timed)
          && put_timed(obj, "min_ms", result->min_ms, timed)
          && put_timed(obj, "max_ms", result->max_ms, timed)
          && put_timed(obj, "spread", result->spread, timed)
          && jsonf_put_int(obj, "samples", result->samples)
          && jsonf_put_rate(obj, "gbps", result->gbps)
          && jsonf_put_rate(obj, "tflops", result->tflops)
          && jsonf_put_rate(obj, "pct_peak_measured", result->pct_peak_measured)
          && jsonf_put_rate(obj, "pct_peak_theory", result->pct_peak_theory)
          && put_timed(obj, "speedup_cpu", result->speedup_cpu, result->speedup_cpu > 0)
          && put_timed(obj, "speedup_cpu_mt", result->speedup_cpu_mt, result->speedup_cpu_mt > 0)
          && put_timed(obj, "speedup_lib", result->speedup_lib, result->speedup_lib > 0)
          && put_timed(obj, "speedup_starter", result->speedup_starter, result->speedup_starter > 0)
          && cJSON_AddBoolToObject(obj, "has_report", result->has_report)
          && jsonf_put_double(obj, "rel_err", result->rel_err)
          && jsonf_put_u64(obj, "seed", result->seed)
          && jsonf_put_int(obj, "threads", result->threads)
          && jsonf_put_int(obj, "code", result->code)
          && put_timed(obj, "wall_ms", result->wall_ms, result->wall_ms > 0)
          && (result->cached_at <= 0
              || jsonf_put_u64(obj, "cached_at", (uint64_t)result->cached_at))
          && (!result->exercise[0] || jsonf_put_str(obj, "exercise", result->exercise))))
        return false;
    cJSON *arr = cJSON_AddArrayToObject(obj, "mismatches");
    if (!arr)
        return false;
    int nm = clamp_count(result->nmismatch, RUN_MAX_MISMATCH);
    for (int i = 0; i < nm; i++) {
        cJSON *m = cJSON_CreateObject();
        if (!m)
            return false;
        if (!cJSON_AddItemToArray(arr, m)) {
            cJSON_Delete(m);
            return false;
        }
        if (!(jsonf_put_int(m, "index", (double)result->mismatches[i].index)
              && jsonf_put_double(m, "got", result->mismatches[i].got)
              && jsonf_put_double(m, "expected", result->mismatches[i].expected)))
            return false;
    }
    return true;
}

bool record_put_fault(cJSON *obj, const run_fault *fault)
{
    return jsonf_put_int(obj, "run", fault->run) && jsonf_put_str(obj, "variant", fault->variant)
        && jsonf_put_str(obj, "cause", fault->cause)
        && jsonf_put_str(obj, "message", fault->message) && jsonf_put_int(obj, "code", fault->code);
}

bool record_get_device(const cJSON *obj, device_info *dev, cl_err *err)
{
    memset(dev, 0, sizeof *dev);
    if (!cJSON_IsObject(obj))
        return err_set(err, "field 'device' must be an object");
    return jsonf_get_bool(obj, "present", &dev->present, err)
        && jsonf_get_str(obj, "reason", dev->reason, sizeof dev->reason, err)
        && jsonf_get_int(obj, "ordinal", &dev->ordinal, err)
        && jsonf_get_str(obj, "name", dev->name, sizeof dev->name, err)
        && jsonf_get_int(obj, "cc_major", &dev->cc_major, err)
        && jsonf_get_int(obj, "cc_minor", &dev->cc_minor, err)
        && jsonf_get_int(obj, "sm_count", &dev->sm_count, err)
        && jsonf_get_double(obj, "mem_total_gib", &dev->mem_total_gib, 0, err)
        && jsonf_get_double(obj, "mem_free_gib", &dev->mem_free_gib, 0, err)
        && jsonf_get_double(obj, "l2_mib", &dev->l2_mib, 0, err)
        && jsonf_get_double(obj, "sm_clock_mhz", &dev->sm_clock_mhz, 0, err)
        && jsonf_get_double(obj, "mem_clock_mhz", &dev->mem_clock_mhz, 0, err)
        && jsonf_get_int(obj, "bus_width_bits", &dev->bus_width_bits, err)
        && jsonf_get_int(obj, "driver_version", &dev->driver_version, err)
        && jsonf_get_int(obj, "runtime_version", &dev->runtime_version, err)
        && jsonf_get_str(obj, "nvrtc_version", dev->nvrtc_version, sizeof dev->nvrtc_version, err)
        && jsonf_get_double(obj, "peak_bw_theory_gbs", &dev->peak_bw_theory_gbs, 0, err)
        && jsonf_get_double(obj, "peak_fp32_tflops", &dev->peak_fp32_tflops, 0, err)
        && jsonf_get_double(obj, "peak_bw_measured_gbs", &dev->peak_bw_measured_gbs, 0, err)
        && jsonf_get_double(obj, "peak_bw_read_gbs", &dev->peak_bw_read_gbs, 0, err)
        && jsonf_get_bool(obj, "peak_bw_cached", &dev->peak_bw_cached, err);
}

bool record_get_request(const cJSON *obj, run_request *req, cl_err *err)
{
    bool ok;
    memset(req, 0, sizeof *req);
    if (!(jsonf_get_int(obj, "run", &req->run, err)
          && jsonf_get_str(obj, "lab", req->lab, sizeof req->lab, err)
          && jsonf_get_str(obj, "problem", req->problem, sizeof req->problem, err)
          && jsonf_get_str(obj, "library", req->library, sizeof req->library, err)
          && jsonf_get_u64(obj, "seed", &req->seed, err)
          && jsonf_get_double(obj, "budget_s", &req->budget_s, 0, err)
          && jsonf_get_bool(obj, "cpu", &req->cpu, err)
          && jsonf_get_str(obj, "exercise_kernel", req->exercise_kernel,
                           sizeof req->exercise_kernel, err)
          && jsonf_get_str(obj, "exercise_launcher", req->exercise_launcher,
                           sizeof req->exercise_launcher, err)
          && jsonf_get_str(obj, "exercise", req->exercise, sizeof req->exercise, err)
          && jsonf_get_str(obj, "lab_file", req->lab_file, sizeof req->lab_file, err)
          && jsonf_get_bool(obj, "check_only", &req->check_only, err)
          && jsonf_get_bool(obj, "fresh_cpu", &req->fresh_cpu, err)))
        return false;
    const cJSON *vars = jsonf_get_array(obj, "variants", RUN_MAX_VARIANTS, err, &ok);
    if (!ok)
        return false;
    const cJSON *v;
    cJSON_ArrayForEach(v, vars) {
        run_variant *rv = &req->variants[req->nvariants];
        if (!cJSON_IsObject(v))
            return err_set(err, "variant %d must be an object", req->nvariants + 1);
        if (!(jsonf_get_str(v, "id", rv->id, sizeof rv->id, err)
              && jsonf_get_str(v, "kernel", rv->kernel, sizeof rv->kernel, err)))
            return err_prefix(err, "variant %d", req->nvariants + 1);
        req->nvariants++;
    }
    const cJSON *sizes = jsonf_get_array(obj, "sizes", RUN_MAX_SIZES, err, &ok);
    if (!ok)
        return false;
    const cJSON *sz;
    cJSON_ArrayForEach(sz, sizes) {
        if (!cJSON_IsString(sz) || !sz->valuestring)
            return err_set(err, "size %d must be a string", req->nsizes + 1);
        jsonf_copy_str(req->sizes[req->nsizes], sizeof req->sizes[0], sz->valuestring);
        req->nsizes++;
    }
    return true;
}

bool record_get_progress(const cJSON *obj, run_progress *progress, cl_err *err)
{
    memset(progress, 0, sizeof *progress);
    return jsonf_get_int(obj, "run", &progress->run, err)
        && jsonf_get_str(obj, "variant", progress->variant, sizeof progress->variant, err)
        && jsonf_get_str(obj, "size", progress->size, sizeof progress->size, err)
        && jsonf_get_int(obj, "rep", &progress->rep, err)
        && jsonf_get_int(obj, "of", &progress->of, err)
        && jsonf_get_str(obj, "phase", progress->phase, sizeof progress->phase, err)
        && jsonf_get_str(obj, "exercise", progress->exercise, sizeof progress->exercise, err);
}

/* "cached_at", when there: a time a CPU row was measured, in seconds. */
static bool get_cached_at(const cJSON *obj, run_result *result, cl_err *err)
{
    uint64_t at = 0;
    if (!jsonf_get_u64(obj, "cached_at", &at, err))
        return false;
    result->cached_at = at > (uint64_t)INT64_MAX ? 0 : (long long)at;
    return true;
}

bool record_get_result(const cJSON *obj, run_result *result, cl_err *err)
{
    bool ok;
    int kind = RK_KERNEL, status = RS_ERROR;
    run_result_init(result);
    if (!(jsonf_get_int(obj, "run", &result->run, err)
          && jsonf_get_str(obj, "variant", result->variant, sizeof result->variant, err)
          && jsonf_get_str(obj, "label", result->label, sizeof result->label, err)
          && jsonf_get_str(obj, "size", result->size, sizeof result->size, err)
          && jsonf_get_enum(obj, "kind", result_kind_names, RESULT_NKIND, &kind, err)
          && jsonf_get_enum(obj, "status", result_status_names, RESULT_NSTATUS, &status, err)
          && jsonf_get_str(obj, "message", result->message, sizeof result->message, err)
          && jsonf_get_double(obj, "median_ms", &result->median_ms, 0, err)
          && jsonf_get_double(obj, "min_ms", &result->min_ms, 0, err)
          && jsonf_get_double(obj, "max_ms", &result->max_ms, 0, err)
          && jsonf_get_double(obj, "spread", &result->spread, 0, err)
          && jsonf_get_int(obj, "samples", &result->samples, err)
          && jsonf_get_double(obj, "gbps", &result->gbps, -1, err)
          && jsonf_get_double(obj, "tflops", &result->tflops, -1, err)
          && jsonf_get_double(obj, "pct_peak_measured", &result->pct_peak_measured, -1, err)
          && jsonf_get_double(obj, "pct_peak_theory", &result->pct_peak_theory, -1, err)
          && jsonf_get_double(obj, "speedup_cpu", &result->speedup_cpu, 0, err)
          && jsonf_get_double(obj, "speedup_cpu_mt", &result->speedup_cpu_mt, 0, err)
          && jsonf_get_double(obj, "speedup_lib", &result->speedup_lib, 0, err)
          && jsonf_get_double(obj, "speedup_starter", &result->speedup_starter, 0, err)
          && jsonf_get_bool(obj, "has_report", &result->has_report, err)
          && jsonf_get_double(obj, "rel_err", &result->rel_err, 0, err)
          && jsonf_get_u64(obj, "seed", &result->seed, err)
          && jsonf_get_int(obj, "threads", &result->threads, err)
          && jsonf_get_int(obj, "code", &result->code, err)
          && jsonf_get_double(obj, "wall_ms", &result->wall_ms, 0, err)
          && get_cached_at(obj, result, err)
          && jsonf_get_str(obj, "exercise", result->exercise, sizeof result->exercise, err)))
        return false;
    result->kind = (result_kind)kind;
    result->status = (result_status)status;
    const cJSON *arr = jsonf_get_array(obj, "mismatches", RUN_MAX_MISMATCH, err, &ok);
    if (!ok)
        return false;
    const cJSON *m;
    cJSON_ArrayForEach(m, arr) {
        mismatch *mm = &result->mismatches[result->nmismatch];
        if (!cJSON_IsObject(m))
            return err_set(err, "mismatch %d must be an object", result->nmismatch + 1);
        if (!(jsonf_get_int64(m, "index", &mm->index, INT64_MIN / 2, INT64_MAX / 2, err)
              && jsonf_get_double(m, "got", &mm->got, NAN, err)
              && jsonf_get_double(m, "expected", &mm->expected, NAN, err)))
            return err_prefix(err, "mismatch %d", result->nmismatch + 1);
        result->nmismatch++;
    }
    return true;
}

bool record_get_fault(const cJSON *obj, run_fault *fault, cl_err *err)
{
    memset(fault, 0, sizeof *fault);
    return jsonf_get_int(obj, "run", &fault->run, err)
        && jsonf_get_str(obj, "variant", fault->variant, sizeof fault->variant, err)
        && jsonf_get_str(obj, "cause", fault->cause, sizeof fault->cause, err)
        && jsonf_get_str(obj, "message", fault->message, sizeof fault->message, err)
        && jsonf_get_int(obj, "code", &fault->code, err);
}


/* Adds an object under k filled by put; false when out of memory. */
static bool add_object(cJSON *root, const char *k, const void *v,
                       bool (*put)(cJSON *, const void *))
{
    if (!v)
        return cJSON_AddNullToObject(root, k) != NULL;
    cJSON *o = cJSON_AddObjectToObject(root, k);
    return o && put(o, v);
}

static bool put_device_v(cJSON *o, const void *v)
{
    return record_put_device(o, v);
}

static bool put_fault_v(cJSON *o, const void *v)
{
    return record_put_fault(o, v);
}

cJSON *record_doc(const char *lab_id, const device_info *dev, const run_result *rows, size_t nrows,
                  const run_fault *fault)
{
    cJSON *root = cJSON_CreateObject();
    if (!root || !jsonf_put_str(root, "lab", lab_id ? lab_id : "")
        || !add_object(root, "device", dev, put_device_v))
        goto fail;
    cJSON *arr = cJSON_AddArrayToObject(root, "results");
    if (!arr)
        goto fail;
    for (size_t i = 0; i < nrows; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(arr, o)) {
            cJSON_Delete(o);
            goto fail;
        }
        if (!record_put_result(o, &rows[i]))
            goto fail;
    }
    if (!add_object(root, "fault", fault, put_fault_v))
        goto fail;
    return root;
fail:
    cJSON_Delete(root);
    return NULL;
}

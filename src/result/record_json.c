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

bool record_put_device(cJSON *o, const device_info *d)
{
    return cJSON_AddBoolToObject(o, "present", d->present)
        && jsonf_put_str(o, "reason", d->reason)
        && jsonf_put_int(o, "ordinal", d->ordinal)
        && jsonf_put_str(o, "name", d->name)
        && jsonf_put_int(o, "cc_major", d->cc_major)
        && jsonf_put_int(o, "cc_minor", d->cc_minor)
        && jsonf_put_int(o, "sm_count", d->sm_count)
        && jsonf_put_double(o, "mem_total_gib", d->mem_total_gib)
        && jsonf_put_double(o, "mem_free_gib", d->mem_free_gib)
        && jsonf_put_double(o, "l2_mib", d->l2_mib)
        && jsonf_put_double(o, "sm_clock_mhz", d->sm_clock_mhz)
        && jsonf_put_double(o, "mem_clock_mhz", d->mem_clock_mhz)
        && jsonf_put_int(o, "bus_width_bits", d->bus_width_bits)
        && jsonf_put_int(o, "driver_version", d->driver_version)
        && jsonf_put_int(o, "runtime_version", d->runtime_version)
        && jsonf_put_str(o, "nvrtc_version", d->nvrtc_version)
        && jsonf_put_double(o, "peak_bw_theory_gbs", d->peak_bw_theory_gbs)
        && jsonf_put_double(o, "peak_fp32_tflops", d->peak_fp32_tflops)
        && jsonf_put_double(o, "peak_bw_measured_gbs", d->peak_bw_measured_gbs)
        && jsonf_put_double(o, "peak_bw_read_gbs", d->peak_bw_read_gbs)
        && cJSON_AddBoolToObject(o, "peak_bw_cached", d->peak_bw_cached);
}

bool record_put_request(cJSON *o, const run_request *r)
{
    if (!(jsonf_put_int(o, "run", r->run) && jsonf_put_str(o, "lab", r->lab)
          && jsonf_put_str(o, "problem", r->problem) && jsonf_put_str(o, "library", r->library)))
        return false;
    cJSON *vars = cJSON_AddArrayToObject(o, "variants");
    if (!vars)
        return false;
    int nv = clamp_count(r->nvariants, RUN_MAX_VARIANTS);
    for (int i = 0; i < nv; i++) {
        cJSON *v = cJSON_CreateObject();
        if (!v)
            return false;
        if (!cJSON_AddItemToArray(vars, v)) {
            cJSON_Delete(v);
            return false;
        }
        if (!(jsonf_put_str(v, "id", r->variants[i].id) && jsonf_put_str(v, "kernel", r->variants[i].kernel)))
            return false;
    }
    cJSON *sizes = cJSON_AddArrayToObject(o, "sizes");
    if (!sizes)
        return false;
    int ns = clamp_count(r->nsizes, RUN_MAX_SIZES);
    for (int i = 0; i < ns; i++) {
        cJSON *sz = cJSON_CreateString(r->sizes[i]);
        if (!sz)
            return false;
        if (!cJSON_AddItemToArray(sizes, sz)) {
            cJSON_Delete(sz);
            return false;
        }
    }
    return jsonf_put_u64(o, "seed", r->seed)
        && jsonf_put_double(o, "budget_s", r->budget_s)
        && cJSON_AddBoolToObject(o, "cpu", r->cpu)
        && jsonf_put_str(o, "exercise_kernel", r->exercise_kernel)
        && jsonf_put_str(o, "exercise_launcher", r->exercise_launcher)
        && (!r->exercise[0] || jsonf_put_str(o, "exercise", r->exercise))
        && (!r->lab_file[0] || jsonf_put_str(o, "lab_file", r->lab_file))
        && cJSON_AddBoolToObject(o, "check_only", r->check_only);
}

bool record_put_progress(cJSON *o, const run_progress *p)
{
    return jsonf_put_int(o, "run", p->run) && jsonf_put_str(o, "variant", p->variant)
        && jsonf_put_str(o, "size", p->size) && jsonf_put_int(o, "rep", p->rep)
        && jsonf_put_int(o, "of", p->of) && jsonf_put_str(o, "phase", p->phase)
        && (!p->exercise[0] || jsonf_put_str(o, "exercise", p->exercise));
}

/* A figure of a row, or null when the row has none: untimed rows (no
 * samples: not run, no device, an error) carry no time, and an unknown
 * speedup is 0 in the struct. */
static bool put_timed(cJSON *o, const char *k, double v, bool known)
{
    return known ? jsonf_put_double(o, k, v) : cJSON_AddNullToObject(o, k) != NULL;
}

bool record_put_result(cJSON *o, const run_result *r)
{
    bool timed = r->samples > 0;
    if (!(jsonf_put_int(o, "run", r->run) && jsonf_put_str(o, "variant", r->variant)
          && jsonf_put_str(o, "label", r->label) && jsonf_put_str(o, "size", r->size)
          && jsonf_put_str(o, "kind", result_kind_name(r->kind))
          && jsonf_put_str(o, "status", result_status_name(r->status))
          && jsonf_put_str(o, "message", r->message)
          && put_timed(o, "median_ms", r->median_ms, timed) && put_timed(o, "min_ms", r->min_ms, timed)
          && put_timed(o, "max_ms", r->max_ms, timed) && put_timed(o, "spread", r->spread, timed)
          && jsonf_put_int(o, "samples", r->samples)
          && jsonf_put_rate(o, "gbps", r->gbps) && jsonf_put_rate(o, "tflops", r->tflops)
          && jsonf_put_rate(o, "pct_peak_measured", r->pct_peak_measured)
          && jsonf_put_rate(o, "pct_peak_theory", r->pct_peak_theory)
          && put_timed(o, "speedup_cpu", r->speedup_cpu, r->speedup_cpu > 0)
          && put_timed(o, "speedup_cpu_mt", r->speedup_cpu_mt, r->speedup_cpu_mt > 0)
          && put_timed(o, "speedup_lib", r->speedup_lib, r->speedup_lib > 0)
          && put_timed(o, "speedup_starter", r->speedup_starter, r->speedup_starter > 0)
          && cJSON_AddBoolToObject(o, "has_report", r->has_report)
          && jsonf_put_double(o, "rel_err", r->rel_err)
          && jsonf_put_u64(o, "seed", r->seed) && jsonf_put_int(o, "threads", r->threads)
          && jsonf_put_int(o, "code", r->code)
          && put_timed(o, "wall_ms", r->wall_ms, r->wall_ms > 0)
          && (!r->exercise[0] || jsonf_put_str(o, "exercise", r->exercise))))
        return false;
    cJSON *arr = cJSON_AddArrayToObject(o, "mismatches");
    if (!arr)
        return false;
    int nm = clamp_count(r->nmismatch, RUN_MAX_MISMATCH);
    for (int i = 0; i < nm; i++) {
        cJSON *m = cJSON_CreateObject();
        if (!m)
            return false;
        if (!cJSON_AddItemToArray(arr, m)) {
            cJSON_Delete(m);
            return false;
        }
        if (!(jsonf_put_int(m, "index", (double)r->mismatches[i].index)
              && jsonf_put_double(m, "got", r->mismatches[i].got)
              && jsonf_put_double(m, "expected", r->mismatches[i].expected)))
            return false;
    }
    return true;
}

bool record_put_fault(cJSON *o, const run_fault *f)
{
    return jsonf_put_int(o, "run", f->run) && jsonf_put_str(o, "variant", f->variant)
        && jsonf_put_str(o, "cause", f->cause) && jsonf_put_str(o, "message", f->message)
        && jsonf_put_int(o, "code", f->code);
}

bool record_get_device(const cJSON *o, device_info *d, cl_err *e)
{
    memset(d, 0, sizeof *d);
    if (!cJSON_IsObject(o))
        return err_set(e, "field 'device' must be an object");
    return jsonf_get_bool(o, "present", &d->present, e)
        && jsonf_get_str(o, "reason", d->reason, sizeof d->reason, e)
        && jsonf_get_int(o, "ordinal", &d->ordinal, e)
        && jsonf_get_str(o, "name", d->name, sizeof d->name, e)
        && jsonf_get_int(o, "cc_major", &d->cc_major, e)
        && jsonf_get_int(o, "cc_minor", &d->cc_minor, e)
        && jsonf_get_int(o, "sm_count", &d->sm_count, e)
        && jsonf_get_double(o, "mem_total_gib", &d->mem_total_gib, 0, e)
        && jsonf_get_double(o, "mem_free_gib", &d->mem_free_gib, 0, e)
        && jsonf_get_double(o, "l2_mib", &d->l2_mib, 0, e)
        && jsonf_get_double(o, "sm_clock_mhz", &d->sm_clock_mhz, 0, e)
        && jsonf_get_double(o, "mem_clock_mhz", &d->mem_clock_mhz, 0, e)
        && jsonf_get_int(o, "bus_width_bits", &d->bus_width_bits, e)
        && jsonf_get_int(o, "driver_version", &d->driver_version, e)
        && jsonf_get_int(o, "runtime_version", &d->runtime_version, e)
        && jsonf_get_str(o, "nvrtc_version", d->nvrtc_version, sizeof d->nvrtc_version, e)
        && jsonf_get_double(o, "peak_bw_theory_gbs", &d->peak_bw_theory_gbs, 0, e)
        && jsonf_get_double(o, "peak_fp32_tflops", &d->peak_fp32_tflops, 0, e)
        && jsonf_get_double(o, "peak_bw_measured_gbs", &d->peak_bw_measured_gbs, 0, e)
        && jsonf_get_double(o, "peak_bw_read_gbs", &d->peak_bw_read_gbs, 0, e)
        && jsonf_get_bool(o, "peak_bw_cached", &d->peak_bw_cached, e);
}

bool record_get_request(const cJSON *o, run_request *r, cl_err *e)
{
    bool ok;
    memset(r, 0, sizeof *r);
    if (!(jsonf_get_int(o, "run", &r->run, e) && jsonf_get_str(o, "lab", r->lab, sizeof r->lab, e)
          && jsonf_get_str(o, "problem", r->problem, sizeof r->problem, e)
          && jsonf_get_str(o, "library", r->library, sizeof r->library, e)
          && jsonf_get_u64(o, "seed", &r->seed, e)
          && jsonf_get_double(o, "budget_s", &r->budget_s, 0, e)
          && jsonf_get_bool(o, "cpu", &r->cpu, e)
          && jsonf_get_str(o, "exercise_kernel", r->exercise_kernel, sizeof r->exercise_kernel, e)
          && jsonf_get_str(o, "exercise_launcher", r->exercise_launcher, sizeof r->exercise_launcher, e)
          && jsonf_get_str(o, "exercise", r->exercise, sizeof r->exercise, e)
          && jsonf_get_str(o, "lab_file", r->lab_file, sizeof r->lab_file, e)
          && jsonf_get_bool(o, "check_only", &r->check_only, e)))
        return false;
    const cJSON *vars = jsonf_get_array(o, "variants", RUN_MAX_VARIANTS, e, &ok);
    if (!ok)
        return false;
    const cJSON *v;
    cJSON_ArrayForEach(v, vars) {
        run_variant *rv = &r->variants[r->nvariants];
        if (!cJSON_IsObject(v))
            return err_set(e, "variant %d must be an object", r->nvariants + 1);
        if (!(jsonf_get_str(v, "id", rv->id, sizeof rv->id, e)
              && jsonf_get_str(v, "kernel", rv->kernel, sizeof rv->kernel, e)))
            return err_prefix(e, "variant %d", r->nvariants + 1);
        r->nvariants++;
    }
    const cJSON *sizes = jsonf_get_array(o, "sizes", RUN_MAX_SIZES, e, &ok);
    if (!ok)
        return false;
    const cJSON *sz;
    cJSON_ArrayForEach(sz, sizes) {
        if (!cJSON_IsString(sz) || !sz->valuestring)
            return err_set(e, "size %d must be a string", r->nsizes + 1);
        jsonf_copy_str(r->sizes[r->nsizes], sizeof r->sizes[0], sz->valuestring);
        r->nsizes++;
    }
    return true;
}

bool record_get_progress(const cJSON *o, run_progress *p, cl_err *e)
{
    memset(p, 0, sizeof *p);
    return jsonf_get_int(o, "run", &p->run, e)
        && jsonf_get_str(o, "variant", p->variant, sizeof p->variant, e)
        && jsonf_get_str(o, "size", p->size, sizeof p->size, e)
        && jsonf_get_int(o, "rep", &p->rep, e) && jsonf_get_int(o, "of", &p->of, e)
        && jsonf_get_str(o, "phase", p->phase, sizeof p->phase, e)
        && jsonf_get_str(o, "exercise", p->exercise, sizeof p->exercise, e);
}

bool record_get_result(const cJSON *o, run_result *r, cl_err *e)
{
    bool ok;
    int kind = RK_KERNEL, status = RS_ERROR;
    run_result_init(r);
    if (!(jsonf_get_int(o, "run", &r->run, e)
          && jsonf_get_str(o, "variant", r->variant, sizeof r->variant, e)
          && jsonf_get_str(o, "label", r->label, sizeof r->label, e)
          && jsonf_get_str(o, "size", r->size, sizeof r->size, e)
          && jsonf_get_enum(o, "kind", result_kind_names, RESULT_NKIND, &kind, e)
          && jsonf_get_enum(o, "status", result_status_names, RESULT_NSTATUS, &status, e)
          && jsonf_get_str(o, "message", r->message, sizeof r->message, e)
          && jsonf_get_double(o, "median_ms", &r->median_ms, 0, e)
          && jsonf_get_double(o, "min_ms", &r->min_ms, 0, e)
          && jsonf_get_double(o, "max_ms", &r->max_ms, 0, e)
          && jsonf_get_double(o, "spread", &r->spread, 0, e)
          && jsonf_get_int(o, "samples", &r->samples, e)
          && jsonf_get_double(o, "gbps", &r->gbps, -1, e)
          && jsonf_get_double(o, "tflops", &r->tflops, -1, e)
          && jsonf_get_double(o, "pct_peak_measured", &r->pct_peak_measured, -1, e)
          && jsonf_get_double(o, "pct_peak_theory", &r->pct_peak_theory, -1, e)
          && jsonf_get_double(o, "speedup_cpu", &r->speedup_cpu, 0, e)
          && jsonf_get_double(o, "speedup_cpu_mt", &r->speedup_cpu_mt, 0, e)
          && jsonf_get_double(o, "speedup_lib", &r->speedup_lib, 0, e)
          && jsonf_get_double(o, "speedup_starter", &r->speedup_starter, 0, e)
          && jsonf_get_bool(o, "has_report", &r->has_report, e)
          && jsonf_get_double(o, "rel_err", &r->rel_err, 0, e)
          && jsonf_get_u64(o, "seed", &r->seed, e)
          && jsonf_get_int(o, "threads", &r->threads, e)
          && jsonf_get_int(o, "code", &r->code, e)
          && jsonf_get_double(o, "wall_ms", &r->wall_ms, 0, e)
          && jsonf_get_str(o, "exercise", r->exercise, sizeof r->exercise, e)))
        return false;
    r->kind = (result_kind)kind;
    r->status = (result_status)status;
    const cJSON *arr = jsonf_get_array(o, "mismatches", RUN_MAX_MISMATCH, e, &ok);
    if (!ok)
        return false;
    const cJSON *m;
    cJSON_ArrayForEach(m, arr) {
        mismatch *mm = &r->mismatches[r->nmismatch];
        if (!cJSON_IsObject(m))
            return err_set(e, "mismatch %d must be an object", r->nmismatch + 1);
        if (!(jsonf_get_int64(m, "index", &mm->index, INT64_MIN / 2, INT64_MAX / 2, e)
              && jsonf_get_double(m, "got", &mm->got, NAN, e)
              && jsonf_get_double(m, "expected", &mm->expected, NAN, e)))
            return err_prefix(e, "mismatch %d", r->nmismatch + 1);
        r->nmismatch++;
    }
    return true;
}

bool record_get_fault(const cJSON *o, run_fault *f, cl_err *e)
{
    memset(f, 0, sizeof *f);
    return jsonf_get_int(o, "run", &f->run, e)
        && jsonf_get_str(o, "variant", f->variant, sizeof f->variant, e)
        && jsonf_get_str(o, "cause", f->cause, sizeof f->cause, e)
        && jsonf_get_str(o, "message", f->message, sizeof f->message, e)
        && jsonf_get_int(o, "code", &f->code, e);
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

cJSON *record_doc(const char *lab_id, const device_info *dev, const run_result *rows, size_t n,
                  const run_fault *fault)
{
    cJSON *root = cJSON_CreateObject();
    if (!root || !jsonf_put_str(root, "lab", lab_id ? lab_id : "")
        || !add_object(root, "device", dev, put_device_v))
        goto fail;
    cJSON *arr = cJSON_AddArrayToObject(root, "results");
    if (!arr)
        goto fail;
    for (size_t i = 0; i < n; i++) {
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

#include "proto/protocol.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ------------------------------------------------------------ */

static const char *const status_names[] = {
    [RS_CORRECT] = "correct", [RS_WRONG] = "wrong", [RS_UNWRITTEN] = "unwritten",
    [RS_NAN] = "nan", [RS_ERROR] = "error", [RS_FAULT] = "fault",
};

static const char *const kind_names[] = {
    [RK_KERNEL] = "kernel", [RK_LIBRARY] = "library", [RK_CPU] = "cpu",
    [RK_CPU_MT] = "cpu_mt", [RK_EXERCISE] = "exercise",
};

static const char *const type_names[] = {
    [MSG_INVALID] = "invalid", [MSG_HELLO] = "hello", [MSG_RUN] = "run",
    [MSG_QUIT] = "quit", [MSG_PROGRESS] = "progress", [MSG_RESULT] = "result",
    [MSG_LOG] = "log", [MSG_FAULT] = "fault", [MSG_DONE] = "done",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *result_status_name(result_status s)
{
    if ((unsigned)s < COUNT(status_names))
        return status_names[s];
    return "unknown";
}

const char *result_kind_name(result_kind k)
{
    if ((unsigned)k < COUNT(kind_names))
        return kind_names[k];
    return "unknown";
}

void run_result_init(run_result *r)
{
    memset(r, 0, sizeof *r);
    r->kind = RK_KERNEL;
    r->status = RS_ERROR;
    r->gbps = -1;
    r->tflops = -1;
    r->pct_peak_measured = -1;
    r->pct_peak_theory = -1;
}

/* Copies src into dst (capacity n), cutting at a UTF-8 character boundary
 * when it does not fit. */
static void copy_str(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (n == 0)
        return;
    if (len >= n) {
        len = n - 1;
        while (len > 0 && ((unsigned char)src[len] & 0xC0) == 0x80)
            len--;
    }
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* ---- encoding ---------------------------------------------------------- */

/* JSON has no NaN or infinity: they travel as the strings "nan", "inf",
 * "-inf". */
static bool put_double(cJSON *o, const char *k, double v)
{
    if (isnan(v))
        return cJSON_AddStringToObject(o, k, "nan") != NULL;
    if (isinf(v))
        return cJSON_AddStringToObject(o, k, v > 0 ? "inf" : "-inf") != NULL;
    /* The shortest text that reads back to exactly the same double (cJSON's
     * own printing may drop the last bit). */
    char buf[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return cJSON_AddRawToObject(o, k, buf) != NULL;
}

/* Rates below zero mean "not applicable" and travel as null. */
static bool put_rate(cJSON *o, const char *k, double v)
{
    if (v < 0)
        return cJSON_AddNullToObject(o, k) != NULL;
    return put_double(o, k, v);
}

static bool put_u64(cJSON *o, const char *k, uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    return cJSON_AddStringToObject(o, k, buf) != NULL;
}

static bool put_int(cJSON *o, const char *k, double v)
{
    return cJSON_AddNumberToObject(o, k, v) != NULL;
}

static bool put_str(cJSON *o, const char *k, const char *v)
{
    return cJSON_AddStringToObject(o, k, v) != NULL;
}

static bool encode_device(cJSON *o, const device_info *d)
{
    return cJSON_AddBoolToObject(o, "present", d->present)
        && put_str(o, "reason", d->reason)
        && put_int(o, "ordinal", d->ordinal)
        && put_str(o, "name", d->name)
        && put_int(o, "cc_major", d->cc_major)
        && put_int(o, "cc_minor", d->cc_minor)
        && put_int(o, "sm_count", d->sm_count)
        && put_double(o, "mem_total_gib", d->mem_total_gib)
        && put_double(o, "mem_free_gib", d->mem_free_gib)
        && put_double(o, "l2_mib", d->l2_mib)
        && put_double(o, "sm_clock_mhz", d->sm_clock_mhz)
        && put_double(o, "mem_clock_mhz", d->mem_clock_mhz)
        && put_int(o, "bus_width_bits", d->bus_width_bits)
        && put_int(o, "driver_version", d->driver_version)
        && put_int(o, "runtime_version", d->runtime_version)
        && put_double(o, "peak_bw_theory_gbs", d->peak_bw_theory_gbs)
        && put_double(o, "peak_fp32_tflops", d->peak_fp32_tflops)
        && put_double(o, "peak_bw_measured_gbs", d->peak_bw_measured_gbs)
        && cJSON_AddBoolToObject(o, "peak_bw_cached", d->peak_bw_cached);
}

static int clamp_count(int n, int max)
{
    return n < 0 ? 0 : n > max ? max : n;
}

static bool encode_run(cJSON *o, const run_request *r)
{
    if (!(put_int(o, "run", r->run) && put_str(o, "lab", r->lab)
          && put_str(o, "problem", r->problem) && put_str(o, "library", r->library)))
        return false;
    cJSON *vars = cJSON_AddArrayToObject(o, "variants");
    if (!vars)
        return false;
    int nv = clamp_count(r->nvariants, PROTO_MAX_VARIANTS);
    for (int i = 0; i < nv; i++) {
        cJSON *v = cJSON_CreateObject();
        if (!v)
            return false;
        if (!cJSON_AddItemToArray(vars, v)) {
            cJSON_Delete(v);
            return false;
        }
        if (!(put_str(v, "id", r->variants[i].id) && put_str(v, "kernel", r->variants[i].kernel)))
            return false;
    }
    cJSON *sizes = cJSON_AddArrayToObject(o, "sizes");
    if (!sizes)
        return false;
    int ns = clamp_count(r->nsizes, PROTO_MAX_SIZES);
    for (int i = 0; i < ns; i++) {
        cJSON *sz = cJSON_CreateString(r->sizes[i]);
        if (!sz)
            return false;
        if (!cJSON_AddItemToArray(sizes, sz)) {
            cJSON_Delete(sz);
            return false;
        }
    }
    return put_u64(o, "seed", r->seed)
        && put_double(o, "budget_s", r->budget_s)
        && cJSON_AddBoolToObject(o, "cpu", r->cpu)
        && put_str(o, "exercise_kernel", r->exercise_kernel)
        && put_str(o, "exercise_launcher", r->exercise_launcher)
        && cJSON_AddBoolToObject(o, "check_only", r->check_only);
}

static bool encode_progress(cJSON *o, const run_progress *p)
{
    return put_int(o, "run", p->run) && put_str(o, "variant", p->variant)
        && put_str(o, "size", p->size) && put_int(o, "rep", p->rep)
        && put_int(o, "of", p->of) && put_str(o, "phase", p->phase);
}

static bool encode_result(cJSON *o, const run_result *r)
{
    if (!(put_int(o, "run", r->run) && put_str(o, "variant", r->variant)
          && put_str(o, "label", r->label) && put_str(o, "size", r->size)
          && put_str(o, "kind", result_kind_name(r->kind))
          && put_str(o, "status", result_status_name(r->status))
          && put_str(o, "message", r->message)
          && put_double(o, "median_ms", r->median_ms) && put_double(o, "min_ms", r->min_ms)
          && put_double(o, "max_ms", r->max_ms) && put_double(o, "spread", r->spread)
          && put_int(o, "samples", r->samples)
          && put_rate(o, "gbps", r->gbps) && put_rate(o, "tflops", r->tflops)
          && put_rate(o, "pct_peak_measured", r->pct_peak_measured)
          && put_rate(o, "pct_peak_theory", r->pct_peak_theory)
          && put_double(o, "speedup_cpu", r->speedup_cpu)
          && put_double(o, "speedup_cpu_mt", r->speedup_cpu_mt)
          && put_double(o, "speedup_lib", r->speedup_lib)
          && put_double(o, "speedup_starter", r->speedup_starter)
          && cJSON_AddBoolToObject(o, "has_report", r->has_report)
          && put_double(o, "rel_err", r->rel_err)
          && put_u64(o, "seed", r->seed) && put_int(o, "threads", r->threads)))
        return false;
    cJSON *arr = cJSON_AddArrayToObject(o, "mismatches");
    if (!arr)
        return false;
    int nm = clamp_count(r->nmismatch, PROTO_MAX_MISMATCH);
    for (int i = 0; i < nm; i++) {
        cJSON *m = cJSON_CreateObject();
        if (!m)
            return false;
        if (!cJSON_AddItemToArray(arr, m)) {
            cJSON_Delete(m);
            return false;
        }
        if (!(put_int(m, "index", (double)r->mismatches[i].index)
              && put_double(m, "got", r->mismatches[i].got)
              && put_double(m, "expected", r->mismatches[i].expected)))
            return false;
    }
    return true;
}

static bool encode_fault(cJSON *o, const run_fault *f)
{
    return put_int(o, "run", f->run) && put_str(o, "variant", f->variant)
        && put_str(o, "cause", f->cause) && put_str(o, "message", f->message);
}

static bool encode_body(cJSON *o, const proto_msg *m)
{
    switch (m->type) {
    case MSG_HELLO: {
        cJSON *d = cJSON_AddObjectToObject(o, "device");
        return d && encode_device(d, &m->u.hello);
    }
    case MSG_RUN:
        return encode_run(o, &m->u.run);
    case MSG_QUIT:
        return true;
    case MSG_PROGRESS:
        return encode_progress(o, &m->u.progress);
    case MSG_RESULT:
        return encode_result(o, &m->u.result);
    case MSG_LOG:
        return put_int(o, "level", m->u.log.level) && put_str(o, "msg", m->u.log.msg);
    case MSG_FAULT:
        return encode_fault(o, &m->u.fault);
    case MSG_DONE:
        return put_int(o, "run", m->u.done_run);
    case MSG_INVALID:
        break;
    }
    return false;
}

char *proto_encode(const proto_msg *m)
{
    if (m->type == MSG_INVALID || (unsigned)m->type >= COUNT(type_names))
        return NULL;
    char *out = NULL;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    if (!put_str(o, "type", type_names[m->type]) || !encode_body(o, m))
        goto cleanup;
    char *text = cJSON_PrintUnformatted(o);
    if (!text)
        goto cleanup;
    size_t len = strlen(text);
    out = malloc(len + 2);
    if (out) {
        memcpy(out, text, len);
        out[len] = '\n';
        out[len + 1] = '\0';
    }
    cJSON_free(text);
cleanup:
    cJSON_Delete(o);
    return out;
}

/* ---- decoding ---------------------------------------------------------- */
/* A missing field keeps the value already in the destination; a field of
 * the wrong type is an error naming the field. */

static bool get_str(const cJSON *o, const char *k, char *dst, size_t n, cl_err *e)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!it || cJSON_IsNull(it))
        return true;
    if (!cJSON_IsString(it) || !it->valuestring)
        return err_set(e, "field '%s' must be a string", k);
    copy_str(dst, n, it->valuestring);
    return true;
}

static bool get_double(const cJSON *o, const char *k, double *dst, double if_null, cl_err *e)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!it)
        return true;
    if (cJSON_IsNull(it)) {
        *dst = if_null;
        return true;
    }
    if (cJSON_IsNumber(it)) {
        *dst = it->valuedouble;
        return true;
    }
    if (cJSON_IsString(it) && it->valuestring) {
        const char *s = it->valuestring;
        if (strcmp(s, "nan") == 0) {
            *dst = NAN;
            return true;
        }
        if (strcmp(s, "inf") == 0) {
            *dst = INFINITY;
            return true;
        }
        if (strcmp(s, "-inf") == 0) {
            *dst = -INFINITY;
            return true;
        }
    }
    return err_set(e, "field '%s' must be a number", k);
}

static bool get_int64(const cJSON *o, const char *k, int64_t *dst, int64_t lo, int64_t hi, cl_err *e)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!it)
        return true;
    if (!cJSON_IsNumber(it))
        return err_set(e, "field '%s' must be an integer", k);
    double v = it->valuedouble;
    if (!(v >= (double)lo && v <= (double)hi) || v != floor(v))
        return err_set(e, "field '%s' is out of range or not an integer", k);
    *dst = (int64_t)v;
    return true;
}

static bool get_int(const cJSON *o, const char *k, int *dst, cl_err *e)
{
    int64_t v = *dst;
    if (!get_int64(o, k, &v, INT_MIN, INT_MAX, e))
        return false;
    *dst = (int)v;
    return true;
}

static bool get_bool(const cJSON *o, const char *k, bool *dst, cl_err *e)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!it)
        return true;
    if (!cJSON_IsBool(it))
        return err_set(e, "field '%s' must be true or false", k);
    *dst = cJSON_IsTrue(it);
    return true;
}

/* Seeds travel as strings of decimal digits: JSON numbers lose precision
 * past 2^53.  Small plain numbers are accepted too. */
static bool get_u64(const cJSON *o, const char *k, uint64_t *dst, cl_err *e)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!it)
        return true;
    if (cJSON_IsNumber(it)) {
        double v = it->valuedouble;
        if (!(v >= 0 && v <= 9007199254740992.0) || v != floor(v))
            return err_set(e, "field '%s' must be an unsigned integer", k);
        *dst = (uint64_t)v;
        return true;
    }
    const char *s = cJSON_IsString(it) ? it->valuestring : NULL;
    if (!s || !*s || strspn(s, "0123456789") != strlen(s))
        return err_set(e, "field '%s' must be a string of decimal digits", k);
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno == ERANGE)
        return err_set(e, "field '%s' does not fit in 64 bits", k);
    *dst = (uint64_t)v;
    return true;
}

static bool get_enum(const cJSON *o, const char *k, const char *const *names, size_t count,
                     int *dst, cl_err *e)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!it)
        return true;
    if (!cJSON_IsString(it) || !it->valuestring)
        return err_set(e, "field '%s' must be a string", k);
    for (size_t i = 0; i < count; i++) {
        if (names[i] && strcmp(names[i], it->valuestring) == 0) {
            *dst = (int)i;
            return true;
        }
    }
    return err_set(e, "field '%s' has an unknown value '%.64s'", k, it->valuestring);
}

static const cJSON *get_array(const cJSON *o, const char *k, int max, cl_err *e, bool *ok)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    *ok = true;
    if (!it || cJSON_IsNull(it))
        return NULL;
    if (!cJSON_IsArray(it)) {
        *ok = err_set(e, "field '%s' must be an array", k);
        return NULL;
    }
    if (cJSON_GetArraySize(it) > max) {
        *ok = err_set(e, "field '%s' has more than %d entries", k, max);
        return NULL;
    }
    return it;
}

static bool decode_device(const cJSON *o, device_info *d, cl_err *e)
{
    memset(d, 0, sizeof *d);
    if (!cJSON_IsObject(o))
        return err_set(e, "field 'device' must be an object");
    return get_bool(o, "present", &d->present, e)
        && get_str(o, "reason", d->reason, sizeof d->reason, e)
        && get_int(o, "ordinal", &d->ordinal, e)
        && get_str(o, "name", d->name, sizeof d->name, e)
        && get_int(o, "cc_major", &d->cc_major, e)
        && get_int(o, "cc_minor", &d->cc_minor, e)
        && get_int(o, "sm_count", &d->sm_count, e)
        && get_double(o, "mem_total_gib", &d->mem_total_gib, 0, e)
        && get_double(o, "mem_free_gib", &d->mem_free_gib, 0, e)
        && get_double(o, "l2_mib", &d->l2_mib, 0, e)
        && get_double(o, "sm_clock_mhz", &d->sm_clock_mhz, 0, e)
        && get_double(o, "mem_clock_mhz", &d->mem_clock_mhz, 0, e)
        && get_int(o, "bus_width_bits", &d->bus_width_bits, e)
        && get_int(o, "driver_version", &d->driver_version, e)
        && get_int(o, "runtime_version", &d->runtime_version, e)
        && get_double(o, "peak_bw_theory_gbs", &d->peak_bw_theory_gbs, 0, e)
        && get_double(o, "peak_fp32_tflops", &d->peak_fp32_tflops, 0, e)
        && get_double(o, "peak_bw_measured_gbs", &d->peak_bw_measured_gbs, 0, e)
        && get_bool(o, "peak_bw_cached", &d->peak_bw_cached, e);
}

static bool decode_run(const cJSON *o, run_request *r, cl_err *e)
{
    bool ok;
    memset(r, 0, sizeof *r);
    if (!(get_int(o, "run", &r->run, e) && get_str(o, "lab", r->lab, sizeof r->lab, e)
          && get_str(o, "problem", r->problem, sizeof r->problem, e)
          && get_str(o, "library", r->library, sizeof r->library, e)
          && get_u64(o, "seed", &r->seed, e)
          && get_double(o, "budget_s", &r->budget_s, 0, e)
          && get_bool(o, "cpu", &r->cpu, e)
          && get_str(o, "exercise_kernel", r->exercise_kernel, sizeof r->exercise_kernel, e)
          && get_str(o, "exercise_launcher", r->exercise_launcher, sizeof r->exercise_launcher, e)
          && get_bool(o, "check_only", &r->check_only, e)))
        return false;
    const cJSON *vars = get_array(o, "variants", PROTO_MAX_VARIANTS, e, &ok);
    if (!ok)
        return false;
    const cJSON *v;
    cJSON_ArrayForEach(v, vars) {
        run_variant *rv = &r->variants[r->nvariants];
        if (!cJSON_IsObject(v))
            return err_set(e, "variant %d must be an object", r->nvariants + 1);
        if (!(get_str(v, "id", rv->id, sizeof rv->id, e)
              && get_str(v, "kernel", rv->kernel, sizeof rv->kernel, e)))
            return err_prefix(e, "variant %d", r->nvariants + 1);
        r->nvariants++;
    }
    const cJSON *sizes = get_array(o, "sizes", PROTO_MAX_SIZES, e, &ok);
    if (!ok)
        return false;
    const cJSON *sz;
    cJSON_ArrayForEach(sz, sizes) {
        if (!cJSON_IsString(sz) || !sz->valuestring)
            return err_set(e, "size %d must be a string", r->nsizes + 1);
        copy_str(r->sizes[r->nsizes], sizeof r->sizes[0], sz->valuestring);
        r->nsizes++;
    }
    return true;
}

static bool decode_progress(const cJSON *o, run_progress *p, cl_err *e)
{
    memset(p, 0, sizeof *p);
    return get_int(o, "run", &p->run, e)
        && get_str(o, "variant", p->variant, sizeof p->variant, e)
        && get_str(o, "size", p->size, sizeof p->size, e)
        && get_int(o, "rep", &p->rep, e) && get_int(o, "of", &p->of, e)
        && get_str(o, "phase", p->phase, sizeof p->phase, e);
}

static bool decode_result(const cJSON *o, run_result *r, cl_err *e)
{
    bool ok;
    int kind = RK_KERNEL, status = RS_ERROR;
    run_result_init(r);
    if (!(get_int(o, "run", &r->run, e)
          && get_str(o, "variant", r->variant, sizeof r->variant, e)
          && get_str(o, "label", r->label, sizeof r->label, e)
          && get_str(o, "size", r->size, sizeof r->size, e)
          && get_enum(o, "kind", kind_names, COUNT(kind_names), &kind, e)
          && get_enum(o, "status", status_names, COUNT(status_names), &status, e)
          && get_str(o, "message", r->message, sizeof r->message, e)
          && get_double(o, "median_ms", &r->median_ms, 0, e)
          && get_double(o, "min_ms", &r->min_ms, 0, e)
          && get_double(o, "max_ms", &r->max_ms, 0, e)
          && get_double(o, "spread", &r->spread, 0, e)
          && get_int(o, "samples", &r->samples, e)
          && get_double(o, "gbps", &r->gbps, -1, e)
          && get_double(o, "tflops", &r->tflops, -1, e)
          && get_double(o, "pct_peak_measured", &r->pct_peak_measured, -1, e)
          && get_double(o, "pct_peak_theory", &r->pct_peak_theory, -1, e)
          && get_double(o, "speedup_cpu", &r->speedup_cpu, 0, e)
          && get_double(o, "speedup_cpu_mt", &r->speedup_cpu_mt, 0, e)
          && get_double(o, "speedup_lib", &r->speedup_lib, 0, e)
          && get_double(o, "speedup_starter", &r->speedup_starter, 0, e)
          && get_bool(o, "has_report", &r->has_report, e)
          && get_double(o, "rel_err", &r->rel_err, 0, e)
          && get_u64(o, "seed", &r->seed, e)
          && get_int(o, "threads", &r->threads, e)))
        return false;
    r->kind = (result_kind)kind;
    r->status = (result_status)status;
    const cJSON *arr = get_array(o, "mismatches", PROTO_MAX_MISMATCH, e, &ok);
    if (!ok)
        return false;
    const cJSON *m;
    cJSON_ArrayForEach(m, arr) {
        mismatch *mm = &r->mismatches[r->nmismatch];
        if (!cJSON_IsObject(m))
            return err_set(e, "mismatch %d must be an object", r->nmismatch + 1);
        if (!(get_int64(m, "index", &mm->index, INT64_MIN / 2, INT64_MAX / 2, e)
              && get_double(m, "got", &mm->got, NAN, e)
              && get_double(m, "expected", &mm->expected, NAN, e)))
            return err_prefix(e, "mismatch %d", r->nmismatch + 1);
        r->nmismatch++;
    }
    return true;
}

static bool decode_fault(const cJSON *o, run_fault *f, cl_err *e)
{
    memset(f, 0, sizeof *f);
    return get_int(o, "run", &f->run, e)
        && get_str(o, "variant", f->variant, sizeof f->variant, e)
        && get_str(o, "cause", f->cause, sizeof f->cause, e)
        && get_str(o, "message", f->message, sizeof f->message, e);
}

static bool decode_body(const cJSON *o, proto_msg *m, cl_err *e)
{
    switch (m->type) {
    case MSG_HELLO: {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "device");
        if (!d)
            return err_set(e, "hello without 'device'");
        return decode_device(d, &m->u.hello, e);
    }
    case MSG_RUN:
        return decode_run(o, &m->u.run, e);
    case MSG_QUIT:
        return true;
    case MSG_PROGRESS:
        return decode_progress(o, &m->u.progress, e);
    case MSG_RESULT:
        return decode_result(o, &m->u.result, e);
    case MSG_LOG:
        m->u.log.level = 0;
        m->u.log.msg[0] = '\0';
        if (!(get_int(o, "level", &m->u.log.level, e)
              && get_str(o, "msg", m->u.log.msg, sizeof m->u.log.msg, e)))
            return false;
        if (m->u.log.level < 0)
            m->u.log.level = 0;
        if (m->u.log.level > 2)
            m->u.log.level = 2;
        return true;
    case MSG_FAULT:
        return decode_fault(o, &m->u.fault, e);
    case MSG_DONE:
        m->u.done_run = 0;
        if (!cJSON_GetObjectItemCaseSensitive(o, "run"))
            return err_set(e, "done without 'run'");
        return get_int(o, "run", &m->u.done_run, e);
    case MSG_INVALID:
        break;
    }
    return err_set(e, "unknown message type");
}

/* Quotes at most 48 bytes of s, for error messages about bad input. */
static void excerpt(char *dst, size_t n, const char *s)
{
    size_t j = 0;
    for (size_t i = 0; s[i] && i < 48 && j + 5 < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n' || c == '\r')
            break;
        dst[j++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (j + 4 < n && strlen(s) > 48) {
        memcpy(dst + j, "...", 3);
        j += 3;
    }
    dst[j] = '\0';
}

bool proto_decode(const char *line, proto_msg *m, cl_err *e)
{
    bool ok = false;
    const char *end = NULL;
    char quote[64];

    m->type = MSG_INVALID;
    if (!line)
        return err_set(e, "no message");
    cJSON *o = cJSON_ParseWithOpts(line, &end, false);
    if (!o) {
        excerpt(quote, sizeof quote, line);
        return err_set(e, "not a JSON message: '%s'", quote);
    }
    if (end && end[strspn(end, " \t\r\n")] != '\0') {
        excerpt(quote, sizeof quote, end);
        err_set(e, "text after the JSON message: '%s'", quote);
        goto cleanup;
    }
    if (!cJSON_IsObject(o)) {
        err_set(e, "a message must be a JSON object");
        goto cleanup;
    }
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "type");
    if (!t || !cJSON_IsString(t) || !t->valuestring) {
        err_set(e, "message without a 'type'");
        goto cleanup;
    }
    for (size_t i = 1; i < COUNT(type_names); i++)
        if (strcmp(type_names[i], t->valuestring) == 0)
            m->type = (msg_type)i;
    if (m->type == MSG_INVALID) {
        excerpt(quote, sizeof quote, t->valuestring);
        err_set(e, "unknown message type '%s'", quote);
        goto cleanup;
    }
    ok = decode_body(o, m, e);
    if (!ok) {
        err_prefix(e, "bad '%s' message", type_names[m->type]);
        m->type = MSG_INVALID;
    }
cleanup:
    cJSON_Delete(o);
    return ok;
}

/* trace.c - Chrome trace JSON checked (trace_validate) and read back into
 * a timeline (trace_parse, trace_load), and a trace file copied once it
 * passes (trace.h); writing one is trace_write.c's. */
#include "prof/trace.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/grow.h"
#include "core/strbuf.h"

/* ---- validating --------------------------------------------------------- */

typedef struct name_set {
    long long *pid, *tid;   /* tid: -1 for a process entry */
    size_t n, cap;
} name_set;

static bool names_add(name_set *s, long long pid, long long tid)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 32;
        long long *np = realloc(s->pid, cap * sizeof *np);
        if (!np)
            return false;
        s->pid = np;
        long long *nt = realloc(s->tid, cap * sizeof *nt);
        if (!nt)
            return false;
        s->tid = nt;
        s->cap = cap;
    }
    s->pid[s->n] = pid;
    s->tid[s->n] = tid;
    s->n++;
    return true;
}

static bool names_has(const name_set *s, long long pid, long long tid)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->pid[i] == pid && s->tid[i] == tid)
            return true;
    return false;
}

static void names_free(name_set *s)
{
    free(s->pid);
    free(s->tid);
    memset(s, 0, sizeof *s);
}

static const char *event_label(const cJSON *ev)
{
    const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "name"));
    return n ? n : "?";
}

static bool is_finite_number(const cJSON *x)
{
    return cJSON_IsNumber(x) && isfinite(x->valuedouble);
}

static bool meta_name(const cJSON *ev, const char **name)
{
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
    *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "name"));
    return *name != NULL;
}

/* A metadata event ("M"): a process_name or thread_name with its ids and
 * name, recorded in named. */
static bool check_meta(const cJSON *ev, int idx, name_set *named, cl_err *e)
{
    const char *what = event_label(ev);
    bool proc = strcmp(what, "process_name") == 0;
    bool thr = strcmp(what, "thread_name") == 0;
    if (!proc && !thr)
        return true;
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(ev, "pid");
    const cJSON *tid = cJSON_GetObjectItemCaseSensitive(ev, "tid");
    const char *nm = NULL;
    if (!is_finite_number(pid) || (thr && !is_finite_number(tid)))
        return err_set(e, "event %d (%s) lacks a numeric %s", idx, what,
                       is_finite_number(pid) ? "tid" : "pid");
    if (!meta_name(ev, &nm) || !nm[0])
        return err_set(e, "event %d (%s) has no args.name", idx, what);
    if (!names_add(named, (long long)pid->valuedouble, thr ? (long long)tid->valuedouble : -1))
        return err_set(e, "out of memory validating the trace");
    return true;
}

/* Any other event: a name, numeric ids (recorded in used), and for a
 * complete event ("X") a time and a duration that is not negative. */
static bool check_event(const cJSON *ev, const char *ph, int idx, name_set *used, cl_err *e)
{
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(ev, "pid");
    const cJSON *tid = cJSON_GetObjectItemCaseSensitive(ev, "tid");
    if (!cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "name")))
        return err_set(e, "event %d has no name", idx);
    if (!is_finite_number(pid) || !is_finite_number(tid))
        return err_set(e, "event %d (\"%s\") lacks a numeric pid or tid", idx, event_label(ev));
    long long p = (long long)pid->valuedouble, t = (long long)tid->valuedouble;
    if (!names_has(used, p, t) && !names_add(used, p, t))
        return err_set(e, "out of memory validating the trace");
    if (strcmp(ph, "X") != 0)
        return true;
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(ev, "ts");
    const cJSON *dur = cJSON_GetObjectItemCaseSensitive(ev, "dur");
    if (!is_finite_number(ts))
        return err_set(e, "event %d (\"%s\") has no numeric ts", idx, event_label(ev));
    if (!is_finite_number(dur))
        return err_set(e, "event %d (\"%s\") has no numeric dur", idx, event_label(ev));
    if (dur->valuedouble < 0.0)
        return err_set(e, "event %d (\"%s\") has a negative duration (%g us)", idx,
                       event_label(ev), dur->valuedouble);
    return true;
}

/* Events in time order: ev's ts, when it has one, is a number no earlier
 * than *last_ts, which it then becomes. */
static bool check_order(const cJSON *ev, int idx, double *last_ts, cl_err *e)
{
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(ev, "ts");
    if (!ts)
        return true;
    if (!is_finite_number(ts))
        return err_set(e, "event %d (\"%s\") has a ts that is not a number", idx, event_label(ev));
    if (ts->valuedouble < *last_ts)
        return err_set(e, "event %d (\"%s\") at ts %.3f us comes after one at %.3f us: events "
                          "are not sorted by time",
                       idx, event_label(ev), ts->valuedouble, *last_ts);
    *last_ts = ts->valuedouble;
    return true;
}

/* Every process and thread with events has its name. */
static bool check_names(const name_set *named, const name_set *used, cl_err *e)
{
    for (size_t i = 0; i < used->n; i++) {
        if (!names_has(named, used->pid[i], -1))
            return err_set(e, "process %lld has events but no process_name", used->pid[i]);
        if (!names_has(named, used->pid[i], used->tid[i]))
            return err_set(e, "thread %lld of process %lld has events but no thread_name",
                           used->tid[i], used->pid[i]);
    }
    return true;
}

/* The document's frame: a traceEvents array, and a known time unit. */
static const cJSON *check_frame(const cJSON *root, cl_err *e)
{
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    if (!cJSON_IsArray(events)) {
        err_set(e, "the trace has no traceEvents array");
        return NULL;
    }
    const cJSON *unit = cJSON_GetObjectItemCaseSensitive(root, "displayTimeUnit");
    if (unit && (!cJSON_IsString(unit) ||
                 (strcmp(unit->valuestring, "ns") != 0 && strcmp(unit->valuestring, "ms") != 0))) {
        err_set(e, "displayTimeUnit must be \"ns\" or \"ms\"");
        return NULL;
    }
    return events;
}

bool trace_validate(const char *json, cl_err *err)
{
    if (!json)
        return err_set(err, "no trace text");
    cJSON *root = cJSON_Parse(json);
    if (!root)
        return err_set(err, "the trace is not valid JSON");
    name_set named = {0}, used = {0};
    const cJSON *events = check_frame(root, err);
    bool ok = events != NULL;
    double last_ts = -INFINITY;
    int idx = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, events) {
        if (!ok)
            break;
        const char *ph = cJSON_IsObject(ev)
                             ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "ph"))
                             : NULL;
        if (!cJSON_IsObject(ev))
            ok = err_set(err, "event %d is not an object", idx);
        else if (!ph)
            ok = err_set(err, "event %d (\"%s\") has no phase (ph)", idx, event_label(ev));
        else
            ok = (strcmp(ph, "M") == 0 ? check_meta(ev, idx, &named, err)
                                       : check_event(ev, ph, idx, &used, err)) &&
                 check_order(ev, idx, &last_ts, err);
        idx++;
    }
    ok = ok && check_names(&named, &used, err);
    names_free(&named);
    names_free(&used);
    cJSON_Delete(root);
    return ok;
}

/* ---- reading back ------------------------------------------------------- */

typedef struct lane_key {
    long long pid, tid;
    int lane;
} lane_key;

typedef struct lane_map {
    lane_key *v;
    size_t n, cap;
} lane_map;

static int map_find(const lane_map *m, long long pid, long long tid)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].pid == pid && m->v[i].tid == tid)
            return m->v[i].lane;
    return -1;
}

static bool map_add(lane_map *m, long long pid, long long tid, int lane)
{
    if (!grow_one((void **)&m->v, &m->cap, m->n, sizeof *m->v, 16))
        return false;
    m->v[m->n++] = (lane_key){pid, tid, lane};
    return true;
}

static uint64_t us_to_ns(double us)
{
    if (!(us > 0.0))
        return 0;
    return (uint64_t)llround(us * 1e3);
}

/* Adds the lane named by a thread_name event. */
static bool parse_lane(timeline *t, lane_map *m, const cJSON *ev, cl_err *e)
{
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(ev, "pid");
    const cJSON *tid = cJSON_GetObjectItemCaseSensitive(ev, "tid");
    if (!is_finite_number(pid) || !is_finite_number(tid))
        return true;
    if (map_find(m, (long long)pid->valuedouble, (long long)tid->valuedouble) >= 0)
        return true;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "name"));
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "lane"));
    const cJSON *stream = cJSON_GetObjectItemCaseSensitive(args, "stream");
    tl_lane_kind k;
    if (!timeline_lane_kind_parse(kind, &k))
        k = (long long)pid->valuedouble == TRACE_PID_GPU ? TL_LANE_STREAM : TL_LANE_API;
    uint32_t s = is_finite_number(stream) && stream->valuedouble >= 0
                     ? (uint32_t)stream->valuedouble
                     : (uint32_t)tid->valuedouble;
    int lane = timeline_lane_named(t, k, s, name, e);
    if (lane < 0)
        return false;
    if (!map_add(m, (long long)pid->valuedouble, (long long)tid->valuedouble, lane))
        return err_set(e, "out of memory reading the trace");
    return true;
}

static bool parse_item(timeline *t, lane_map *m, const cJSON *ev, cl_err *e)
{
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(ev, "pid");
    const cJSON *tid = cJSON_GetObjectItemCaseSensitive(ev, "tid");
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(ev, "ts");
    const cJSON *dur = cJSON_GetObjectItemCaseSensitive(ev, "dur");
    if (!is_finite_number(pid) || !is_finite_number(tid) || !is_finite_number(ts) ||
        !is_finite_number(dur) || dur->valuedouble < 0.0)
        return err_set(e, "complete event \"%s\" lacks a pid, tid, ts or dur", event_label(ev));
    long long p = (long long)pid->valuedouble, th = (long long)tid->valuedouble;
    int lane = map_find(m, p, th);
    if (lane < 0) {
        char name[TL_LANE_NAME_MAX];
        snprintf(name, sizeof name, "thread %lld", th);
        lane = timeline_lane_named(t, p == TRACE_PID_GPU ? TL_LANE_STREAM : TL_LANE_API,
                                   (uint32_t)th, name, e);
        if (lane < 0)
            return false;
        if (!map_add(m, p, th, lane))
            return err_set(e, "out of memory reading the trace");
    }
    tl_item it;
    memset(&it, 0, sizeof it);
    it.lane = lane;
    snprintf(it.name, sizeof it.name, "%s", event_label(ev));
    const char *cat = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "cat"));
    if (!timeline_kind_parse(cat, &it.kind)) {
        tl_lane_kind lk = t->lanes[lane].kind;
        it.kind = lk == TL_LANE_API    ? TL_API
                  : lk == TL_LANE_NVTX ? TL_RANGE
                  : lk == TL_LANE_STREAM ? TL_KERNEL
                                         : TL_MEMCPY;
    }
    it.start_ns = us_to_ns(ts->valuedouble);
    it.end_ns = it.start_ns + us_to_ns(dur->valuedouble);
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
    const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(args, "bytes");
    if (is_finite_number(bytes) && bytes->valuedouble > 0)
        it.bytes = (uint64_t)bytes->valuedouble;
    const char *mem = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "memory"));
    if (mem && strcmp(mem, "pinned") == 0)
        it.flags |= TL_PINNED;
    else if (mem && strcmp(mem, "pageable") == 0)
        it.flags |= TL_PAGEABLE;
    else if (mem && strcmp(mem, "managed") == 0)
        it.flags |= TL_MANAGED;
    const cJSON *stream = cJSON_GetObjectItemCaseSensitive(args, "stream");
    if (is_finite_number(stream) && stream->valuedouble >= 0)
        it.stream = (uint32_t)stream->valuedouble;
    const cJSON *corr = cJSON_GetObjectItemCaseSensitive(args, "correlation");
    if (is_finite_number(corr) && corr->valuedouble >= 0)
        it.corr = (uint32_t)corr->valuedouble;
    return timeline_add(t, &it, e);
}

bool trace_parse(const char *json, timeline *tl, cl_err *err)
{
    timeline_init(tl);
    if (!json)
        return err_set(err, "no trace text");
    cJSON *root = cJSON_Parse(json);
    if (!root)
        return err_set(err, "the trace is not valid JSON");
    bool ok = false;
    lane_map m = {0};
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    if (!cJSON_IsArray(events)) {
        err_set(err, "the trace has no traceEvents array");
        goto cleanup;
    }
    const cJSON *other = cJSON_GetObjectItemCaseSensitive(root, "otherData");
    const char *dev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(other, "device"));
    if (dev)
        snprintf(tl->title, sizeof tl->title, "%s", dev);
    const char *note = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(other, "note"));
    if (note)
        snprintf(tl->note, sizeof tl->note, "%s", note);
    const cJSON *dropped = cJSON_GetObjectItemCaseSensitive(other, "dropped");
    if (is_finite_number(dropped) && dropped->valuedouble > 0)
        tl->dropped = (uint64_t)dropped->valuedouble;

    const cJSON *ev;
    cJSON_ArrayForEach(ev, events) {
        const char *ph = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "ph"));
        if (ph && strcmp(ph, "M") == 0 && strcmp(event_label(ev), "thread_name") == 0 &&
            !parse_lane(tl, &m, ev, err))
            goto cleanup;
    }
    cJSON_ArrayForEach(ev, events) {
        const char *ph = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "ph"));
        if (ph && strcmp(ph, "X") == 0 && !parse_item(tl, &m, ev, err))
            goto cleanup;
    }
    timeline_sort(tl);
    ok = true;
cleanup:
    free(m.v);
    cJSON_Delete(root);
    if (!ok)
        timeline_free(tl);
    return ok;
}

bool trace_load(const char *path, timeline *tl, cl_err *err)
{
    size_t len = 0;
    timeline_init(tl);
    char *txt = file_read_all(path, TRACE_MAX_BYTES, &len, err);
    if (!txt)
        return false;
    bool ok = trace_parse(txt, tl, err);
    free(txt);
    if (!ok)
        err_prefix(err, "%s", path);
    return ok;
}

bool trace_copy(const char *from, const char *to, cl_err *err)
{
    size_t len = 0;
    char *txt = file_read_all(from, TRACE_MAX_BYTES, &len, err);
    if (!txt)
        return false;
    bool ok = trace_validate(txt, err) && atomicfile_write(to, txt, len, err);
    free(txt);
    return ok;
}

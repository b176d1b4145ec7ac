/* trace_write.c - a timeline written as Chrome trace JSON (trace.h):
 * the process and lane names first, then one complete event an item,
 * sorted by start time. */
#include "prof/trace.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/strbuf.h"

/* Appends one event (consumed) as compact JSON, comma-separated from the
 * previous one. */
static void add_event(strbuf *b, cJSON *ev, bool *first)
{
    char *txt = ev ? cJSON_PrintUnformatted(ev) : NULL;
    cJSON_Delete(ev);
    if (!txt) {
        b->failed = true;
        return;
    }
    strbuf_str(b, *first ? "\n" : ",\n");
    strbuf_str(b, txt);
    *first = false;
    free(txt);
}

static int lane_pid(const tl_lane *l)
{
    return timeline_lane_is_gpu(l->kind) ? TRACE_PID_GPU : TRACE_PID_HOST;
}

static cJSON *meta_event(const char *name, int pid, int tid, bool with_tid)
{
    cJSON *ev = cJSON_CreateObject();
    if (!ev)
        return NULL;
    cJSON_AddStringToObject(ev, "name", name);
    cJSON_AddStringToObject(ev, "ph", "M");
    cJSON_AddNumberToObject(ev, "pid", pid);
    if (with_tid)
        cJSON_AddNumberToObject(ev, "tid", tid);
    return ev;
}

static cJSON *process_name_event(int pid, const char *name)
{
    cJSON *ev = meta_event("process_name", pid, 0, false);
    cJSON *args = ev ? cJSON_AddObjectToObject(ev, "args") : NULL;
    if (args)
        cJSON_AddStringToObject(args, "name", name);
    return ev;
}

static cJSON *sort_index_event(const char *what, int pid, int tid, bool with_tid, int index)
{
    cJSON *ev = meta_event(what, pid, tid, with_tid);
    cJSON *args = ev ? cJSON_AddObjectToObject(ev, "args") : NULL;
    if (args)
        cJSON_AddNumberToObject(args, "sort_index", index);
    return ev;
}

static cJSON *thread_name_event(const tl_lane *l, int tid)
{
    cJSON *ev = meta_event("thread_name", lane_pid(l), tid, true);
    cJSON *args = ev ? cJSON_AddObjectToObject(ev, "args") : NULL;
    if (args) {
        cJSON_AddStringToObject(args, "name", l->name);
        cJSON_AddStringToObject(args, "lane", timeline_lane_kind_name(l->kind));
        if (l->kind == TL_LANE_STREAM)
            cJSON_AddNumberToObject(args, "stream", l->stream);
    }
    return ev;
}

static const char *memory_name(unsigned flags)
{
    if (flags & TL_PINNED)
        return "pinned";
    if (flags & TL_PAGEABLE)
        return "pageable";
    if (flags & TL_MANAGED)
        return "managed";
    return NULL;
}

static cJSON *item_event(const timeline *t, const tl_item *it)
{
    const tl_lane *l = &t->lanes[it->lane];
    cJSON *ev = cJSON_CreateObject();
    if (!ev)
        return NULL;
    cJSON_AddStringToObject(ev, "name", it->name);
    cJSON_AddStringToObject(ev, "cat", timeline_kind_name(it->kind));
    cJSON_AddStringToObject(ev, "ph", "X");
    cJSON_AddNumberToObject(ev, "ts", (double)it->start_ns / 1e3);
    cJSON_AddNumberToObject(ev, "dur", (double)(it->end_ns - it->start_ns) / 1e3);
    cJSON_AddNumberToObject(ev, "pid", lane_pid(l));
    cJSON_AddNumberToObject(ev, "tid", it->lane + 1);
    cJSON *args = cJSON_AddObjectToObject(ev, "args");
    if (!args)
        return ev;
    if (it->bytes) {
        cJSON_AddNumberToObject(args, "bytes", (double)it->bytes);
        double gbps = timeline_item_gbps(it);
        if (gbps > 0.0)
            cJSON_AddNumberToObject(args, "GB/s", round(gbps * 1000.0) / 1000.0);
    }
    const char *mem = memory_name(it->flags);
    if (mem)
        cJSON_AddStringToObject(args, "memory", mem);
    if (timeline_lane_is_gpu(l->kind))
        cJSON_AddNumberToObject(args, "stream", it->stream);
    if (it->corr)
        cJSON_AddNumberToObject(args, "correlation", it->corr);
    return ev;
}

static int index_cmp(const void *pa, const void *pb, const timeline *t)
{
    const tl_item *a = &t->items[*(const size_t *)pa];
    const tl_item *b = &t->items[*(const size_t *)pb];
    if (a->start_ns != b->start_ns)
        return a->start_ns < b->start_ns ? -1 : 1;
    if (a->end_ns != b->end_ns)
        return a->end_ns > b->end_ns ? -1 : 1;
    return (a->lane > b->lane) - (a->lane < b->lane);
}

/* Merge sort of item indices by time (qsort has no context argument in C11). */
static void sort_indices(size_t *v, size_t *tmp, size_t n, const timeline *t)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_indices(v, tmp, h, t);
    sort_indices(v + h, tmp, n - h, t);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = index_cmp(&v[j], &v[i], t) < 0 ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

char *trace_json(const timeline *tl, cl_err *err)
{
    strbuf b = STRBUF_INIT;
    bool first = true;
    size_t *order = NULL, *tmp = NULL;
    if (tl->nitems) {
        order = malloc(tl->nitems * sizeof *order);
        tmp = malloc(tl->nitems * sizeof *tmp);
        if (!order || !tmp) {
            free(order);
            free(tmp);
            err_set(err, "out of memory writing the trace");
            return NULL;
        }
        for (size_t i = 0; i < tl->nitems; i++)
            order[i] = i;
        sort_indices(order, tmp, tl->nitems, tl);
        free(tmp);
    }

    strbuf_str(&b, "{\"displayTimeUnit\":\"ns\",\"otherData\":");
    cJSON *other = cJSON_CreateObject();
    if (other) {
        cJSON_AddStringToObject(other, "tool", "cudalab");
        cJSON_AddStringToObject(other, "device", tl->title);
        cJSON_AddNumberToObject(other, "dropped", (double)tl->dropped);
        if (tl->note[0])
            cJSON_AddStringToObject(other, "note", tl->note);
    }
    char *otxt = other ? cJSON_PrintUnformatted(other) : NULL;
    cJSON_Delete(other);
    if (!otxt)
        b.failed = true;
    else
        strbuf_str(&b, otxt);
    free(otxt);
    strbuf_str(&b, ",\"traceEvents\":[");

    char gpu_name[TL_TITLE_MAX + 8];
    snprintf(gpu_name, sizeof gpu_name, "GPU%s%s", tl->title[0] ? ": " : "", tl->title);
    add_event(&b, process_name_event(TRACE_PID_GPU, gpu_name), &first);
    add_event(&b, sort_index_event("process_sort_index", TRACE_PID_GPU, 0, false, 1), &first);
    add_event(&b, process_name_event(TRACE_PID_HOST, "host"), &first);
    add_event(&b, sort_index_event("process_sort_index", TRACE_PID_HOST, 0, false, 2), &first);
    for (size_t i = 0; i < tl->nlanes; i++) {
        const tl_lane *l = &tl->lanes[i];
        add_event(&b, thread_name_event(l, (int)i + 1), &first);
        add_event(&b, sort_index_event("thread_sort_index", lane_pid(l), (int)i + 1, true, (int)i),
                  &first);
    }
    for (size_t i = 0; i < tl->nitems; i++)
        add_event(&b, item_event(tl, &tl->items[order[i]]), &first);
    strbuf_str(&b, "\n]}\n");
    free(order);
    char *text = strbuf_take(&b);
    if (!text)
        err_set(err, "out of memory writing the trace");
    return text;
}

bool trace_write(const timeline *tl, const char *path, cl_err *err)
{
    char *txt = trace_json(tl, err);
    if (!txt)
        return false;
    bool ok = atomicfile_write(path, txt, strlen(txt), err);
    free(txt);
    return ok;
}

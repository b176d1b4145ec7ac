#include "gpu/cupti.h"
#include "core/strfmt.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <cupti.h>

/* The C++ ABI's demangler (libstdc++), reached from C. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define CUPTI_BUFFER_BYTES (8u << 20)
#define CUPTI_RANGE_DEPTH 32

typedef struct marker {
    uint32_t id;
    unsigned flags;
    uint64_t ts;
    char name[TL_NAME_MAX];
} marker;

typedef struct host_range {
    char name[TL_NAME_MAX];
    uint64_t start_ns, end_ns;
} host_range;

struct cupti_rec {
    timeline tl;
    marker *markers;
    size_t nmarkers, markers_cap;
    host_range *ranges;
    size_t nranges, ranges_cap;
};

/* ---- names -------------------------------------------------------------- */

void cupti_api_name(const char *raw, char *out, size_t out_size)
{
    snprintf(out, out_size, "%s", raw ? raw : "?");
    char *v = strrchr(out, '_');
    if (v && v[1] == 'v' && v[2] >= '0' && v[2] <= '9' && strspn(v + 2, "0123456789") == strlen(v + 2))
        *v = '\0';
}

void cupti_kernel_name(const char *raw, char *out, size_t out_size)
{
    if (!raw || !raw[0]) {
        snprintf(out, out_size, "kernel");
        return;
    }
    int status = -1;
    char *dem = strncmp(raw, "_Z", 2) == 0 ? __cxa_demangle(raw, NULL, NULL, &status) : NULL;
    const char *s = status == 0 && dem ? dem : raw;
    static const char anon[] = "(anonymous namespace)::";
    while (strncmp(s, anon, sizeof anon - 1) == 0)
        s += sizeof anon - 1;
    const char *paren = strchr(s, '(');
    size_t len = paren ? (size_t)(paren - s) : strlen(s);
    /* A function template's demangled name begins with its return type. */
    const char *sp = memchr(s, ' ', len);
    const char *lt = memchr(s, '<', len);
    if (sp && (!lt || sp < lt)) {
        len -= (size_t)(sp + 1 - s);
        s = sp + 1;
    }
    snprintf(out, out_size, "%.*s", (int)len, s);
    free(dem);
}

/* ---- the conversion ------------------------------------------------------ */

cupti_rec *cupti_rec_new(const char *title)
{
    cupti_rec *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    timeline_init(&r->tl);
    snprintf(r->tl.title, sizeof r->tl.title, "%s", title ? title : "");
    return r;
}

void cupti_rec_free(cupti_rec *rec)
{
    if (!rec)
        return;
    timeline_free(&rec->tl);
    free(rec->markers);
    free(rec->ranges);
    free(rec);
}

void cupti_rec_dropped(cupti_rec *rec, uint64_t count)
{
    rec->tl.dropped += count;
}

static unsigned memory_flags(uint8_t kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
        return TL_PAGEABLE;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
        return TL_PINNED;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
        return TL_MANAGED;
    default:
        return 0;
    }
}

static bool add_item(cupti_rec *r, tl_lane_kind lk, uint32_t stream, tl_item *it, cl_err *e)
{
    int lane = timeline_lane(&r->tl, lk, stream, e);
    if (lane < 0)
        return false;
    it->lane = lane;
    if (it->end_ns < it->start_ns)
        it->end_ns = it->start_ns;
    return timeline_add(&r->tl, it, e);
}

static bool add_kernel(cupti_rec *r, const CUpti_ActivityKernel10 *k, cl_err *e)
{
    tl_item it;
    memset(&it, 0, sizeof it);
    it.kind = TL_KERNEL;
    cupti_kernel_name(k->name, it.name, sizeof it.name);
    it.start_ns = k->start;
    it.end_ns = k->end;
    it.stream = k->streamId;
    it.corr = k->correlationId;
    return add_item(r, TL_LANE_STREAM, k->streamId, &it, e);
}

static bool add_memcpy(cupti_rec *r, const CUpti_ActivityMemcpy6 *m, cl_err *e)
{
    tl_item it;
    memset(&it, 0, sizeof it);
    it.kind = TL_MEMCPY;
    it.start_ns = m->start;
    it.end_ns = m->end;
    it.bytes = m->bytes;
    it.stream = m->streamId;
    it.corr = m->correlationId;
    tl_lane_kind lk = TL_LANE_COPY;
    const char *what = "memcpy";
    switch (m->copyKind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
        lk = TL_LANE_H2D;
        what = "memcpy HtoD";
        it.flags = memory_flags(m->srcKind);
        break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
        lk = TL_LANE_D2H;
        what = "memcpy DtoH";
        it.flags = memory_flags(m->dstKind);
        break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
        lk = TL_LANE_D2D;
        what = "memcpy DtoD";
        it.flags = memory_flags(m->srcKind) | memory_flags(m->dstKind);
        break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
        what = "memcpy HtoH";
        it.flags = memory_flags(m->srcKind) | memory_flags(m->dstKind);
        break;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
        what = "memcpy PtoP";
        break;
    default:
        break;
    }
    snprintf(it.name, sizeof it.name, "%s", what);
    return add_item(r, lk, m->streamId, &it, e);
}

static bool add_memset(cupti_rec *r, const CUpti_ActivityMemset4 *m, cl_err *e)
{
    tl_item it;
    memset(&it, 0, sizeof it);
    it.kind = TL_MEMSET;
    snprintf(it.name, sizeof it.name, "memset");
    it.start_ns = m->start;
    it.end_ns = m->end;
    it.bytes = m->bytes;
    it.stream = m->streamId;
    it.corr = m->correlationId;
    it.flags = memory_flags((uint8_t)m->memoryKind);
    return add_item(r, TL_LANE_STREAM, m->streamId, &it, e);
}

static bool add_api(cupti_rec *r, const CUpti_ActivityAPI *a, cl_err *e)
{
    tl_item it;
    memset(&it, 0, sizeof it);
    it.kind = TL_API;
    const char *raw = NULL;
    if (a->kind == CUPTI_ACTIVITY_KIND_RUNTIME &&
        cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &raw) == CUPTI_SUCCESS && raw)
        cupti_api_name(raw, it.name, sizeof it.name);
    else
        snprintf(it.name, sizeof it.name, "runtime call %u", (unsigned)a->cbid);
    it.start_ns = a->start;
    it.end_ns = a->end;
    it.corr = a->correlationId;
    return add_item(r, TL_LANE_API, 0, &it, e);
}

static bool add_marker(cupti_rec *r, const CUpti_ActivityMarker2 *m, cl_err *e)
{
    if (r->nmarkers == r->markers_cap) {
        size_t cap = r->markers_cap ? 2 * r->markers_cap : 64;
        marker *nv = realloc(r->markers, cap * sizeof *nv);
        if (!nv)
            return err_set(e, "out of memory recording NVTX markers");
        r->markers = nv;
        r->markers_cap = cap;
    }
    marker *k = &r->markers[r->nmarkers++];
    memset(k, 0, sizeof *k);
    k->id = m->id;
    k->flags = (unsigned)m->flags;
    k->ts = m->timestamp;
    snprintf(k->name, sizeof k->name, "%s", m->name ? m->name : "");
    return true;
}

bool cupti_rec_add(cupti_rec *rec, const CUpti_Activity *activity, cl_err *err)
{
    const void *p = activity;
    switch (activity->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        return add_kernel(rec, p, err);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        return add_memcpy(rec, p, err);
    case CUPTI_ACTIVITY_KIND_MEMSET:
        return add_memset(rec, p, err);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
        return add_api(rec, p, err);
    case CUPTI_ACTIVITY_KIND_MARKER:
        return add_marker(rec, p, err);
    default:
        return true;
    }
}

bool cupti_rec_range(cupti_rec *rec, const char *name, uint64_t start_ns, uint64_t end_ns,
                     cl_err *err)
{
    if (rec->nranges == rec->ranges_cap) {
        size_t cap = rec->ranges_cap ? 2 * rec->ranges_cap : 64;
        host_range *nv = realloc(rec->ranges, cap * sizeof *nv);
        if (!nv)
            return err_set(err, "out of memory recording ranges");
        rec->ranges = nv;
        rec->ranges_cap = cap;
    }
    host_range *h = &rec->ranges[rec->nranges++];
    snprintf(h->name, sizeof h->name, "%s", name ? name : "");
    h->start_ns = start_ns;
    h->end_ns = end_ns < start_ns ? start_ns : end_ns;
    return true;
}

static bool add_range(cupti_rec *r, const char *name, uint64_t s, uint64_t t, cl_err *e)
{
    tl_item it;
    memset(&it, 0, sizeof it);
    it.kind = TL_RANGE;
    snprintf(it.name, sizeof it.name, "%s", name);
    it.start_ns = s;
    it.end_ns = t;
    return add_item(r, TL_LANE_NVTX, 0, &it, e);
}

/* Marker ranges: each start paired with the end of the same id. */
static bool pair_markers(cupti_rec *r, size_t *paired, cl_err *e)
{
    *paired = 0;
    for (size_t i = 0; i < r->nmarkers; i++) {
        const marker *m = &r->markers[i];
        if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
            if (!add_range(r, m->name[0] ? m->name : "marker", m->ts, m->ts, e))
                return false;
            (*paired)++;
            continue;
        }
        if (!(m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START))
            continue;
        for (size_t j = 0; j < r->nmarkers; j++) {
            const marker *x = &r->markers[j];
            if (j != i && x->id == m->id && (x->flags & CUPTI_ACTIVITY_FLAG_MARKER_END)) {
                if (!add_range(r, m->name[0] ? m->name : "range", m->ts, x->ts, e))
                    return false;
                (*paired)++;
                break;
            }
        }
    }
    return true;
}

bool cupti_rec_finish(cupti_rec *rec, timeline *out, cl_err *err)
{
    timeline_init(out);
    size_t paired = 0;
    if (!pair_markers(rec, &paired, err))
        return false;
    if (paired == 0)
        for (size_t i = 0; i < rec->nranges; i++)
            if (!add_range(rec, rec->ranges[i].name, rec->ranges[i].start_ns, rec->ranges[i].end_ns,
                           err))
                return false;
    if (!timeline_order_lanes(&rec->tl, err))
        return false;
    timeline_normalise(&rec->tl);
    timeline_sort(&rec->tl);
    *out = rec->tl;
    timeline_init(&rec->tl);
    rec->nmarkers = 0;
    rec->nranges = 0;
    return true;
}

/* ---- the live recorder -------------------------------------------------- */

static const CUpti_ActivityKind kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,            CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_MARKER,
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

typedef struct open_range {
    char name[TL_NAME_MAX];
    uint64_t start_ns;
} open_range;

static struct {
    pthread_mutex_t mu;
    bool registered;
    bool active;
    bool enabled[NKINDS];
    cupti_rec *rec;
    cl_err fail;              /* first failure inside a callback */
    bool failed;
    open_range stack[CUPTI_RANGE_DEPTH];
    int depth;
    char warnings[512];
} g = {.mu = PTHREAD_MUTEX_INITIALIZER};

static bool cupti_fail(cl_err *e, CUptiResult st, const char *call)
{
    const char *s = NULL;
    if (cuptiGetResultString(st, &s) != CUPTI_SUCCESS || !s)
        s = "unknown CUPTI error";
    return err_set(e, "%s (%s failed)", s, call);
}

/* Adds msg to the warnings once; the caller holds g.mu. */
static void warn(const char *msg)
{
    size_t len = strlen(g.warnings);
    if (strstr(g.warnings, msg))
        return;
    strfmt_append(g.warnings, sizeof g.warnings, len, "%s%s", len ? "; " : "", msg);
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = malloc(CUPTI_BUFFER_BYTES);
    *size = *buffer ? CUPTI_BUFFER_BYTES : 0;
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid)
{
    (void)size;
    pthread_mutex_lock(&g.mu);
    CUpti_Activity *rec = NULL;
    for (;;) {
        CUptiResult st = cuptiActivityGetNextRecord(buffer, valid, &rec);
        if (st != CUPTI_SUCCESS) {
            if (st != CUPTI_ERROR_MAX_LIMIT_REACHED && !g.failed) {
                g.failed = true;
                cupti_fail(&g.fail, st, "cuptiActivityGetNextRecord");
            }
            break;
        }
        if (g.rec && !g.failed && !cupti_rec_add(g.rec, rec, &g.fail))
            g.failed = true;
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped &&
        g.rec) {
        cupti_rec_dropped(g.rec, dropped);
        warn("CUPTI dropped activity records (its buffers filled up)");
    }
    pthread_mutex_unlock(&g.mu);
    free(buffer);
}

static void disable_all(void)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (g.enabled[i]) {
            CUptiResult st = cuptiActivityDisable(kinds[i]);
            if (st != CUPTI_SUCCESS) {
                cl_err e;
                cupti_fail(&e, st, "cuptiActivityDisable");
                pthread_mutex_lock(&g.mu);
                warn(e.msg);
                pthread_mutex_unlock(&g.mu);
            }
            g.enabled[i] = false;
        }
}

bool cupti_recording(void)
{
    pthread_mutex_lock(&g.mu);
    bool on = g.active;
    pthread_mutex_unlock(&g.mu);
    return on;
}

const char *cupti_warnings(void)
{
    return g.warnings;
}

static bool enable_kinds(cl_err *e)
{
    for (size_t i = 0; i < NKINDS; i++) {
        CUptiResult st = cuptiActivityEnable(kinds[i]);
        if (st == CUPTI_SUCCESS) {
            g.enabled[i] = true;
            continue;
        }
        if (kinds[i] == CUPTI_ACTIVITY_KIND_MARKER)
            continue;   /* the host-timed ranges fill the NVTX lane instead */
        disable_all();
        return cupti_fail(e, st, "cuptiActivityEnable");
    }
    return true;
}

bool cupti_start(const char *title, cl_err *err)
{
    int count = 0;
    cudaError_t cst = cudaGetDeviceCount(&count);
    if (cst != cudaSuccess || count <= 0) {
        cudaGetLastError();
        return err_set(err, "no CUDA device found: %s",
                       cst != cudaSuccess ? cudaGetErrorString(cst) : "no device is visible");
    }
    pthread_mutex_lock(&g.mu);
    bool busy = g.active;
    pthread_mutex_unlock(&g.mu);
    if (busy)
        return err_set(err, "the timeline is already being recorded");

    cupti_rec *r = cupti_rec_new(title);
    if (!r)
        return err_set(err, "out of memory starting the timeline");
    pthread_mutex_lock(&g.mu);
    g.rec = r;
    g.failed = false;
    err_clear(&g.fail);
    g.depth = 0;
    g.warnings[0] = '\0';
    pthread_mutex_unlock(&g.mu);

    cl_err local;
    bool ok = true;
    if (!g.registered) {
        CUptiResult st = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
        if (st != CUPTI_SUCCESS)
            ok = cupti_fail(&local, st, "cuptiActivityRegisterCallbacks");
        else
            g.registered = true;
    }
    if (ok)
        ok = enable_kinds(&local);
    pthread_mutex_lock(&g.mu);
    if (ok) {
        g.active = true;
    } else {
        g.rec = NULL;
    }
    pthread_mutex_unlock(&g.mu);
    if (!ok) {
        cupti_rec_free(r);
        if (err)
            *err = local;
        return false;
    }
    return true;
}

bool cupti_stop(timeline *out, cl_err *err)
{
    timeline_init(out);
    pthread_mutex_lock(&g.mu);
    bool on = g.active;
    pthread_mutex_unlock(&g.mu);
    if (!on)
        return err_set(err, "no timeline is being recorded");

    cl_err local;
    err_clear(&local);
    bool ok = true;
    cudaError_t sync = cudaDeviceSynchronize();
    if (sync != cudaSuccess) {
        ok = err_set(&local, "%s (cudaDeviceSynchronize failed before reading the timeline)",
                     cudaGetErrorString(sync));
        cudaGetLastError();
    }
    CUptiResult st = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (st != CUPTI_SUCCESS && ok)
        ok = cupti_fail(&local, st, "cuptiActivityFlushAll");
    disable_all();

    pthread_mutex_lock(&g.mu);
    cupti_rec *r = g.rec;
    g.rec = NULL;
    g.active = false;
    bool failed = g.failed;
    cl_err fail = g.fail;
    g.depth = 0;
    pthread_mutex_unlock(&g.mu);

    if (ok && failed) {
        local = fail;
        ok = false;
    }
    if (ok && r)
        ok = cupti_rec_finish(r, out, &local);
    cupti_rec_free(r);
    if (!ok) {
        timeline_free(out);
        if (err)
            *err = local;
    }
    return ok;
}

void cupti_range_begin(const char *name)
{
    pthread_mutex_lock(&g.mu);
    if (g.active && g.depth < CUPTI_RANGE_DEPTH) {
        uint64_t ts = 0;
        if (cuptiGetTimestamp(&ts) == CUPTI_SUCCESS) {
            open_range *o = &g.stack[g.depth];
            snprintf(o->name, sizeof o->name, "%s", name ? name : "");
            o->start_ns = ts;
        } else {
            g.stack[g.depth].name[0] = '\0';
            g.stack[g.depth].start_ns = 0;
        }
    }
    if (g.active)
        g.depth++;
    pthread_mutex_unlock(&g.mu);
}

void cupti_range_end(void)
{
    pthread_mutex_lock(&g.mu);
    if (g.active && g.depth > 0) {
        g.depth--;
        uint64_t ts = 0;
        if (g.depth < CUPTI_RANGE_DEPTH && g.stack[g.depth].start_ns &&
            cuptiGetTimestamp(&ts) == CUPTI_SUCCESS && g.rec && !g.failed &&
            !cupti_rec_range(g.rec, g.stack[g.depth].name, g.stack[g.depth].start_ns, ts, &g.fail))
            g.failed = true;
    }
    pthread_mutex_unlock(&g.mu);
}

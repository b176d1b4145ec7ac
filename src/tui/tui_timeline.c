#include "tui/tui_timeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strfmt.h"
#include "core/units.h"
#include "prof/trace.h"
#include "tui/tui_fmt.h"

#define ZOOM_MIN_NS 100         /* never narrower than this many ns over the plot */

void tui_timeline_free(tui_timeline *v)
{
    timeline_free(&v->t);
    timeline_gaps_free(&v->gaps);
    memset(v, 0, sizeof *v);
    v->item = -1;
}

static int first_gpu_lane(const timeline *t)
{
    for (size_t i = 0; i < t->nlanes; i++)
        if (timeline_lane_is_gpu(t->lanes[i].kind))
            return (int)i;
    return 0;
}

bool tui_timeline_load(tui_timeline *v, const char *path, cl_err *e)
{
    timeline t;
    tl_gaps g;
    uint64_t lo = 0, hi = 0;
    if (!trace_load(path, &t, e))
        return false;
    if (!timeline_order_lanes(&t, e)) {
        timeline_free(&t);
        return false;
    }
    timeline_normalise(&t);
    if (!timeline_span(&t, &lo, &hi)) {
        timeline_free(&t);
        return err_set(e, "%s holds no events", path);
    }
    if (!timeline_gaps(&t, TL_GPU_LANES, 0, &g, e)) {
        timeline_free(&t);
        return false;
    }
    tui_timeline_free(v);
    v->t = t;
    v->gaps = g;
    v->loaded = true;
    snprintf(v->path, sizeof v->path, "%s", path);
    v->lo = lo;
    v->hi = hi > lo ? hi : lo + 1;
    v->view = timeline_view(v->lo, v->hi, 1.0, 0.5);
    v->lane = first_gpu_lane(&v->t);
    v->item = -1;
    return true;
}

int tui_timeline_plot_width(int cols)
{
    int w = cols - 2 - TUI_TL_LABEL_W - 1;
    return w < 1 ? 1 : w;
}

/* ---- moving around ---------------------------------------------------------- */

static const tl_item *selected(const tui_timeline *v)
{
    if (!v->loaded || v->item < 0 || (size_t)v->item >= v->t.nitems)
        return NULL;
    return &v->t.items[v->item];
}

void tui_timeline_zoom(tui_timeline *v, double factor, int width)
{
    const tl_item *it = selected(v);
    int col = width / 2, c0, c1;
    tl_view nv;
    if (!v->loaded)
        return;
    if (it && timeline_view_cols(&v->view, width, it->start_ns, it->end_ns, &c0, &c1))
        col = (c0 + c1) / 2;
    nv = timeline_view_zoom(&v->view, v->lo, v->hi, factor, width, col);
    if (nv.t1 - nv.t0 < ZOOM_MIN_NS && v->hi - v->lo >= ZOOM_MIN_NS && factor > 1.0)
        return;
    v->view = nv;
}

void tui_timeline_pan(tui_timeline *v, int cols, int width)
{
    if (v->loaded)
        v->view = timeline_view_pan(&v->view, v->lo, v->hi, cols, width);
}

void tui_timeline_reset(tui_timeline *v)
{
    if (v->loaded)
        v->view = timeline_view(v->lo, v->hi, 1.0, 0.5);
}

/* Pans (never zooms) so that the selected item's start is in view. */
static void follow(tui_timeline *v)
{
    const tl_item *it = selected(v);
    uint64_t span;
    double frac;
    if (!it)
        return;
    span = v->view.t1 - v->view.t0;
    if (it->start_ns >= v->view.t0 && it->end_ns <= v->view.t1)
        return;
    if (it->end_ns - it->start_ns >= span && it->start_ns < v->view.t1 && it->end_ns > v->view.t0)
        return;
    frac = (double)v->hi > (double)v->lo
               ? ((double)it->start_ns + (double)(it->end_ns - it->start_ns) / 2.0 - (double)v->lo) /
                     (double)(v->hi - v->lo)
               : 0.5;
    v->view = timeline_view(v->lo, v->hi, (double)(v->hi - v->lo) / (double)span, frac);
}

void tui_timeline_lane(tui_timeline *v, int delta, int width)
{
    long nl;
    double mid, best = -1;
    const tl_item *cur = selected(v);
    if (!v->loaded || v->t.nlanes == 0)
        return;
    nl = (long)v->lane + delta;
    if (nl < 0)
        nl = 0;
    if (nl >= (long)v->t.nlanes)
        nl = (long)v->t.nlanes - 1;
    v->lane = (int)nl;
    mid = cur ? (double)cur->start_ns : ((double)v->view.t0 + (double)v->view.t1) / 2.0;
    v->item = -1;
    for (size_t i = 0; i < v->t.nitems; i++) {
        const tl_item *it = &v->t.items[i];
        double d;
        if (it->lane != v->lane || it->end_ns < v->view.t0 || it->start_ns >= v->view.t1)
            continue;
        d = mid < (double)it->start_ns ? (double)it->start_ns - mid
            : mid > (double)it->end_ns ? mid - (double)it->end_ns
                                        : 0.0;
        if (best < 0 || d < best) {
            best = d;
            v->item = (long)i;
        }
    }
    follow(v);
    (void)width;
}

void tui_timeline_step(tui_timeline *v, int delta, int width)
{
    long n;
    if (!v->loaded || delta == 0)
        return;
    n = (long)v->t.nitems;
    if (!selected(v) || v->t.items[v->item].lane != v->lane) {
        long first = -1, last = -1, pick = -1;
        for (long i = 0; i < n; i++) {
            const tl_item *it = &v->t.items[i];
            if (it->lane != v->lane)
                continue;
            if (first < 0)
                first = i;
            last = i;
            if (delta > 0 && pick < 0 && it->end_ns >= v->view.t0)
                pick = i;
            if (delta < 0 && it->start_ns < v->view.t1)
                pick = i;
        }
        if (pick < 0)
            pick = delta > 0 ? last : first;
        if (pick >= 0)
            v->item = pick;
    } else {
        long step = delta > 0 ? 1 : -1;
        for (long i = v->item + step; i >= 0 && i < n; i += step)
            if (v->t.items[i].lane == v->lane) {
                v->item = i;
                break;
            }
    }
    follow(v);
    (void)width;
}

void tui_timeline_focus(tui_timeline *v, int width)
{
    const tl_item *it = selected(v);
    double s, d, full, zoom;
    if (!it)
        return;
    d = (double)(it->end_ns - it->start_ns);
    if (d < (double)ZOOM_MIN_NS)
        d = (double)ZOOM_MIN_NS;
    if (d < (double)width)
        d = (double)width;
    s = d * 1.5;
    full = (double)(v->hi - v->lo);
    zoom = s < full ? full / s : 1.0;
    v->view = timeline_view(v->lo, v->hi, zoom,
                            full > 0 ? ((double)it->start_ns + (double)(it->end_ns - it->start_ns) / 2.0 -
                                        (double)v->lo) / full
                                     : 0.5);
}

/* ---- cells ------------------------------------------------------------------------- */

static tui_tlmark mark_of(const tl_item *it)
{
    switch (it->kind) {
    case TL_KERNEL: return TLM_KERNEL;
    case TL_MEMSET: return TLM_MEMSET;
    case TL_API: return TLM_API;
    case TL_RANGE: return TLM_RANGE;
    case TL_MEMCPY:
        if (it->flags & TL_PAGEABLE)
            return TLM_PAGEABLE;
        if (it->flags & TL_PINNED)
            return TLM_PINNED;
        return TLM_COPY;
    }
    return TLM_COPY;
}

void tui_timeline_idle(const tui_timeline *v, int width, bool *idle)
{
    for (int c = 0; c < width; c++) {
        uint64_t cs = timeline_view_time(&v->view, width, c);
        uint64_t ce = timeline_view_time(&v->view, width, c + 1);
        uint64_t covered = 0;
        bool starts = false;
        idle[c] = false;
        if (!v->loaded)
            continue;
        for (size_t g = 0; g < v->gaps.n; g++) {
            uint64_t s = v->gaps.v[g].start_ns, e = v->gaps.v[g].end_ns;
            if (e <= cs || s >= ce)
                continue;
            covered += (e < ce ? e : ce) - (s > cs ? s : cs);
            if (s >= cs)
                starts = true;
        }
        idle[c] = ce > cs && (covered * 2 >= ce - cs || starts);
    }
}

void tui_timeline_cells(const tui_timeline *v, int lane, int width, tui_tlcell *out)
{
    tl_cell *row;
    bool *idle;
    bool gpu;
    for (int c = 0; c < width; c++) {
        out[c].mark = TLM_NONE;
        out[c].item = -1;
        out[c].selected = false;
    }
    if (!v->loaded || lane < 0 || (size_t)lane >= v->t.nlanes || width < 1)
        return;
    row = malloc((size_t)width * sizeof *row);
    idle = malloc((size_t)width * sizeof *idle);
    if (!row || !idle) {
        free(row);
        free(idle);
        return;
    }
    gpu = timeline_lane_is_gpu(v->t.lanes[lane].kind);
    timeline_layout_row(&v->t, lane, &v->view, width, row);
    tui_timeline_idle(v, width, idle);
    for (int c = 0; c < width; c++) {
        if (row[c].item >= 0) {
            out[c].item = row[c].item;
            out[c].mark = mark_of(&v->t.items[row[c].item]);
        } else if (gpu && idle[c]) {
            out[c].mark = TLM_IDLE;
        }
    }
    if (selected(v) && v->t.items[v->item].lane == lane) {
        int c0, c1;
        const tl_item *it = &v->t.items[v->item];
        if (timeline_view_cols(&v->view, width, it->start_ns, it->end_ns, &c0, &c1))
            for (int c = c0; c <= c1; c++) {
                out[c].selected = true;
                out[c].item = (int)v->item;
                out[c].mark = mark_of(it);
            }
    }
    free(row);
    free(idle);
}

int tui_timeline_axis(const tui_timeline *v, int width, char *out, size_t n, int *ticks, int max)
{
    uint64_t step, t;
    int nt = 0, next_free = 0;
    if (n == 0)
        return 0;
    if (width < 1 || (size_t)width >= n) {
        out[0] = '\0';
        return 0;
    }
    memset(out, ' ', (size_t)width);
    out[width] = '\0';
    if (!v->loaded)
        return 0;
    step = timeline_tick_ns(&v->view, width, 12);
    t = (v->view.t0 + step - 1) / step * step;
    for (; t < v->view.t1; t += step) {
        char label[32];
        size_t len;
        double x = ((double)t - (double)v->view.t0) * (double)width / (double)(v->view.t1 - v->view.t0);
        int c = (int)floor(x);
        if (c < 0 || c >= width)
            continue;
        if (nt < max)
            ticks[nt] = c;
        nt++;
        timeline_format_ns((double)t, label, sizeof label);
        len = strlen(label);
        if (c >= next_free && c + (int)len <= width) {
            memcpy(out + c, label, len);
            next_free = c + (int)len + 1;
        }
        if (step == 0)
            break;
    }
    return nt < max ? nt : max;
}

/* ---- text ------------------------------------------------------------------------------- */

void tui_timeline_detail(const tui_timeline *v, bool ascii, char *buf, size_t n)
{
    const tl_item *it = selected(v);
    char a[32], b[32], c[32];
    size_t at = 0;
    double gbps;
    if (n == 0)
        return;
    buf[0] = '\0';
    if (!it)
        return;
    tui_fmt_time_ms((double)it->start_ns / 1e6, ascii, a, sizeof a);
    tui_fmt_time_ms((double)(it->end_ns - it->start_ns) / 1e6, ascii, b, sizeof b);
    at = strfmt_append(buf, n, at, "%s on %s: start %s, duration %s", it->name, v->t.lanes[it->lane].name, a, b);
    if (it->kind == TL_MEMCPY || it->kind == TL_MEMSET) {
        at = strfmt_append(buf, n, at, ", %s", units_bytes((double)it->bytes, c, sizeof c));
        gbps = timeline_item_gbps(it);
        if (gbps >= 0)
            at = strfmt_append(buf, n, at, " at %.3g GB/s", gbps);
    }
    if (it->kind == TL_MEMCPY)
        at = strfmt_append(buf, n, at, "%s", it->flags & TL_PAGEABLE ? ", pageable" : it->flags & TL_PINNED ? ", pinned" : "");
    if (it->flags & TL_MANAGED)
        at = strfmt_append(buf, n, at, ", managed memory");
    if (it->stream && v->t.lanes[it->lane].kind != TL_LANE_STREAM)
        at = strfmt_append(buf, n, at, ", stream %u", it->stream);
    (void)at;
}

void tui_timeline_summary(const tui_timeline *v, char *buf, size_t n)
{
    char span[32], idle[32], gap[32], when[32], busy[UNITS_MAX];
    size_t at = 0, pageable = 0, copies = 0, kernels = 0;
    const tl_gap *longest = NULL;
    uint64_t gspan;
    if (n == 0)
        return;
    buf[0] = '\0';
    if (!v->loaded)
        return;
    for (size_t i = 0; i < v->t.nitems; i++) {
        const tl_item *it = &v->t.items[i];
        if (it->kind == TL_KERNEL)
            kernels++;
        if (it->kind == TL_MEMCPY) {
            copies++;
            if (it->flags & TL_PAGEABLE)
                pageable++;
        }
    }
    at = strfmt_append(buf, n, at, "%zu events: %zu kernels, %zu copies", v->t.nitems, kernels, copies);
    if (pageable)
        at = strfmt_append(buf, n, at, " (%zu from pageable memory)", pageable);
    gspan = v->gaps.last_ns - v->gaps.first_ns;
    if (gspan > 0) {
        timeline_format_ns((double)gspan, span, sizeof span);
        timeline_format_ns((double)v->gaps.idle_ns, idle, sizeof idle);
        units_pct(100.0 * (double)v->gaps.busy_ns / (double)gspan, busy, sizeof busy);
        at = strfmt_append(buf, n, at, "; GPU busy %s of %s, idle %s", busy, span, idle);
        for (size_t g = 0; g < v->gaps.n; g++)
            if (!longest || v->gaps.v[g].end_ns - v->gaps.v[g].start_ns > longest->end_ns - longest->start_ns)
                longest = &v->gaps.v[g];
        if (longest) {
            timeline_format_ns((double)(longest->end_ns - longest->start_ns), gap, sizeof gap);
            timeline_format_ns((double)longest->start_ns, when, sizeof when);
            at = strfmt_append(buf, n, at, " (longest gap %s at %s)", gap, when);
        }
    }
    if (v->t.dropped)
        at = strfmt_append(buf, n, at, "; %llu records lost", (unsigned long long)v->t.dropped);
    (void)at;
}

void tui_timeline_window(const tui_timeline *v, char *buf, size_t n)
{
    char a[32], b[32];
    double zoom;
    if (n == 0)
        return;
    buf[0] = '\0';
    if (!v->loaded)
        return;
    timeline_format_ns((double)v->view.t0, a, sizeof a);
    timeline_format_ns((double)v->view.t1, b, sizeof b);
    zoom = (double)(v->hi - v->lo) / (double)(v->view.t1 - v->view.t0);
    snprintf(buf, n, "%s - %s (%.*fx)", a, b, zoom < 10 ? 1 : 0, zoom);
}

/* ---- glyphs ---------------------------------------------------------------------------- */

typedef struct mark_info {
    const char *utf8, *ascii, *name;
    tui_role role;
} mark_info;

static const mark_info marks[TLM_COUNT] = {
    [TLM_NONE] = {.utf8 = " ", .ascii = " ", .name = "nothing", .role = ROLE_NORMAL},
    [TLM_IDLE] = {.utf8 = "\xC2\xB7", .ascii = ".", .name = "GPU idle", .role = ROLE_DIM},
    [TLM_KERNEL] = {.utf8 = "\xE2\x96\x88", .ascii = "#", .name = "kernel", .role = ROLE_KERNEL},
    [TLM_PINNED] = {.utf8 = "\xE2\x96\x93", .ascii = "=", .name = "pinned copy", .role = ROLE_COPY},
    [TLM_PAGEABLE] = {.utf8 = "\xE2\x96\x91", .ascii = "~", .name = "pageable copy", .role = ROLE_PAGEABLE},
    [TLM_COPY] = {.utf8 = "\xE2\x96\x92", .ascii = "+", .name = "copy", .role = ROLE_COPY},
    [TLM_MEMSET] = {.utf8 = "\xE2\x96\x9A", .ascii = "m", .name = "memset", .role = ROLE_MEMSET},
    [TLM_API] = {.utf8 = "\xE2\x94\x81", .ascii = "-", .name = "runtime call", .role = ROLE_HOST},
    [TLM_RANGE] = {.utf8 = "\xE2\x95\x90", .ascii = "^", .name = "NVTX range", .role = ROLE_RANGE},
};

const char *tui_timeline_glyph(tui_tlmark m, bool ascii, tui_role *role)
{
    if ((int)m < 0 || m >= TLM_COUNT)
        m = TLM_NONE;
    if (role)
        *role = marks[m].role;
    return ascii ? marks[m].ascii : marks[m].utf8;
}

const char *tui_timeline_mark_name(tui_tlmark m)
{
    if ((int)m < 0 || m >= TLM_COUNT)
        m = TLM_NONE;
    return marks[m].name;
}

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

void tui_timeline_free(tui_timeline *view)
{
    timeline_free(&view->t);
    timeline_gaps_free(&view->gaps);
    memset(view, 0, sizeof *view);
    view->item = -1;
}

static int first_gpu_lane(const timeline *t)
{
    for (size_t i = 0; i < t->nlanes; i++)
        if (timeline_lane_is_gpu(t->lanes[i].kind))
            return (int)i;
    return 0;
}

bool tui_timeline_load(tui_timeline *view, const char *path, cl_err *err)
{
    timeline t;
    tl_gaps g;
    uint64_t lo = 0, hi = 0;
    if (!trace_load(path, &t, err))
        return false;
    if (!timeline_order_lanes(&t, err)) {
        timeline_free(&t);
        return false;
    }
    timeline_normalise(&t);
    if (!timeline_span(&t, &lo, &hi)) {
        timeline_free(&t);
        return err_set(err, "%s holds no events", path);
    }
    if (!timeline_gaps(&t, TL_GPU_LANES, 0, &g, err)) {
        timeline_free(&t);
        return false;
    }
    tui_timeline_free(view);
    view->t = t;
    view->gaps = g;
    view->loaded = true;
    snprintf(view->path, sizeof view->path, "%s", path);
    view->lo = lo;
    view->hi = hi > lo ? hi : lo + 1;
    view->view = timeline_view(view->lo, view->hi, 1.0, 0.5);
    view->lane = first_gpu_lane(&view->t);
    view->item = -1;
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

void tui_timeline_zoom(tui_timeline *view, double factor, int width)
{
    const tl_item *it = selected(view);
    int col = width / 2, c0, c1;
    tl_view nv;
    if (!view->loaded)
        return;
    if (it && timeline_view_cols(&view->view, width, it->start_ns, it->end_ns, &c0, &c1))
        col = (c0 + c1) / 2;
    nv = timeline_view_zoom(&view->view, view->lo, view->hi, factor, width, col);
    if (nv.t1 - nv.t0 < ZOOM_MIN_NS && view->hi - view->lo >= ZOOM_MIN_NS && factor > 1.0)
        return;
    view->view = nv;
}

void tui_timeline_pan(tui_timeline *view, int cols, int width)
{
    if (view->loaded)
        view->view = timeline_view_pan(&view->view, view->lo, view->hi, cols, width);
}

void tui_timeline_reset(tui_timeline *view)
{
    if (view->loaded)
        view->view = timeline_view(view->lo, view->hi, 1.0, 0.5);
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

void tui_timeline_lane(tui_timeline *view, int delta, int width)
{
    long nl;
    double mid, best = -1;
    const tl_item *cur = selected(view);
    if (!view->loaded || view->t.nlanes == 0)
        return;
    nl = (long)view->lane + delta;
    if (nl < 0)
        nl = 0;
    if (nl >= (long)view->t.nlanes)
        nl = (long)view->t.nlanes - 1;
    view->lane = (int)nl;
    mid = cur ? (double)cur->start_ns : ((double)view->view.t0 + (double)view->view.t1) / 2.0;
    view->item = -1;
    for (size_t i = 0; i < view->t.nitems; i++) {
        const tl_item *it = &view->t.items[i];
        double d;
        if (it->lane != view->lane || it->end_ns < view->view.t0 || it->start_ns >= view->view.t1)
            continue;
        d = mid < (double)it->start_ns ? (double)it->start_ns - mid
            : mid > (double)it->end_ns ? mid - (double)it->end_ns
                                        : 0.0;
        if (best < 0 || d < best) {
            best = d;
            view->item = (long)i;
        }
    }
    follow(view);
    (void)width;
}

void tui_timeline_step(tui_timeline *view, int delta, int width)
{
    long n;
    if (!view->loaded || delta == 0)
        return;
    n = (long)view->t.nitems;
    if (!selected(view) || view->t.items[view->item].lane != view->lane) {
        long first = -1, last = -1, pick = -1;
        for (long i = 0; i < n; i++) {
            const tl_item *it = &view->t.items[i];
            if (it->lane != view->lane)
                continue;
            if (first < 0)
                first = i;
            last = i;
            if (delta > 0 && pick < 0 && it->end_ns >= view->view.t0)
                pick = i;
            if (delta < 0 && it->start_ns < view->view.t1)
                pick = i;
        }
        if (pick < 0)
            pick = delta > 0 ? last : first;
        if (pick >= 0)
            view->item = pick;
    } else {
        long step = delta > 0 ? 1 : -1;
        for (long i = view->item + step; i >= 0 && i < n; i += step)
            if (view->t.items[i].lane == view->lane) {
                view->item = i;
                break;
            }
    }
    follow(view);
    (void)width;
}

void tui_timeline_focus(tui_timeline *view, int width)
{
    const tl_item *it = selected(view);
    double s, d, full, zoom;
    if (!it)
        return;
    d = (double)(it->end_ns - it->start_ns);
    if (d < (double)ZOOM_MIN_NS)
        d = (double)ZOOM_MIN_NS;
    if (d < (double)width)
        d = (double)width;
    s = d * 1.5;
    full = (double)(view->hi - view->lo);
    zoom = s < full ? full / s : 1.0;
    view->view = timeline_view(view->lo, view->hi, zoom,
                            full > 0 ? ((double)it->start_ns + (double)(it->end_ns - it->start_ns) / 2.0 -
                                        (double)view->lo) / full
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

void tui_timeline_idle(const tui_timeline *view, int width, bool *idle)
{
    for (int c = 0; c < width; c++) {
        uint64_t cs = timeline_view_time(&view->view, width, c);
        uint64_t ce = timeline_view_time(&view->view, width, c + 1);
        uint64_t covered = 0;
        bool starts = false;
        idle[c] = false;
        if (!view->loaded)
            continue;
        for (size_t g = 0; g < view->gaps.n; g++) {
            uint64_t s = view->gaps.v[g].start_ns, e = view->gaps.v[g].end_ns;
            if (e <= cs || s >= ce)
                continue;
            covered += (e < ce ? e : ce) - (s > cs ? s : cs);
            if (s >= cs)
                starts = true;
        }
        idle[c] = ce > cs && (covered * 2 >= ce - cs || starts);
    }
}

void tui_timeline_cells(const tui_timeline *view, int lane, int width, tui_tlcell *out)
{
    tl_cell *row;
    bool *idle;
    bool gpu;
    for (int c = 0; c < width; c++) {
        out[c].mark = TLM_NONE;
        out[c].item = -1;
        out[c].selected = false;
    }
    if (!view->loaded || lane < 0 || (size_t)lane >= view->t.nlanes || width < 1)
        return;
    row = malloc((size_t)width * sizeof *row);
    idle = malloc((size_t)width * sizeof *idle);
    if (!row || !idle) {
        free(row);
        free(idle);
        return;
    }
    gpu = timeline_lane_is_gpu(view->t.lanes[lane].kind);
    timeline_layout_row(&view->t, lane, &view->view, width, row);
    tui_timeline_idle(view, width, idle);
    for (int c = 0; c < width; c++) {
        if (row[c].item >= 0) {
            out[c].item = row[c].item;
            out[c].mark = mark_of(&view->t.items[row[c].item]);
        } else if (gpu && idle[c]) {
            out[c].mark = TLM_IDLE;
        }
    }
    if (selected(view) && view->t.items[view->item].lane == lane) {
        int c0, c1;
        const tl_item *it = &view->t.items[view->item];
        if (timeline_view_cols(&view->view, width, it->start_ns, it->end_ns, &c0, &c1))
            for (int c = c0; c <= c1; c++) {
                out[c].selected = true;
                out[c].item = (int)view->item;
                out[c].mark = mark_of(it);
            }
    }
    free(row);
    free(idle);
}

int tui_timeline_axis(const tui_timeline *view, int width, char *out, size_t out_size, int *ticks,
                      int max)
{
    uint64_t step, t;
    int nt = 0, next_free = 0;
    if (out_size == 0)
        return 0;
    if (width < 1 || (size_t)width >= out_size) {
        out[0] = '\0';
        return 0;
    }
    memset(out, ' ', (size_t)width);
    out[width] = '\0';
    if (!view->loaded)
        return 0;
    step = timeline_tick_ns(&view->view, width, 12);
    t = (view->view.t0 + step - 1) / step * step;
    for (; t < view->view.t1; t += step) {
        char label[32];
        size_t len;
        double x = ((double)t - (double)view->view.t0) * (double)width /
                   (double)(view->view.t1 - view->view.t0);
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

void tui_timeline_detail(const tui_timeline *view, bool ascii, char *buf, size_t buf_size)
{
    const tl_item *it = selected(view);
    char a[32], b[32], c[32];
    size_t at = 0;
    double gbps;
    if (buf_size == 0)
        return;
    buf[0] = '\0';
    if (!it)
        return;
    tui_fmt_time_ms((double)it->start_ns / 1e6, ascii, a, sizeof a);
    tui_fmt_time_ms((double)(it->end_ns - it->start_ns) / 1e6, ascii, b, sizeof b);
    at = strfmt_append(buf, buf_size, at, "%s on %s: start %s, duration %s", it->name,
                       view->t.lanes[it->lane].name, a, b);
    if (it->kind == TL_MEMCPY || it->kind == TL_MEMSET) {
        at = strfmt_append(buf, buf_size, at, ", %s", units_bytes((double)it->bytes, c, sizeof c));
        gbps = timeline_item_gbps(it);
        if (gbps >= 0)
            at = strfmt_append(buf, buf_size, at, " at %.3g GB/s", gbps);
    }
    if (it->kind == TL_MEMCPY)
        at = strfmt_append(buf, buf_size, at, "%s",
                           it->flags & TL_PAGEABLE ? ", pageable"
                           : it->flags & TL_PINNED ? ", pinned"
                                                   : "");
    if (it->flags & TL_MANAGED)
        at = strfmt_append(buf, buf_size, at, ", managed memory");
    if (it->stream && view->t.lanes[it->lane].kind != TL_LANE_STREAM)
        at = strfmt_append(buf, buf_size, at, ", stream %u", it->stream);
    (void)at;
}

void tui_timeline_summary(const tui_timeline *view, char *buf, size_t buf_size)
{
    char span[32], idle[32], gap[32], when[32], busy[UNITS_MAX];
    size_t at = 0, pageable = 0, copies = 0, kernels = 0;
    const tl_gap *longest = NULL;
    uint64_t gspan;
    if (buf_size == 0)
        return;
    buf[0] = '\0';
    if (!view->loaded)
        return;
    for (size_t i = 0; i < view->t.nitems; i++) {
        const tl_item *it = &view->t.items[i];
        if (it->kind == TL_KERNEL)
            kernels++;
        if (it->kind == TL_MEMCPY) {
            copies++;
            if (it->flags & TL_PAGEABLE)
                pageable++;
        }
    }
    at = strfmt_append(buf, buf_size, at, "%zu events: %zu kernels, %zu copies", view->t.nitems,
                       kernels, copies);
    if (pageable)
        at = strfmt_append(buf, buf_size, at, " (%zu from pageable memory)", pageable);
    gspan = view->gaps.last_ns - view->gaps.first_ns;
    if (gspan > 0) {
        timeline_format_ns((double)gspan, span, sizeof span);
        timeline_format_ns((double)view->gaps.idle_ns, idle, sizeof idle);
        units_pct(100.0 * (double)view->gaps.busy_ns / (double)gspan, busy, sizeof busy);
        at = strfmt_append(buf, buf_size, at, "; GPU busy %s of %s, idle %s", busy, span, idle);
        for (size_t g = 0; g < view->gaps.n; g++)
            if (!longest || view->gaps.v[g].end_ns - view->gaps.v[g].start_ns >
                                longest->end_ns - longest->start_ns)
                longest = &view->gaps.v[g];
        if (longest) {
            timeline_format_ns((double)(longest->end_ns - longest->start_ns), gap, sizeof gap);
            timeline_format_ns((double)longest->start_ns, when, sizeof when);
            at = strfmt_append(buf, buf_size, at, " (longest gap %s at %s)", gap, when);
        }
    }
    if (view->t.dropped)
        at = strfmt_append(buf, buf_size, at, "; %llu records lost",
                           (unsigned long long)view->t.dropped);
    (void)at;
}

void tui_timeline_window(const tui_timeline *view, char *buf, size_t buf_size)
{
    char a[32], b[32];
    double zoom;
    if (buf_size == 0)
        return;
    buf[0] = '\0';
    if (!view->loaded)
        return;
    timeline_format_ns((double)view->view.t0, a, sizeof a);
    timeline_format_ns((double)view->view.t1, b, sizeof b);
    zoom = (double)(view->hi - view->lo) / (double)(view->view.t1 - view->view.t0);
    snprintf(buf, buf_size, "%s - %s (%.*fx)", a, b, zoom < 10 ? 1 : 0, zoom);
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

const char *tui_timeline_glyph(tui_tlmark mark, bool ascii, tui_role *role)
{
    if ((int)mark < 0 || mark >= TLM_COUNT)
        mark = TLM_NONE;
    if (role)
        *role = marks[mark].role;
    return ascii ? marks[mark].ascii : marks[mark].utf8;
}

const char *tui_timeline_mark_name(tui_tlmark mark)
{
    if ((int)mark < 0 || mark >= TLM_COUNT)
        mark = TLM_NONE;
    return marks[mark].name;
}

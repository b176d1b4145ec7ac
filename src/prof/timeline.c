#include "prof/timeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

void timeline_init(timeline *tl)
{
    memset(tl, 0, sizeof *tl);
}

void timeline_free(timeline *tl)
{
    free(tl->lanes);
    free(tl->items);
    timeline_init(tl);
}

static const char *const lane_kind_names[] = {"stream", "h2d", "d2h", "d2d", "copy", "api", "nvtx"};
static const char *const kind_names[] = {"kernel", "memcpy", "memset", "runtime", "nvtx"};

const char *timeline_lane_kind_name(tl_lane_kind kind)
{
    if ((unsigned)kind < sizeof lane_kind_names / sizeof lane_kind_names[0])
        return lane_kind_names[kind];
    return "stream";
}

bool timeline_lane_kind_parse(const char *text, tl_lane_kind *kind)
{
    for (size_t i = 0; text && i < sizeof lane_kind_names / sizeof lane_kind_names[0]; i++)
        if (strcmp(text, lane_kind_names[i]) == 0) {
            *kind = (tl_lane_kind)i;
            return true;
        }
    return false;
}

const char *timeline_kind_name(tl_kind kind)
{
    if ((unsigned)kind < sizeof kind_names / sizeof kind_names[0])
        return kind_names[kind];
    return "kernel";
}

bool timeline_kind_parse(const char *text, tl_kind *kind)
{
    for (size_t i = 0; text && i < sizeof kind_names / sizeof kind_names[0]; i++)
        if (strcmp(text, kind_names[i]) == 0) {
            *kind = (tl_kind)i;
            return true;
        }
    return false;
}

bool timeline_lane_is_gpu(tl_lane_kind kind)
{
    return kind == TL_LANE_STREAM || kind == TL_LANE_H2D || kind == TL_LANE_D2H ||
           kind == TL_LANE_D2D || kind == TL_LANE_COPY;
}

static void default_lane_name(tl_lane_kind kind, uint32_t stream, char *out, size_t n)
{
    switch (kind) {
    case TL_LANE_STREAM:
        snprintf(out, n, "stream %u", stream);
        break;
    case TL_LANE_H2D:
        snprintf(out, n, "copies H2D");
        break;
    case TL_LANE_D2H:
        snprintf(out, n, "copies D2H");
        break;
    case TL_LANE_D2D:
        snprintf(out, n, "copies D2D");
        break;
    case TL_LANE_COPY:
        snprintf(out, n, "copies other");
        break;
    case TL_LANE_API:
        snprintf(out, n, "runtime API");
        break;
    case TL_LANE_NVTX:
        snprintf(out, n, "NVTX");
        break;
    }
}

int timeline_lane_named(timeline *tl, tl_lane_kind kind, uint32_t stream, const char *name,
                        cl_err *err)
{
    if (!grow_one((void **)&tl->lanes, &tl->lanes_cap, tl->nlanes, sizeof *tl->lanes, 8)) {
        err_set(err, "out of memory adding a timeline lane");
        return -1;
    }
    tl_lane *l = &tl->lanes[tl->nlanes];
    memset(l, 0, sizeof *l);
    l->kind = kind;
    l->stream = kind == TL_LANE_STREAM ? stream : 0;
    if (name && name[0])
        snprintf(l->name, sizeof l->name, "%s", name);
    else
        default_lane_name(kind, l->stream, l->name, sizeof l->name);
    return (int)tl->nlanes++;
}

int timeline_lane(timeline *tl, tl_lane_kind kind, uint32_t stream, cl_err *err)
{
    for (size_t i = 0; i < tl->nlanes; i++)
        if (tl->lanes[i].kind == kind && (kind != TL_LANE_STREAM || tl->lanes[i].stream == stream))
            return (int)i;
    return timeline_lane_named(tl, kind, stream, NULL, err);
}

bool timeline_add(timeline *tl, const tl_item *it, cl_err *err)
{
    if (it->lane < 0 || (size_t)it->lane >= tl->nlanes)
        return err_set(err, "timeline item '%s' names lane %d, which does not exist", it->name,
                       it->lane);
    if (it->end_ns < it->start_ns)
        return err_set(err, "timeline item '%s' ends before it starts", it->name);
    if (tl->nitems >= TL_MAX_ITEMS) {
        tl->dropped++;
        return true;
    }
    if (!grow_one((void **)&tl->items, &tl->items_cap, tl->nitems, sizeof *tl->items, 256))
        return err_set(err, "out of memory adding a timeline item");
    tl->items[tl->nitems++] = *it;
    return true;
}

static int item_cmp(const void *pa, const void *pb)
{
    const tl_item *a = pa, *b = pb;
    if (a->start_ns != b->start_ns)
        return a->start_ns < b->start_ns ? -1 : 1;
    if (a->end_ns != b->end_ns)
        return a->end_ns > b->end_ns ? -1 : 1;
    return (a->lane > b->lane) - (a->lane < b->lane);
}

void timeline_sort(timeline *tl)
{
    if (tl->nitems > 1)
        qsort(tl->items, tl->nitems, sizeof *tl->items, item_cmp);
}

static int lane_rank(tl_lane_kind k)
{
    switch (k) {
    case TL_LANE_NVTX:
        return 0;
    case TL_LANE_API:
        return 1;
    case TL_LANE_H2D:
        return 2;
    case TL_LANE_STREAM:
        return 3;
    case TL_LANE_D2H:
        return 4;
    case TL_LANE_D2D:
        return 5;
    case TL_LANE_COPY:
        return 6;
    }
    return 7;
}

static int lane_cmp(const tl_lane *a, const tl_lane *b)
{
    int ra = lane_rank(a->kind), rb = lane_rank(b->kind);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    return (a->stream > b->stream) - (a->stream < b->stream);
}

bool timeline_order_lanes(timeline *tl, cl_err *err)
{
    if (tl->nlanes < 2)
        return true;
    size_t n = tl->nlanes;
    size_t *order = malloc(n * sizeof *order);
    int *newidx = malloc(n * sizeof *newidx);
    tl_lane *lanes = malloc(n * sizeof *lanes);
    if (!order || !newidx || !lanes) {
        free(order);
        free(newidx);
        free(lanes);
        return err_set(err, "out of memory ordering timeline lanes");
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = 1; i < n; i++) {
        size_t v = order[i], j = i;
        while (j > 0 && lane_cmp(&tl->lanes[order[j - 1]], &tl->lanes[v]) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    for (size_t i = 0; i < n; i++) {
        lanes[i] = tl->lanes[order[i]];
        newidx[order[i]] = (int)i;
    }
    for (size_t i = 0; i < tl->nitems; i++)
        tl->items[i].lane = newidx[tl->items[i].lane];
    memcpy(tl->lanes, lanes, n * sizeof *lanes);
    free(order);
    free(newidx);
    free(lanes);
    return true;
}

uint64_t timeline_normalise(timeline *tl)
{
    uint64_t t0 = 0, t1 = 0;
    if (!timeline_span(tl, &t0, &t1))
        return 0;
    for (size_t i = 0; i < tl->nitems; i++) {
        tl->items[i].start_ns -= t0;
        tl->items[i].end_ns -= t0;
    }
    return t0;
}

bool timeline_span(const timeline *tl, uint64_t *t0, uint64_t *t1)
{
    if (tl->nitems == 0)
        return false;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < tl->nitems; i++) {
        if (tl->items[i].start_ns < lo)
            lo = tl->items[i].start_ns;
        if (tl->items[i].end_ns > hi)
            hi = tl->items[i].end_ns;
    }
    *t0 = lo;
    *t1 = hi;
    return true;
}

double timeline_item_gbps(const tl_item *it)
{
    if (it->bytes == 0 || it->end_ns <= it->start_ns)
        return -1.0;
    return (double)it->bytes / (double)(it->end_ns - it->start_ns);
}

/* ---- gaps ----------------------------------------------------------------- */

static int gap_cmp(const void *pa, const void *pb)
{
    const tl_gap *a = pa, *b = pb;
    if (a->start_ns != b->start_ns)
        return a->start_ns < b->start_ns ? -1 : 1;
    return (a->end_ns > b->end_ns) - (a->end_ns < b->end_ns);
}

static bool lane_selected(const timeline *t, int lane, int want)
{
    if (want == TL_GPU_LANES)
        return timeline_lane_is_gpu(t->lanes[lane].kind);
    return lane == want;
}

bool timeline_gaps(const timeline *tl, int lane, uint64_t min_ns, tl_gaps *out, cl_err *err)
{
    memset(out, 0, sizeof *out);
    if (lane != TL_GPU_LANES && (lane < 0 || (size_t)lane >= tl->nlanes))
        return err_set(err, "no timeline lane %d", lane);
    size_t n = 0;
    for (size_t i = 0; i < tl->nitems; i++)
        if (lane_selected(tl, tl->items[i].lane, lane))
            n++;
    if (n == 0)
        return true;
    tl_gap *iv = malloc(n * sizeof *iv);
    tl_gap *gaps = malloc(n * sizeof *gaps);
    if (!iv || !gaps) {
        free(iv);
        free(gaps);
        return err_set(err, "out of memory finding idle gaps");
    }
    size_t k = 0;
    for (size_t i = 0; i < tl->nitems; i++)
        if (lane_selected(tl, tl->items[i].lane, lane)) {
            iv[k].start_ns = tl->items[i].start_ns;
            iv[k].end_ns = tl->items[i].end_ns;
            k++;
        }
    qsort(iv, n, sizeof *iv, gap_cmp);

    uint64_t cur_s = iv[0].start_ns, cur_e = iv[0].end_ns;
    out->first_ns = cur_s;
    for (size_t i = 1; i <= n; i++) {
        if (i < n && iv[i].start_ns <= cur_e) {
            if (iv[i].end_ns > cur_e)
                cur_e = iv[i].end_ns;
            continue;
        }
        out->busy_ns += cur_e - cur_s;
        if (i == n)
            break;
        uint64_t gap = iv[i].start_ns - cur_e;
        if (gap >= min_ns && gap > 0) {
            gaps[out->n].start_ns = cur_e;
            gaps[out->n].end_ns = iv[i].start_ns;
            out->n++;
        }
        cur_s = iv[i].start_ns;
        cur_e = iv[i].end_ns;
    }
    out->last_ns = cur_e;
    out->idle_ns = (out->last_ns - out->first_ns) - out->busy_ns;
    free(iv);
    if (out->n == 0) {
        free(gaps);
        gaps = NULL;
    }
    out->v = gaps;
    return true;
}

void timeline_gaps_free(tl_gaps *gaps)
{
    free(gaps->v);
    memset(gaps, 0, sizeof *gaps);
}

/* ---- views ---------------------------------------------------------------- */

static tl_view clamp_view(double t0, double span, uint64_t lo, uint64_t hi)
{
    double full = (double)(hi > lo ? hi - lo : 1);
    if (span < 1.0)
        span = 1.0;
    if (span > full)
        span = full;
    if (t0 < (double)lo)
        t0 = (double)lo;
    if (t0 + span > (double)lo + full)
        t0 = (double)lo + full - span;
    tl_view v;
    v.t0 = (uint64_t)llround(t0);
    v.t1 = v.t0 + (uint64_t)llround(span);
    if (v.t1 <= v.t0)
        v.t1 = v.t0 + 1;
    return v;
}

tl_view timeline_view(uint64_t lo, uint64_t hi, double zoom, double center)
{
    if (!(zoom >= 1.0))
        zoom = 1.0;
    if (!(center >= 0.0))
        center = 0.0;
    if (center > 1.0)
        center = 1.0;
    double full = (double)(hi > lo ? hi - lo : 1);
    double span = full / zoom;
    double mid = (double)lo + center * full;
    return clamp_view(mid - span / 2.0, span, lo, hi);
}

tl_view timeline_view_zoom(const tl_view *view, uint64_t lo, uint64_t hi, double factor, int width,
                           int col)
{
    if (width < 1)
        width = 1;
    if (!(factor > 0.0))
        factor = 1.0;
    if (col < 0)
        col = 0;
    if (col >= width)
        col = width - 1;
    double span = (double)(view->t1 - view->t0);
    double frac = ((double)col + 0.5) / (double)width;
    double anchor = (double)view->t0 + frac * span;
    double nspan = span / factor;
    if (nspan < (double)width)
        nspan = (double)width;
    return clamp_view(anchor - frac * nspan, nspan, lo, hi);
}

tl_view timeline_view_pan(const tl_view *view, uint64_t lo, uint64_t hi, int cols, int width)
{
    if (width < 1)
        width = 1;
    double span = (double)(view->t1 - view->t0);
    double t0 = (double)view->t0 + (double)cols * span / (double)width;
    return clamp_view(t0, span, lo, hi);
}

uint64_t timeline_view_time(const tl_view *view, int width, int col)
{
    if (width < 1)
        width = 1;
    double span = (double)(view->t1 - view->t0);
    double t = (double)view->t0 + (double)col * span / (double)width;
    if (t < 0.0)
        return 0;
    return (uint64_t)llround(t);
}

/* Column holding time ns (may be outside [0, width)). */
static long col_of(const tl_view *v, int width, uint64_t ns)
{
    double span = (double)(v->t1 - v->t0);
    double x = ((double)ns - (double)v->t0) * (double)width / span;
    return (long)floor(x);
}

bool timeline_view_cols(const tl_view *view, int width, uint64_t start, uint64_t end, int *c0,
                        int *c1)
{
    if (width < 1 || view->t1 <= view->t0)
        return false;
    if (end < start)
        end = start;
    if (start >= view->t1 || end < view->t0 || (end == view->t0 && start < end))
        return false;
    long a = col_of(view, width, start);
    long b = end > start ? col_of(view, width, end - 1) : a;
    if (a < 0)
        a = 0;
    if (b >= width)
        b = width - 1;
    if (b < a)
        b = a;
    *c0 = (int)a;
    *c1 = (int)b;
    return true;
}

void timeline_layout_row(const timeline *tl, int lane, const tl_view *view, int width, tl_cell *row)
{
    if (width < 1)
        return;
    double *best = calloc((size_t)width, sizeof *best);
    for (int c = 0; c < width; c++) {
        row[c].item = -1;
        row[c].count = 0;
    }
    for (size_t i = 0; i < tl->nitems; i++) {
        const tl_item *it = &tl->items[i];
        int c0, c1;
        if (it->lane != lane ||
            !timeline_view_cols(view, width, it->start_ns, it->end_ns, &c0, &c1))
            continue;
        for (int c = c0; c <= c1; c++) {
            double cs = (double)timeline_view_time(view, width, c);
            double ce = (double)timeline_view_time(view, width, c + 1);
            double s = (double)it->start_ns > cs ? (double)it->start_ns : cs;
            double e = (double)it->end_ns < ce ? (double)it->end_ns : ce;
            double cover = e - s;
            if (cover <= 0.0)
                cover = 0.5;   /* shorter than a nanosecond of this column: still visible */
            row[c].count++;
            if (row[c].item < 0 || (best && cover > best[c])) {
                row[c].item = (int)i;
                if (best)
                    best[c] = cover;
            }
        }
    }
    free(best);
}

uint64_t timeline_tick_ns(const tl_view *view, int width, int min_cols)
{
    if (width < 1)
        width = 1;
    if (min_cols < 1)
        min_cols = 1;
    double span = (double)(view->t1 > view->t0 ? view->t1 - view->t0 : 1);
    double want = span * (double)min_cols / (double)width;
    uint64_t step = 1;
    for (;;) {
        static const uint64_t mult[] = {1, 2, 5};
        for (size_t i = 0; i < 3; i++)
            if ((double)(step * mult[i]) >= want)
                return step * mult[i];
        if (step > UINT64_MAX / 100)
            return step;
        step *= 10;
    }
}

void timeline_format_ns(double ns, char *out, size_t out_size)
{
    double a = fabs(ns);
    if (a < 1e3)
        snprintf(out, out_size, "%.0f ns", ns);
    else if (a < 1e6)
        snprintf(out, out_size, "%.*f us", a < 1e4 ? 2 : a < 1e5 ? 1 : 0, ns / 1e3);
    else if (a < 1e9)
        snprintf(out, out_size, "%.*f ms", a < 1e7 ? 2 : a < 1e8 ? 1 : 0, ns / 1e6);
    else
        snprintf(out, out_size, "%.3f s", ns / 1e9);
}

#include "prof/tlsummary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int interval_cmp(const void *a, const void *b)
{
    const tl_gap *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return x->end_ns < y->end_ns ? -1 : x->end_ns > y->end_ns;
}

/* Sorts v and merges overlapping or touching intervals in place; returns
 * how many disjoint ones remain at the front. */
static size_t merge(tl_gap *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, interval_cmp);
    size_t m = 0;
    for (size_t i = 1; i < n; i++) {
        if (v[i].start_ns <= v[m].end_ns) {
            if (v[i].end_ns > v[m].end_ns)
                v[m].end_ns = v[i].end_ns;
        } else {
            v[++m] = v[i];
        }
    }
    return m + 1;
}

static uint64_t length(const tl_gap *v, size_t n)
{
    uint64_t t = 0;
    for (size_t i = 0; i < n; i++)
        t += v[i].end_ns - v[i].start_ns;
    return t;
}

/* Time in both of two disjoint sorted lists. */
static uint64_t intersect(const tl_gap *a, size_t na, const tl_gap *b, size_t nb)
{
    uint64_t t = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        uint64_t s = a[i].start_ns > b[j].start_ns ? a[i].start_ns : b[j].start_ns;
        uint64_t e = a[i].end_ns < b[j].end_ns ? a[i].end_ns : b[j].end_ns;
        if (e > s)
            t += e - s;
        if (a[i].end_ns < b[j].end_ns)
            i++;
        else
            j++;
    }
    return t;
}

uint64_t tlsummary_union(tl_gap *gaps, size_t ngaps)
{
    return length(gaps, merge(gaps, ngaps));
}

uint64_t tlsummary_both(tl_gap *first, size_t na, tl_gap *second, size_t nb)
{
    size_t ma = merge(first, na), mb = merge(second, nb);
    return intersect(first, ma, second, mb);
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static bool is_gpu_item(const timeline *t, const tl_item *it)
{
    return timeline_lane_is_gpu(t->lanes[it->lane].kind) &&
           (it->kind == TL_KERNEL || it->kind == TL_MEMCPY || it->kind == TL_MEMSET);
}

static uint64_t longest(const tl_gaps *g)
{
    uint64_t m = 0;
    for (size_t i = 0; i < g->n; i++)
        if (g->v[i].end_ns - g->v[i].start_ns > m)
            m = g->v[i].end_ns - g->v[i].start_ns;
    return m;
}

/* The interval lists the overlap figures need. */
typedef struct tls_sets {
    tl_gap *kern, *copy, *up, *down;
    size_t nkern, ncopy, nup, ndown;
    uint32_t *streams;
    size_t nstreams;
    int *lane_of;              /* timeline lane -> index in out->lanes, or -1 */
} tls_sets;

static void sets_free(tls_sets *x)
{
    free(x->kern);
    free(x->copy);
    free(x->up);
    free(x->down);
    free(x->streams);
    free(x->lane_of);
}

/* One item into the totals, its lane's tally and the interval lists. */
static void tally(const timeline *t, const tl_item *it, tl_summary *out, tls_sets *x)
{
    tl_lane_kind lk = t->lanes[it->lane].kind;
    tls_lane *ln = &out->lanes[x->lane_of[it->lane]];
    tl_gap iv = {it->start_ns, it->end_ns};
    x->streams[x->nstreams++] = it->stream;
    if (it->kind == TL_KERNEL) {
        out->kernels++;
        ln->kernels++;
        out->kernel_sum_ns += it->end_ns - it->start_ns;
        x->kern[x->nkern++] = iv;
        return;
    }
    if (it->kind == TL_MEMSET) {
        out->memsets++;
        ln->memsets++;
        return;
    }
    out->copies++;
    ln->copies++;
    ln->copy_bytes += it->bytes;
    x->copy[x->ncopy++] = iv;
    if (lk == TL_LANE_H2D) {
        out->h2d++;
        out->h2d_bytes += it->bytes;
        x->up[x->nup++] = iv;
    } else if (lk == TL_LANE_D2H) {
        out->d2h++;
        out->d2h_bytes += it->bytes;
        x->down[x->ndown++] = iv;
    }
    if (it->flags & TL_PINNED) {
        out->pinned++;
        out->pinned_bytes += it->bytes;
        ln->pinned++;
    } else if (it->flags & TL_PAGEABLE) {
        out->pageable++;
        out->pageable_bytes += it->bytes;
        ln->pageable++;
    }
}

/* Busy time, idle time and gaps of each GPU lane and of the whole GPU. */
static bool lane_gaps(const timeline *t, uint64_t gap_min_ns, tl_summary *out, const tls_sets *x,
                      cl_err *e)
{
    tl_gaps g;
    if (!timeline_gaps(t, TL_GPU_LANES, gap_min_ns, &g, e))
        return false;
    out->span_ns = g.last_ns - g.first_ns;
    out->gpu_busy_ns = g.busy_ns;
    out->gpu_idle_ns = g.idle_ns;
    out->gpu_gaps = g.n;
    out->longest_gap_ns = longest(&g);
    timeline_gaps_free(&g);
    for (size_t l = 0; l < t->nlanes; l++) {
        if (x->lane_of[l] < 0)
            continue;
        tls_lane *ln = &out->lanes[x->lane_of[l]];
        if (!timeline_gaps(t, (int)l, gap_min_ns, &g, e))
            return false;
        ln->busy_ns = g.busy_ns;
        ln->idle_ns = g.idle_ns;
        ln->gaps = g.n;
        ln->longest_gap_ns = longest(&g);
        timeline_gaps_free(&g);
    }
    return true;
}

bool tlsummary_make(const timeline *tl, uint64_t gap_min_ns, tl_summary *out, cl_err *err)
{
    memset(out, 0, sizeof *out);
    out->gap_min_ns = gap_min_ns;
    out->dropped = tl->dropped;
    tls_sets x;
    memset(&x, 0, sizeof x);
    size_t ngpu = 0;
    for (size_t i = 0; i < tl->nitems; i++) {
        const tl_item *it = &tl->items[i];
        if (it->lane < 0 || (size_t)it->lane >= tl->nlanes)
            continue;
        if (is_gpu_item(tl, it))
            ngpu++;
        else if (it->kind == TL_API) {
            out->api_calls++;
            out->syncs += strstr(it->name, "Synchronize") != NULL;
        }
    }
    size_t cap = ngpu ? ngpu : 1;
    x.kern = malloc(cap * sizeof *x.kern);
    x.copy = malloc(cap * sizeof *x.copy);
    x.up = malloc(cap * sizeof *x.up);
    x.down = malloc(cap * sizeof *x.down);
    x.streams = malloc(cap * sizeof *x.streams);
    x.lane_of = malloc((tl->nlanes ? tl->nlanes : 1) * sizeof *x.lane_of);
    out->lanes = calloc(tl->nlanes ? tl->nlanes : 1, sizeof *out->lanes);
    if (!x.kern || !x.copy || !x.up || !x.down || !x.streams || !x.lane_of || !out->lanes) {
        sets_free(&x);
        tlsummary_free(out);
        return err_set(err, "out of memory summarising the timeline");
    }
    for (size_t l = 0; l < tl->nlanes; l++) {
        x.lane_of[l] = -1;
        if (!timeline_lane_is_gpu(tl->lanes[l].kind))
            continue;
        tls_lane *ln = &out->lanes[out->nlanes];
        snprintf(ln->name, sizeof ln->name, "%s", tl->lanes[l].name);
        ln->kind = tl->lanes[l].kind;
        x.lane_of[l] = (int)out->nlanes++;
    }
    for (size_t i = 0; i < tl->nitems; i++) {
        const tl_item *it = &tl->items[i];
        if (it->lane >= 0 && (size_t)it->lane < tl->nlanes && is_gpu_item(tl, it))
            tally(tl, it, out, &x);
    }
    qsort(x.streams, x.nstreams, sizeof *x.streams, u32_cmp);
    for (size_t i = 0; i < x.nstreams; i++)
        out->streams += i == 0 || x.streams[i] != x.streams[i - 1];
    size_t mk = merge(x.kern, x.nkern), mc = merge(x.copy, x.ncopy);
    size_t mu = merge(x.up, x.nup), md = merge(x.down, x.ndown);
    out->kernel_busy_ns = length(x.kern, mk);
    out->copy_busy_ns = length(x.copy, mc);
    out->overlap_ns = intersect(x.kern, mk, x.copy, mc);
    out->updown_ns = intersect(x.up, mu, x.down, md);
    bool ok = ngpu == 0 || lane_gaps(tl, gap_min_ns, out, &x, err);
    sets_free(&x);
    if (!ok)
        tlsummary_free(out);
    return ok;
}

void tlsummary_free(tl_summary *summary)
{
    free(summary->lanes);
    memset(summary, 0, sizeof *summary);
}

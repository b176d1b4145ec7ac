#include "cli/report_md.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/units.h"
#include "prof/timeline.h"
#include "catalog/pipeline_files.h"

#define NOTES_PROMPT                                                                           \
    "What did the starter's timeline show first?  What did you change, in which order, and "  \
    "what did each change buy?  What limits your pipeline now: the link, the copies from "    \
    "pageable memory, the kernels, or the waits?\n"

/* ---- figures as words ------------------------------------------------------- */

static void fmt_ns(uint64_t ns, char *out, size_t n)
{
    timeline_format_ns((double)ns, out, n);
}

static void fmt_ratio(double v, char *out, size_t n)
{
    if (!(v > 0.0))
        snprintf(out, n, "-");
    else if (v >= 100.0)
        snprintf(out, n, "%.0fx", v);
    else
        snprintf(out, n, "%.2fx", v);
}

/* part as a percentage of whole ("0%" when whole is 0) into buf. */
static char *share(uint64_t part, uint64_t whole, char *buf, size_t n)
{
    return units_pct(whole ? 100.0 * (double)part / (double)whole : 0.0, buf, n);
}

/* A measured row's message made safe for a table cell: no pipes, no
 * newlines, at most about 160 characters. */
static void cell_text(const char *msg, char *out, size_t n)
{
    size_t k = 0;
    for (const char *p = msg; *p && k + 4 < n && k < 160; p++)
        out[k++] = *p == '|' ? '/' : (*p == '\n' || *p == '\r') ? ' ' : *p;
    if (msg[k] && k + 4 < n)
        out[k++] = '.', out[k++] = '.', out[k++] = '.';
    out[k] = '\0';
}

static void row_line(strbuf *b, const char *name, const run_result *r)
{
    if (!r) {
        strbuf_printf(b, "| %s | - | - | - | - | - | no result |\n", name);
        return;
    }
    char t[48] = "-", gb[24] = "-", c1[16], cm[16], xs[16], res[256];
    if (r->median_ms > 0.0 && r->samples > 0) {
        if (r->median_ms >= 1.0)
            snprintf(t, sizeof t, "%.3f ms ±%.1f%%", r->median_ms, 100.0 * r->spread);
        else
            snprintf(t, sizeof t, "%.1f us ±%.1f%%", 1000.0 * r->median_ms, 100.0 * r->spread);
    }
    if (r->gbps >= 0.0)
        snprintf(gb, sizeof gb, "%.2f", r->gbps);
    fmt_ratio(r->speedup_cpu, c1, sizeof c1);
    fmt_ratio(r->speedup_cpu_mt, cm, sizeof cm);
    fmt_ratio(r->speedup_starter, xs, sizeof xs);
    if (r->status == RS_CORRECT) {
        snprintf(res, sizeof res, "correct (relative error %.1e)", r->rel_err);
    } else {
        char m[200];
        cell_text(r->message, m, sizeof m);
        snprintf(res, sizeof res, "%s%s%s", result_status_name(r->status), m[0] ? ": " : "", m);
    }
    strbuf_printf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", name, t, gb, c1, cm, xs, res);
}

/* ---- the timelines -------------------------------------------------------------- */

static void copies_cell(size_t count, uint64_t bytes, char *out, size_t n)
{
    if (count == 0) {
        snprintf(out, n, "none");
        return;
    }
    char tot[32], avg[32];
    units_bytes((double)bytes, tot, sizeof tot);
    units_bytes((double)bytes / (double)count, avg, sizeof avg);
    snprintf(out, n, "%zu, %s in all, %s each on average", count, tot, avg);
}

/* One figure of the side-by-side table, for each side (NULL: no timeline). */
typedef void (*tl_cell_fn)(const tl_summary *s, char *out, size_t n);

static void c_span(const tl_summary *s, char *o, size_t n)
{
    fmt_ns(s->span_ns, o, n);
}

static void c_busy(const tl_summary *s, char *o, size_t n)
{
    char t[32], p[UNITS_MAX];
    fmt_ns(s->gpu_busy_ns, t, sizeof t);
    snprintf(o, n, "%s (%s)", t, share(s->gpu_busy_ns, s->span_ns, p, sizeof p));
}

static void c_idle(const tl_summary *s, char *o, size_t n)
{
    char t[32], g[32], lg[32];
    fmt_ns(s->gpu_idle_ns, t, sizeof t);
    fmt_ns(s->gap_min_ns, g, sizeof g);
    fmt_ns(s->longest_gap_ns, lg, sizeof lg);
    if (s->gpu_gaps)
        snprintf(o, n, "%s; %zu gap%s of %s or more, the longest %s", t, s->gpu_gaps,
                 s->gpu_gaps == 1 ? "" : "s", g, lg);
    else
        snprintf(o, n, "%s; no gap of %s or more", t, g);
}

static void c_up(const tl_summary *s, char *o, size_t n)
{
    copies_cell(s->h2d, s->h2d_bytes, o, n);
}

static void c_down(const tl_summary *s, char *o, size_t n)
{
    copies_cell(s->d2h, s->d2h_bytes, o, n);
}

static void c_mem(const tl_summary *s, char *o, size_t n)
{
    char pg[32], pn[32];
    units_bytes((double)s->pageable_bytes, pg, sizeof pg);
    units_bytes((double)s->pinned_bytes, pn, sizeof pn);
    snprintf(o, n, "%zu pageable (%s), %zu pinned (%s)", s->pageable, pg, s->pinned, pn);
}

static void c_kernels(const tl_summary *s, char *o, size_t n)
{
    char t[32];
    fmt_ns(s->kernel_sum_ns, t, sizeof t);
    snprintf(o, n, "%zu, %s in all", s->kernels, t);
}

static void c_streams(const tl_summary *s, char *o, size_t n)
{
    snprintf(o, n, "%zu", s->streams);
}

static void c_overlap(const tl_summary *s, char *o, size_t n)
{
    char t[32], p[UNITS_MAX];
    fmt_ns(s->overlap_ns, t, sizeof t);
    snprintf(o, n, "%s (%s of the copy time)", t, share(s->overlap_ns, s->copy_busy_ns, p, sizeof p));
}

static void c_updown(const tl_summary *s, char *o, size_t n)
{
    fmt_ns(s->updown_ns, o, n);
}

static void c_syncs(const tl_summary *s, char *o, size_t n)
{
    snprintf(o, n, "%zu of %zu runtime calls", s->syncs, s->api_calls);
}

static void side_by_side(strbuf *b, const report_input *in)
{
    static const struct {
        const char *what;
        tl_cell_fn fn;
    } rows[] = {
        {"time from the first GPU work to the last", c_span},
        {"GPU busy", c_busy},
        {"GPU idle", c_idle},
        {"copies to the GPU", c_up},
        {"copies back to the host", c_down},
        {"host memory of the copies", c_mem},
        {"kernels", c_kernels},
        {"streams with work", c_streams},
        {"copies running while kernels ran", c_overlap},
        {"uploads running while downloads ran", c_updown},
        {"waits for the device (cuda*Synchronize)", c_syncs},
    };
    strbuf_printf(b, "| | the starter | your pipeline |\n|---|---|---|\n");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char l[256] = "-", r[256] = "-";
        if (in->starter.tl)
            rows[i].fn(in->starter.tl, l, sizeof l);
        if (in->mine.tl)
            rows[i].fn(in->mine.tl, r, sizeof r);
        strbuf_printf(b, "| %s | %s | %s |\n", rows[i].what, l, r);
    }
    if ((in->starter.tl && in->starter.tl->dropped) || (in->mine.tl && in->mine.tl->dropped))
        strbuf_printf(b, "| records lost by the profiler | %llu | %llu |\n",
                      (unsigned long long)(in->starter.tl ? in->starter.tl->dropped : 0),
                      (unsigned long long)(in->mine.tl ? in->mine.tl->dropped : 0));
}

static void lanes_table(strbuf *b, const char *title, const report_side *s)
{
    strbuf_printf(b, "\n### %s, lane by lane\n\n", title);
    if (!s->tl) {
        strbuf_printf(b, "No timeline%s%s.\n", s->why_no_tl ? ": " : "",
                      s->why_no_tl ? s->why_no_tl : "");
        return;
    }
    if (s->tl->nlanes == 0) {
        strbuf_printf(b, "Nothing ran on the GPU.\n");
        return;
    }
    char gmin[32];
    fmt_ns(s->tl->gap_min_ns, gmin, sizeof gmin);
    strbuf_printf(b, "| lane | busy | kernels | copies | pageable / pinned | idle between its first "
                     "and last item (gaps of %s or more) |\n|---|---|---|---|---|---|\n",
                  gmin);
    for (size_t i = 0; i < s->tl->nlanes; i++) {
        const tls_lane *l = &s->tl->lanes[i];
        char busy[32], idle[32], bytes[32], copies[64], lg[32];
        fmt_ns(l->busy_ns, busy, sizeof busy);
        fmt_ns(l->idle_ns, idle, sizeof idle);
        fmt_ns(l->longest_gap_ns, lg, sizeof lg);
        units_bytes((double)l->copy_bytes, bytes, sizeof bytes);
        if (l->copies)
            snprintf(copies, sizeof copies, "%zu (%s)", l->copies, bytes);
        else
            snprintf(copies, sizeof copies, "0");
        char gaps[96];
        if (l->gaps)
            snprintf(gaps, sizeof gaps, "%s in %zu gap%s, the longest %s", idle, l->gaps,
                     l->gaps == 1 ? "" : "s", lg);
        else
            snprintf(gaps, sizeof gaps, "%s", idle);
        char p[UNITS_MAX];
        strbuf_printf(b, "| %s | %s (%s) | %zu | %s | %zu / %zu | %s |\n", l->name, busy,
                      share(l->busy_ns, s->tl->span_ns, p, sizeof p), l->kernels, copies,
                      l->pageable, l->pinned, gaps);
    }
}

/* ---- what changed --------------------------------------------------------------- */

static double avg_copy(const tl_summary *s)
{
    return s->copies ? (double)(s->h2d_bytes + s->d2h_bytes) / (double)s->copies : 0.0;
}

static void change_memory(strbuf *b, const tl_summary *x, const tl_summary *y)
{
    size_t xh = x->pinned + x->pageable, yh = y->pinned + y->pageable;
    if (yh == 0) {
        strbuf_printf(b, "- **Host memory**: no copy between host and device was recorded in your "
                         "pipeline's call.\n");
    } else if (y->pageable == 0 && x->pageable > 0) {
        strbuf_printf(b, "- **Pinned instead of pageable**: %zu of the starter's %zu copies went "
                         "through pageable memory; all %zu of yours read or write pinned buffers, "
                         "which the copy engines reach directly and which can be copied "
                         "asynchronously.\n",
                      x->pageable, xh, yh);
    } else if (y->pageable > 0) {
        strbuf_printf(b, "- **Still pageable**: %zu of your %zu copies use pageable memory (the "
                         "starter: %zu of %zu).  Staging through pinned buffers (gpu.host_alloc) "
                         "lets them run at the link's speed and overlap other work.\n",
                      y->pageable, yh, x->pageable, xh);
    } else {
        strbuf_printf(b, "- **Host memory**: both use pinned memory for every copy.\n");
    }
}

static void change_copies(strbuf *b, const tl_summary *x, const tl_summary *y)
{
    char xa[32], ya[32];
    units_bytes(avg_copy(x), xa, sizeof xa);
    units_bytes(avg_copy(y), ya, sizeof ya);
    if (y->copies > 0 && y->copies < x->copies)
        strbuf_printf(b, "- **Fewer, larger copies**: %zu copies of %s on average in the starter, "
                         "%zu of %s in yours (%.0f times fewer); each copy costs microseconds "
                         "before its first byte moves.\n",
                      x->copies, xa, y->copies, ya, (double)x->copies / (double)y->copies);
    else
        strbuf_printf(b, "- **Copies**: %zu of %s on average in the starter, %zu of %s in yours.\n",
                      x->copies, xa, y->copies, ya);
}

static void change_overlap(strbuf *b, const tl_summary *x, const tl_summary *y)
{
    char xo[32], yo[32], xu[32], yu[32], p[UNITS_MAX];
    fmt_ns(x->overlap_ns, xo, sizeof xo);
    fmt_ns(y->overlap_ns, yo, sizeof yo);
    fmt_ns(x->updown_ns, xu, sizeof xu);
    fmt_ns(y->updown_ns, yu, sizeof yu);
    if (y->overlap_ns > x->overlap_ns || y->updown_ns > x->updown_ns)
        strbuf_printf(b, "- **Streams overlapping**: work ran on %zu stream%s in the starter and on "
                         "%zu in yours; copies ran alongside kernels for %s (%s of your copy "
                         "time; the starter: %s), and uploads alongside downloads for %s (the "
                         "starter: %s).\n",
                      x->streams, x->streams == 1 ? "" : "s", y->streams, yo,
                      share(y->overlap_ns, y->copy_busy_ns, p, sizeof p), xo, yu, xu);
    else
        strbuf_printf(b, "- **No overlap gained**: work ran on %zu stream%s in the starter and %zu "
                         "in yours, and copies ran alongside kernels for %s in yours (the starter: "
                         "%s).  Chunks on two or three streams let one chunk's copy run while "
                         "another's kernel does.\n",
                      x->streams, x->streams == 1 ? "" : "s", y->streams, yo, xo);
}

static void change_kernels(strbuf *b, const tl_summary *x, const tl_summary *y)
{
    char xk[32], yk[32];
    fmt_ns(x->kernel_sum_ns, xk, sizeof xk);
    fmt_ns(y->kernel_sum_ns, yk, sizeof yk);
    if (y->kernel_sum_ns > 0 && y->kernel_sum_ns < x->kernel_sum_ns)
        strbuf_printf(b, "- **Kernel time**: %s of kernels in the starter, %s in yours (%.1f times "
                         "less).\n",
                      xk, yk, (double)x->kernel_sum_ns / (double)y->kernel_sum_ns);
    else
        strbuf_printf(b, "- **Kernel time**: %s of kernels in the starter, %s in yours.\n", xk, yk);
}

static void change_waits(strbuf *b, const tl_summary *x, const tl_summary *y)
{
    char xi[32], yi[32];
    fmt_ns(x->gpu_idle_ns, xi, sizeof xi);
    fmt_ns(y->gpu_idle_ns, yi, sizeof yi);
    strbuf_printf(b, "- **Waiting**: %zu synchronize call%s and %s of GPU idle time (%zu gap%s) in "
                     "the starter; %zu and %s (%zu gap%s) in yours.\n",
                  x->syncs, x->syncs == 1 ? "" : "s", xi, x->gpu_gaps, x->gpu_gaps == 1 ? "" : "s",
                  y->syncs, yi, y->gpu_gaps, y->gpu_gaps == 1 ? "" : "s");
}

/* "What changed" appended to b. */
static void add_changes(strbuf *b, const tl_summary *before, const tl_summary *after,
                        const run_result *before_row, const run_result *after_row)
{
    if (before && after) {
        change_memory(b, before, after);
        change_copies(b, before, after);
        change_overlap(b, before, after);
        change_kernels(b, before, after);
        change_waits(b, before, after);
    } else {
        strbuf_printf(b, "- Only %s timeline was recorded, so the two cannot be compared.\n",
                      before ? "the starter's" : after ? "your pipeline's" : "no");
    }
    if (before_row && after_row && before_row->median_ms > 0.0 && after_row->median_ms > 0.0) {
        double s = before_row->median_ms / after_row->median_ms;
        strbuf_printf(b, "- **End to end**: %.3f ms for the starter, %.3f ms for yours: %.2f "
                         "times %s%s.\n",
                      before_row->median_ms, after_row->median_ms, s >= 1.0 ? s : 1.0 / s,
                      s >= 1.0 ? "faster" : "slower",
                      after_row->status == RS_CORRECT ? "" : ", but your result is not correct");
    }
}

size_t report_md_changes(const tl_summary *before, const tl_summary *after,
                         const run_result *before_row, const run_result *after_row, char *out,
                         size_t out_size)
{
    strbuf b = STRBUF_INIT;
    add_changes(&b, before, after, before_row, after_row);
    size_t len = 0;
    if (out_size) {
        len = b.failed ? 0 : b.len < out_size ? b.len : out_size - 1;
        if (len)
            memcpy(out, b.p, len);
        out[len] = '\0';
    }
    strbuf_free(&b);
    return len;
}

/* ---- the notes ------------------------------------------------------------------ */

char *report_md_notes(const char *old)
{
    if (!old)
        return NULL;
    const char *p = strstr(old, REPORT_NOTES_MARK);
    size_t skip = strlen(REPORT_NOTES_MARK);
    if (!p) {
        p = strstr(old, REPORT_NOTES_HEADING);
        skip = strlen(REPORT_NOTES_HEADING);
        if (!p)
            return NULL;
    }
    p += skip;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '\r')
        p++;
    if (*p == '\n')
        p++;
    return strdup(p);
}

/* ---- the report ------------------------------------------------------------------ */

char *report_md_build(const report_input *in, const char *notes)
{
    strbuf b = STRBUF_INIT;
    strbuf_printf(&b, "# Profiling report: the preprocessing pipeline\n%s\n\n", PIPELINE_REPORT_MARK);
    strbuf_printf(&b, "Written by `cudalab report profiling` on %s.  Device: %s.  Table: %s rows of "
                  "taxi trips, loaded from the data set's file on disk.\n\n",
              in->when ? in->when : "?", in->device ? in->device : "unknown",
              in->size ? in->size : "?");

    strbuf_printf(&b, "## Before and after\n\n");
    strbuf_printf(&b, "| | median time, end to end | GB/s | x CPU | x CPU threads | x starter | "
                      "result |\n|---|---|---|---|---|---|---|\n");
    row_line(&b, "the starter", in->starter.row);
    row_line(&b, "your pipeline", in->mine.row);
    if (in->cpu)
        row_line(&b, "CPU, 1 thread", in->cpu);
    if (in->cpu_mt) {
        char name[64];
        snprintf(name, sizeof name, "CPU, %d threads", in->cpu_mt->threads);
        row_line(&b, name, in->cpu_mt);
    }
    strbuf_printf(&b, "\nEach time is the median of several calls, from reading the file to the "
                  "linear layer's output on the device: the load, the seven steps and the "
                  "hand-off.  GB/s counts the table once per second of that time; x CPU "
                  "compares with the CPU pipeline doing the same steps from the same file.\n\n");

    strbuf_printf(&b, "## The timelines\n\n");
    strbuf_printf(&b, "One call of each, recorded with CUPTI after the timing.");
    if (in->starter.trace || in->mine.trace)
        strbuf_printf(&b, "  The traces are beside this report (%s%s%s); open them in "
                          "ui.perfetto.dev or chrome://tracing.",
                      in->starter.trace ? in->starter.trace : "",
                      in->starter.trace && in->mine.trace ? ", " : "",
                      in->mine.trace ? in->mine.trace : "");
    strbuf_printf(&b, "\n\n");
    side_by_side(&b, in);
    lanes_table(&b, "The starter", &in->starter);
    lanes_table(&b, "Your pipeline", &in->mine);

    strbuf_printf(&b, "\n## What changed\n\n");
    add_changes(&b, in->starter.tl, in->mine.tl, in->starter.row, in->mine.row);

    strbuf_printf(&b, "\n%s\n%s\n", REPORT_NOTES_HEADING, REPORT_NOTES_MARK);
    strbuf_printf(&b, "%s", notes ? notes : NOTES_PROMPT);
    return strbuf_take(&b);
}

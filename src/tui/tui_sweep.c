#include "tui/tui_sweep.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/problem_spec.h"
#include "core/strfmt.h"
#include "core/units.h"
#include "tui/tui_roof.h"

/* ---- series ------------------------------------------------------------------ */

bool tui_sweep_size(const char *label, double *size, bool *bytes)
{
    int64_t count;
    if (units_parse_bytes(label, size)) {
        *bytes = true;
        return *size >= 1;
    }
    if (!problem_parse_count(label, INT64_MAX, &count, NULL))
        return false;
    *size = (double)count;
    *bytes = false;
    return true;
}

void tui_sweep_init(tui_sweep *sw)
{
    memset(sw, 0, sizeof *sw);
}

static tui_sweepseries *series_of(tui_sweep *sw, const run_result *r)
{
    tui_sweepseries *s;
    for (size_t i = 0; i < sw->n; i++)
        if (strcmp(sw->s[i].variant, r->variant) == 0)
            return &sw->s[i];
    if (sw->n == TUI_SWEEP_MAX_SERIES)
        return NULL;
    s = &sw->s[sw->n++];
    memset(s, 0, sizeof *s);
    strfmt_copy(s->variant, sizeof s->variant, r->variant);
    strfmt_copy(s->label, sizeof s->label, r->label[0] ? r->label : r->variant);
    s->mine = r->kind == RK_EXERCISE;
    return s;
}

/* Puts (size, gbs) into s in size order; a point at the same size is replaced. */
static void add_point(tui_sweepseries *s, double size, double gbs, const char *label)
{
    size_t k = 0;
    while (k < s->n && s->pt[k].size < size)
        k++;
    if (k == s->n || s->pt[k].size != size) {
        if (s->n == TUI_SWEEP_MAX_POINTS)
            return;
        memmove(&s->pt[k + 1], &s->pt[k], (s->n - k) * sizeof s->pt[0]);
        s->n++;
    }
    s->pt[k].size = size;
    s->pt[k].gbs = gbs;
    strfmt_copy(s->pt[k].label, sizeof s->pt[k].label, label);
}

void tui_sweep_add(tui_sweep *sw, const run_result *row)
{
    double size;
    bool bytes;
    tui_sweepseries *s;
    if (!tui_sweep_size(row->size, &size, &bytes) || (sw->kind_known && bytes != sw->bytes))
        return;
    if (row->status != RS_CORRECT) {
        if (sw->failed++ == 0)
            snprintf(sw->failure, sizeof sw->failure, "%s at %s: %s",
                     row->label[0] ? row->label : row->variant, row->size,
                     row->message[0] ? row->message : result_status_text(row->status));
        return;
    }
    if (!(row->gbps > 0) || !isfinite(row->gbps) || !(s = series_of(sw, row)))
        return;
    sw->bytes = bytes;
    sw->kind_known = true;
    add_point(s, size, row->gbps, row->size);
}

/* Between p0 below h and p1 at or above it: where the line t = a + S/B
 * through both points (t = size / GB/s) has a bandwidth of h; on the
 * straight log-log line between them when no such line with a positive
 * latency and a bandwidth above h goes through both. */
static double between(const tui_sweeppt *p0, const tui_sweeppt *p1, double h)
{
    double t0 = p0->size / p0->gbs, t1 = p1->size / p1->gbs, b, a, f;
    if (t1 > t0) {
        b = (p1->size - p0->size) / (t1 - t0);
        a = t0 - p0->size / b;
        if (a > 0 && b > h) {
            double s = h * a / (1 - h / b);
            if (s >= p0->size && s <= p1->size)
                return s;
        }
    }
    f = (log(h) - log(p0->gbs)) / (log(p1->gbs) - log(p0->gbs));
    return exp(log(p0->size) + f * (log(p1->size) - log(p0->size)));
}

double tui_sweep_half(const tui_sweeppt *pt, size_t n)
{
    double peak = 0, half;
    size_t k = 0;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        peak = pt[i].gbs > peak ? pt[i].gbs : peak;
    half = peak / 2;
    while (k < n && pt[k].gbs < half)
        k++;
    if (k == 0 || pt[k].gbs == half)
        return pt[k].size;
    return between(&pt[k - 1], &pt[k], half);
}

bool tui_sweep_half_at_first(const tui_sweepseries *s)
{
    return s->n > 0 && s->half_size <= s->pt[0].size;
}

size_t tui_sweep_finish(tui_sweep *sw)
{
    size_t kept = 0;
    for (size_t i = 0; i < sw->n; i++) {
        tui_sweepseries *s = &sw->s[i];
        if (s->n < 2)
            continue;
        s->peak = 0;
        for (size_t k = 1; k < s->n; k++)
            if (s->pt[k].gbs > s->pt[s->peak].gbs)
                s->peak = k;
        s->half_size = tui_sweep_half(s->pt, s->n);
        if (kept != i)
            sw->s[kept] = *s;
        kept++;
    }
    sw->n = kept;
    sw->best = 0;
    for (size_t i = 1; i < sw->n; i++)
        if (sw->s[i].pt[sw->s[i].peak].gbs > sw->s[sw->best].pt[sw->s[sw->best].peak].gbs)
            sw->best = i;
    return sw->n;
}

char tui_sweep_letter(size_t index)
{
    return tui_roof_letter(index);
}

/* ---- the grid ---------------------------------------------------------------- */

static tui_sweepcell *cell(tui_sweepplot *p, int row, int col)
{
    return &p->cells[(size_t)row * (size_t)p->w + (size_t)col];
}

const tui_sweepcell *tui_sweep_cell(const tui_sweepplot *plot, int row, int col)
{
    static const tui_sweepcell none = {SWM_NONE, 0, false};
    if (!plot->cells || row < 0 || row >= plot->h || col < 0 || col >= plot->w)
        return &none;
    return &plot->cells[(size_t)row * (size_t)plot->w + (size_t)col];
}

static int clamp(long v, int hi)
{
    return v < 0 ? 0 : v > hi ? hi : (int)v;
}

static int col_of_log2(const tui_sweepplot *p, double l2)
{
    return clamp(lround((l2 - p->x_lo) / (p->x_hi - p->x_lo) * (p->w - 1)), p->w - 1);
}

static int row_of_log10(const tui_sweepplot *p, double l10)
{
    return clamp(lround((p->y_hi - l10) / (p->y_hi - p->y_lo) * (p->h - 1)), p->h - 1);
}

int tui_sweep_col(const tui_sweepplot *plot, double size)
{
    return size > 0 && plot->w > 0 ? col_of_log2(plot, log2(size)) : -1;
}

int tui_sweep_row(const tui_sweepplot *plot, double gbs)
{
    return gbs > 0 && plot->h > 0 ? row_of_log10(plot, log10(gbs)) : -1;
}

/* A tick's label: 2^e as "8B", "512B", "4K", "1M", "1G" (bytes) or "8",
 * "4K" (counts). */
static void tick_label(int e, bool bytes, char *buf, size_t n)
{
    static const char *const prefix[] = {"", "K", "M", "G", "T", "P", "E"};
    int k = e / 10 < 6 ? e / 10 : 6;
    snprintf(buf, n, "%lld%s%s", 1LL << (e - 10 * k), prefix[k], bytes && k == 0 ? "B" : "");
}

/* Size labels at the powers of two whose exponent is a multiple of step
 * (so 1K, 1M and 1G stay round); false when two overlap, unless greedy,
 * which leaves out those that would. */
static bool place_ticks(tui_sweepplot *p, bool bytes, int step, bool greedy)
{
    int w = p->w < TUI_SWEEP_AXIS_MAX - 1 ? p->w : TUI_SWEEP_AXIS_MAX - 1, next = 0;
    memset(p->xaxis, ' ', (size_t)w);
    p->xaxis[w] = '\0';
    for (int e = (int)p->x_lo; e <= (int)p->x_hi; e++) {
        char l[16];
        int c = col_of_log2(p, e), len;
        if (e % step != 0)
            continue;
        tick_label(e, bytes, l, sizeof l);
        len = (int)strlen(l);
        if (c + len > w)
            c = w - len;
        if (c < next || c < 0) {
            if (!greedy)
                return false;
            continue;
        }
        memcpy(p->xaxis + c, l, (size_t)len);
        next = c + len + 1;
    }
    return true;
}

/* Size labels under the plot, as close together as they fit. */
static void x_axis(tui_sweepplot *p, bool bytes)
{
    static const int steps[] = {1, 2, 5, 10, 20};
    const size_t nsteps = sizeof steps / sizeof steps[0];
    for (size_t i = 0; i < nsteps; i++)
        if (place_ticks(p, bytes, steps[i], false))
            return;
    place_ticks(p, bytes, steps[nsteps - 1], true);
}

/* Writes text into line at column c when it lies inside [lo, hi). */
static bool put_text(char *line, int c, int lo, int hi, const char *text)
{
    int len = (int)strlen(text);
    if (len == 0 || c < lo || c + len > hi)
        return false;
    memcpy(line + c, text, (size_t)len);
    return true;
}

/* The two regions either side of the half column: "<- latency-bound"
 * ending a space left of it and "bandwidth-bound ->" starting a space
 * right of it, shortened (and then without the space) where room is short. */
static void regions(tui_sweepplot *p)
{
    static const char *const left[] = {"<- latency-bound", "latency-bound", "latency"};
    static const char *const right[] = {"bandwidth-bound ->", "bandwidth-bound", "bandwidth"};
    int w = p->w < TUI_SWEEP_AXIS_MAX - 1 ? p->w : TUI_SWEEP_AXIS_MAX - 1, h = p->half_col;
    bool done = false;
    memset(p->regions, ' ', (size_t)w);
    p->regions[w] = '\0';
    if (h < 0 || h >= w)
        return;
    for (int gap = 1; gap >= 0 && !done; gap--)
        for (size_t i = 0; i < 3 && !done; i++)
            done = put_text(p->regions, h - gap - (int)strlen(left[i]), 0, h, left[i]);
    done = false;
    for (int gap = 1; gap >= 0 && !done; gap--)
        for (size_t i = 0; i < 3 && !done; i++)
            done = put_text(p->regions, h + 1 + gap, h + 1, w, right[i]);
}

/* Each series' letter at its half-bandwidth size, a star where several fall. */
static void half_marks(tui_sweepplot *p, const tui_sweep *sw)
{
    int w = p->w < TUI_SWEEP_AXIS_MAX - 1 ? p->w : TUI_SWEEP_AXIS_MAX - 1;
    memset(p->marks, ' ', (size_t)w);
    p->marks[w] = '\0';
    for (size_t i = 0; i < sw->n; i++) {
        int c = tui_sweep_col(p, sw->s[i].half_size);
        if (c >= 0 && c < w)
            p->marks[c] = p->marks[c] == ' ' ? tui_sweep_letter(i) : '*';
    }
}

/* The series' points and the dots between them. */
static void draw_series(tui_sweepplot *p, const tui_sweepseries *s, char letter)
{
    for (size_t k = 0; k + 1 < s->n; k++) {
        int c0 = tui_sweep_col(p, s->pt[k].size), c1 = tui_sweep_col(p, s->pt[k + 1].size);
        double g0 = log10(s->pt[k].gbs), g1 = log10(s->pt[k + 1].gbs);
        for (int c = c0 + 1; c < c1; c++) {
            tui_sweepcell *x = cell(p, row_of_log10(p, g0 + (g1 - g0) * (c - c0) / (c1 - c0)), c);
            if (x->mark < SWM_LINE) {
                x->mark = SWM_LINE;
                x->letter = letter;
                x->mine = s->mine;
            }
        }
    }
    for (size_t k = 0; k < s->n; k++) {
        tui_sweepcell *x = cell(p, tui_sweep_row(p, s->pt[k].gbs), tui_sweep_col(p, s->pt[k].size));
        if (x->mark >= SWM_POINT && x->letter != letter) {
            x->mark = SWM_SHARED;
            x->mine |= s->mine;
            continue;
        }
        x->mark = SWM_POINT;
        x->letter = letter;
        x->mine = s->mine;
    }
}

/* The ranges: whole powers of two across, whole decades up, each at least one wide. */
static void fit(tui_sweepplot *p, const tui_sweep *sw)
{
    double smin = INFINITY, smax = 0, gmin = INFINITY, gmax = 0;
    for (size_t i = 0; i < sw->n; i++)
        for (size_t k = 0; k < sw->s[i].n; k++) {
            const tui_sweeppt *q = &sw->s[i].pt[k];
            smin = fmin(smin, q->size);
            smax = fmax(smax, q->size);
            gmin = fmin(gmin, q->gbs);
            gmax = fmax(gmax, q->gbs);
        }
    p->x_lo = floor(log2(smin) + 1e-9);
    p->x_hi = ceil(log2(smax) - 1e-9);
    if (p->x_hi <= p->x_lo)
        p->x_hi = p->x_lo + 1;
    p->y_lo = floor(log10(gmin) + 1e-9);
    p->y_hi = ceil(log10(gmax) - 1e-9);
    if (p->y_hi <= p->y_lo)
        p->y_hi = p->y_lo + 1;
}

bool tui_sweep_plot(const tui_sweep *sw, int width, int height, tui_sweepplot *out, cl_err *err)
{
    const tui_sweepseries *best;
    memset(out, 0, sizeof *out);
    out->half_col = -1;
    if (sw->n == 0)
        return err_set(err, "no row was measured at two sizes or more");
    if (width < 8 || height < 4)
        return err_set(err, "the plot needs at least 8 x 4 cells, not %d x %d", width, height);
    out->cells = calloc((size_t)width * (size_t)height, sizeof *out->cells);
    if (!out->cells)
        return err_set(err, "out of memory for the plot");
    out->w = width;
    out->h = height;
    fit(out, sw);
    best = &sw->s[sw->best];
    out->half_col = tui_sweep_col(out, best->half_size);
    for (int r = 0; r < height; r++)
        cell(out, r, out->half_col)->mark = SWM_HALF;
    for (size_t i = 0; i < sw->n; i++)
        draw_series(out, &sw->s[i], tui_sweep_letter(i));
    x_axis(out, sw->bytes);
    regions(out);
    half_marks(out, sw);
    return true;
}

void tui_sweep_free(tui_sweepplot *plot)
{
    free(plot->cells);
    memset(plot, 0, sizeof *plot);
    plot->half_col = -1;
}

const char *tui_sweep_ylabel(const tui_sweepplot *plot, int row, char *buf, size_t buf_size)
{
    if (buf_size == 0)
        return buf;
    buf[0] = '\0';
    if (!plot->cells)
        return buf;
    for (double d = plot->y_hi; d >= plot->y_lo; d -= 1.0)
        if (row_of_log10(plot, d) == row) {
            snprintf(buf, buf_size, "%g", pow(10.0, d));
            break;
        }
    return buf;
}

const char *tui_sweep_glyph(tui_sweepmark mark, bool ascii, tui_role *role)
{
    static const struct {
        const char *utf8, *ascii;
        tui_role role;
    } g[SWM_COUNT] = {
        [SWM_NONE] = {" ", " ", ROLE_NORMAL},
        [SWM_HALF] = {"\xE2\x94\x8A", ":", ROLE_DIM},
        [SWM_LINE] = {"\xC2\xB7", ".", ROLE_DIM},
        [SWM_POINT] = {"*", "*", ROLE_WARN},
        [SWM_SHARED] = {"*", "*", ROLE_EMPH},
    };
    if ((int)mark < 0 || mark >= SWM_COUNT)
        mark = SWM_NONE;
    if (role)
        *role = g[mark].role;
    return ascii ? g[mark].ascii : g[mark].utf8;
}

/* ---- words --------------------------------------------------------------------- */

/* A size between the measured ones: "3.13 MiB" for bytes, "2^21.6" for a
 * count (a measured size keeps its own label). */
static void size_text(const tui_sweepseries *s, double size, bool bytes, char *buf, size_t n)
{
    double l2 = log2(size);
    for (size_t k = 0; k < s->n; k++)
        if (s->pt[k].size == size) {
            strfmt_copy(buf, n, s->pt[k].label);
            return;
        }
    if (bytes)
        units_bytes(size, buf, n);
    else if (fabs(l2 - round(l2)) < 0.05)
        snprintf(buf, n, "2^%.0f", l2);
    else
        snprintf(buf, n, "2^%.1f", l2);
}

static void rate(double gbs, char *buf, size_t n)
{
    char v[UNITS_MAX];
    snprintf(buf, n, "%s GB/s", units_sig3(gbs, v, sizeof v));
}

void tui_sweep_describe(const tui_sweep *sw, size_t i, const char *title, char *buf,
                        size_t buf_size)
{
    const tui_sweepseries *s = &sw->s[i];
    char peak[48], half[48];
    rate(s->pt[s->peak].gbs, peak, sizeof peak);
    size_text(s, s->half_size, sw->bytes, half, sizeof half);
    snprintf(buf, buf_size, "%c %s%s: peak %s at %s, half %s %s", tui_sweep_letter(i),
             title ? title : s->label, s->mine ? " (yours)" : "", peak, s->pt[s->peak].label,
             tui_sweep_half_at_first(s) ? "already at" : "at", half);
}

void tui_sweep_header(const tui_sweep *sw, const char *title, bool brief, char *buf,
                      size_t buf_size)
{
    const tui_sweepseries *s;
    char peak[48], half[48];
    bool first;
    if (sw->n == 0) {
        snprintf(buf, buf_size, "no row was measured at two sizes or more");
        return;
    }
    s = &sw->s[sw->best];
    first = tui_sweep_half_at_first(s);
    rate(s->pt[s->peak].gbs, peak, sizeof peak);
    size_text(s, s->half_size, sw->bytes, half, sizeof half);
    snprintf(buf, buf_size, "Best: %c %s, %s at %s, half of it %s %s%s", tui_sweep_letter(sw->best),
             title ? title : s->label, peak, s->pt[s->peak].label, first ? "already at" : "at",
             half, brief ? "." : first ? ", the smallest size measured: bandwidth-bound at every "
                                         "size here."
                                       : " (the dotted line), where the fixed latency a equals "
                                         "S/B: smaller sizes are latency-bound, larger ones "
                                         "bandwidth-bound.");
}

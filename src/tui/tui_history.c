/* tui_history.c - the learner's attempts at an exercise, from the progress
 * store: every run of their kernel at each size with its time and speedup,
 * a small chart of both over the attempts, the best and the latest, and
 * which version of their source earned each milestone. */
#include "tui/tui_history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/atomicfile.h"
#include "core/fsguard.h"
#include "core/digest.h"
#include "core/strbuf.h"
#include "core/strfmt.h"
#include "store/store.h"

#define MAX_SIZES 8
#define SHOWN_ROWS 24     /* attempts listed a size (the chart covers them all) */
#define CHART_WIDTH 48

/* "2026-11-24 10:31", or with short "11-24 10:31". */
static void when(double t, bool shorter, char *out, size_t n)
{
    time_t s = (time_t)t;
    struct tm tm;
    localtime_r(&s, &tm);
    if (shorter)
        strftime(out, n, "%m-%d %H:%M", &tm);
    else
        strftime(out, n, "%Y-%m-%d %H:%M", &tm);
}

/* One character a value, from low to high; v <= 0 draws a gap. */
static void sparkline(strbuf *b, const double *v, size_t n, bool ascii)
{
    static const char *const blocks[] = {"\xE2\x96\x81", "\xE2\x96\x82", "\xE2\x96\x83",
                                         "\xE2\x96\x84", "\xE2\x96\x85", "\xE2\x96\x86",
                                         "\xE2\x96\x87", "\xE2\x96\x88"};
    static const char plain[] = ".:-=+*#@";
    double lo = 0, hi = 0;
    bool any = false;
    size_t first = n > CHART_WIDTH ? n - CHART_WIDTH : 0;
    for (size_t i = first; i < n; i++) {
        if (v[i] <= 0)
            continue;
        lo = any && lo < v[i] ? lo : v[i];
        hi = any && hi > v[i] ? hi : v[i];
        any = true;
    }
    for (size_t i = first; i < n; i++) {
        if (v[i] <= 0) {
            strbuf_putc(b, ' ');
            continue;
        }
        int k = hi > lo ? (int)((v[i] - lo) / (hi - lo) * 7.0 + 0.5) : 3;
        if (ascii)
            strbuf_putc(b, plain[k]);
        else
            strbuf_str(b, blocks[k]);
    }
}

/* The milestone ids that row_id earned, comma-separated, into out. */
static void earned_by(const store_milestone *ms, size_t nms, int64_t row_id, char *out, size_t n)
{
    size_t at = 0;
    out[0] = '\0';
    for (size_t i = 0; i < nms && at < n; i++)
        if (ms[i].row_id == row_id)
            at = strfmt_append(out, n, at, "%s%s", at ? ", " : "", ms[i].id);
}

static void size_block(strbuf *b, const store_row *h, size_t nh, const char *size,
                       const store_milestone *ms, size_t nms, bool ascii)
{
    size_t count = 0, best = SIZE_MAX, latest = SIZE_MAX;
    double *t = calloc(nh ? nh : 1, sizeof *t), *x = calloc(nh ? nh : 1, sizeof *x);
    if (!t || !x)
        goto done;
    for (size_t i = 0; i < nh; i++) {
        if (strcmp(h[i].r.size, size) != 0)
            continue;
        bool ok = h[i].r.status == RS_CORRECT && h[i].r.samples > 0;
        t[count] = ok ? h[i].r.median_ms : 0;
        x[count] = ok ? h[i].r.speedup_cpu : 0;
        count++;
        latest = i;
        if (ok && (best == SIZE_MAX || h[i].r.median_ms < h[best].r.median_ms))
            best = i;
    }
    char at[32];
    strbuf_printf(b, "At %s: %zu attempt%s\n", size, count, count == 1 ? "" : "s");
    if (best != SIZE_MAX) {
        when(h[best].at, false, at, sizeof at);
        strbuf_printf(b, "  best    %.4g ms, %.1fx CPU (%s, source %.8s)\n", h[best].r.median_ms,
                      h[best].r.speedup_cpu, at, h[best].kernel_sha);
    }
    if (latest != SIZE_MAX) {
        when(h[latest].at, false, at, sizeof at);
        if (h[latest].r.status == RS_CORRECT && h[latest].r.samples > 0)
            strbuf_printf(b, "  latest  %.4g ms, %.1fx CPU (%s)\n", h[latest].r.median_ms,
                          h[latest].r.speedup_cpu, at);
        else
            strbuf_printf(b, "  latest  %s (%s)\n", result_status_text(h[latest].r.status), at);
    }
    strbuf_str(b, "  time    ");
    sparkline(b, t, count, ascii);
    strbuf_str(b, "  (lower is faster)\n  x CPU   ");
    sparkline(b, x, count, ascii);
    strbuf_str(b, "\n\n    when          time          x CPU  result     source    earned\n");
    size_t shown = 0, skip = count > SHOWN_ROWS ? count - SHOWN_ROWS : 0, k = 0;
    for (size_t i = 0; i < nh; i++) {
        if (strcmp(h[i].r.size, size) != 0 || k++ < skip)
            continue;
        char earned[128], tm[32], tt[32] = "-", xc[32] = "-";
        when(h[i].at, true, tm, sizeof tm);
        earned_by(ms, nms, h[i].row_id, earned, sizeof earned);
        if (h[i].r.samples > 0) {
            snprintf(tt, sizeof tt, "%.4g ms", h[i].r.median_ms);
            if (h[i].r.speedup_cpu > 0)
                snprintf(xc, sizeof xc, "%.1fx", h[i].r.speedup_cpu);
        }
        strbuf_printf(b, "    %-13s %-13s %6s  %-9s  %-8.8s  %s\n", tm, tt, xc,
                      h[i].r.status == RS_NO_DEVICE ? "no GPU" : result_status_name(h[i].r.status),
                      h[i].kernel_sha, earned);
        shown++;
    }
    if (skip)
        strbuf_printf(b, "    (the %zu earlier attempts are in the chart above)\n", skip);
    strbuf_putc(b, '\n');
done:
    free(t);
    free(x);
}

/* Says which source earned each milestone, and whether the file is still
 * that source. */
static void sources(strbuf *b, const lab *l, const store_milestone *ms, size_t nms,
                    const store_row *h, size_t nh, const char *current_sha)
{
    if (nms == 0)
        return;
    strbuf_str(b, "Milestones and the source that earned them\n");
    for (size_t i = 0; i < nms; i++) {
        const char *text = ms[i].id;
        for (size_t m = 0; m < l->nmilestones; m++)
            if (strcmp(l->milestones[m].id, ms[i].id) == 0)
                text = l->milestones[m].text;
        const char *sha = "";
        for (size_t k = 0; k < nh; k++)
            if (h[k].row_id == ms[i].row_id)
                sha = h[k].kernel_sha;
        char at[32];
        when(ms[i].at, false, at, sizeof at);
        strbuf_printf(b, "  %s\n    %s on %s", text, ms[i].shown, at);
        if (sha[0])
            strbuf_printf(b, " by source %.8s (%s)", sha,
                          !current_sha[0] ? "your current file could not be read"
                          : strcmp(sha, current_sha) == 0 ? "your current file"
                                                          : "your file has changed since");
        strbuf_putc(b, '\n');
    }
}

bool tui_history_text(const lab *the_lab, struct store *db, const char *kernel_path, bool ascii,
                      char **out, char *why, size_t why_size)
{
    *out = NULL;
    if (!db) {
        snprintf(why, why_size, "progress is not saved, so there is no history to show");
        return false;
    }
    store_row *h = NULL;
    store_milestone *ms = NULL;
    size_t nh = 0, nms = 0;
    cl_err e = {{0}};
    if (!store_exercise_history(db, the_lab->id, &h, &nh, &e) ||
        !store_milestones(db, the_lab->id, &ms, &nms, &e)) {
        snprintf(why, why_size, "the progress store could not be read: %s", e.msg);
        free(h);
        return false;
    }
    char current[DIGEST_HEX_LEN + 1] = "";
    size_t len = 0;
    char *text = kernel_path ? fsguard_read(kernel_path, NULL, (size_t)4 << 20, &len, &e) : NULL;
    if (text && !digest_sha256_hex(text, len, current))
        current[0] = '\0';
    free(text);

    strbuf b;
    strbuf_init(&b, 0);
    strbuf_printf(&b, "Your kernel in %s: %zu recorded run%s\n\n", the_lab->id, nh,
                  nh == 1 ? "" : "s");
    const char *sizes[MAX_SIZES];
    size_t nsizes = 0;
    for (size_t i = 0; i < nh; i++) {
        bool seen = false;
        for (size_t k = 0; k < nsizes; k++)
            seen |= strcmp(sizes[k], h[i].r.size) == 0;
        if (!seen && nsizes < MAX_SIZES)
            sizes[nsizes++] = h[i].r.size;
    }
    for (size_t k = 0; k < nsizes; k++)
        size_block(&b, h, nh, sizes[k], ms, nms, ascii);
    if (nh == 0)
        strbuf_str(&b, "No run of your kernel is recorded yet: press r to run it.\n\n");
    sources(&b, the_lab, ms, nms, h, nh, current);
    free(h);
    free(ms);
    if (b.failed) {
        strbuf_free(&b);
        snprintf(why, why_size, "out of memory");
        return false;
    }
    *out = strbuf_take(&b);
    return true;
}

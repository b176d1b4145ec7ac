#include "cli/cli_pipeline.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "catalog/pipeline_files.h"

#define MAX_SIZES RUN_MAX_SIZES
#define BAR_WIDTH 30
#define STEPS 9                  /* load .. gemm */

/* The row called prefix.step (or prefix alone when step is NULL) at size. */
static const run_result *find(const run_result *rows, size_t n, const char *size,
                              const char *prefix, const char *step)
{
    char id[RUN_ID_MAX];
    if (step)
        snprintf(id, sizeof id, "%s%s%s", prefix, PIPELINE_STEP_SEP, step);
    else
        snprintf(id, sizeof id, "%s", prefix);
    const run_result *hit = NULL;
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].variant, id) == 0 && strcmp(rows[i].size, size) == 0)
            hit = &rows[i];
    return hit;
}

static double ms_of(const run_result *r)
{
    return r && r->status == RS_CORRECT && r->median_ms > 0.0 ? r->median_ms : 0.0;
}

static void fmt_ms(char *buf, size_t n, const run_result *r)
{
    double ms = ms_of(r);
    if (!r)
        snprintf(buf, n, "-");
    else if (r->status != RS_CORRECT)
        snprintf(buf, n, "%s", r->status == RS_NO_DEVICE ? "no device" : result_status_name(r->status));
    else if (ms >= 100.0)
        snprintf(buf, n, "%.0f ms", ms);
    else if (ms >= 1.0)
        snprintf(buf, n, "%.2f ms", ms);
    else
        snprintf(buf, n, "%.1f us", ms * 1000.0);
}

static void fmt_x(char *buf, size_t n, double v)
{
    if (v <= 0.0)
        snprintf(buf, n, "-");
    else if (v >= 100.0)
        snprintf(buf, n, "%.0fx", v);
    else
        snprintf(buf, n, "%.1fx", v);
}

static void fmt_gbs(char *buf, size_t n, const run_result *r)
{
    if (!r || r->status != RS_CORRECT || r->gbps < 0.0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.1f", r->gbps);
}

static void line(FILE *out, const char *name, const run_result *cpu, const run_result *mt,
                 const run_result *gpu, const run_result *mine)
{
    char a[32], b[32], c[32], cx[16], g[16], d[32], dx[16];
    fmt_ms(a, sizeof a, cpu);
    fmt_ms(b, sizeof b, mt);
    fmt_ms(c, sizeof c, gpu);
    fmt_x(cx, sizeof cx, gpu && gpu->status == RS_CORRECT ? gpu->speedup_cpu : 0.0);
    fmt_gbs(g, sizeof g, gpu);
    fmt_ms(d, sizeof d, mine);
    fmt_x(dx, sizeof dx, mine && mine->status == RS_CORRECT ? mine->speedup_cpu : 0.0);
    fprintf(out, "  %-12s %12s %12s %12s %8s %8s %12s %8s\n", name, a, b, c, cx, g, d, dx);
}

/* One side's share of its total per step, as bars. */
static void shares(FILE *out, const char *side, const double *ms, bool ascii)
{
    double total = 0.0;
    for (int k = 0; k < STEPS; k++)
        total += ms[k];
    if (!(total > 0.0))
        return;
    fprintf(out, "  %s (sum of the steps: %.2f ms)\n", side, total);
    for (int k = 0; k < STEPS; k++) {
        if (!(ms[k] > 0.0))
            continue;
        double f = ms[k] / total;
        int w = (int)(f * BAR_WIDTH + 0.5);
        char bar[BAR_WIDTH * 3 + 1];
        size_t at = 0;
        for (int i = 0; i < w && at + 4 < sizeof bar; i++) {
            const char *cell = ascii ? "#" : "\u2588";
            size_t l = strlen(cell);
            memcpy(bar + at, cell, l);
            at += l;
        }
        bar[at] = '\0';
        fprintf(out, "    %-12s %5.1f%% %s\n", pipeline_step_name(k), 100.0 * f, bar);
    }
}

static void one_size(const run_result *rows, size_t n, const char *size, bool ascii, FILE *out)
{
    const run_result *cpu = find(rows, n, size, "cpu", NULL);
    const run_result *mt = find(rows, n, size, "cpu_mt", NULL);
    int threads = mt ? mt->threads : 0;
    fprintf(out, "\npipeline at %s, step by step (x CPU: against one CPU thread)\n", size);
    char mt_name[32];
    snprintf(mt_name, sizeof mt_name, "CPU %d thr", threads);
    fprintf(out, "  %-12s %12s %12s %12s %8s %8s %12s %8s\n", "step", "CPU 1 thr",
            threads > 0 ? mt_name : "CPU threads", "GPU (lab)", "x CPU", "GB/s", "yours",
            "x CPU");
    double side[3][STEPS];
    memset(side, 0, sizeof side);
    for (int k = 0; k < STEPS; k++) {
        const char *s = pipeline_step_name(k);
        const run_result *c1 = find(rows, n, size, "cpu", s);
        const run_result *cm = find(rows, n, size, "cpu_mt", s);
        const run_result *g = find(rows, n, size, s, NULL);
        const run_result *y = pipeline_step_own(k) ? find(rows, n, size, "exercise", s) : NULL;
        line(out, s, c1, cm, g, y);
        side[0][k] = ms_of(c1);
        side[1][k] = ms_of(g);
        side[2][k] = ms_of(y);
    }
    line(out, "end to end", cpu, mt, find(rows, n, size, PIPELINE_VARIANT_E2E, NULL),
         find(rows, n, size, "exercise", NULL));
    fprintf(out, "\nwhere the time goes at %s\n", size);
    shares(out, "CPU, 1 thread", side[0], ascii);
    shares(out, "GPU, the lab's steps", side[1], ascii);
    shares(out, "GPU, your steps", side[2], ascii);
}

void cli_pipeline_summary(const run_result *rows, size_t nrows, bool ascii, FILE *out)
{
    const char *sizes[MAX_SIZES];
    int nsizes = 0;
    for (size_t i = 0; i < nrows; i++) {
        const char *v = rows[i].variant;
        bool ours = strncmp(v, "cpu" PIPELINE_STEP_SEP, 4) == 0 || strcmp(v, "cpu") == 0 ||
                    strcmp(v, PIPELINE_VARIANT_E2E) == 0 ||
                    strncmp(v, "exercise" PIPELINE_STEP_SEP, 9) == 0;
        if (!ours)
            continue;
        bool seen = false;
        for (int k = 0; k < nsizes; k++)
            seen |= strcmp(sizes[k], rows[i].size) == 0;
        if (!seen && nsizes < MAX_SIZES)
            sizes[nsizes++] = rows[i].size;
    }
    for (int k = 0; k < nsizes; k++)
        one_size(rows, nrows, sizes[k], ascii, out);
}

#include "cli/cmd_profile.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strfmt.h"
#include "cli/cli_args.h"
#include "cli/cli_opts.h"
#include "cli/cli_rows.h"
#include "prof/ncu.h"
#include "prof/roofline.h"
#include "prof/timeline.h"
#include "prof/trace.h"
#include "catalog/experiments_list.h"
#include "supervise/supervisor.h"

#define PROFILE_TIME_LIMIT_S 1200.0
#define PLOT_W 60
#define PLOT_H 16

typedef struct prof_state {
    cli_rows rows;
    char timeline[CL_PATH_MAX];
} prof_state;

typedef struct prof_args {
    const char *ids[RUN_MAX_VARIANTS];
    int nids;
    const char *trace;
    const char *ncu_regex;
    bool json;
    double budget_s;
    uint64_t seed;
} prof_args;

/* ---- printing ------------------------------------------------------------ */

static void fmt_time(char *buf, size_t n, const run_result *r)
{
    if (r->samples <= 0)
        snprintf(buf, n, "-");
    else if (r->median_ms >= 100)
        snprintf(buf, n, "%.0f ms", r->median_ms);
    else if (r->median_ms >= 1)
        snprintf(buf, n, "%.3f ms", r->median_ms);
    else
        snprintf(buf, n, "%.2f us", r->median_ms * 1000);
}

static void print_header(void)
{
    printf("%-22s %-14s %11s %9s %9s %6s  %s\n", "measurement", "size", "median", "GB/s",
           "TFLOP/s", "%peak", "result");
}

static void print_row(const run_result *r)
{
    char t[32], bw[24], fl[24], pk[16];
    fmt_time(t, sizeof t, r);
    cli_rows_fmt_rate(bw, sizeof bw, r->gbps);
    cli_rows_fmt_rate(fl, sizeof fl, r->tflops);
    cli_rows_fmt_pct(pk, sizeof pk, r->pct_peak_measured);
    printf("%-22s %-14s %11s %9s %9s %6s  %s\n", r->label[0] ? r->label : r->variant,
           r->size, t, bw, fl, pk, r->status == RS_NO_DEVICE ? "no device"
                                                              : result_status_name(r->status));
    /* The missing device was said once, above the table. */
    if (r->message[0] && r->status != RS_NO_DEVICE)
        printf("    %s\n", r->message);
    fflush(stdout);
}

/* ---- supervisor callbacks --------------------------------------------------- */

static void on_hello(void *ud, const device_info *dev)
{
    prof_state *st = ud;
    cli_rows_hello(&st->rows, dev, "The profiling experiments need a GPU; nothing can be measured here.");
    if (!st->rows.json)
        print_header();
}

static void on_progress(void *ud, const run_progress *p)
{
    prof_state *st = ud;
    cli_rows_progress(&st->rows, "%-22s %-8s %d/%d", p->variant, p->phase, p->rep, p->of);
}

static void on_result(void *ud, const run_result *r)
{
    prof_state *st = ud;
    if (!cli_rows_add(&st->rows, r) || st->rows.json)
        return;
    cli_rows_clear_progress(&st->rows);
    print_row(r);
}

static void on_log(void *ud, int level, const char *msg)
{
    prof_state *st = ud;
    if (experiments_timeline_path(msg, st->timeline, sizeof st->timeline) && st->rows.json)
        return;
    cli_rows_log(&st->rows, level, msg);
}

static void on_fault(void *ud, const run_fault *f)
{
    prof_state *st = ud;
    cli_rows_fault(&st->rows, f);
}

/* ---- the text roofline --------------------------------------------------- */

static void fmt_si(double v, const char *unit, char *out, size_t n)
{
    if (v >= 1e3 - 1e-9)
        snprintf(out, n, "%g%s", v / 1e3, unit[0] == 'G' ? "T" : "k");
    else
        snprintf(out, n, "%g%s", v, unit);
}

/* Draws the roofline rows (variant "roof_*") against the device's roofs. */
static void print_roofline(const cli_rows *st)
{
    roofline roof = {st->dev.peak_fp32_tflops * 1e3,
                     st->dev.peak_bw_measured_gbs > 0 ? st->dev.peak_bw_measured_gbs
                                                       : st->dev.peak_bw_theory_gbs};
    roofline_point pts[26];
    const run_result *src[26];
    size_t n = 0;
    for (size_t i = 0; i < st->n && n < 26; i++) {
        const run_result *r = &st->v[i];
        if (strncmp(r->variant, "roof_", 5) == 0 && r->status == RS_CORRECT &&
            roofline_point_from_rates(r->gbps, r->tflops, &pts[n]))
            src[n++] = r;
    }
    roofline_grid g;
    if (n == 0 || !st->have_dev || !roofline_grid_fit(&g, PLOT_W, PLOT_H, &roof, pts, n, NULL))
        return;
    char cells[PLOT_H][PLOT_W + 1];
    for (int r = 0; r < PLOT_H; r++) {
        memset(cells[r], ' ', PLOT_W);
        cells[r][PLOT_W] = '\0';
    }
    int ridge = roofline_ridge_col(&g, &roof);
    for (int c = 0; c < PLOT_W; c++) {
        int row = roofline_roof_row(&g, &roof, c);
        if (row >= 0)
            cells[row][c] = ridge >= 0 && c < ridge ? '/' : '-';
    }
    if (ridge >= 0) {
        int row = roofline_roof_row(&g, &roof, ridge);
        if (row >= 0)
            cells[row][ridge] = '+';
    }
    for (size_t i = 0; i < n; i++) {
        int c, r;
        if (roofline_place(&g, pts[i].ai, pts[i].gflops, &c, &r))
            cells[r][c] = (char)('A' + i);
    }
    printf("\nRoofline (log-log): GFLOP/s against FLOP per byte; '/' memory roof %.0f GB/s, "
           "'-' FP32 roof %.1f TFLOP/s, '+' ridge at %.1f FLOP/B\n",
           roof.peak_gbs, roof.peak_gflops / 1e3, roofline_ridge(&roof));
    for (int r = 0; r < PLOT_H; r++) {
        char label[16] = "";
        for (double d = g.y_lo; d <= g.y_hi; d += 1.0) {
            int c, rr;
            if (roofline_place(&g, roofline_col_ai(&g, 0), pow(10.0, d) * 1.0001, &c, &rr) &&
                rr == r)
                fmt_si(pow(10.0, d), "G", label, sizeof label);
        }
        printf("%8s |%s\n", label, cells[r]);
    }
    char axis[PLOT_W + 16];
    memset(axis, ' ', sizeof axis);
    axis[sizeof axis - 1] = '\0';
    for (double d = g.x_lo; d < g.x_hi; d += 1.0) {
        int c = (int)floor((d - g.x_lo) / (g.x_hi - g.x_lo) * PLOT_W);
        char l[16];
        snprintf(l, sizeof l, "%g", pow(10.0, d));
        size_t len = strlen(l);
        if ((size_t)c + len < sizeof axis - 1)
            memcpy(axis + c, l, len);
    }
    for (int i = (int)sizeof axis - 2; i >= 0 && axis[i] == ' '; i--)
        axis[i] = '\0';
    printf("%8s +", "");
    for (int c = 0; c < PLOT_W; c++)
        putchar('-');
    printf("\n%8s  %s  FLOP/B\n", "", axis);
    for (size_t i = 0; i < n; i++) {
        roofline_point *p = &pts[i];
        printf("  %c  %-16s %8.2f TFLOP/s  %s, %.0f%% of its roof\n", (char)('A' + i),
               src[i]->label, p->gflops / 1e3,
               roofline_side_name(roofline_side_of(&roof, p->ai)), roofline_pct_of_roof(&roof, p));
    }
}

/* ---- the timeline summary ------------------------------------------------ */

static void print_timeline_summary(const prof_state *st)
{
    timeline t;
    cl_err e;
    if (!st->timeline[0] || !trace_load(st->timeline, &t, &e))
        return;
    tl_gaps g;
    if (timeline_gaps(&t, TL_GPU_LANES, 0, &g, &e) && g.last_ns > g.first_ns) {
        char span[32], idle[32], big[32] = "", at[32] = "";
        timeline_format_ns((double)(g.last_ns - g.first_ns), span, sizeof span);
        timeline_format_ns((double)g.idle_ns, idle, sizeof idle);
        const tl_gap *longest = NULL;
        for (size_t i = 0; i < g.n; i++)
            if (!longest || g.v[i].end_ns - g.v[i].start_ns > longest->end_ns - longest->start_ns)
                longest = &g.v[i];
        printf("\nTimeline: %zu events; the GPU was busy %.0f%% of %s and idle for %s",
               t.nitems, 100.0 * (double)g.busy_ns / (double)(g.last_ns - g.first_ns), span, idle);
        if (longest) {
            timeline_format_ns((double)(longest->end_ns - longest->start_ns), big, sizeof big);
            timeline_format_ns((double)longest->start_ns, at, sizeof at);
            printf(" (longest gap %s, at %s)", big, at);
        }
        printf(".\nOpen %s in ui.perfetto.dev or chrome://tracing to explore it.\n", st->timeline);
    }
    timeline_gaps_free(&g);
    timeline_free(&t);
}

/* ---- arguments ------------------------------------------------------------- */

static int known_list(char *out, size_t n)
{
    size_t len = 0;
    static const char *const problems[] = {EXPERIMENTS_PROBLEM, EXPERIMENTS_BASICS};
    out[0] = '\0';
    for (size_t p = 0; p < 2; p++) {
        size_t k = 0;
        const char *const *ids = experiments_ids_of(problems[p], &k);
        for (size_t i = 0; i < k; i++)
            len = strfmt_append(out, n, len, "%s%s", len ? ", " : "", ids[i]);
    }
    return (int)len;
}

enum { OPT_TRACE = CLI_LONG_ONLY, OPT_NCU, OPT_BUDGET, OPT_SEED };

static const cli_opt profile_opts[] = {
    {.name = "trace", .key = OPT_TRACE, .arg = "FILE",
     .help = "also write the timeline as a Chrome trace (ui.perfetto.dev)",
     .need = "a file name"},
    {.name = "ncu", .key = OPT_NCU, .arg = "KERNEL_REGEX",
     .help = "run the experiments under Nsight Compute and print its metrics for these kernels",
     .need = "a kernel name or regular expression (for example prof_transpose_tiled)"},
    {.name = "budget", .key = OPT_BUDGET, .arg = "SEC",
     .help = "GPU time to spend timing each measurement",
     .need = "a positive number of seconds"},
    {.name = "seed", .key = OPT_SEED, .arg = "S",
     .help = "the inputs' random seed (default: a fresh one)",
     .need = "a whole number from 1 to 2^64-1"},
    {.name = "json", .key = 'j', .help = "print one JSON document instead of a table"},
    {.name = NULL},
};

const cli_command cmd_profile_spec = {
    .name = "profile",
    .operands = "[EXPERIMENT...]",
    .summary = "the profiling lab's experiments, with a CUPTI timeline of what the GPU did",
    .details = "Experiments: transfers, overlap, stride, gemv, blocksize, transpose, timing, roofline\n"
               "(none named: all of them, in that order); the basics lab's: divergence, occupancy,\n"
               "hierarchy, fences (named one by one, not with the profiling lab's).",
    .opts = profile_opts,
    .run = cmd_profile,
};

static int profile_option(cli_ctx *c, void *ud, int key, const char *v)
{
    prof_args *a = ud;
    switch (key) {
    case 'j':
        a->json = true;
        return EXIT_OK;
    case OPT_TRACE:
        a->trace = v;
        return EXIT_OK;
    case OPT_NCU:
        if (!v[0])
            return cli_usage_error(c, "profile: --ncu needs a kernel name or regular expression "
                                      "(for example prof_transpose_tiled)");
        a->ncu_regex = v;
        return EXIT_OK;
    case OPT_BUDGET:
        if (!cli_args_seconds(v, &a->budget_s))
            return cli_usage_error(c, "profile: --budget needs " CLI_ARGS_SECONDS_RANGE);
        return EXIT_OK;
    case OPT_SEED:
        if (!cli_args_seed(v, &a->seed))
            return cli_usage_error(c, "profile: --seed needs " CLI_ARGS_SEED_RANGE);
        return EXIT_OK;
    default:
        return EXIT_USAGE;
    }
}

/* Options, then the experiments named; EXIT_OK, CLI_HELPED or an error. */
static int parse_args(cli_ctx *c, int argc, char **argv, prof_args *a)
{
    memset(a, 0, sizeof *a);
    int first = 0;
    int rc = cli_opts_parse(c, &cmd_profile_spec, argc, argv, profile_option, a, &first);
    if (rc != EXIT_OK)
        return rc;
    for (int i = first; i < argc; i++) {
        const char *s = argv[i];
        if (!experiments_known(s)) {
            char known[256];
            known_list(known, sizeof known);
            return cli_usage_error(c, "profile: no experiment called '%s' (known: %s)", s, known);
        }
        if (a->nids == RUN_MAX_VARIANTS)
            return cli_usage_error(c, "profile: too many experiments");
        if (a->nids > 0 && strcmp(experiments_problem_of(s), experiments_problem_of(a->ids[0])) != 0)
            return cli_usage_error(c, "profile: '%s' and '%s' belong to different labs: name "
                                      "the experiments of one lab at a time", a->ids[0], s);
        a->ids[a->nids++] = s;
    }
    if (a->ncu_regex && (a->trace || a->json))
        return cli_usage_error(c, "profile: --ncu prints Nsight Compute's metrics; it does not "
                                  "combine with --trace or --json");
    return EXIT_OK;
}

/* ---- Nsight Compute ---------------------------------------------------------- */

static int run_ncu(cli_ctx *c, const prof_args *a)
{
    char ncu[CL_PATH_MAX], self[CL_PATH_MAX], budget[32], limit[32];
    cl_err e;
    if (!ncu_find(ncu, sizeof ncu)) {
        fprintf(stderr, "cudalab: %s\n", ncu_install_hint());
        return EXIT_ENV;
    }
    if (!paths_self_exe(self, sizeof self, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        return EXIT_ENV;
    }
    const char *cmd[RUN_MAX_VARIANTS + 12];
    int k = 0;
    cmd[k++] = self;
    if (c->time_limit_s > 0) {
        snprintf(limit, sizeof limit, "%g", c->time_limit_s);
        cmd[k++] = "--time-limit";
        cmd[k++] = limit;
    }
    cmd[k++] = "profile";
    for (int i = 0; i < a->nids; i++)
        cmd[k++] = a->ids[i];
    snprintf(budget, sizeof budget, "%g", a->budget_s > 0 ? a->budget_s : 0.05);
    cmd[k++] = "--budget";
    cmd[k++] = budget;
    cmd[k] = NULL;

    fprintf(stderr, "Profiling the first launch of '%s' with %s (this runs the experiments once "
                    "under Nsight Compute and takes a while)...\n",
            a->ncu_regex, ncu);
    ncu_report rep;
    char *out = NULL;
    double limit_s = c->time_limit_s > 0 ? c->time_limit_s : PROFILE_TIME_LIMIT_S;
    if (!ncu_run(ncu, a->ncu_regex, NULL, cmd, limit_s, &rep, &out, &e)) {
        bool absent = out && strstr(out, "no CUDA device found");
        fprintf(stderr, "cudalab: %s\n", absent ? "no CUDA device found: nothing to profile" : e.msg);
        int rc = absent ? EXIT_ENV : EXIT_FAIL;
        free(out);
        return rc;
    }
    free(out);
    for (size_t i = 0; i < rep.nkernels; i++) {
        const ncu_kernel *kn = &rep.kernels[i];
        printf("Nsight Compute: %s, block %s, grid %s, device %s (compute capability %s)\n",
               kn->name, kn->block, kn->grid, kn->device, kn->cc);
        for (size_t m = 0; m < kn->nmetrics; m++) {
            const ncu_metric *mt = &kn->metrics[m];
            printf("  %-58.58s %14s %s\n", ncu_metric_label(mt->name),
                   mt->has_value ? mt->text : "n/a", mt->has_value ? mt->unit : "");
        }
    }
    ncu_report_free(&rep);
    return EXIT_OK;
}

/* ---- the command --------------------------------------------------------------- */

int cmd_profile(cli_ctx *ctx, int argc, char **argv)
{
    prof_args a;
    int rc = parse_args(ctx, argc, argv, &a);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    if (a.ncu_regex)
        return run_ncu(ctx, &a);

    static run_request req;
    memset(&req, 0, sizeof req);
    const char *problem = a.nids ? experiments_problem_of(a.ids[0]) : EXPERIMENTS_PROBLEM;
    snprintf(req.lab, sizeof req.lab, "%s", problem);
    snprintf(req.problem, sizeof req.problem, "%s", problem);
    req.budget_s = a.budget_s;
    req.seed = a.seed;
    req.cpu = false;
    for (int i = 0; i < a.nids; i++)
        snprintf(req.variants[req.nvariants++].id, RUN_ID_MAX, "%s", a.ids[i]);

    prof_state st;
    memset(&st, 0, sizeof st);
    cli_rows_init(&st.rows, a.json);
    cli_rows *rows = &st.rows;
    supervisor_callbacks cb = {
        .on_hello = on_hello,
        .on_progress = on_progress,
        .on_result = on_result,
        .on_log = on_log,
        .on_fault = on_fault,
    };
    double limit = ctx->time_limit_s > 0 ? ctx->time_limit_s : PROFILE_TIME_LIMIT_S;
    if (cli_rows_run(rows, &req, limit, &cb, &st) != EXIT_OK) {
        cli_rows_free(rows);
        return EXIT_ENV;
    }

    if (rows->json) {
        cJSON *root = record_doc(problem, rows->have_dev ? &rows->dev : NULL, rows->v,
                                   rows->n, rows->faulted ? &rows->fault : NULL);
        if (root) {
            if (st.timeline[0])
                cJSON_AddStringToObject(root, "timeline", st.timeline);
            else
                cJSON_AddNullToObject(root, "timeline");
        }
        cli_print_json(root);
    } else if (rows->have_dev && rows->dev.present) {
        print_roofline(rows);
        print_timeline_summary(&st);
    }

    rc = cli_rows_exit_code(rows);
    cl_err e;
    if (a.trace && rc == EXIT_ENV)
        fprintf(stderr, "cudalab: no timeline can be recorded here, so %s was not written\n",
                a.trace);
    if (a.trace && rc != EXIT_ENV) {
        if (!st.timeline[0]) {
            fprintf(stderr, "cudalab: no timeline was recorded, so %s was not written\n", a.trace);
            rc = EXIT_FAIL;
        } else if (!trace_copy(st.timeline, a.trace, &e)) {
            fprintf(stderr, "cudalab: cannot write the trace %s: %s\n", a.trace, e.msg);
            rc = EXIT_FAIL;
        } else if (!rows->json) {
            printf("Trace written to %s\n", a.trace);
        }
    }
    cli_rows_free(rows);
    return rc;
}

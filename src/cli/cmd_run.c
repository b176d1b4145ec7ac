/* cmd_run.c - `cudalab run LAB [--variant V]... [--size N]... [--seed S] [--no-cpu]
 *                [--exercise] [--sanitize memcheck|racecheck] [--json]`.
 *
 * Sends one request to the worker and prints a table (or JSON) of the rows
 * it streams back.  --exercise adds the learner's kernel from the workspace
 * (lab/workspace.h: the lab's starters are copied there first when missing)
 * as the row "exercise" beside the shipped rungs.  --sanitize runs only the
 * learner's kernel, once, checked but not timed, under compute-sanitizer at
 * the smallest size, and prints what the tool found (supervise/sanitize.h).
 * Exit 0 when every row ran and checked out (and the tool found nothing), 1
 * when a result was wrong, the worker faulted or the tool found problems, 3
 * when no CUDA device or no compute-sanitizer was found (the CPU baselines
 * still run and print). */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_labs.h"
#include "cli/cli_args.h"
#include "cli/cli_opts.h"
#include "cli/cli_record.h"
#include "cli/cli_rows.h"
#include "lab/workspace.h"
#include "supervise/sanitize.h"
#include "supervise/supervisor.h"

static void fmt_ratio(char *buf, size_t n, double v)
{
    if (v <= 0)
        snprintf(buf, n, "-");
    else if (v >= 100)
        snprintf(buf, n, "%.0fx", v);
    else
        snprintf(buf, n, "%.2fx", v);
}

static void fmt_time(char *buf, size_t n, const run_result *r)
{
    if (r->samples <= 0) {
        snprintf(buf, n, "-");
        return;
    }
    if (r->median_ms >= 100)
        snprintf(buf, n, "%.0f ms ±%.1f%%", r->median_ms, 100 * r->spread);
    else if (r->median_ms >= 1)
        snprintf(buf, n, "%.3f ms ±%.1f%%", r->median_ms, 100 * r->spread);
    else
        snprintf(buf, n, "%.1f us ±%.1f%%", r->median_ms * 1000, 100 * r->spread);
}

static void print_header(void)
{
    printf("%-14s %-18s %-20s %11s %11s %7s %8s %8s %8s  %s\n", "variant", "size", "median",
           "GB/s", "TFLOP/s", "%peak", "x CPU", "x CPU-mt", "x lib", "result");
}

/* Rows that could not run for want of a device say so once, in the header. */
static bool no_device_row(const run_result *r)
{
    return r->status == RS_ERROR && strncmp(r->message, "no CUDA device found", 20) == 0;
}

static void print_row(const run_result *r)
{
    char t[48], bw[32], fl[32], pk[16], c1[16], cm[16], lib[16];
    fmt_time(t, sizeof t, r);
    cli_rows_fmt_rate(bw, sizeof bw, r->gbps);
    cli_rows_fmt_rate(fl, sizeof fl, r->tflops);
    cli_rows_fmt_pct(pk, sizeof pk, r->pct_peak_measured);
    fmt_ratio(c1, sizeof c1, r->speedup_cpu);
    fmt_ratio(cm, sizeof cm, r->speedup_cpu_mt);
    fmt_ratio(lib, sizeof lib, r->speedup_lib);
    char res[48];
    if (no_device_row(r))
        snprintf(res, sizeof res, "no device");
    else if (r->status == RS_CORRECT && r->rel_err >= RUN_SHOWN_ERROR)
        snprintf(res, sizeof res, "correct, error %.1e", r->rel_err);
    else
        snprintf(res, sizeof res, "%s", result_status_name(r->status));
    printf("%-14.14s %-18.18s %-20s %11s %11s %7s %8s %8s %8s  %s\n", r->variant, r->size, t, bw,
           fl, pk, c1, cm, lib, res);
    if (r->status != RS_CORRECT && r->message[0] && !no_device_row(r))
        printf("    %s\n", r->message);
    fflush(stdout);
}

/* What the callbacks share: the rows (first, so the cli_rows calls take
 * the state itself) and the run's record in the progress store. */
typedef struct run_state {
    cli_rows rows;
    recorder rec;
} run_state;

static void on_hello(void *ud, const device_info *dev)
{
    run_state *rs = ud;
    cli_rows *st = &rs->rows;
    recorder_device(&rs->rec, dev);
    cli_rows_hello(st, dev, "GPU rows cannot run here; the CPU baselines still do.");
    if (!st->json)
        print_header();
}

static void on_progress(void *ud, const run_progress *p)
{
    cli_rows_progress(ud, "%-14.14s %-18.18s %-8s %d/%d", p->variant, p->size, p->phase, p->rep,
                      p->of);
}

static void on_result(void *ud, const run_result *r)
{
    run_state *rs = ud;
    cli_rows *st = &rs->rows;
    recorder_row(&rs->rec, r, r->kind == RK_EXERCISE ? cli_diag_cause(r) : NULL);
    if (!cli_rows_add(st, r) || st->json)
        return;
    cli_rows_clear_progress(st);
    print_row(r);
}

static void on_log(void *ud, int level, const char *msg)
{
    cli_rows_log(ud, level, msg);
}

static void on_fault(void *ud, const run_fault *f)
{
    cli_rows_fault(ud, f);
}

static const lab_variant *find_variant(const lab *l, const char *id)
{
    for (size_t i = 0; i < l->nvariants; i++)
        if (strcmp(l->variants[i].id, id) == 0)
            return &l->variants[i];
    return NULL;
}

static void add_variant(run_request *req, const lab_variant *v)
{
    run_variant *rv = &req->variants[req->nvariants++];
    snprintf(rv->id, sizeof rv->id, "%s", v->id);
    snprintf(rv->kernel, sizeof rv->kernel, "%s", v->kernel);
}

typedef struct run_args {
    const lab *l;
    run_request *req;
    bool json;
    bool exercise;
    bool sanitize;
    sanitize_tool tool;
} run_args;

enum { OPT_NO_CPU = CLI_LONG_ONLY, OPT_EXERCISE, OPT_SANITIZE, OPT_SEED, OPT_BUDGET };

static const cli_opt run_opts[] = {
    {"variant", 'v', "V", "run this variant only (repeatable; default: every one)", "a variant id (see 'cudalab list')"},
    {"size", 's', "N", "run at this size only (repeatable; default: the lab's sizes)", "a size such as 2^24 or 1024x1024x1024"},
    {"seed", OPT_SEED, "S", "the inputs' random seed (default: a fresh one)", "a number"},
    {"budget", OPT_BUDGET, "SEC", "GPU time to spend timing each row (default 0.5)", "a positive number of seconds"},
    {"no-cpu", OPT_NO_CPU, NULL, "skip the CPU baselines", NULL},
    {"exercise", OPT_EXERCISE, NULL, "add your own kernel's row, from the workspace", NULL},
    {"sanitize", OPT_SANITIZE, "TOOL",
     "check your kernel under compute-sanitizer: memcheck or racecheck", "a tool: memcheck or racecheck"},
    {"json", 'j', NULL, "print one JSON document instead of a table", NULL},
    {NULL, 0, NULL, NULL, NULL},
};

const cli_command cmd_run_spec = {
    "run", "LAB", "run a lab's kernels and print a table of results",
    "Each row is checked against a double-precision CPU reference on fresh random inputs\n"
    "and timed with CUDA events.  Exits 0 when every row ran and was correct, 1 when a\n"
    "row was wrong or faulted, 3 when no CUDA device was found (the CPU rows still print).",
    run_opts, cmd_run,
};

static int run_option(cli_ctx *c, void *ud, int key, const char *v)
{
    run_args *ra = ud;
    run_request *req = ra->req;
    switch (key) {
    case 'j':
        ra->json = true;
        return EXIT_OK;
    case OPT_NO_CPU:
        req->cpu = false;
        return EXIT_OK;
    case OPT_EXERCISE:
        ra->exercise = true;
        return EXIT_OK;
    case OPT_SANITIZE:
        if (!sanitize_tool_from_name(v, &ra->tool))
            return cli_usage_error(c, "run: --sanitize needs a tool: memcheck or racecheck");
        ra->sanitize = true;
        ra->exercise = true;
        return EXIT_OK;
    case 'v': {
        const lab_variant *lv = find_variant(ra->l, v);
        if (!lv)
            return cli_usage_error(c, "run: lab '%s' has no variant '%s' (see 'cudalab list')",
                                   ra->l->id, v);
        if (req->nvariants == RUN_MAX_VARIANTS)
            return cli_usage_error(c, "run: too many variants");
        add_variant(req, lv);
        return EXIT_OK;
    }
    case 's':
        if (req->nsizes == RUN_MAX_SIZES)
            return cli_usage_error(c, "run: at most %d sizes", RUN_MAX_SIZES);
        snprintf(req->sizes[req->nsizes++], RUN_SIZE_MAX, "%s", v);
        return EXIT_OK;
    case OPT_SEED:
        if (!cli_args_u64(v, &req->seed))
            return cli_usage_error(c, "run: --seed needs a number");
        return EXIT_OK;
    case OPT_BUDGET:
        if (!cli_args_seconds(v, &req->budget_s))
            return cli_usage_error(c, "run: --budget needs a positive number of seconds");
        return EXIT_OK;
    default:
        return EXIT_USAGE;
    }
}

/* Completes the request from the lab: its variants and sizes unless the
 * command line named some, and the learner's files with --exercise. */
static int finish_request(cli_ctx *c, const lab *l, run_request *req, run_args *ra)
{
    if (req->nvariants == 0)
        for (size_t k = 0; k < l->nvariants && k < RUN_MAX_VARIANTS; k++)
            add_variant(req, &l->variants[k]);
    if (req->nsizes == 0)
        for (size_t k = 0; k < l->nsizes && k < RUN_MAX_SIZES; k++)
            snprintf(req->sizes[req->nsizes++], RUN_SIZE_MAX, "%s", l->sizes[k]);
    if (ra->exercise) {
        if (!l->exercise.kernel || !l->exercise.launcher)
            return cli_usage_error(c, "run: lab '%s' has no exercise", l->id);
        workspace_files f;
        int rc = cli_prepare_workspace(l, &f);
        if (rc != EXIT_OK)
            return rc;
        snprintf(req->exercise_kernel, sizeof req->exercise_kernel, "%s", f.kernel);
        snprintf(req->exercise_launcher, sizeof req->exercise_launcher, "%s", f.launcher);
    }
    return EXIT_OK;
}

/* ---- --sanitize ------------------------------------------------------------ */

static cJSON *finding_json(const sanitize_finding *f)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    char text[1024];
    sanitize_finding_format(f, text, sizeof text);
    cJSON_AddStringToObject(o, "kind", sanitize_kind_name(f->kind));
    cJSON_AddBoolToObject(o, "warning", f->warning);
    cJSON_AddStringToObject(o, "space", f->space);
    cJSON_AddStringToObject(o, "hazard", f->hazard);
    cJSON_AddStringToObject(o, "kernel", f->kernel);
    cJSON_AddStringToObject(o, "file", f->file);
    cJSON_AddNumberToObject(o, "line", f->line);
    if (f->file2[0]) {
        cJSON_AddStringToObject(o, "file2", f->file2);
        cJSON_AddNumberToObject(o, "line2", f->line2);
    }
    if (f->has_thread)
        cJSON_AddItemToObject(o, "thread", cJSON_CreateIntArray(f->thread, 3));
    if (f->has_block)
        cJSON_AddItemToObject(o, "block", cJSON_CreateIntArray(f->block, 3));
    if (f->size > 0)
        cJSON_AddNumberToObject(o, "size", f->size);
    if (f->has_address) {
        char addr[32];
        snprintf(addr, sizeof addr, "0x%" PRIx64, f->address);
        cJSON_AddStringToObject(o, "address", addr);
    }
    if (f->hazards > 0)
        cJSON_AddNumberToObject(o, "hazards", (double)f->hazards);
    cJSON_AddNumberToObject(o, "count", f->count);
    cJSON_AddStringToObject(o, "text", text);
    return o;
}

static void print_sanitize_json(const lab *l, const sanitize_result *res)
{
    cJSON *root = record_doc(l->id, res->have_dev ? &res->dev : NULL, &res->row,
                               res->have_row ? 1 : 0, res->faulted ? &res->fault : NULL);
    if (!root)
        return;
    cJSON *san = cJSON_AddObjectToObject(root, "sanitizer");
    if (san) {
        cJSON_AddStringToObject(san, "tool", res->tool_path);
        cJSON_AddStringToObject(san, "size", res->size);
        cJSON_AddNumberToObject(san, "errors", res->report.errors);
        cJSON *arr = cJSON_AddArrayToObject(san, "findings");
        for (size_t i = 0; arr && i < res->report.n; i++) {
            cJSON *f = finding_json(&res->report.findings[i]);
            if (f)
                cJSON_AddItemToArray(arr, f);
        }
    }
    cli_print_json(root);
}

static void print_sanitize_text(const lab *l, const char *tool, const sanitize_result *res)
{
    printf("compute-sanitizer %s: your kernel for lab %s at size %s, one checked run\n", tool,
           l->id, res->size);
    if (res->have_dev && !res->dev.present)
        printf("%s\n", res->dev.reason);
    if (res->have_row) {
        printf("result: %s%s%s\n", result_status_name(res->row.status),
               res->row.message[0] ? ": " : "", res->row.message);
    }
    if (res->faulted)
        printf("fault (%s): %s\n", res->fault.cause, res->fault.message);
    if (res->report.n == 0) {
        printf("%s found no problems%s\n", tool,
               res->have_row && res->row.status == RS_ERROR ? " (but the kernel did not run)" : "");
    } else {
        printf("%s found %zu problem%s:\n", tool, res->report.n, res->report.n == 1 ? "" : "s");
        for (size_t i = 0; i < res->report.n; i++) {
            char text[1024];
            sanitize_finding_format(&res->report.findings[i], text, sizeof text);
            printf("  %zu. %s\n", i + 1, text);
        }
    }
    if (res->report.errors >= 0)
        printf("the tool counted %d error%s\n", res->report.errors,
               res->report.errors == 1 ? "" : "s");
    if (!res->have_row && !res->have_dev && res->output && res->output[0])
        fprintf(stderr, "the tool printed:\n%s", res->output);
    fflush(stdout);
}

static int run_sanitize(cli_ctx *c, const lab *l, const run_request *req, const run_args *ra)
{
    const char *sizes[RUN_MAX_SIZES];
    for (int i = 0; i < req->nsizes; i++)
        sizes[i] = req->sizes[i];
    double limit = c->time_limit_s > 0 ? c->time_limit_s : 0.0;
    sanitize_opts o = {
        .tool = ra->tool,
        .problem = req->problem,
        .lab = l->id,
        .sizes = sizes,
        .nsizes = req->nsizes,
        .kernel = req->exercise_kernel,
        .launcher = req->exercise_launcher,
        .seed = req->seed,
        .time_limit_s = limit,
    };
    const char *tool = sanitize_tool_name(ra->tool);
    if (!ra->json)
        fprintf(stderr, "running your kernel under compute-sanitizer %s (this is slow)...\n",
                tool);
    sanitize_result res;
    cl_err e = {{0}};
    if (!sanitize_run(&o, &res, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        sanitize_result_free(&res);
        return EXIT_ENV;
    }
    if (ra->json)
        print_sanitize_json(l, &res);
    else
        print_sanitize_text(l, tool, &res);
    int rc = EXIT_OK;
    if (res.have_dev && !res.dev.present)
        rc = EXIT_ENV;
    else if (res.faulted || !res.have_row || res.row.status != RS_CORRECT || res.report.n > 0)
        rc = EXIT_FAIL;
    sanitize_result_free(&res);
    return rc;
}

/* Judges the lab's milestones on the run's rows, records those reached
 * and, in text mode, lists them. */
static void judge_milestones(lab *l, run_state *rs, bool print)
{
    if (l->nmilestones == 0)
        return;
    ms_eval *ev = calloc(l->nmilestones, sizeof *ev);
    if (!ev)
        return;
    int newly = 0;
    recorder_milestones(&rs->rec, l, rs->rows.v, rs->rows.n, ev, &newly);
    if (print) {
        printf("\nmilestones (judged on your kernel's row):\n");
        for (size_t i = 0; i < l->nmilestones; i++) {
            const lab_milestone *m = &l->milestones[i];
            if (m->quiz)
                continue;
            static const char *const mark[] = {"[ ]", "[x]", "[-]", "[!]"};
            printf("  %s %s%s%s\n", mark[ev[i].state], m->text, ev[i].shown[0] ? ": " : "",
                   ev[i].state == MS_ERROR ? ev[i].error : ev[i].shown);
        }
        if (newly)
            printf("  (%d reached for the first time: see 'cudalab progress')\n", newly);
    }
    free(ev);
}

/* Options as they are parsed, before the lab is known: variant ids wait
 * for it, everything else goes into the request. */
typedef struct collected {
    run_args *ra;
    const char *variants[RUN_MAX_VARIANTS];
    int nvariants;
} collected;

static int collect_option(cli_ctx *c, void *ud, int key, const char *v)
{
    collected *col = ud;
    if (key != 'v')
        return run_option(c, col->ra, key, v);
    if (col->nvariants == RUN_MAX_VARIANTS)
        return cli_usage_error(c, "run: too many variants");
    col->variants[col->nvariants++] = v;
    return EXIT_OK;
}

int cmd_run(cli_ctx *c, int argc, char **argv)
{
    lab_set set = {0};
    lab_diags diags = {0};
    int rc = EXIT_ENV;
    static run_request req;
    static run_state state;
    cli_rows *st = &state.rows;
    cli_rows_init(st, false);
    store *db = NULL;
    run_args ra = {.req = &req};

    /* Options first: --labs may name the folder that holds LAB; variants
     * are checked against the lab once it is known. */
    memset(&req, 0, sizeof req);
    req.cpu = true;
    req.budget_s = 0.5;
    static collected col;
    memset(&col, 0, sizeof col);
    col.ra = &ra;
    int first = 0;
    rc = cli_opts_parse(c, &cmd_run_spec, argc, argv, collect_option, &col, &first);
    if (rc != EXIT_OK) {
        rc = rc == CLI_HELPED ? EXIT_OK : rc;
        goto done;
    }
    if (first >= argc) {
        rc = cli_usage_error(c, "run: which lab? (see 'cudalab list')");
        goto done;
    }
    if (first + 1 < argc) {
        rc = cli_usage_error(c, "run: unexpected argument '%s'", argv[first + 1]);
        goto done;
    }
    rc = EXIT_ENV;
    if (!cli_load_labs(c, &set, &diags))
        goto done;
    const lab *l = lab_set_find(&set, argv[first]);
    if (!l) {
        rc = cli_usage_error(c, "run: no lab called '%s' (see 'cudalab list'%s)", argv[first],
                             diags.n ? "; some labs failed to load: see 'cudalab check'" : "");
        goto done;
    }
    if (!l->problem) {
        rc = cli_usage_error(c, "run: lab '%s' has no kernels to run", l->id);
        goto done;
    }
    ra.l = l;
    snprintf(req.lab, sizeof req.lab, "%s", l->id);
    snprintf(req.problem, sizeof req.problem, "%s", l->problem);
    snprintf(req.library, sizeof req.library, "%s", l->library ? l->library : "");
    for (int i = 0; i < col.nvariants; i++)
        if ((rc = run_option(c, &ra, 'v', col.variants[i])) != EXIT_OK)
            goto done;
    if ((rc = finish_request(c, l, &req, &ra)) != EXIT_OK)
        goto done;
    if (req.nvariants == 0 && !ra.exercise) {
        rc = cli_usage_error(c, "run: lab '%s' has no kernels to run%s", l->id,
                             l->exercise.kernel ? " (try --exercise)" : "");
        goto done;
    }
    st->json = ra.json;
    if (ra.sanitize) {
        rc = run_sanitize(c, l, &req, &ra);
        goto done;
    }

    supervisor_callbacks cb = {
        .on_hello = on_hello,
        .on_progress = on_progress,
        .on_result = on_result,
        .on_log = on_log,
        .on_fault = on_fault,
    };
    double limit = c->time_limit_s > 0 ? c->time_limit_s : l->time_limit_s;
    db = cli_store_open();
    recorder_init(&state.rec, db, "run");
    recorder_begin(&state.rec, &req, NULL);
    if ((rc = cli_rows_run(&req, limit, &cb, &state)) != EXIT_OK)
        goto done;
    if (ra.exercise)
        judge_milestones((lab *)l, &state, !st->json);
    if (state.rec.failed[0])
        fprintf(stderr, "cudalab: %s\n", state.rec.failed);
    if (st->json)
        cli_print_json(record_doc(l->id, st->have_dev ? &st->dev : NULL, st->v, st->n,
                                  st->faulted ? &st->fault : NULL));
    rc = cli_rows_exit_code(st);
done:
    store_close(db);
    cli_rows_free(st);
    lab_set_free(&set);
    lab_diags_free(&diags);
    return rc;
}

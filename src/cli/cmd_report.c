#include "cli/cmd_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli_labs.h"
#include "cli/cli_args.h"
#include "cli/cli_opts.h"
#include "cli/cli_rows.h"
#include "cli/report_md.h"
#include "catalog/problem_spec.h"
#include "core/atomicfile.h"
#include "prof/timeline.h"
#include "prof/tlsummary.h"
#include "prof/trace.h"
#include "lab/workspace.h"
#include "catalog/experiments_list.h"
#include "catalog/pipeline_files.h"
#include "supervise/supervisor.h"

#define REPORT_MAX_BYTES (4u << 20)

typedef struct report_state {
    cli_rows w;                        /* the device and a fault; rows are kept below */
    run_result starter, mine, cpu, cpu_mt;
    bool have_starter, have_mine, have_cpu, have_cpu_mt;
    char starter_trace[CL_PATH_MAX], mine_trace[CL_PATH_MAX];
} report_state;

typedef struct report_args {
    const char *size;
    uint64_t seed;
    double budget_s;
} report_args;

/* ---- supervisor callbacks ---------------------------------------------------- */

static void on_hello(void *ud, const device_info *dev)
{
    report_state *st = ud;
    st->w.dev = *dev;
    st->w.have_dev = true;
    if (dev->present)
        printf("Device: %s\n", dev->name);
}

static void on_progress(void *ud, const run_progress *p)
{
    const report_state *st = ud;
    cli_rows_progress(&st->w, "%-20s %-14s %-8s %d/%d", p->variant, p->size, p->phase,
                      p->rep, p->of);
}

static void on_result(void *ud, const run_result *r)
{
    report_state *st = ud;
    cli_rows_clear_progress(&st->w);
    /* the end-to-end rows; the steps' rows are not part of the report */
    if (strcmp(r->variant, "exercise") == 0) {
        st->mine = *r;
        st->have_mine = true;
    } else if (strcmp(r->variant, "cpu") == 0) {
        st->cpu = *r;
        st->have_cpu = true;
    } else if (strcmp(r->variant, "cpu_mt") == 0) {
        st->cpu_mt = *r;
        st->have_cpu_mt = true;
    } else if (strcmp(r->variant, PIPELINE_VARIANT_STARTER) == 0) {
        st->starter = *r;
        st->have_starter = true;
    }
}

static void on_log(void *ud, int level, const char *msg)
{
    report_state *st = ud;
    char which[32], path[CL_PATH_MAX];
    if (pipeline_timeline_path(msg, which, sizeof which, path, sizeof path)) {
        if (strcmp(which, PIPELINE_VARIANT_STARTER) == 0)
            snprintf(st->starter_trace, sizeof st->starter_trace, "%s", path);
        else if (strcmp(which, "exercise") == 0)
            snprintf(st->mine_trace, sizeof st->mine_trace, "%s", path);
        return;
    }
    if (level > 0)
        cli_rows_log(&st->w, level, msg);
}

static void on_fault(void *ud, const run_fault *f)
{
    report_state *st = ud;
    cli_rows_fault(&st->w, f);
}

/* ---- arguments ------------------------------------------------------------------ */

enum { OPT_SEED = CLI_LONG_ONLY, OPT_BUDGET };

static const cli_opt report_opts[] = {
    {.name = "size", .key = 's', .arg = "ROWS",
     .help = "the table's rows (default: the lab's first size)",
     .need = "a number of rows such as 2^20"},
    {.name = "seed", .key = OPT_SEED, .arg = "S",
     .help = "the data set's seed (default: the lab's fixed data set)",
     .need = "a whole number from 1 to 2^64-1"},
    {.name = "budget", .key = OPT_BUDGET, .arg = "SEC",
     .help = "GPU time to spend timing each pipeline",
     .need = "a positive number of seconds"},
    {.name = NULL},
};

const cli_command cmd_report_spec = {
    .name = "report",
    .operands = "profiling",
    .summary = "time the slow starter pipeline and yours, record a timeline of each, and write\n"
               "profiling/report.md in your workspace",
    .opts = report_opts,
    .run = cmd_report,
};

static int report_option(cli_ctx *c, void *ud, int key, const char *v)
{
    report_args *a = ud;
    switch (key) {
    case 's': {
        problem_dims d;
        cl_err e = {{0}};
        if (!v[0] || !problem_spec_pipeline.parse(v, &d, &e))
            return cli_usage_error(c, "report: --size '%s' is not a size of the pipeline (%s): %s",
                                   v, problem_spec_pipeline.size_help,
                                   v[0] ? e.msg : "it is empty");
        a->size = v;
        return EXIT_OK;
    }
    case OPT_SEED:
        if (!cli_args_seed(v, &a->seed))
            return cli_usage_error(c, "report: --seed needs " CLI_ARGS_SEED_RANGE);
        return EXIT_OK;
    case OPT_BUDGET:
        if (!cli_args_seconds(v, &a->budget_s))
            return cli_usage_error(c, "report: --budget needs " CLI_ARGS_SECONDS_RANGE);
        return EXIT_OK;
    default:
        return EXIT_USAGE;
    }
}

/* Options, then the one lab named; EXIT_OK with *lab_id set, CLI_HELPED or
 * an error. */
static int parse_args(cli_ctx *c, int argc, char **argv, report_args *a, const char **lab_id)
{
    memset(a, 0, sizeof *a);
    int first = 0;
    int rc = cli_opts_parse(c, &cmd_report_spec, argc, argv, report_option, a, &first);
    if (rc != EXIT_OK)
        return rc;
    if (first >= argc)
        return cli_usage_error(c, "report: which lab? (cudalab report profiling)");
    if (first + 1 < argc)
        return cli_usage_error(c, "report: unexpected argument '%s'", argv[first + 1]);
    *lab_id = argv[first];
    return EXIT_OK;
}

/* ---- the files ------------------------------------------------------------------ */

/* Loads and summarises one recorded trace; false with why filled. */
static bool summarise(const char *path, tl_summary *out, char *why, size_t n)
{
    timeline t;
    cl_err e = {{0}};
    if (!trace_load(path, &t, &e)) {
        snprintf(why, n, "the trace could not be read: %s", e.msg);
        return false;
    }
    bool ok = tlsummary_make(&t, REPORT_GAP_MIN_NS, out, &e);
    if (!ok)
        snprintf(why, n, "%s", e.msg);
    timeline_free(&t);
    return ok;
}

/* Copies a trace next to the report (validated, atomically). */
static bool copy_trace(const char *from, const char *dir, const char *name, cl_err *e)
{
    char to[CL_PATH_MAX];
    if (!paths_join(to, sizeof to, dir, name))
        return err_set(e, "the path %s/%s is too long", dir, name);
    return trace_copy(from, to, e);
}

/* The learner's notes from the report at path (NULL: none).  An earlier
 * report whose notes section cannot be found is saved first under a new
 * name, so nothing the learner wrote is lost; *saved gets that path. */
static char *previous_notes(const char *path, const char *dir, char *saved, size_t n, cl_err *e,
                            bool *failed)
{
    saved[0] = '\0';
    *failed = false;
    if (!paths_is_file(path))
        return NULL;
    size_t len = 0;
    char *old = file_read_all(path, REPORT_MAX_BYTES, &len, e);
    if (!old) {
        *failed = true;
        return NULL;
    }
    char *notes = report_md_notes(old);
    if (!notes && len > 0) {
        char name[64], stamp[32];
        time_t now = time(NULL);
        struct tm tmv;
        localtime_r(&now, &tmv);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tmv);
        snprintf(name, sizeof name, "report-%s.md", stamp);
        if (!paths_join(saved, n, dir, name) || !atomicfile_write(saved, old, len, e)) {
            if (!e->msg[0])
                err_set(e, "the path of the saved report is too long");
            *failed = true;
            saved[0] = '\0';
        }
    }
    free(old);
    return notes;
}

/* ---- the command ------------------------------------------------------------------ */

static void print_row(const char *name, const run_result *r)
{
    if (r->status == RS_CORRECT && r->median_ms > 0.0)
        printf("  %-14s %10.3f ms  %8.2f GB/s  x CPU %7.2f  x starter %7.2f  correct\n", name,
               r->median_ms, r->gbps, r->speedup_cpu, r->speedup_starter);
    else
        printf("  %-14s %s: %s\n", name, result_status_name(r->status), r->message);
}

/* Finds the lab and the learner's files; an exit code other than EXIT_OK
 * when the command cannot go on. */
static int find_lab(cli_ctx *c, const char *id, lab_set *set, lab_diags *diags,
                    const lab **out, workspace_files *f)
{
    if (!cli_load_labs(c, set, diags))
        return EXIT_ENV;
    const lab *l = lab_set_find(set, id);
    if (!l)
        return cli_usage_error(c, "report: no lab called '%s' (see 'cudalab list')", id);
    const lab_exercise *own = lab_own_exercise(l);
    if (!l->problem || strcmp(l->problem, EXPERIMENTS_PROBLEM) != 0 || !own ||
        strcmp(own->problem, PIPELINE_PROBLEM) != 0)
        return cli_usage_error(c, "report: lab '%s' has no profiling report (try 'cudalab "
                                  "report %s')",
                               id, PIPELINE_REPORT_LAB);
    int rc = cli_prepare_workspace(l, NULL, f);
    if (rc == EXIT_OK)
        *out = l;
    return rc;
}

static void build_request(const lab *l, const report_args *a, const workspace_files *f,
                          run_request *req)
{
    memset(req, 0, sizeof *req);
    snprintf(req->lab, sizeof req->lab, "%s", l->id);
    snprintf(req->problem, sizeof req->problem, "%s", PIPELINE_PROBLEM);
    const char *size = a->size;
    if (!size)
        size = l->nsizes && l->sizes ? l->sizes[0] : PIPELINE_DEFAULT_SIZE;
    snprintf(req->sizes[0], sizeof req->sizes[0], "%s", size);
    req->nsizes = 1;
    snprintf(req->variants[0].id, sizeof req->variants[0].id, "%s", PIPELINE_VARIANT_STARTER);
    snprintf(req->variants[1].id, sizeof req->variants[1].id, "%s", PIPELINE_VARIANT_TIMELINE);
    req->nvariants = 2;
    req->cpu = true;
    req->seed = a->seed;
    req->budget_s = a->budget_s;
    snprintf(req->exercise_kernel, sizeof req->exercise_kernel, "%s", f->kernel);
    snprintf(req->exercise_launcher, sizeof req->exercise_launcher, "%s", f->launcher);
}

/* Summaries, trace copies, notes, then the report itself. */
static int write_report(const report_state *st, const char *size, const workspace_files *f)
{
    tl_summary before, after;
    memset(&before, 0, sizeof before);
    memset(&after, 0, sizeof after);
    char why_b[CL_ERR_MAX + 64] = "", why_a[CL_ERR_MAX + 64] = "";
    bool have_b = false, have_a = false;
    cl_err e = {{0}};
    int rc = EXIT_OK;

    if (!st->starter_trace[0])
        snprintf(why_b, sizeof why_b, "none was recorded (the starter's row was not correct, "
                                      "or recording failed: see the warnings)");
    else if ((have_b = summarise(st->starter_trace, &before, why_b, sizeof why_b)) &&
             !copy_trace(st->starter_trace, f->dir, REPORT_STARTER_TRACE, &e))
        fprintf(stderr, "cudalab: cannot write %s: %s\n", REPORT_STARTER_TRACE, e.msg);
    if (!st->mine_trace[0])
        snprintf(why_a, sizeof why_a, "none was recorded (your pipeline's row was not correct, "
                                      "or recording failed: see the warnings)");
    else if ((have_a = summarise(st->mine_trace, &after, why_a, sizeof why_a)) &&
             !copy_trace(st->mine_trace, f->dir, REPORT_PIPELINE_TRACE, &e))
        fprintf(stderr, "cudalab: cannot write %s: %s\n", REPORT_PIPELINE_TRACE, e.msg);

    char path[CL_PATH_MAX], saved[CL_PATH_MAX], when[32];
    if (!pipeline_report_path(f->kernel, path, sizeof path)) {
        fprintf(stderr, "cudalab: the report's path is too long\n");
        rc = EXIT_ENV;
        goto cleanup;
    }
    bool failed = false;
    err_clear(&e);
    char *notes = previous_notes(path, f->dir, saved, sizeof saved, &e, &failed);
    if (failed) {
        fprintf(stderr, "cudalab: %s: the earlier report could not be kept (%s), so it was not "
                        "replaced\n",
                path, e.msg);
        free(notes);
        rc = EXIT_ENV;
        goto cleanup;
    }
    if (saved[0])
        printf("Your earlier report had no notes section; it was saved as %s\n", saved);
    time_t now = time(NULL);
    struct tm tmv;
    localtime_r(&now, &tmv);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tmv);
    report_input in = {
        .device = st->w.dev.name,
        .size = size,
        .when = when,
        .cpu = st->have_cpu ? &st->cpu : NULL,
        .cpu_mt = st->have_cpu_mt ? &st->cpu_mt : NULL,
        .starter = {.row = st->have_starter ? &st->starter : NULL,
                    .tl = have_b ? &before : NULL,
                    .trace = have_b ? REPORT_STARTER_TRACE : NULL,
                    .why_no_tl = have_b ? NULL : why_b},
        .mine = {.row = st->have_mine ? &st->mine : NULL,
                 .tl = have_a ? &after : NULL,
                 .trace = have_a ? REPORT_PIPELINE_TRACE : NULL,
                 .why_no_tl = have_a ? NULL : why_a},
    };
    char *md = report_md_build(&in, notes);
    free(notes);
    if (!md || !atomicfile_write(path, md, strlen(md), &e)) {
        fprintf(stderr, "cudalab: cannot write %s: %s\n", path, md ? e.msg : "out of memory");
        rc = EXIT_ENV;
    } else {
        printf("Report written to %s%s\n", path,
               have_a || have_b ? ", with the traces beside it" : "");
    }
    free(md);
cleanup:
    tlsummary_free(&before);
    tlsummary_free(&after);
    return rc;
}

int cmd_report(cli_ctx *ctx, int argc, char **argv)
{
    report_args a;
    const char *lab_id = NULL;
    int rc = parse_args(ctx, argc, argv, &a, &lab_id);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    lab_set set = {0};
    lab_diags diags = {0};
    static run_request req;
    static report_state st;
    memset(&st, 0, sizeof st);
    cli_rows_init(&st.w, false);
    const lab *l = NULL;
    static workspace_files f;
    if ((rc = find_lab(ctx, lab_id, &set, &diags, &l, &f)) != EXIT_OK || !l)
        goto done;
    build_request(l, &a, &f, &req);

    supervisor_callbacks cb = {
        .on_hello = on_hello,
        .on_progress = on_progress,
        .on_result = on_result,
        .on_log = on_log,
        .on_fault = on_fault,
    };
    double limit = ctx->time_limit_s > 0 ? ctx->time_limit_s : l->time_limit_s;
    fprintf(stderr, "Timing the starter and your pipeline at %s, then recording a timeline of "
                    "each...\n",
            req.sizes[0]);
    if ((rc = cli_rows_run(&st.w, &req, limit, &cb, &st)) != EXIT_OK)
        goto done;
    cli_rows_clear_progress(&st.w);
    if (st.w.interrupted) {
        fprintf(stderr, "cudalab: no report was written\n");
        rc = EXIT_INTERRUPTED;
        goto done;
    }

    if (cli_rows_no_device(&st.w)) {
        fprintf(stderr, "cudalab: %s\nThe report needs a GPU to measure; nothing was written.\n",
                cli_rows_reason(&st.w));
        rc = EXIT_ENV;
        goto done;
    }
    if (st.have_starter)
        print_row("the starter", &st.starter);
    if (st.have_mine)
        print_row("your pipeline", &st.mine);
    if (!st.have_starter || !st.have_mine) {
        fprintf(stderr, "cudalab: the run ended before both pipelines were measured; no report "
                        "was written\n");
        rc = st.w.faulted ? EXIT_FAIL : EXIT_ENV;
        goto done;
    }
    rc = write_report(&st, req.sizes[0], &f);
    if (rc == EXIT_OK && (st.w.faulted || st.starter.status != RS_CORRECT ||
                          st.mine.status != RS_CORRECT))
        rc = EXIT_FAIL;
done:
    lab_set_free(&set);
    lab_diags_free(&diags);
    return rc;
}

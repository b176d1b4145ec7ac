/* cmd_run.c - `cudalab run LAB [--variant V]... [--size N]... [--seed S] [--no-cpu]
 *                [--exercise] [--sanitize memcheck|racecheck|synccheck|initcheck]
 *                [--json]`.
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

#include "core/strfmt.h"
#include "cli/cli.h"
#include "cli/cli_labs.h"
#include "cli/cli_args.h"
#include "cli/cli_opts.h"
#include "cli/cli_diag.h"
#include "cli/cli_pipeline.h"
#include "cli/cli_record.h"
#include "catalog/experiments_list.h"
#include "catalog/precision.h"
#include "catalog/problem_spec.h"
#include "cli/cli_rows.h"
#include "cli/cli_runms.h"
#include "cli/cli_runtable.h"
#include "cli/cli_sanitize.h"
#include "lab/labneeds.h"
#include "lab/labproblem.h"
#include "lab/milestone.h"
#include "catalog/pipeline_files.h"
#include "lab/workspace.h"
#include "supervise/diag_row.h"
#include "supervise/sanitize.h"
#include "supervise/supervisor.h"

/* What the callbacks share: the rows (first, so the cli_rows calls take
 * the state itself) and the run's record in the progress store. */
typedef struct run_state {
    cli_rows rows;
    recorder rec;
    bool cpu_rows;         /* the run has CPU rows (they run without a device) */
    const problem_spec *spec;   /* for the diagnosis of the learner's row */
    double time_limit_s;
    const lab_exercise *x;   /* the exercise run, or NULL */
    bool unicode;            /* the table may use "±" */
} run_state;

static void on_hello(void *ud, const device_info *dev)
{
    run_state *rs = ud;
    cli_rows *st = &rs->rows;
    recorder_device(&rs->rec, dev);
    cli_rows_hello(st, dev, rs->cpu_rows ? "GPU rows cannot run here; the CPU baselines still do."
                                         : NULL);
    if (!st->json)
        cli_runtable_header();
}

static void on_progress(void *ud, const run_progress *p)
{
    cli_rows_progress(ud, "%-20s %-18s %-8s %d/%d", p->variant, p->size, p->phase, p->rep,
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
    cli_runtable_row(r, rs->unicode);
    if (cli_diag_wanted(r)) {
        diagnosis d;
        diag_row(r, NULL, rs->spec, rs->time_limit_s, NULL, &d);
        cli_diag_print(stdout, &d, "    ");
    }
}

static void on_log(void *ud, int level, const char *msg)
{
    cli_rows_log(ud, level, msg);
}

static void on_fault(void *ud, const run_fault *f)
{
    cli_rows_fault(ud, f);
}

/* Variant id among the exercise's own rungs (a listed exercise) or the lab's. */
static const lab_variant *find_variant(const lab *l, const lab_exercise *x, const char *id)
{
    const lab_variant *v = x && x->id[0] ? x->variants : l->variants;
    size_t n = x && x->id[0] ? x->nvariants : l->nvariants;
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].id, id) == 0)
            return &v[i];
    return NULL;
}


typedef struct run_args {
    const lab *l;
    const lab_exercise *x;      /* the exercise --exercise picked, once the lab is known */
    run_request *req;
    bool json;
    bool exercise;
    char exercise_id[RUN_ID_MAX];  /* --exercise=ID; "" for the lab's own */
    bool sanitize;
    sanitize_tool tool;
    bool picked;               /* --variant named something */
    bool pick_cpu, pick_lib;   /* --variant cpu / cpu_mt, the lab's library */
} run_args;

enum { OPT_NO_CPU = CLI_LONG_ONLY, OPT_EXERCISE, OPT_SANITIZE, OPT_SEED, OPT_BUDGET,
       OPT_FRESH_CPU };

static const cli_opt run_opts[] = {
    {.name = "variant", .key = 'v', .arg = "V",
     .help = "run only this row (repeatable): a variant id, cpu, the library (cub, cublas, copy), or "
             "exercise (your kernel with the baselines its milestones need); an exercise's rung runs "
             "as that exercise",
     .need = "a variant id (see 'cudalab list'), cpu, the library or exercise"},
    {.name = "size", .key = 's', .arg = "N",
     .help = "run at this size only (repeatable; default: the lab's sizes)",
     .need = "a size such as 2^24 or 1024x1024x1024"},
    {.name = "seed", .key = OPT_SEED, .arg = "S",
     .help = "the inputs' random seed (default: a fresh one; the pipeline lab's data set is fixed)",
     .need = "a whole number from 1 to 2^64-1"},
    {.name = "budget", .key = OPT_BUDGET, .arg = "SEC",
     .help = "GPU time to spend timing each row (default 0.5)",
     .need = "a positive number of seconds"},
    {.name = "no-cpu", .key = OPT_NO_CPU, .help = "skip the CPU baselines"},
    {.name = "fresh-cpu", .key = OPT_FRESH_CPU,
     .help = "measure the CPU baselines again instead of reading them from this machine's "
             "cache (the new figures replace the cached ones)"},
    {.name = "exercise", .key = OPT_EXERCISE, .arg = "[=ID]",
     .help = "add your own kernel's row, from the workspace; a lab of several exercises takes the id of one",
     .need = "an exercise id (see 'cudalab list')"},
    {.name = "sanitize", .key = OPT_SANITIZE, .arg = "TOOL",
     .help = "check your kernel under compute-sanitizer: memcheck (out-of-bounds accesses), racecheck "
             "(shared-memory races), synccheck (barriers not every thread reaches) or initcheck (reads "
             "of memory nothing wrote)",
     .need = "a tool: " SANITIZE_TOOL_LIST},
    {.name = "json", .key = 'j', .help = "print one JSON document instead of a table"},
    {.name = NULL},
};

const cli_command cmd_run_spec = {
    .name = "run",
    .operands = "LAB",
    .summary = "run a lab's kernels and print a table of results",
    .details = "Each row is checked against the problem's double-precision reference on fresh random\n"
               "inputs, timed with CUDA events and checked again on other fresh inputs; under your\n"
               "kernel's row, what went wrong is explained.\n"
               "With --exercise=ID, the rows are that exercise's: its problem at its sizes, beside its\n"
               "own rungs.  Exits 0 when every row ran and was correct; 1 when a row was wrong, the\n"
               "run faulted or your kernel or launcher is broken (with a device or without); 3 when no\n"
               "CUDA device was found (the CPU rows still print); 2 for usage errors.",
    .opts = run_opts,
    .run = cmd_run,
};

static const lab_exercise *pick_exercise(cli_ctx *c, const lab *l, const char *id);

/* The precision whose library row v names ("cublas_bf16": BF16), or NULL:
 * such a row is not picked, it comes with the variants of its precision. */
static const gemm_precision *library_precision(const char *library, const char *v)
{
    size_t n = library ? strlen(library) : 0;
    if (!n || strncmp(v, library, n) != 0 || v[n] != '_')
        return NULL;
    const gemm_precision *g = gemm_precision_find(v + n + 1);
    return g && strcmp(g->name, "fp32") != 0 ? g : NULL;
}

/* --variant V: a shipped variant (of the exercise picked, when a listed
 * one is), or a row of another kind the table shows (cpu, cpu_mt, the
 * library, exercise). */
static int pick_variant(cli_ctx *c, run_args *ra, const char *v)
{
    const lab *l = ra->l;
    const lab_exercise *x = ra->x && ra->x->id[0] ? ra->x : NULL;
    const char *library = x ? x->library : l->library;
    run_request *req = ra->req;
    ra->picked = true;
    if (strcmp(v, "cpu") == 0 || strcmp(v, "cpu_mt") == 0) {
        ra->pick_cpu = true;
        return EXIT_OK;
    }
    if (library && strcmp(v, library) == 0) {
        ra->pick_lib = true;
        return EXIT_OK;
    }
    if (strcmp(v, "exercise") == 0) {
        if (!ra->x && !(ra->x = pick_exercise(c, l, ra->exercise_id)))
            return EXIT_USAGE;
        ra->exercise = true;
        return EXIT_OK;
    }
    const lab_variant *lv = find_variant(l, ra->x, v);
    const gemm_precision *g = lv ? NULL : library_precision(library, v);
    if (g)
        return cli_usage_error(c, "run: '%s' is the %s row at %s: it comes with every %s variant "
                                  "you pick, beside it; pick those (see 'cudalab list'), or '%s' "
                                  "for the FP32 row",
                               v, library, g->label, g->label, library);
    if (!lv) {
        /* the rows it does have: an experiments lab has no CPU row */
        bool cpu = x || !experiments_problem(req->problem);
        char rows[256] = "";
        size_t at = 0;
        if (x ? x->nvariants : l->nvariants)
            at = strfmt_append(rows, sizeof rows, at, "its variants");
        if (l->nexercises)
            at = strfmt_append(rows, sizeof rows, at, "%sexercise", at ? ", " : "");
        if (cpu)
            at = strfmt_append(rows, sizeof rows, at, "%scpu", at ? ", " : "");
        if (library)
            at = strfmt_append(rows, sizeof rows, at, "%s%s", at ? ", " : "", library);
        return cli_usage_error(c, "run: %s '%s' has no variant '%s' (its rows: %s; see "
                                  "'cudalab list %s')",
                               x ? "exercise" : "lab", x ? x->id : l->id, v, rows, l->id);
    }
    if (req->nvariants == RUN_MAX_VARIANTS)
        return cli_usage_error(c, "run: too many variants");
    lab_request_add_variant(req, lv);
    return EXIT_OK;
}

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
    case OPT_FRESH_CPU:
        req->fresh_cpu = true;
        return EXIT_OK;
    case OPT_EXERCISE:
        ra->exercise = true;
        if (v && v[0])
            snprintf(ra->exercise_id, sizeof ra->exercise_id, "%s", v);
        return EXIT_OK;
    case OPT_SANITIZE:
        if (!sanitize_tool_from_name(v, &ra->tool))
            return cli_usage_error(c, "run: --sanitize needs a tool: " SANITIZE_TOOL_LIST);
        ra->sanitize = true;
        ra->exercise = true;
        return EXIT_OK;
    case 'v':
        return pick_variant(c, ra, v);
    case 's': {
        const problem_spec *spec = lab_exercise_spec(ra->l, ra->x && ra->x->id[0] ? ra->x : NULL);
        problem_dims d;
        cl_err e = {{0}};
        if (!spec)
            return cli_usage_error(c, "run: lab '%s' takes no --size: its experiments run at "
                                      "sizes of their own%s",
                                   ra->l->id, ra->l->nexercises
                                                  ? " (an exercise has sizes: --exercise=ID "
                                                    "--size N)"
                                                  : "");
        if (!v[0] || !problem_parse_size(spec, v, &d, &e))
            return cli_usage_error(c, "run: --size '%s' is not a size of %s '%s' (%s): %s", v,
                                   ra->x && ra->x->id[0] ? "exercise" : "lab",
                                   ra->x && ra->x->id[0] ? ra->x->id : ra->l->id,
                                   spec->size_help, v[0] ? e.msg : "it is empty");
        if (!lab_reference_takes(ra->l, ra->x, &d, &e))   /* a Lua reference's bound */
            return cli_usage_error(c, "run: --size '%s': %s", v, e.msg);
        if (req->nsizes == RUN_MAX_SIZES)
            return cli_usage_error(c, "run: at most %d sizes", RUN_MAX_SIZES);
        snprintf(req->sizes[req->nsizes++], RUN_SIZE_MAX, "%s", v);
        return EXIT_OK;
    }
    case OPT_SEED:
        if (!cli_args_seed(v, &req->seed))
            return cli_usage_error(c, "run: --seed needs " CLI_ARGS_SEED_RANGE);
        return EXIT_OK;
    case OPT_BUDGET:
        if (!cli_args_seconds(v, &req->budget_s))
            return cli_usage_error(c, "run: --budget needs " CLI_ARGS_SECONDS_RANGE);
        return EXIT_OK;
    default:
        return EXIT_USAGE;
    }
}

/* The listed exercise whose rungs include variant id, or NULL: naming such
 * a rung with --variant runs it as that exercise's problem, at its sizes,
 * without the learner's row. */
static const lab_exercise *rungs_owner(const lab *l, const char *id)
{
    for (size_t k = 0; k < l->nexercises; k++)
        if (l->exercises[k].id[0] && find_variant(l, &l->exercises[k], id))
            return &l->exercises[k];
    return NULL;
}

/* The exercise --exercise[=ID] names in lab l; NULL after a usage error. */
static const lab_exercise *pick_exercise(cli_ctx *c, const lab *l, const char *id)
{
    const lab_exercise *x = lab_exercise_find(l, id);
    if (x)
        return x;
    char ids[256] = "";
    size_t at = 0;
    for (size_t i = 0; i < l->nexercises && at < sizeof ids; i++)
        if (l->exercises[i].id[0])
            at = strfmt_append(ids, sizeof ids, at, "%s%s", at ? ", " : "", l->exercises[i].id);
    if (l->nexercises == 0)
        cli_usage_error(c, "run: lab '%s' has no exercise", l->id);
    else if (!id[0])
        cli_usage_error(c, "run: lab '%s' has several exercises: name one with --exercise=ID "
                           "(%s)", l->id, ids);
    else
        cli_usage_error(c, "run: lab '%s' has no exercise '%s'%s%s%s", l->id, id,
                        ids[0] ? " (it has " : "", ids, ids[0] ? ")" : "");
    return NULL;
}

/* Completes the request from the lab: its variants and sizes unless the
 * command line named some, and the learner's files with --exercise; a
 * listed exercise brings its own problem, library, rungs and sizes. */
static int finish_request(const lab *l, run_request *req, run_args *ra)
{
    const lab_exercise *x = ra->x;
    bool listed = x && x->id[0];
    const lab_variant *vs = listed ? x->variants : l->variants;
    size_t nv = listed ? x->nvariants : l->nvariants;
    char *const *sizes = listed ? x->sizes : l->sizes;
    size_t ns = listed ? x->nsizes : l->nsizes;
    if (listed) {
        lab_request_problem(l, x, req);
        snprintf(req->exercise, sizeof req->exercise, "%s", x->id);
    }
    if (!ra->picked) {
        for (size_t k = 0; k < nv && k < RUN_MAX_VARIANTS; k++)
            lab_request_add_variant(req, &vs[k]);
    } else if (ra->pick_cpu || ra->pick_lib) {
        /* Baselines named: those, and not the others (the learner's kernel
         * keeps the ones its milestones are judged against). */
        req->cpu = req->cpu && (ra->pick_cpu || ra->exercise);
        if (!ra->pick_lib && !ra->exercise)
            req->library[0] = '\0';
    }
    if (req->nsizes == 0)
        for (size_t k = 0; k < ns && k < RUN_MAX_SIZES; k++)
            snprintf(req->sizes[req->nsizes++], RUN_SIZE_MAX, "%s", sizes[k]);
    if (ra->exercise) {
        /* the rungs its milestones compare with, when rows were picked */
        if (ra->picked)
            lab_request_needs(l, x, req);
        workspace_files f;
        int rc = cli_prepare_workspace(l, x, &f);
        if (rc != EXIT_OK)
            return rc;
        snprintf(req->exercise_kernel, sizeof req->exercise_kernel, "%s", f.kernel);
        snprintf(req->exercise_launcher, sizeof req->exercise_launcher, "%s", f.launcher);
    }
    return EXIT_OK;
}

/* Judges the lab's milestones on the run's rows, records those reached
 * and, in text mode, lists them; with json, their judgement into *json. */
static void judge_milestones(lab *l, run_state *rs, bool print, cJSON **json)
{
    if (l->nmilestones == 0)
        return;
    ms_eval *ev = calloc(l->nmilestones, sizeof *ev);
    if (!ev)
        return;
    int newly = 0;
    recorder_milestones(&rs->rec, l, rs->rows.v, rs->rows.n, ev, &newly);
    if (json)
        *json = cli_runms_json(l, rs->x, ev);
    if (print)
        cli_runms_print(l, rs->x, ev, rs->rows.v, rs->rows.n, newly);
    free(ev);
}

/* Options as they are parsed, before the lab is known: variants and sizes
 * wait for it (their meaning is the lab's), everything else goes into the
 * request. */
typedef struct collected {
    run_args *ra;
    int keys[2 * RUN_MAX_VARIANTS];
    const char *values[2 * RUN_MAX_VARIANTS];
    int n;
} collected;

static int collect_option(cli_ctx *c, void *ud, int key, const char *v)
{
    collected *col = ud;
    if (key != 'v' && key != 's')
        return run_option(c, col->ra, key, v);
    if (col->n == 2 * RUN_MAX_VARIANTS)
        return cli_usage_error(c, "run: too many variants and sizes");
    col->keys[col->n] = key;
    col->values[col->n++] = v;
    return EXIT_OK;
}

/* The options, the lab, the exercise and the rows asked for, into *ra and
 * its request, the lab into *out: EXIT_OK, or the exit code of what is
 * wrong (said already).  Options come first: --labs may name the folder
 * that holds LAB; variants are checked against the lab once it is known. */
static int build_request(cli_ctx *c, int argc, char **argv, lab_set *set, lab_diags *diags,
                         run_args *ra, const lab **out)
{
    run_request *req = ra->req;
    memset(req, 0, sizeof *req);
    req->cpu = true;
    req->budget_s = 0.5;
    static collected col;
    memset(&col, 0, sizeof col);
    col.ra = ra;
    int first = 0;
    int rc = cli_opts_parse(c, &cmd_run_spec, argc, argv, collect_option, &col, &first);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? CLI_HELPED : rc;
    if (first >= argc)
        return cli_usage_error(c, "run: which lab? (see 'cudalab list')");
    if (!cli_load_labs(c, set, diags))
        return EXIT_ENV;
    const lab *l = lab_set_find(set, argv[first]);
    if (!l)
        return cli_usage_error(c, "run: no lab called '%s' (see 'cudalab list'%s)", argv[first],
                               diags->n ? "; some labs failed to load: see 'cudalab check'" : "");
    if (first + 1 < argc) {
        bool names_one = lab_exercise_find(l, argv[first + 1]) && argv[first + 1][0];
        return cli_usage_error(c, "run: unexpected argument '%s'%s%s%s", argv[first + 1],
                               names_one ? " (name an exercise with --exercise=" : "",
                               names_one ? argv[first + 1] : "", names_one ? ")" : "");
    }
    if (ra->exercise && !(ra->x = pick_exercise(c, l, ra->exercise_id)))
        return EXIT_USAGE;
    if (!l->problem)
        return cli_usage_error(c, "run: lab '%s' has no kernels to run", l->id);
    ra->l = l;
    snprintf(req->lab, sizeof req->lab, "%s", l->id);
    lab_request_problem(l, NULL, req);
    if (!ra->x)
        for (int i = 0; i < col.n; i++)
            if (col.keys[i] == 'v' && !find_variant(l, NULL, col.values[i])) {
                ra->x = rungs_owner(l, col.values[i]);
                break;
            }
    for (int i = 0; i < col.n; i++)
        if ((rc = run_option(c, ra, col.keys[i], col.values[i])) != EXIT_OK)
            return rc;
    if ((rc = finish_request(l, req, ra)) != EXIT_OK)
        return rc;
    if (ra->pick_cpu && !ra->exercise && experiments_problem(req->problem))
        return cli_usage_error(c, "run: lab '%s' is a lab of experiments, which have no CPU "
                                  "rows%s", l->id,
                               l->nexercises ? "; its exercises have one (--exercise=ID "
                                               "--variant cpu)" : "");
    if (req->nvariants == 0 && !ra->exercise && !req->cpu && !req->library[0]) {
        if (ra->pick_cpu)
            return cli_usage_error(c, "run: --variant cpu and --no-cpu leave nothing to run: "
                                      "the CPU rows were the only ones asked for");
        return cli_usage_error(c, "run: lab '%s' has no kernels to run%s", l->id,
                               l->nexercises ? " (try --exercise)" : "");
    }
    *out = l;
    return EXIT_OK;
}

/* Runs the request, records it, and prints its rows, the learner's
 * milestones and what happened (or one JSON document); the exit code. */
static int run_and_report(cli_ctx *c, const lab *l, const run_args *ra, run_state *state,
                          store **db)
{
    run_request *req = ra->req;
    cli_rows *st = &state->rows;
    supervisor_callbacks cb = {
        .on_hello = on_hello,
        .on_progress = on_progress,
        .on_result = on_result,
        .on_log = on_log,
        .on_fault = on_fault,
    };
    double limit = c->time_limit_s > 0 ? c->time_limit_s : l->time_limit_s;
    state->spec = lab_problem_spec(l, req->problem);
    /* the multigpu lab's rows are GPU rows alone, its exercise's too */
    state->cpu_rows = req->cpu && (!experiments_problem(req->problem) || ra->exercise) &&
                      strcmp(req->problem, EXPERIMENTS_MULTIGPU) != 0 &&
                      !(state->spec && state->spec->no_cpu);
    state->time_limit_s = limit;
    *db = cli_store_open();
    if (!*db)
        fputs("cudalab: this run's results are not recorded (the progress store did not open; "
              "see above)\n", stderr);
    recorder_init(&state->rec, *db, "run");
    recorder_begin(&state->rec, req, NULL);
    int rc = cli_rows_run(st, req, limit, &cb, state);
    if (rc != EXIT_OK)
        return rc;
    if (!st->json && strcmp(req->problem, PIPELINE_PROBLEM) == 0)
        cli_pipeline_summary(st->v, st->n, !cli_rows_unicode(c->ascii), stdout);
    cJSON *milestones = NULL;
    if (ra->exercise)
        judge_milestones((lab *)l, state, !st->json, st->json ? &milestones : NULL);
    if (state->rec.failed[0])
        fprintf(stderr, "cudalab: %s\n", state->rec.failed);
    /* A run of none of the learner's code that stops at a row it cannot
     * name (a CPU baseline, the inputs) is diagnosed as the lab's rows, so
     * that "your kernel" is never blamed for it. */
    run_fault shown = st->fault;
    if (!ra->exercise && !shown.variant[0])
        snprintf(shown.variant, sizeof shown.variant, "%s", "lab");
    if (st->json) {
        cJSON *doc = record_doc(l->id, st->have_dev ? &st->dev : NULL, st->v, st->n,
                                st->faulted ? &st->fault : NULL);
        if (doc)
            cli_diag_annotate(doc, st->v, st->n, st->faulted ? &shown : NULL, state->spec,
                              limit, st->output);
        if (doc && milestones)
            cJSON_AddItemToObject(doc, "milestones", milestones);
        else
            cJSON_Delete(milestones);
        cli_print_json(doc);
    } else if (st->faulted) {
        diagnosis d;
        diag_row(NULL, &shown, state->spec, limit, st->output, &d);
        printf("\nWhat happened:\n");
        cli_diag_print(stdout, &d, "  ");
    }
    return cli_rows_exit_code(st);
}

int cmd_run(cli_ctx *ctx, int argc, char **argv)
{
    lab_set set = {0};
    lab_diags diags = {0};
    static run_request req;
    static run_state state;
    cli_rows_init(&state.rows, false);
    state.unicode = cli_rows_unicode(ctx->ascii);
    store *db = NULL;
    run_args ra = {.req = &req};
    const lab *l = NULL;
    int rc = build_request(ctx, argc, argv, &set, &diags, &ra, &l);
    state.x = ra.x;
    if (rc == CLI_HELPED)
        rc = EXIT_OK;
    else if (rc == EXIT_OK) {
        state.rows.json = ra.json;
        if (ra.sanitize)
            rc = cli_run_sanitize(ctx, l, &req, ra.tool, ra.json);
        else
            rc = run_and_report(ctx, l, &ra, &state, &db);
    }
    store_close(db);
    cli_rows_free(&state.rows);
    lab_set_free(&set);
    lab_diags_free(&diags);
    return rc;
}

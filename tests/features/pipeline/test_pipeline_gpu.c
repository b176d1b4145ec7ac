/* The data-pipeline lab on a device: every shipped step and the end-to-end
 * pipeline correct against the reference at the lab's small size and at
 * awkward ones (one row, a stride with padding); the lab's starter correct
 * as the learner's own files, step by step and end to end; the reference
 * solution (tests/features/pipeline/solution) correct at the lab's sizes and
 * reaching both of the lab's milestones at the large one, and the shipped
 * steps past the same thresholds, each margin printed; `cudalab report
 * profiling` with the solution in a temporary workspace writing the report
 * with both timelines, the traces beside it, the learner's notes kept on a
 * rewrite, and the exercise row's has_report set afterwards.  Every
 * failure prints the rows and the log.  Skips (exit 77) without a device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/pipeline_files.h"
#include "cli/cmd_report.h"
#include "cli/report_md.h"
#include "core/atomicfile.h"
#include "core/paths.h"
#include "lab/labmodel.h"
#include "lab/milestone.h"
#include "prof/tlsummary.h"
#include "prof/trace.h"
#include "support.h"
#include "engine/engine.h"
#include "worker/dispatch.h"
#include "worker/workerloop.h"

#define LARGE "2^24"
#define SMALL "2^20"

static char g_tmp[CL_PATH_MAX], g_home[CL_PATH_MAX], g_data[CL_PATH_MAX];
static device_info g_dev;

static const char *const own_steps[] = {"fill",    "filter", "transform", "standardize",
                                        "binning", "encode", "groupby"};

/* The pipeline problem at sizes: the shipped variants named in variants
 * (NULL-terminated, may be empty), the learner's files when kernel is set. */
static void run_pipeline(const char *const *variants, const char *kernel, const char *launcher,
                         const char *const *sizes, int nsizes, bool cpu, ts_rows *c)
{
    static run_request req;
    memset(&req, 0, sizeof req);
    req.run = 21;
    snprintf(req.lab, sizeof req.lab, "pipeline");
    snprintf(req.problem, sizeof req.problem, "pipeline");
    req.cpu = cpu;
    req.budget_s = 0.2;
    for (int i = 0; variants && variants[i]; i++)
        ts_add_variant(&req, variants[i], NULL);
    for (int i = 0; i < nsizes; i++)
        ts_add_size(&req, sizes[i]);
    if (kernel) {
        snprintf(req.exercise_kernel, sizeof req.exercise_kernel, "%s", kernel);
        snprintf(req.exercise_launcher, sizeof req.exercise_launcher, "%s", launcher);
    }
    run_fault f;
    if (!ts_engine_run(&req, c, &f)) {
        ts_rows_dump(c);
        fail_msg("the CUDA context broke in %s: %s: %s", f.variant, f.cause, f.message);
    }
}

static const run_result *expect_correct(const ts_rows *c, const char *variant, const char *size)
{
    const run_result *r = ts_row(c, variant, size);
    if (!r || r->status != RS_CORRECT || !(r->median_ms > 0.0)) {
        ts_rows_dump(c);
        fail_msg("%s at %s: %s%s%s", variant, size,
                 r ? result_status_name(r->status) : "no row came back", r ? ": " : "",
                 r ? r->message : "");
    }
    return r;
}

static void expect_mine(const ts_rows *c, const char *size)
{
    for (size_t k = 0; k < sizeof own_steps / sizeof own_steps[0]; k++) {
        char id[64];
        snprintf(id, sizeof id, "exercise.%s", own_steps[k]);
        expect_correct(c, id, size);
    }
    expect_correct(c, "exercise", size);
}

static void solution_files(char *kernel, char *launcher)
{
    ts_data_path(kernel, CL_PATH_MAX, "features/pipeline/solution/pipeline.cu");
    ts_data_path(launcher, CL_PATH_MAX, "features/pipeline/solution/pipeline.lua");
}

static const char *const all_variants[] = {"load",    "fill",   "filter",  "transform",
                                           "standardize", "binning", "encode", "groupby",
                                           "gemm",    "pipeline", NULL};

/* ---- the shipped steps ------------------------------------------------------- */

static void test_shipped_steps(void **state)
{
    (void)state;
    static ts_rows c;
    static const char *const sizes[] = {SMALL, "4099", "1", "100003"};
    run_pipeline(all_variants, NULL, NULL, sizes, 4, true, &c);
    for (int s = 0; s < 4; s++)
        for (int v = 0; all_variants[v]; v++) {
            const run_result *r = expect_correct(&c, all_variants[v], sizes[s]);
            assert_true(r->gbps > 0.0);
            assert_true(r->speedup_cpu > 0.0 && r->speedup_cpu_mt > 0.0);
        }
    const run_result *fill = ts_row(&c, "fill", SMALL);
    assert_true(fill->pct_peak_measured > 0.0);
    assert_true(ts_contains(fill->message, "ok: "));
    assert_true(ts_contains(ts_row(&c, "load", SMALL)->message, "byte for byte"));
}

/* ---- the starter ---------------------------------------------------------------- */

static void test_starter(void **state)
{
    (void)state;
    char kernel[CL_PATH_MAX], launcher[CL_PATH_MAX];
    paths_join(kernel, sizeof kernel, g_home, "labs/pipeline/starter.cu");
    paths_join(launcher, sizeof launcher, g_home, "labs/pipeline/starter.lua");
    static ts_rows c;
    static const char *const sizes[] = {SMALL, "777", "1"};
    static const char *const with[] = {"starter", NULL};
    run_pipeline(with, kernel, launcher, sizes, 3, false, &c);
    for (int s = 0; s < 3; s++) {
        expect_mine(&c, sizes[s]);
        expect_correct(&c, "starter", sizes[s]);
        assert_true(ts_row(&c, "starter", sizes[s])->speedup_starter == 1.0);
    }
}

/* ---- the reference solution and the milestones ---------------------------------- */

static lab *pipeline_lab(void)
{
    char path[CL_PATH_MAX];
    paths_join(path, sizeof path, g_home, "labs/pipeline/lab.lua");
    lab *l = ts_lab_load(path, g_home, NULL);
    assert_non_null(l);
    return l;
}

static void test_solution_milestones(void **state)
{
    (void)state;
    char kernel[CL_PATH_MAX], launcher[CL_PATH_MAX];
    solution_files(kernel, launcher);
    static ts_rows c;
    static const char *const sizes[] = {SMALL, LARGE};
    run_pipeline(all_variants, kernel, launcher, sizes, 2, true, &c);
    for (int s = 0; s < 2; s++) {
        expect_mine(&c, sizes[s]);
        for (int v = 0; all_variants[v]; v++)
            expect_correct(&c, all_variants[v], sizes[s]);
    }

    /* the shipped steps: every step (fill .. gemm) 5x, end to end 10x */
    print_message("at %s on %s, against one CPU thread:\n", LARGE, g_dev.name);
    bool ok = true;
    for (int v = 0; all_variants[v]; v++) {
        const run_result *r = ts_row(&c, all_variants[v], LARGE);
        bool whole = strcmp(all_variants[v], "pipeline") == 0;
        bool step = !whole && strcmp(all_variants[v], "load") != 0;
        double need = whole ? 10.0 : step ? 5.0 : 0.0;
        print_message("  shipped %-12s %10.3f ms  %8.1fx%s\n", all_variants[v], r->median_ms,
                      r->speedup_cpu, need > 0.0 ? (r->speedup_cpu >= need ? "  (ok)" : "  (SHORT)")
                                                 : "  (not a milestone step)");
        ok &= r->speedup_cpu >= need;
    }
    for (size_t k = 0; k < sizeof own_steps / sizeof own_steps[0]; k++) {
        char id[64];
        snprintf(id, sizeof id, "exercise.%s", own_steps[k]);
        const run_result *r = ts_row(&c, id, LARGE);
        print_message("  solution %-11s %10.3f ms  %8.1fx\n", own_steps[k], r->median_ms,
                      r->speedup_cpu);
    }
    const run_result *mine = ts_row(&c, "exercise", LARGE);
    print_message("  solution end to end %10.3f ms  %8.1fx (all threads: %.1fx)\n",
                  mine->median_ms, mine->speedup_cpu, mine->speedup_cpu_mt);
    if (!ok) {
        ts_rows_dump(&c);
        fail_msg("a shipped step is short of its milestone's threshold");
    }

    /* the lab's own milestones, judged on the solution's rows */
    lab *l = pipeline_lab();
    run_result *rows = malloc((size_t)c.nrows * sizeof *rows);
    assert_non_null(rows);
    memcpy(rows, c.rows, (size_t)c.nrows * sizeof *rows);
    for (size_t i = 0; i < l->nmilestones; i++) {
        if (l->milestones[i].quiz)
            continue;
        ms_eval ev;
        lab_milestone_eval_judged(l, i, rows, (size_t)c.nrows, &ev);
        print_message("  milestone %s: %s, %s\n", l->milestones[i].id, ms_state_name(ev.state),
                      ev.shown);
        if (ev.state != MS_REACHED) {
            ts_rows_dump(&c);
            fail_msg("milestone %s not reached by the reference solution: %s %s",
                     l->milestones[i].id, ms_state_name(ev.state), ev.shown);
        }
    }
    free(rows);
    lab_free(l);
}

/* ---- the report command ---------------------------------------------------------- */

static void report(ts_output *c, const char *size)
{
    const char *words[] = {"profiling", "--size", size, "--budget", "0.2", NULL};
    static cli_ctx ctx;
    ts_cli_ctx(&ctx, g_home, 600);
    ts_capture_cmd(c, cmd_report, &ctx, "report", words);
}

static void copy_file(const char *from, const char *to)
{
    size_t len = 0;
    cl_err e = {{0}};
    char *txt = file_read_all(from, 1 << 20, &len, &e);
    if (!txt)
        fail_msg("%s", e.msg);
    assert_true(atomicfile_write(to, txt, len, &e));
    free(txt);
}

/* Reads a trace beside the report and summarises it. */
static void summary_of(const char *dir, const char *name, tl_summary *s)
{
    char path[CL_PATH_MAX];
    paths_join(path, sizeof path, dir, name);
    size_t len = 0;
    cl_err e = {{0}};
    char *txt = file_read_all(path, TRACE_MAX_BYTES, &len, &e);
    if (!txt)
        fail_msg("%s: %s", path, e.msg);
    if (!trace_validate(txt, &e))
        fail_msg("%s: %s", path, e.msg);
    free(txt);
    timeline t;
    assert_true(trace_load(path, &t, &e));
    assert_true(tlsummary_make(&t, REPORT_GAP_MIN_NS, s, &e));
    timeline_free(&t);
}

static void test_report_command(void **state)
{
    (void)state;
    char ws[CL_PATH_MAX], dir[CL_PATH_MAX], k[CL_PATH_MAX], l[CL_PATH_MAX];
    snprintf(ws, sizeof ws, "%s/ws", g_tmp);
    paths_join(dir, sizeof dir, ws, "profiling");
    cl_err e = {{0}};
    assert_true(paths_mkdir_p(dir, &e));
    char sk[CL_PATH_MAX], sl[CL_PATH_MAX];
    solution_files(sk, sl);
    paths_join(k, sizeof k, dir, "starter.cu");
    paths_join(l, sizeof l, dir, "starter.lua");
    copy_file(sk, k);
    copy_file(sl, l);
    paths_set_workspace(ws);

    static ts_output c;
    report(&c, SMALL);
    if (c.status != 0)
        fail_msg("rc %d\nstdout:\n%s\nstderr:\n%s", c.status, c.out, c.err);
    assert_true(ts_contains(c.out, "Report written to"));
    char md_path[CL_PATH_MAX];
    paths_join(md_path, sizeof md_path, dir, PIPELINE_REPORT_FILE);
    size_t len = 0;
    char *md = file_read_all(md_path, 1 << 22, &len, &e);
    assert_non_null(md);
    assert_true(ts_contains(md, PIPELINE_REPORT_MARK));
    assert_true(ts_contains(md, "| the starter | "));
    assert_true(ts_contains(md, "| your pipeline | "));
    assert_true(ts_contains(md, "Table: " SMALL " rows of taxi trips"));
    assert_true(ts_contains(md, "### The starter, lane by lane\n\n| lane |"));
    assert_true(ts_contains(md, "### Your pipeline, lane by lane\n\n| lane |"));
    if (strstr(md, "No timeline"))
        fail_msg("a timeline is missing:\n%s\nstderr:\n%s", md, c.err);
    print_message("%s\n", md);

    /* the traces beside it, and what they say about the two versions: the
     * same load, and far fewer kernels and waits in the solution */
    tl_summary before, after;
    summary_of(dir, REPORT_STARTER_TRACE, &before);
    summary_of(dir, REPORT_PIPELINE_TRACE, &after);
    assert_true(before.h2d > 0 && after.h2d > 0);
    assert_true(before.pinned > 0 && after.pinned > 0);
    assert_true(after.kernels < before.kernels);
    assert_true(after.syncs < before.syncs);
    tlsummary_free(&before);
    tlsummary_free(&after);

    /* the learner's notes survive the next report */
    const char *notes = "Fewer waits first: 5x.  Then shared-memory histograms.\n";
    char *mark = strstr(md, REPORT_NOTES_MARK);
    assert_non_null(mark);
    size_t keep = (size_t)(mark - md) + strlen(REPORT_NOTES_MARK) + 1;
    char *edited = malloc(keep + strlen(notes) + 1);
    assert_non_null(edited);
    snprintf(edited, keep + strlen(notes) + 1, "%.*s%s", (int)keep, md, notes);
    assert_true(atomicfile_write(md_path, edited, strlen(edited), &e));
    free(edited);
    free(md);
    report(&c, "4099");
    if (c.status != 0)
        fail_msg("rc %d\nstdout:\n%s\nstderr:\n%s", c.status, c.out, c.err);
    md = file_read_all(md_path, 1 << 22, &len, &e);
    assert_non_null(md);
    char *kept = report_md_notes(md);
    assert_non_null(kept);
    assert_string_equal(kept, notes);
    assert_true(ts_contains(md, "Table: 4099 rows"));
    free(kept);
    free(md);

    /* the engine now sees the report */
    static ts_rows rows;
    static const char *const small[] = {"4099"};
    run_pipeline(NULL, k, l, small, 1, false, &rows);
    const run_result *x = expect_correct(&rows, "exercise", "4099");
    assert_true(x->has_report);
    ts_output_free(&c);
    paths_set_workspace(NULL);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "worker") == 0) {
        /* the worker side for cmd_report: the real loop with the real engine */
        const workerloop_engine real = {engine_probe, dispatch_run, engine_shutdown};
        return ts_serve_worker(&real);
    }
    const char *home = getenv("CUDALAB_HOME");
    if (!home) {
        fprintf(stderr, "CUDALAB_HOME is not set\n");
        return 1;
    }
    snprintf(g_home, sizeof g_home, "%s", home);
    if (!ts_tmpdir(g_tmp, sizeof g_tmp, "pipe-gpu"))
        return 1;
    snprintf(g_data, sizeof g_data, "%s/data", g_tmp);
    ts_data_home(g_data);
    char cache[CL_PATH_MAX];
    snprintf(cache, sizeof cache, "%s/cache", g_tmp);
    setenv("CUDALAB_CACHE", cache, 1);
    engine_probe(&g_dev);
    int rc = 77;
    if (!g_dev.present) {
        printf("SKIP: %s\n", g_dev.reason[0] ? g_dev.reason : "no CUDA device found");
    } else {
        printf("%s, cc %d.%d, %d SMs\n", g_dev.name, g_dev.cc_major, g_dev.cc_minor,
               g_dev.sm_count);
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_shipped_steps),
            cmocka_unit_test(test_starter),
            cmocka_unit_test(test_solution_milestones),
            cmocka_unit_test(test_report_command),
        };
        rc = cmocka_run_group_tests(tests, NULL, NULL);
        engine_shutdown();
    }
    if (!ts_rm_rf(g_tmp))
        fprintf(stderr, "could not remove %s\n", g_tmp);
    return rc;
}

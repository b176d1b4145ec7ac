/* The pipeline problem's pieces that need no device: size labels and the
 * steps' names; the per-step summary `cudalab run` prints; the milestones
 * of the pipeline lab on hand-made rows; the timeline log lines and the
 * report file check; the timeline summary on hand-made timelines (also
 * through a written and re-read trace); the Markdown report, its "what
 * changed" lines and the learner's notes kept across rewrites. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/report_md.h"
#include "core/atomicfile.h"
#include "core/paths.h"
#include "prof/timeline.h"
#include "prof/tlsummary.h"
#include "prof/trace.h"
#include "cpu/check.h"
#include "support.h"
#include "catalog/pipeline_files.h"
#include "catalog/problem_spec.h"
#include "cli/cli_pipeline.h"
#include "lab/milestone.h"

static char g_tmp[256];

/* ---- the problem ---------------------------------------------------------- */

static void test_sizes(void **state)
{
    (void)state;
    const problem_spec *ops = problem_spec_find("pipeline");
    assert_non_null(ops);
    assert_ptr_equal(problem_spec_of_exercise("profiling"), ops);
    assert_ptr_equal(problem_spec_of_exercise("pipeline"), ops);
    assert_ptr_equal(problem_spec_of_exercise("sgemm"), problem_spec_find("sgemm"));
    assert_null(problem_spec_of_exercise("nope"));
    assert_false(ops->host_io);
    assert_null(ops->library);
    assert_true(ops->tolerance == 1e-4);

    problem_dims d;
    cl_err e = {{0}};
    assert_true(problem_parse_size(ops, "2^24", &d, &e));
    assert_true(d.rows == 16777216);
    /* the table's bytes as stored: 12 columns of 4 bytes, the stride padded */
    assert_true(ops->bytes(&d) == 48.0 * (16777216.0 + 32.0));
    assert_true(ops->flops(&d) < 0.0);
    assert_true(problem_parse_size(ops, "1", &d, &e));
    assert_true(problem_parse_size(ops, "1<<27", &d, &e));
    assert_true(d.rows == 134217728);
    assert_true(problem_parse_size(ops, "2^20+3", &d, &e));
    assert_true(d.rows == 1048579);

    static const struct {
        const char *label, *msg;
    } bad[] = {
        {"1048576x16", "give ROWS, a number of table rows"},
        {"2^27+1", "is larger than the limit 134217728"},
        {"2^30", "is larger than the limit 134217728"},
        {"0", "must be at least 1"},
        {"many", "is not a count"},
        {"", "empty size"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err_clear(&e);
        assert_false(problem_parse_size(ops, bad[i].label, &d, &e));
        assert_true(ts_contains(e.msg, bad[i].msg));
        assert_true(ts_contains(e.msg, "pipeline"));
    }

    assert_string_equal(pipeline_step_name(0), "load");
    assert_string_equal(pipeline_step_name(8), "gemm");
    assert_null(pipeline_step_name(9));
    assert_false(pipeline_step_own(0));
    assert_true(pipeline_step_own(1) && pipeline_step_own(7));
    assert_false(pipeline_step_own(8));
    assert_true(pipeline_variant_known("groupby") && pipeline_variant_known("pipeline"));
    assert_false(pipeline_variant_known("starter") || pipeline_variant_known("sort"));
}

/* ---- rows made by hand --------------------------------------------------------- */

static void row(run_result *r, const char *variant, result_kind kind, const char *size,
                double ms, double x)
{
    run_result_init(r);
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    snprintf(r->label, sizeof r->label, "%s", variant);
    snprintf(r->size, sizeof r->size, "%s", size);
    r->kind = kind;
    r->status = RS_CORRECT;
    r->median_ms = ms;
    r->samples = 10;
    r->speedup_cpu = x;
    r->gbps = ms > 0 ? 1.0 / ms : -1.0;
    r->threads = kind == RK_CPU_MT ? 16 : 1;
}

/* The rows of a run at size: CPU, the lab's steps, the learner's steps with
 * the speedup x each (x_e2e end to end). */
static size_t make_rows(run_result *rs, const char *size, double x, double x_e2e)
{
    size_t n = 0;
    for (int k = 0; pipeline_step_name(k); k++) {
        char id[64];
        snprintf(id, sizeof id, "cpu.%s", pipeline_step_name(k));
        row(&rs[n++], id, RK_CPU, size, 100.0 + k, 0);
        snprintf(id, sizeof id, "cpu_mt.%s", pipeline_step_name(k));
        row(&rs[n++], id, RK_CPU_MT, size, 10.0 + k, 0);
        row(&rs[n++], pipeline_step_name(k), RK_KERNEL, size, 1.0, 100.0);
        if (pipeline_step_own(k)) {
            snprintf(id, sizeof id, "exercise.%s", pipeline_step_name(k));
            row(&rs[n++], id, RK_EXERCISE, size, (100.0 + k) / x, x);
        }
    }
    row(&rs[n++], "cpu", RK_CPU, size, 1000.0, 0);
    row(&rs[n++], "cpu_mt", RK_CPU_MT, size, 150.0, 0);
    row(&rs[n++], "pipeline", RK_KERNEL, size, 20.0, 50.0);
    row(&rs[n++], "exercise", RK_EXERCISE, size, 1000.0 / x_e2e, x_e2e);
    return n;
}

static void test_summary_table(void **state)
{
    (void)state;
    static run_result rs[80];
    size_t n = make_rows(rs, "2^24", 6.0, 12.0);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    cli_pipeline_summary(rs, n, true, out);
    fclose(out);
    print_message("%s", buf);
    assert_true(ts_contains(buf, "pipeline at 2^24, step by step"));
    assert_true(ts_contains(buf, "CPU 16 thr"));
    assert_true(ts_contains(buf, "  fill               101 ms     11.00 ms      1.00 ms     100x"
                                 "      1.0     16.83 ms     6.0x\n"));
    assert_true(ts_contains(buf, "  gemm               108 ms     18.00 ms      1.00 ms     100x"
                                 "      1.0            -        -\n"));
    assert_true(ts_contains(buf, "  end to end        1000 ms       150 ms     20.00 ms    50.0x"));
    assert_true(ts_contains(buf, "83.33 ms    12.0x\n"));
    assert_true(ts_contains(buf, "where the time goes at 2^24"));
    assert_true(ts_contains(buf, "CPU, 1 thread (sum of the steps: 936.00 ms)"));
    assert_true(ts_contains(buf, "    fill          10.8% ###"));
    assert_true(ts_contains(buf, "GPU, your steps"));
    free(buf);

    /* rows of other labs: nothing */
    buf = NULL;
    out = open_memstream(&buf, &len);
    row(&rs[0], "reduce_warp", RK_KERNEL, "2^28", 1.0, 10.0);
    cli_pipeline_summary(rs, 1, true, out);
    fclose(out);
    assert_int_equal(len, 0);
    free(buf);

    /* no device: the GPU column says so in words */
    n = make_rows(rs, "2^24", 6.0, 12.0);
    for (size_t i = 0; i < n; i++)
        if (rs[i].kind == RK_KERNEL || rs[i].kind == RK_EXERCISE)
            rs[i].status = RS_NO_DEVICE;
    buf = NULL;
    out = open_memstream(&buf, &len);
    cli_pipeline_summary(rs, n, true, out);
    fclose(out);
    assert_true(ts_contains(buf, "no device"));
    assert_false(ts_contains(buf, "no_device"));
    free(buf);
}

/* The pipeline lab's milestones on hand-made rows at the judged size. */
static void test_milestones(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    ts_home_path(path, sizeof path, "labs/pipeline/lab.lua");
    lab_diags d = {0};
    char home[CL_PATH_MAX];
    ts_home_path(home, sizeof home, ".");
    lab *l = lab_load(path, home, &d);
    assert_non_null(l);
    static run_result rs[80];
    ms_eval ev;

    size_t n = make_rows(rs, "2^24", 6.0, 12.0);
    assert_true(lab_milestone_eval_judged(l, 0, rs, n, &ev));
    assert_int_equal(ev.state, MS_REACHED);
    assert_string_equal(ev.shown, "12x >= 10x");
    assert_true(lab_milestone_eval_judged(l, 1, rs, n, &ev));
    assert_int_equal(ev.state, MS_REACHED);
    assert_string_equal(ev.shown, "6x slowest step >= 5x");

    /* one slow step misses the second; a slow whole misses the first */
    n = make_rows(rs, "2^24", 6.0, 9.5);
    rs[10].speedup_cpu = 4.5;              /* exercise.filter */
    assert_string_equal(rs[10].variant, "exercise.filter");
    assert_true(lab_milestone_eval_judged(l, 0, rs, n, &ev));
    assert_int_equal(ev.state, MS_MISSED);
    assert_true(lab_milestone_eval_judged(l, 1, rs, n, &ev));
    assert_int_equal(ev.state, MS_MISSED);
    assert_string_equal(ev.shown, "4.50x slowest step >= 5x");

    /* a wrong step misses; a step that could not run, or is missing, is pending */
    n = make_rows(rs, "2^24", 6.0, 12.0);
    rs[10].status = RS_WRONG;
    assert_true(lab_milestone_eval_judged(l, 1, rs, n, &ev));
    assert_int_equal(ev.state, MS_MISSED);
    rs[10].status = RS_ERROR;
    assert_true(lab_milestone_eval_judged(l, 1, rs, n, &ev));
    assert_int_equal(ev.state, MS_PENDING);
    n = make_rows(rs, "2^24", 6.0, 12.0);
    rs[10].variant[0] = 'X';
    assert_true(lab_milestone_eval_judged(l, 1, rs, n, &ev));
    assert_int_equal(ev.state, MS_PENDING);

    /* the small size does not count */
    n = make_rows(rs, "2^20", 60.0, 120.0);
    assert_true(lab_milestone_eval_judged(l, 0, rs, n, &ev));
    assert_int_equal(ev.state, MS_PENDING);
    lab_free(l);
    lab_diags_free(&d);
}

/* ---- the worker's helpers ---------------------------------------------------- */

static void test_timeline_log_lines(void **state)
{
    (void)state;
    char which[32], path[256];
    assert_true(pipeline_timeline_path("pipeline timeline starter: /d/t/pipeline-starter.json "
                                       "(812 events over 151.20 ms)",
                                       which, sizeof which, path, sizeof path));
    assert_string_equal(which, "starter");
    assert_string_equal(path, "/d/t/pipeline-starter.json");
    assert_true(pipeline_timeline_path("pipeline timeline exercise: /x y/p.json", which,
                                       sizeof which, path, sizeof path));
    assert_string_equal(which, "exercise");
    assert_string_equal(path, "/x y/p.json");
    assert_false(pipeline_timeline_path("timeline: /d/last.json (3 events)", which, sizeof which,
                                        path, sizeof path));
    assert_false(pipeline_timeline_path("pipeline timeline : /p", which, sizeof which, path,
                                        sizeof path));
    assert_false(pipeline_timeline_path("pipeline timeline starter:", which, sizeof which, path,
                                        sizeof path));
    assert_false(pipeline_timeline_path(NULL, which, sizeof which, path, sizeof path));
    assert_false(pipeline_timeline_path("pipeline timeline starter: /a/very/long/path", which,
                                        sizeof which, path, 8));

    cl_err e = {{0}};
    assert_true(pipeline_timeline_file("starter", path, sizeof path, &e));
    assert_true(ts_contains(path, "/timelines/pipeline-starter.json"));
}

static void test_report_file(void **state)
{
    (void)state;
    char kernel[512], report[512];
    snprintf(kernel, sizeof kernel, "%s/profiling/starter.cu", g_tmp);
    assert_true(pipeline_report_path(kernel, report, sizeof report));
    char want[512];
    snprintf(want, sizeof want, "%s/profiling/report.md", g_tmp);
    assert_string_equal(report, want);
    assert_true(pipeline_report_path("starter.cu", report, sizeof report));
    assert_string_equal(report, "report.md");

    char dir[512];
    snprintf(dir, sizeof dir, "%s/profiling", g_tmp);
    cl_err e = {{0}};
    assert_true(paths_mkdir_p(dir, &e));
    assert_false(pipeline_report_exists(kernel));
    assert_false(pipeline_report_exists(""));
    assert_false(pipeline_report_exists(NULL));
    const char *plain = "# my own notes, not a report\n";
    assert_true(atomicfile_write(want, plain, strlen(plain), &e));
    assert_false(pipeline_report_exists(kernel));
    const char *real = "# Profiling report\n" PIPELINE_REPORT_MARK "\n...\n";
    assert_true(atomicfile_write(want, real, strlen(real), &e));
    assert_true(pipeline_report_exists(kernel));
    unlink(want);
    rmdir(dir);
}

/* ---- timeline summaries -------------------------------------------------------- */

static void test_interval_sets(void **state)
{
    (void)state;
    tl_gap a[] = {{50, 60}, {0, 10}, {5, 20}, {20, 25}, {100, 100}};
    assert_true(tlsummary_union(a, 5) == 35);
    tl_gap b[] = {{8, 52}, {90, 200}};
    tl_gap c[] = {{0, 10}, {5, 20}, {20, 25}, {50, 60}};
    /* [0,25) and [50,60) against [8,52) and [90,200): 17 + 2 */
    assert_true(tlsummary_both(c, 4, b, 2) == 19);
    assert_true(tlsummary_union(NULL, 0) == 0);
    tl_gap d[] = {{1, 2}};
    assert_true(tlsummary_both(d, 1, NULL, 0) == 0);
}

/* A starter-like timeline: small pageable copies one after another, a
 * kernel alone, waits between everything. */
static void slow_timeline(timeline *t)
{
    cl_err e = {{0}};
    timeline_init(t);
    int api = timeline_lane(t, TL_LANE_API, 0, &e);
    int up = timeline_lane(t, TL_LANE_H2D, 0, &e);
    int s7 = timeline_lane(t, TL_LANE_STREAM, 7, &e);
    int down = timeline_lane(t, TL_LANE_D2H, 0, &e);
    for (int i = 0; i < 4; i++) {
        uint64_t t0 = (uint64_t)i * 100000;
        ts_tl_add(t, up, TL_MEMCPY, "memcpy HtoD", t0, t0 + 20000, 16384, TL_PAGEABLE, 7);
        ts_tl_add(t, api, TL_API, "cudaDeviceSynchronize", t0 + 20000, t0 + 30000, 0, 0, 0);
    }
    ts_tl_add(t, s7, TL_KERNEL, "column_stats", 400000, 600000, 0, 0, 7);
    ts_tl_add(t, api, TL_API, "cudaLaunchKernel", 399000, 401000, 0, 0, 0);
    for (int i = 0; i < 4; i++) {
        uint64_t t0 = 700000 + (uint64_t)i * 100000;
        ts_tl_add(t, down, TL_MEMCPY, "memcpy DtoH", t0, t0 + 30000, 16384, TL_PAGEABLE, 7);
        ts_tl_add(t, api, TL_API, "cudaStreamSynchronize", t0 + 30000, t0 + 31000, 0, 0, 0);
    }
    timeline_sort(t);
}

/* A solution-like timeline: two large pinned copies each way on two
 * streams, kernels under the copies. */
static void fast_timeline(timeline *t)
{
    cl_err e = {{0}};
    timeline_init(t);
    int api = timeline_lane(t, TL_LANE_API, 0, &e);
    int up = timeline_lane(t, TL_LANE_H2D, 0, &e);
    int s13 = timeline_lane(t, TL_LANE_STREAM, 13, &e);
    int s14 = timeline_lane(t, TL_LANE_STREAM, 14, &e);
    int down = timeline_lane(t, TL_LANE_D2H, 0, &e);
    ts_tl_add(t, up, TL_MEMCPY, "memcpy HtoD", 0, 40000, 32768, TL_PINNED, 13);
    ts_tl_add(t, up, TL_MEMCPY, "memcpy HtoD", 40000, 80000, 32768, TL_PINNED, 14);
    ts_tl_add(t, s13, TL_KERNEL, "chunk_sums", 40000, 50000, 0, 0, 13);
    ts_tl_add(t, s14, TL_KERNEL, "chunk_sums", 80000, 90000, 0, 0, 14);
    ts_tl_add(t, s13, TL_MEMSET, "memset", 0, 1000, 64, 0, 13);
    ts_tl_add(t, s13, TL_KERNEL, "standardize_clip", 100000, 110000, 0, 0, 13);
    ts_tl_add(t, s14, TL_KERNEL, "standardize_clip", 110000, 120000, 0, 0, 14);
    ts_tl_add(t, down, TL_MEMCPY, "memcpy DtoH", 110000, 150000, 32768, TL_PINNED, 13);
    ts_tl_add(t, down, TL_MEMCPY, "memcpy DtoH", 150000, 190000, 32768, TL_PINNED, 14);
    ts_tl_add(t, api, TL_API, "cudaStreamSynchronize", 150000, 190500, 0, 0, 0);
    timeline_sort(t);
}

static void check_slow(const tl_summary *s)
{
    assert_true(s->span_ns == 1030000);
    assert_int_equal(s->copies, 8);
    assert_int_equal(s->h2d, 4);
    assert_int_equal(s->d2h, 4);
    assert_true(s->h2d_bytes == 4 * 16384 && s->d2h_bytes == 4 * 16384);
    assert_int_equal(s->pageable, 8);
    assert_int_equal(s->pinned, 0);
    assert_int_equal(s->kernels, 1);
    assert_true(s->kernel_sum_ns == 200000);
    assert_true(s->gpu_busy_ns == 4 * 20000 + 200000 + 4 * 30000);
    assert_true(s->gpu_idle_ns == s->span_ns - s->gpu_busy_ns);
    /* gaps: 3 between uploads, 1 before the kernel, 1 after it, 3 between downloads */
    assert_int_equal(s->gpu_gaps, 8);
    assert_true(s->longest_gap_ns == 100000);
    assert_true(s->overlap_ns == 0 && s->updown_ns == 0);
    assert_int_equal(s->streams, 1);
    assert_int_equal(s->syncs, 8);
    assert_int_equal(s->api_calls, 9);
    assert_int_equal(s->nlanes, 3);
}

static void test_summary(void **state)
{
    (void)state;
    timeline t;
    tl_summary s;
    cl_err e = {{0}};
    slow_timeline(&t);
    assert_true(tlsummary_make(&t, 10000, &s, &e));
    check_slow(&s);
    assert_true(s.gap_min_ns == 10000);
    for (size_t i = 0; i < s.nlanes; i++) {
        const tls_lane *l = &s.lanes[i];
        if (l->kind == TL_LANE_H2D) {
            assert_int_equal(l->copies, 4);
            assert_int_equal(l->pageable, 4);
            assert_true(l->busy_ns == 80000 && l->idle_ns == 320000 - 80000);
            assert_int_equal(l->gaps, 3);
        } else if (l->kind == TL_LANE_STREAM) {
            assert_int_equal(l->kernels, 1);
            assert_true(l->busy_ns == 200000 && l->gaps == 0);
        }
    }
    tlsummary_free(&s);

    /* the same through a Chrome trace written and read back */
    char path[512];
    snprintf(path, sizeof path, "%s/slow.json", g_tmp);
    assert_true(trace_write(&t, path, &e));
    timeline back;
    assert_true(trace_load(path, &back, &e));
    assert_true(tlsummary_make(&back, 10000, &s, &e));
    check_slow(&s);
    tlsummary_free(&s);
    timeline_free(&back);
    timeline_free(&t);
    unlink(path);

    fast_timeline(&t);
    assert_true(tlsummary_make(&t, 10000, &s, &e));
    assert_int_equal(s.copies, 4);
    assert_int_equal(s.pinned, 4);
    assert_int_equal(s.pageable, 0);
    assert_int_equal(s.kernels, 4);
    assert_int_equal(s.memsets, 1);
    assert_int_equal(s.streams, 2);
    assert_true(s.span_ns == 190000);
    /* kernels [40,50) [80,90) [100,120) against copies [0,80) [110,190) (us) */
    assert_true(s.overlap_ns == 10000 + 10000);
    assert_true(s.updown_ns == 0);
    assert_true(s.gpu_busy_ns == 190000 - 10000);
    assert_int_equal(s.gpu_gaps, 1);
    assert_int_equal(s.syncs, 1);
    tlsummary_free(&s);
    timeline_free(&t);

    /* nothing on the GPU */
    timeline_init(&t);
    int api = timeline_lane(&t, TL_LANE_API, 0, &e);
    ts_tl_add(&t, api, TL_API, "cudaMalloc", 0, 10, 0, 0, 0);
    assert_true(tlsummary_make(&t, 10000, &s, &e));
    assert_true(s.span_ns == 0 && s.copies == 0 && s.kernels == 0 && s.api_calls == 1);
    tlsummary_free(&s);
    timeline_free(&t);
}

/* ---- the report ------------------------------------------------------------- */

static void rows(run_result *starter, run_result *mine, run_result *cpu, run_result *cpu_mt)
{
    run_result_init(starter);
    snprintf(starter->variant, sizeof starter->variant, "starter");
    starter->status = RS_CORRECT;
    starter->median_ms = 152.25;
    starter->spread = 0.012;
    starter->samples = 10;
    starter->gbps = 0.88;
    starter->speedup_cpu = 0.11;
    starter->speedup_cpu_mt = 0.05;
    starter->speedup_starter = 1.0;
    starter->rel_err = 2.5e-8;
    *mine = *starter;
    snprintf(mine->variant, sizeof mine->variant, "exercise");
    mine->kind = RK_EXERCISE;
    mine->median_ms = 9.5;
    mine->gbps = 14.13;
    mine->speedup_cpu = 1.76;
    mine->speedup_cpu_mt = 0.8;
    mine->speedup_starter = 152.25 / 9.5;
    run_result_init(cpu);
    cpu->kind = RK_CPU;
    cpu->status = RS_CORRECT;
    cpu->median_ms = 16.7;
    cpu->samples = 5;
    cpu->threads = 1;
    *cpu_mt = *cpu;
    cpu_mt->kind = RK_CPU_MT;
    cpu_mt->median_ms = 7.6;
    cpu_mt->threads = 16;
}

static void test_report(void **state)
{
    (void)state;
    timeline ts, tf;
    tl_summary before, after;
    cl_err e = {{0}};
    slow_timeline(&ts);
    fast_timeline(&tf);
    assert_true(tlsummary_make(&ts, 10000, &before, &e));
    assert_true(tlsummary_make(&tf, 10000, &after, &e));
    run_result starter, mine, cpu, cpu_mt;
    rows(&starter, &mine, &cpu, &cpu_mt);

    char changes[8192];
    assert_true(report_md_changes(&before, &after, &starter, &mine, changes, sizeof changes) > 0);
    assert_true(ts_contains(changes, "**Pinned instead of pageable**: 8 of the starter's 8 copies"));
    assert_true(ts_contains(changes, "all 4 of yours"));
    assert_true(ts_contains(changes, "**Fewer, larger copies**: 8 copies of 16 KiB on average in "
                                  "the starter, 4 of 32 KiB in yours (2 times fewer)"));
    assert_true(ts_contains(changes, "**Streams overlapping**: work ran on 1 stream in the starter "
                                  "and on 2 in yours"));
    assert_true(ts_contains(changes, "**Kernel time**: 200 us of kernels in the starter, 40.0 us "
                                  "in yours (5.0 times less)."));
    assert_true(ts_contains(changes, "copies ran alongside kernels for 20.0 us (12% of your copy "
                                  "time; the starter: 0 ns)"));
    assert_true(ts_contains(changes, "**Waiting**: 8 synchronize calls and 630 us of GPU idle time "
                                  "(8 gaps) in the starter; 1 and 10.0 us (1 gap) in yours."));
    assert_true(ts_contains(changes, "**End to end**: 152.250 ms for the starter, 9.500 ms for "
                                  "yours: 16.03 times faster."));

    /* the other way round: nothing gained, still pageable */
    report_md_changes(&after, &before, &mine, &starter, changes, sizeof changes);
    assert_true(ts_contains(changes, "**Still pageable**: 8 of your 8 copies use pageable memory"));
    assert_true(ts_contains(changes, "**No overlap gained**"));
    assert_true(ts_contains(changes, "times slower"));
    /* a small buffer gets a NUL-terminated prefix */
    char tiny[16];
    assert_int_equal(report_md_changes(&before, &after, NULL, NULL, tiny, sizeof tiny), 15);
    assert_int_equal(strlen(tiny), 15);

    report_input in = {
        .device = "Test GPU",
        .size = "2^20",
        .when = "2030-01-02 03:04",
        .cpu = &cpu,
        .cpu_mt = &cpu_mt,
        .starter = {&starter, &before, "starter-timeline.json", NULL},
        .mine = {&mine, &after, "pipeline-timeline.json", NULL},
    };
    char *md = report_md_build(&in, NULL);
    assert_non_null(md);
    assert_true(ts_contains(md, PIPELINE_REPORT_MARK));
    assert_true(ts_contains(md, "Device: Test GPU.  Table: 2^20 rows of taxi trips"));
    assert_true(ts_contains(md, "| the starter | 152.250 ms ±1.2% | 0.88 | 0.11x | 0.05x | 1.00x | "
                             "correct (relative error 2.5e-08) |"));
    assert_true(ts_contains(md, "| your pipeline | 9.500 ms ±1.2% | 14.13 | 1.76x | 0.80x | "
                             "16.03x | correct"));
    assert_true(ts_contains(md, "| CPU, 16 threads | 7.600 ms"));
    assert_true(ts_contains(md, "starter-timeline.json, pipeline-timeline.json"));
    assert_true(ts_contains(md, "| host memory of the copies | 8 pageable (128 KiB), 0 pinned "
                             "(0 B) | 0 pageable (0 B), 4 pinned (128 KiB) |"));
    assert_true(ts_contains(md, "| streams with work | 1 | 2 |"));
    assert_true(ts_contains(md, "| waits for the device (cuda*Synchronize) | 8 of 9 runtime calls "
                             "| 1 of 1 runtime calls |"));
    assert_true(ts_contains(md, "### The starter, lane by lane"));
    assert_true(ts_contains(md, "| copies H2D |"));
    assert_true(ts_contains(md, "## What changed"));
    assert_true(ts_contains(md, "**Pinned instead of pageable**"));
    assert_true(ts_contains(md, REPORT_NOTES_HEADING "\n" REPORT_NOTES_MARK "\nWhat did the"));

    /* The learner writes notes; a rewrite keeps them word for word. */
    const char *mine_notes = "The starter spent most of its time in 8192 tiny copies.\n\n"
                             "| step | speedup |\n|---|---|\n| one copy | 5x |\n";
    size_t base = (size_t)(strstr(md, REPORT_NOTES_MARK) - md) + strlen(REPORT_NOTES_MARK) + 1;
    char *edited = malloc(base + strlen(mine_notes) + 1);
    assert_non_null(edited);
    snprintf(edited, base + strlen(mine_notes) + 1, "%.*s%s", (int)base, md, mine_notes);
    char *kept = report_md_notes(edited);
    assert_non_null(kept);
    assert_string_equal(kept, mine_notes);
    char *md2 = report_md_build(&in, kept);
    char *kept2 = report_md_notes(md2);
    assert_string_equal(kept2, mine_notes);
    free(kept);
    free(kept2);
    free(md2);
    free(edited);

    /* notes whose marker line was deleted: everything after the heading */
    kept = report_md_notes("# report\n\n## Your notes\nmine\n");
    assert_string_equal(kept, "mine\n");
    free(kept);
    assert_null(report_md_notes("# a report without a notes section\n"));
    assert_null(report_md_notes(NULL));
    free(md);

    /* no timeline of the learner's pipeline, a wrong row with a pipe in
     * its message */
    mine.status = RS_WRONG;
    snprintf(mine.message, sizeof mine.message, "wrong: 3 of 16 differ | first at [2]\nmore");
    in.mine.tl = NULL;
    in.mine.trace = NULL;
    in.mine.why_no_tl = "none was recorded (your pipeline's row was not correct)";
    md = report_md_build(&in, "notes\n");
    assert_non_null(md);
    assert_true(ts_contains(md, "| wrong: wrong: 3 of 16 differ / first at [2] more |"));
    assert_true(ts_contains(md, "### Your pipeline, lane by lane\n\nNo timeline: none was recorded"));
    assert_true(ts_contains(md, "- Only the starter's timeline was recorded"));
    assert_true(ts_contains(md, "but your result is not correct"));
    assert_true(ts_contains(md, "(starter-timeline.json)"));
    free(md);

    tlsummary_free(&before);
    tlsummary_free(&after);
    timeline_free(&ts);
    timeline_free(&tf);
}

int main(void)
{
    if (!ts_tmpdir(g_tmp, sizeof g_tmp, "pipe-units"))
        return 1;
    ts_data_home(g_tmp);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_summary_table),
        cmocka_unit_test(test_milestones),
        cmocka_unit_test(test_timeline_log_lines),
        cmocka_unit_test(test_report_file),
        cmocka_unit_test(test_interval_sets),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_report),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    ts_rm_rf(g_tmp);
    return rc;
}

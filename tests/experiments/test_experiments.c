/* experiments_run without a device (CUDA_VISIBLE_DEVICES is emptied, so
 * this holds on GPU machines too): every requested experiment comes back as
 * one RS_ERROR row saying "no CUDA device found", unknown ids are named,
 * nothing faults.  Plus the pure helpers: ids, titles, the timeline log
 * line and file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"
#include "experiments/experiments.h"

static void request(run_request *req, const char *const *ids, int n)
{
    memset(req, 0, sizeof *req);
    req->run = 42;
    snprintf(req->problem, sizeof req->problem, "%s", EXPERIMENTS_PROBLEM);
    for (int i = 0; i < n; i++)
        snprintf(req->variants[req->nvariants++].id, RUN_ID_MAX, "%s", ids[i]);
}

static void test_no_device_rows(void **state)
{
    (void)state;
    static ts_rows rs;
    run_request req;
    const char *ids[] = {"transfers", "nonsense", "overlap"};
    request(&req, ids, 3);
    run_fault f;
    assert_true(ts_run(experiments_run, &req, &rs, &f));
    assert_int_equal(rs.nrows, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(rs.rows[i].run, 42);
        assert_int_equal(rs.rows[i].status, i == 1 ? RS_ERROR : RS_NO_DEVICE);
        assert_string_equal(rs.rows[i].variant, ids[i]);
    }
    assert_non_null(strstr(rs.rows[0].message, "no CUDA device found"));
    assert_non_null(strstr(rs.rows[2].message, "no CUDA device found"));
    assert_non_null(strstr(rs.rows[1].message, "unknown experiment 'nonsense'"));
    assert_non_null(strstr(rs.rows[1].message, "roofline"));
    assert_string_equal(f.cause, "");
}

static void test_no_device_all_experiments(void **state)
{
    (void)state;
    static ts_rows rs;
    run_request req;
    request(&req, NULL, 0);
    assert_true(ts_run(experiments_run, &req, &rs, NULL));
    size_t n = 0;
    const char *const *ids = experiments_ids(&n);
    assert_int_equal(n, 8);
    assert_int_equal(rs.nrows, 8);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(rs.rows[i].variant, ids[i]);
        assert_int_equal(rs.rows[i].status, RS_NO_DEVICE);
        assert_non_null(strstr(rs.rows[i].message, "no CUDA device found"));
        assert_true(rs.rows[i].gbps < 0);
    }
}

static void test_ids_and_titles(void **state)
{
    (void)state;
    const char *want[] = {"transfers", "overlap", "stride", "gemv",
                          "blocksize", "transpose", "timing", "roofline"};
    size_t n = 0;
    const char *const *ids = experiments_ids(&n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(ids[i], want[i]);
        assert_true(experiments_known(ids[i]));
        assert_non_null(experiments_title(ids[i]));
    }
    assert_false(experiments_known("gemm"));
    assert_null(experiments_title(NULL));
}

/* The basics lab's experiments: their own list, their own problem; each
 * lab's requests know only their own experiments. */
static void test_basics_experiments(void **state)
{
    (void)state;
    const char *want[] = {"divergence", "occupancy", "hierarchy", "fences"};
    size_t n = 0;
    const char *const *ids = experiments_ids_of(EXPERIMENTS_BASICS, &n);
    assert_int_equal(n, 4);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(ids[i], want[i]);
        assert_string_equal(experiments_problem_of(ids[i]), EXPERIMENTS_BASICS);
        assert_non_null(experiments_title(ids[i]));
    }
    assert_string_equal(experiments_problem_of("stride"), EXPERIMENTS_PROBLEM);
    assert_null(experiments_problem_of("gemm"));
    assert_true(experiments_problem("basics") && experiments_problem("profiling"));
    assert_false(experiments_problem("saxpy") || experiments_problem(NULL));
    experiments_ids_of("saxpy", &n);
    assert_int_equal(n, 0);

    static ts_rows rs;
    run_request req;
    request(&req, NULL, 0);
    snprintf(req.problem, sizeof req.problem, "%s", EXPERIMENTS_BASICS);
    assert_true(ts_run(experiments_run, &req, &rs, NULL));
    assert_int_equal(rs.nrows, 4);
    for (int i = 0; i < 4; i++) {
        assert_string_equal(rs.rows[i].variant, want[i]);
        assert_non_null(strstr(rs.rows[i].message, "no CUDA device found"));
    }
    const char *mixed[] = {"divergence"};
    request(&req, mixed, 1);   /* a profiling request */
    assert_true(ts_run(experiments_run, &req, &rs, NULL));
    assert_int_equal(rs.nrows, 1);
    assert_non_null(strstr(rs.rows[0].message, "unknown experiment 'divergence'"));
}

static void test_timeline_log_line(void **state)
{
    (void)state;
    char p[64];
    assert_true(experiments_timeline_path("timeline: /d/timelines/last.json (12 events over 1.2 ms)",
                                          p, sizeof p));
    assert_string_equal(p, "/d/timelines/last.json");
    assert_true(experiments_timeline_path("timeline: /x.json", p, sizeof p));
    assert_string_equal(p, "/x.json");
    assert_false(experiments_timeline_path("timeline not recorded: no CUDA device", p, sizeof p));
    assert_false(experiments_timeline_path("timeline: ", p, sizeof p));
    assert_false(experiments_timeline_path(NULL, p, sizeof p));
    char tiny[4];
    assert_false(experiments_timeline_path("timeline: /long/path.json", tiny, sizeof tiny));
}

static void test_timeline_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/cudalab-xdg-XXXXXX";
    assert_non_null(mkdtemp(dir));
    ts_data_home(dir);
    char path[4096];
    cl_err e;
    assert_true(experiments_timeline_file(path, sizeof path, &e));
    char want[4096];
    snprintf(want, sizeof want, "%s/cudalab/timelines/last.json", dir);
    assert_string_equal(path, want);
    char small[8];
    assert_false(experiments_timeline_file(small, sizeof small, &e));
    rmdir(dir);
}

int main(void)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_device_rows),
        cmocka_unit_test(test_no_device_all_experiments),
        cmocka_unit_test(test_ids_and_titles),
        cmocka_unit_test(test_basics_experiments),
        cmocka_unit_test(test_timeline_log_line),
        cmocka_unit_test(test_timeline_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

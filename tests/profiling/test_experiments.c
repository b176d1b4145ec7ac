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

#include "worker/experiments.h"

typedef struct rows {
    run_result r[64];
    int n;
    int logs;
} rows;

static void on_result(void *ud, const run_result *r)
{
    rows *rs = ud;
    if (rs->n < 64)
        rs->r[rs->n++] = *r;
}

static void on_log(void *ud, int level, const char *msg)
{
    (void)level;
    (void)msg;
    ((rows *)ud)->logs++;
}

static void request(run_request *req, const char *const *ids, int n)
{
    memset(req, 0, sizeof *req);
    req->run = 42;
    snprintf(req->problem, sizeof req->problem, "%s", EXPERIMENTS_PROBLEM);
    for (int i = 0; i < n; i++)
        snprintf(req->variants[req->nvariants++].id, PROTO_ID_MAX, "%s", ids[i]);
}

static void test_no_device_rows(void **state)
{
    (void)state;
    static rows rs;
    memset(&rs, 0, sizeof rs);
    engine_sink sink = {NULL, on_result, on_log, &rs};
    run_request req;
    const char *ids[] = {"transfers", "nonsense", "overlap"};
    request(&req, ids, 3);
    run_fault f;
    memset(&f, 0, sizeof f);
    assert_true(experiments_run(&req, &sink, &f));
    assert_int_equal(rs.n, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(rs.r[i].run, 42);
        assert_int_equal(rs.r[i].status, RS_ERROR);
        assert_string_equal(rs.r[i].variant, ids[i]);
    }
    assert_non_null(strstr(rs.r[0].message, "no CUDA device found"));
    assert_non_null(strstr(rs.r[2].message, "no CUDA device found"));
    assert_non_null(strstr(rs.r[1].message, "unknown experiment 'nonsense'"));
    assert_non_null(strstr(rs.r[1].message, "roofline"));
    assert_string_equal(f.cause, "");
}

static void test_no_device_all_experiments(void **state)
{
    (void)state;
    static rows rs;
    memset(&rs, 0, sizeof rs);
    engine_sink sink = {NULL, on_result, on_log, &rs};
    run_request req;
    request(&req, NULL, 0);
    run_fault f;
    assert_true(experiments_run(&req, &sink, &f));
    size_t n = 0;
    const char *const *ids = experiments_ids(&n);
    assert_int_equal(n, 8);
    assert_int_equal(rs.n, 8);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(rs.r[i].variant, ids[i]);
        assert_int_equal(rs.r[i].status, RS_ERROR);
        assert_non_null(strstr(rs.r[i].message, "no CUDA device found"));
        assert_true(rs.r[i].gbps < 0);
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
    setenv("XDG_DATA_HOME", dir, 1);
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
        cmocka_unit_test(test_timeline_log_line),
        cmocka_unit_test(test_timeline_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* `cudalab profile` end to end without a device: the command runs the
 * experiments in a real worker process under the supervisor (this test
 * binary serves as the worker, with the experiments as its engine, when
 * started with "worker"), prints "no CUDA device found" and exits 3; bad
 * command lines exit 2; --json prints one document; --ncu without Nsight
 * Compute says how to get it.  CUDA_VISIBLE_DEVICES is emptied so this
 * holds on GPU machines too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd_profile.h"
#include "core/atomicfile.h"
#include "prof/ncu.h"
#include "core/paths.h"
#include "prof/timeline.h"
#include "prof/trace.h"
#include "support.h"
#include "engine/engine.h"
#include "experiments/experiments.h"
#include "worker/workerloop.h"

/* Runs cmd_profile with the words given, capturing stdout and stderr. */
static void profile(ts_output *c, const char *const *words)
{
    cli_ctx ctx;
    ts_cli_ctx(&ctx, NULL, 60);
    ts_capture_cmd(c, cmd_profile, &ctx, "profile", words);
}

static void test_no_device_exits_3(void **state)
{
    (void)state;
    static ts_output c;
    profile(&c, NULL);
    if (c.status != 3)
        fail_msg("rc %d\nstdout:\n%s\nstderr:\n%s", c.status, c.out, c.err);
    assert_non_null(strstr(c.err, "no CUDA device found"));
    assert_non_null(strstr(c.out, "measurement"));
    assert_non_null(strstr(c.out, "transfers"));
    assert_non_null(strstr(c.out, "roofline"));
    /* The reason is said once, on standard error, not under every row. */
    const char *first = strstr(c.err, "no CUDA device found");
    assert_null(strstr(first + 1, "no CUDA device found"));
    assert_null(strstr(c.out, "no CUDA device found"));
    ts_output_free(&c);
}

static void test_json(void **state)
{
    (void)state;
    static ts_output c;
    const char *w[] = {"stride", "timing", "--json", NULL};
    profile(&c, w);
    assert_int_equal(c.status, 3);
    cJSON *root = cJSON_Parse(c.out);
    if (!root)
        fail_msg("not JSON:\n%s", c.out);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(root, "lab")), "profiling");
    const cJSON *res = cJSON_GetObjectItem(root, "results");
    assert_int_equal(cJSON_GetArraySize(res), 2);
    const cJSON *r0 = cJSON_GetArrayItem(res, 0);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(r0, "variant")), "stride");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(r0, "status")), "no_device");
    assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(r0, "message")),
                           "no CUDA device found"));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(root, "timeline")));
    const cJSON *dev = cJSON_GetObjectItem(root, "device");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(dev, "present")));
    cJSON_Delete(root);
    ts_output_free(&c);
}

static void test_trace_not_written_without_device(void **state)
{
    (void)state;
    static ts_output c;
    char path[] = "/tmp/cudalab-prof-trace-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    const char *w[] = {"overlap", "--trace", path, NULL};
    profile(&c, w);
    assert_int_equal(c.status, 3);
    assert_int_not_equal(access(path, F_OK), 0);
    ts_output_free(&c);
}

static void expect_usage(const char *const *w, const char *words)
{
    static ts_output c;
    profile(&c, w);
    assert_int_equal(c.status, 2);
    if (!strstr(c.err, words))
        fail_msg("expected '%s' in: %s", words, c.err);
    ts_output_free(&c);
}

static void test_usage_errors(void **state)
{
    (void)state;
    static const struct {
        const char *w[4];
        const char *words;
    } usage[] = {
        {{"gemm", NULL}, "no experiment called 'gemm' (known: transfers, overlap, stride"},
        {{"--budget", "-1", NULL}, "--budget"},
        {{"--ncu", NULL}, "--ncu needs a kernel"},
        {{"--ncu", "prof_scale", "--json", NULL}, "does not combine"},
        {{"--frobnicate", NULL}, "unknown option '--frobnicate'"},
        {{"--trace", NULL}, "--trace needs a file"},
        {{"--seed", "x", NULL}, "--seed needs a whole number"},
    };
    for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++)
        expect_usage(usage[i].w, usage[i].words);
}

static void test_ncu_missing(void **state)
{
    (void)state;
    char dir[] = "/tmp/cudalab-empty-path-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    char *old_home = getenv("CUDA_HOME") ? strdup(getenv("CUDA_HOME")) : NULL;
    setenv("PATH", dir, 1);
    unsetenv("CUDA_HOME");
    char where[4096];
    bool installed = ncu_find(where, sizeof where);
    if (!installed) {
        static ts_output c;
        const char *w[] = {"transpose", "--ncu", "prof_transpose_tiled", NULL};
        profile(&c, w);
        assert_int_equal(c.status, 3);
        assert_non_null(strstr(c.err, "Nsight Compute (ncu) was not found"));
        ts_output_free(&c);
    }
    if (old_path)
        setenv("PATH", old_path, 1);
    if (old_home)
        setenv("CUDA_HOME", old_home, 1);
    free(old_path);
    free(old_home);
    rmdir(dir);
    if (installed)
        skip();
}

/* ---- a stand-in GPU, for the command's printing when a device is there ---- */

static void fake_probe(device_info *d)
{
    memset(d, 0, sizeof *d);
    d->present = true;
    snprintf(d->name, sizeof d->name, "Stand-in GPU");
    d->sm_count = 100;
    d->peak_bw_measured_gbs = 2000.0;
    d->peak_bw_theory_gbs = 2500.0;
    d->peak_fp32_tflops = 40.0;
}

static void fake_shutdown(void)
{
}

/* Emits two roofline rows and writes a small timeline, as the experiments
 * would on a device with the roofs above. */
static bool fake_run(const run_request *req, const engine_sink *sink, run_fault *fault)
{
    (void)fault;
    static const struct {
        const char *id, *label;
        double ms, gbps, tflops;
    } rows[] = {{"roof_0", "0.75 FLOP/B", 0.14, 1900.0, 1.4}, {"roof_256", "256.75 FLOP/B", 2.1, 128.0, 32.0}};
    for (size_t i = 0; i < 2; i++) {
        run_result r;
        run_result_init(&r);
        r.run = req->run;
        snprintf(r.variant, sizeof r.variant, "%s", rows[i].id);
        snprintf(r.label, sizeof r.label, "%s", rows[i].label);
        snprintf(r.size, sizeof r.size, "128.0 MiB");
        r.status = RS_CORRECT;
        r.median_ms = rows[i].ms;
        r.samples = 10;
        r.gbps = rows[i].gbps;
        r.tflops = rows[i].tflops;
        sink->result(sink->ud, &r);
    }
    timeline t;
    timeline_init(&t);
    cl_err e;
    int s = timeline_lane(&t, TL_LANE_STREAM, 7, &e);
    tl_item it;
    memset(&it, 0, sizeof it);
    it.lane = s;
    snprintf(it.name, sizeof it.name, "prof_fma");
    it.start_ns = 0;
    it.end_ns = 1000;
    timeline_add(&t, &it, &e);
    it.start_ns = 3000;
    it.end_ns = 4000;
    timeline_add(&t, &it, &e);
    char path[4096], dir[4096], msg[4200];
    if (experiments_timeline_file(path, sizeof path, &e)) {
        snprintf(dir, sizeof dir, "%s", path);
        *strrchr(dir, '/') = '\0';
        if (paths_mkdir_p(dir, &e) && trace_write(&t, path, &e)) {
            snprintf(msg, sizeof msg, "%s%s (2 events)", EXPERIMENTS_TIMELINE_LOG, path);
            sink->log(sink->ud, 0, msg);
        }
    }
    timeline_free(&t);
    return true;
}

static void test_with_a_device(void **state)
{
    (void)state;
    static ts_output c;
    char trace[] = "/tmp/cudalab-prof-out-XXXXXX";
    int fd = mkstemp(trace);
    assert_true(fd >= 0);
    close(fd);
    setenv("CUDALAB_TEST_STAND_IN_GPU", "1", 1);
    const char *w[] = {"roofline", "--trace", trace, NULL};
    profile(&c, w);
    if (c.status != 0)
        fail_msg("rc %d\nstdout:\n%s\nstderr:\n%s", c.status, c.out, c.err);
    assert_non_null(strstr(c.out, "Device: Stand-in GPU"));
    assert_non_null(strstr(c.out, "Roofline (log-log)"));
    assert_non_null(strstr(c.out, "ridge at 20.0 FLOP/B"));
    assert_non_null(strstr(c.out, "A  0.75 FLOP/B"));
    assert_non_null(strstr(c.out, "memory-bound"));
    assert_non_null(strstr(c.out, "compute-bound"));
    assert_non_null(strstr(c.out, "the GPU was busy 50% of 4.00 us"));
    assert_non_null(strstr(c.out, "Trace written to"));
    size_t len = 0;
    cl_err e;
    char *txt = file_read_all(trace, 1 << 20, &len, &e);
    assert_non_null(txt);
    assert_true(trace_validate(txt, &e));
    assert_non_null(strstr(txt, "prof_fma"));
    free(txt);

    const char *j[] = {"roofline", "--json", NULL};
    profile(&c, j);
    assert_int_equal(c.status, 0);
    cJSON *root = cJSON_Parse(c.out);
    assert_non_null(root);
    const char *tl = cJSON_GetStringValue(cJSON_GetObjectItem(root, "timeline"));
    assert_non_null(tl);
    assert_non_null(strstr(tl, "timelines/last.json"));
    cJSON_Delete(root);
    unsetenv("CUDALAB_TEST_STAND_IN_GPU");
    unlink(trace);
    ts_output_free(&c);
}

/* The worker side: the real loop with the experiments as the engine (or
 * the stand-in GPU when CUDALAB_TEST_STAND_IN_GPU is set). */
static int serve_worker(void)
{
    const workerloop_engine real = {engine_probe, experiments_run, engine_shutdown};
    const workerloop_engine fake = {fake_probe, fake_run, fake_shutdown};
    return ts_serve_worker(getenv("CUDALAB_TEST_STAND_IN_GPU") ? &fake : &real);
}

int main(int argc, char **argv)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    if (argc >= 2 && strcmp(argv[1], "worker") == 0)
        return serve_worker();
    char dir[CL_PATH_MAX];
    bool have_dir = ts_tmpdir(dir, sizeof dir, "prof-data");
    if (have_dir)
        ts_data_home(dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_device_exits_3),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_trace_not_written_without_device),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_ncu_missing),
        cmocka_unit_test(test_with_a_device),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (have_dir)
        ts_rm_rf(dir);
    return rc;
}

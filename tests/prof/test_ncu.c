/* Nsight Compute: the raw-page CSV parser on data/ncu_raw.csv (written by
 * hand in the layout `ncu --csv --page raw` prints: the profiled program's
 * output and ==PROF== lines first, then a header row, a units row and one
 * row per profiled kernel), the command line built for ncu, the
 * explanations of its failures, and ncu_run driving stand-in scripts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "prof/ncu.h"

static void sample_path(char *out, size_t n)
{
    const char *root = getenv("CUDALAB_TEST_DATA");
    snprintf(out, n, "%s/prof/data/ncu_raw.csv", root ? root : "tests");
}

static char *sample(void)
{
    char path[1024];
    sample_path(path, sizeof path);
    cl_err e;
    size_t len = 0;
    char *txt = file_read_all(path, 1 << 20, &len, &e);
    if (!txt)
        fail_msg("%s", e.msg);
    return txt;
}

static void test_parse_recorded_sample(void **state)
{
    (void)state;
    char *txt = sample();
    ncu_report r;
    cl_err e;
    if (!ncu_parse_csv(txt, &r, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(r.nkernels, 2);
    const ncu_kernel *k = &r.kernels[0];
    assert_int_equal(k->id, 0);
    assert_string_equal(k->name, "prof_transpose_tiled");
    assert_string_equal(k->block, "(32, 8, 1)");
    assert_string_equal(k->grid, "(256, 256, 1)");
    assert_string_equal(k->cc, "9.0");
    assert_int_equal(k->nmetrics, 14);

    const ncu_metric *dram = ncu_metric_find(k, "dram__throughput.avg.pct_of_peak_sustained_elapsed");
    assert_non_null(dram);
    assert_true(dram->has_value);
    assert_true(dram->value == 61.47);
    assert_string_equal(dram->unit, "%");
    const ncu_metric *dur = ncu_metric_find(k, "gpu__time_duration.sum");
    assert_non_null(dur);
    assert_true(dur->value == 1228352.0);          /* thousands separators dropped */
    assert_string_equal(dur->text, "1,228,352");
    assert_string_equal(dur->unit, "nsecond");
    const ncu_metric *mio =
        ncu_metric_find(k, "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio");
    assert_non_null(mio);
    assert_true(mio->value == 2.61);

    const ncu_kernel *p = &r.kernels[1];
    assert_string_equal(p->name, "prof_transpose_padded");
    const ncu_metric *l1 = ncu_metric_find(p, "l1tex__t_sector_hit_rate.pct");
    assert_non_null(l1);
    assert_false(l1->has_value);                   /* "n/a" */
    assert_string_equal(l1->text, "n/a");
    const ncu_metric *mio2 =
        ncu_metric_find(p, "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio");
    assert_true(mio2->value < mio->value);         /* the padding removed the bank conflicts */
    assert_null(ncu_metric_find(p, "no_such_metric"));
    ncu_report_free(&r);
    assert_int_equal(r.nkernels, 0);
    free(txt);
}

static void test_parse_edge_cases(void **state)
{
    (void)state;
    ncu_report r;
    cl_err e;
    assert_false(ncu_parse_csv("==PROF== Connected\nno table here\n", &r, &e));
    assert_non_null(strstr(e.msg, "no Nsight Compute table"));
    assert_false(ncu_parse_csv(NULL, &r, &e));

    /* No units row, unquoted fields, CRLF, a quoted comma and an escaped quote. */
    const char *plain =
        "ID,Process ID,Process Name,Host Name,Kernel Name,Context,Stream,Block Size,Grid Size,"
        "Device,CC,sm__throughput.avg.pct_of_peak_sustained_elapsed\r\n"
        "3,1,app,h,\"void k<1, \"\"x\"\">(float*)\",1,7,\"(256, 1, 1)\",\"(8, 1, 1)\",0,8.6,12.5\r\n";
    assert_true(ncu_parse_csv(plain, &r, &e));
    assert_int_equal(r.nkernels, 1);
    assert_int_equal(r.kernels[0].id, 3);
    assert_string_equal(r.kernels[0].name, "void k<1, \"x\">(float*)");
    assert_string_equal(r.kernels[0].metrics[0].unit, "");
    assert_true(r.kernels[0].metrics[0].value == 12.5);
    ncu_report_free(&r);

    const char *ragged =
        "\"ID\",\"Process ID\",\"Kernel Name\",\"m\"\n\"\",\"\",\"\",\"%\"\n\"0\",\"1\",\"k\"\n";
    assert_false(ncu_parse_csv(ragged, &r, &e));
    assert_non_null(strstr(e.msg, "fields"));

    const char *empty = "\"ID\",\"Process ID\",\"Kernel Name\",\"m\"\n\"\",\"\",\"\",\"%\"\n";
    assert_false(ncu_parse_csv(empty, &r, &e));
    assert_non_null(strstr(e.msg, "no kernel"));
}

static void test_metrics_and_labels(void **state)
{
    (void)state;
    const char *m = ncu_default_metrics();
    const char *want[] = {"dram__throughput.avg.pct_of_peak_sustained_elapsed",
                          "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                          "sm__warps_active.avg.pct_of_peak_sustained_active",
                          "l1tex__t_sector_hit_rate.pct", "lts__t_sector_hit_rate.pct",
                          "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_non_null(strstr(m, want[i]));
    assert_null(strchr(m, ' '));
    assert_string_equal(ncu_metric_label("sm__warps_active.avg.pct_of_peak_sustained_active"),
                        "achieved occupancy");
    assert_string_equal(ncu_metric_label("x__y"), "x__y");
    assert_non_null(strstr(ncu_install_hint(), "nsight-compute"));
}

static void test_argv(void **state)
{
    (void)state;
    const char *cmd[] = {"/opt/cudalab", "profile", "transpose", NULL};
    cl_err e;
    char **argv = ncu_argv("/usr/local/cuda/bin/ncu", "prof_transpose_.*", NULL, cmd, &e);
    assert_non_null(argv);
    const char *want[] = {"/usr/local/cuda/bin/ncu", "--csv", "--page", "raw", "--target-processes",
                          "all", "--clock-control", "none", "--kernel-name",
                          "regex:prof_transpose_.*", "--launch-count", "1", "--metrics",
                          ncu_default_metrics(), "/opt/cudalab", "profile", "transpose"};
    size_t n = sizeof want / sizeof want[0];
    for (size_t i = 0; i < n; i++)
        assert_string_equal(argv[i], want[i]);
    assert_null(argv[n]);
    free(argv);

    argv = ncu_argv("ncu", NULL, "a,b", cmd, &e);
    assert_string_equal(argv[9], "regex:.");
    assert_string_equal(argv[13], "a,b");
    free(argv);
    const char *none[] = {NULL};
    assert_null(ncu_argv("ncu", "k", NULL, none, &e));
}

static void test_explain(void **state)
{
    (void)state;
    cl_err e;
    ncu_explain("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA "
                "GPU Performance Counters\n",
                "k", &e);
    assert_non_null(strstr(e.msg, "performance counters"));
    ncu_explain("==WARNING== No kernels were profiled.\n", "prof_nothing", &e);
    assert_non_null(strstr(e.msg, "prof_nothing"));
    ncu_explain("==ERROR== Failed to find metric sm__bogus\n==ERROR== x\n", "k", &e);
    assert_non_null(strstr(e.msg, "sm__bogus"));
    ncu_explain("==ERROR== first\nstuff\n==ERROR== the last one\n", "k", &e);
    assert_string_equal(e.msg, "ncu: ==ERROR== the last one");
    ncu_explain("", "k", &e);
    assert_non_null(strstr(e.msg, "no table"));
}

/* Writes an executable shell script into dir. */
static void script(const char *path, const char *body)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n%s", body);
    fclose(f);
    assert_int_equal(chmod(path, 0755), 0);
}

static void test_run_with_stand_in_tools(void **state)
{
    (void)state;
    char dir[] = "/tmp/cudalab-ncu-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char good[256], perm[256], slow[256], csv[1024], body[2048];
    snprintf(good, sizeof good, "%s/ncu-good", dir);
    snprintf(perm, sizeof perm, "%s/ncu-perm", dir);
    snprintf(slow, sizeof slow, "%s/ncu-slow", dir);
    sample_path(csv, sizeof csv);
    /* Checks it was called the way ncu_argv says, then prints the sample. */
    snprintf(body, sizeof body,
             "[ \"$1\" = --csv ] && [ \"$9\" = regex:prof_transpose ] || exit 9\n"
             "echo \"args: $*\" >&2\ncat '%s'\n",
             csv);
    script(good, body);
    script(perm, "echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission' >&2\n"
                 "exit 1\n");
    script(slow, "exec sleep 5\n");

    const char *cmd[] = {"/bin/true", NULL};
    ncu_report r;
    cl_err e;
    char *out = NULL;
    if (!ncu_run(good, "prof_transpose", NULL, cmd, 30, &r, &out, &e))
        fail_msg("%s\n%s", e.msg, out ? out : "");
    assert_int_equal(r.nkernels, 2);
    assert_non_null(strstr(out, "args: --csv --page raw"));
    ncu_report_free(&r);
    free(out);

    assert_false(ncu_run(perm, "k", NULL, cmd, 30, &r, NULL, &e));
    assert_non_null(strstr(e.msg, "performance counters"));

    assert_false(ncu_run(slow, "k", NULL, cmd, 0.5, &r, NULL, &e));
    assert_non_null(strstr(e.msg, "did not finish"));

    char missing[256];
    snprintf(missing, sizeof missing, "%s/not-there", dir);
    assert_false(ncu_run(missing, "k", NULL, cmd, 30, &r, &out, &e));
    assert_non_null(strstr(out, "==ERROR== cannot start"));
    assert_non_null(strstr(e.msg, "not-there"));
    free(out);

    unlink(good);
    unlink(perm);
    unlink(slow);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_recorded_sample),
        cmocka_unit_test(test_parse_edge_cases),
        cmocka_unit_test(test_metrics_and_labels),
        cmocka_unit_test(test_argv),
        cmocka_unit_test(test_explain),
        cmocka_unit_test(test_run_with_stand_in_tools),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_progress_cli.c - `cudalab progress` shows what the store holds, and
 * --reset forgets one lab only after a confirmation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "store/store.h"
#include "support.h"

static char data[CL_PATH_MAX];

static int setup(void **state)
{
    (void)state;
    if (!ts_tmpdir(data, sizeof data, "progress"))
        return -1;
    setenv("CUDALAB_DATA", data, 1);
    store *s = NULL;
    char notice[256];
    cl_err e = {{0}};
    if (!store_open(data, &s, notice, sizeof notice, &e))
        return -1;
    store_run_info info = {.lab = "reduction", .origin = "test", .kernel_path = "starter.cu",
                           .kernel_text = "// mine\n"};
    int64_t run = 0, row = 0;
    run_result r;
    run_result_init(&r);
    snprintf(r.variant, sizeof r.variant, "exercise");
    snprintf(r.size, sizeof r.size, "2^28");
    r.kind = RK_EXERCISE;
    r.status = RS_CORRECT;
    r.median_ms = 1.5;
    r.samples = 12;
    r.speedup_cpu = 180.0;
    /* one run, two sizes: one attempt */
    run_result small = r;
    snprintf(small.size, sizeof small.size, "2^20");
    small.median_ms = 0.01;
    bool first = false;
    bool ok = store_run_begin(s, &info, &run, &e) && store_row_add(s, run, &small, NULL, NULL, &e) &&
              store_row_add(s, run, &r, NULL, &row, &e) &&
              store_milestone_reached(s, "reduction", "cpu100x", "180x >= 100x", run, row, &first,
                                      &e) &&
              store_quiz_answer(s, "reduction", "divergence", 0, true, &e) &&
              store_place_set(s, "matmul", 2, &e);
    /* Four runs of matmul whose rows interleave (two processes recording
     * at once): four attempts, not one a row. */
    store_run_info mm = {.lab = "matmul", .origin = "test"};
    int64_t runs[4];
    for (int i = 0; ok && i < 4; i++)
        ok = store_run_begin(s, &mm, &runs[i], &e);
    for (int k = 0; ok && k < 12; k++) {
        run_result x = r;
        x.median_ms = 2.0 + k;
        ok = store_row_add(s, runs[k % 4], &x, NULL, NULL, &e);
    }
    store_close(s);
    return ok ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ts_rm_rf(data);
    return 0;
}

static cJSON *lab_of(cJSON *root, const char *id)
{
    cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(root, "labs"))
        if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l, "id")), id) == 0)
            return l;
    return NULL;
}

static void test_show(void **state)
{
    (void)state;
    ts_output o = {0};
    assert_int_equal(ts_shell(&o, false, "'%s' progress", ts_exe()), 0);
    assert_true(ts_contains(o.out, "reduction: Parallel reduction"));
    assert_true(ts_contains(o.out, "[x]"));
    assert_true(ts_contains(o.out, "180x >= 100x"));
    assert_true(ts_contains(o.out, "best at 2^28: 1.5 ms, 180.0x CPU"));
    assert_true(ts_contains(o.out, "left at step 3"));
    assert_true(ts_contains(o.out, "your kernel: 1 run,"));
    assert_true(ts_contains(o.out, "your kernel: 4 runs,"));
    assert_true(ts_contains(o.out, "best at 2^28: 2 ms"));

    assert_int_equal(ts_shell(&o, false, "'%s' progress --json", ts_exe()), 0);
    cJSON *root = cJSON_Parse(o.out);
    assert_non_null(root);
    cJSON *red = lab_of(root, "reduction");
    assert_non_null(red);
    assert_int_equal((int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(red, "attempts")),
                     1);
    cJSON *mm = lab_of(root, "matmul");
    assert_non_null(mm);
    assert_int_equal((int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(mm, "attempts")),
                     4);
    int reached = 0;
    cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(red, "milestones"))
        reached += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "reached"));
    assert_int_equal(reached, 2);   /* the measured one and the quiz */
    cJSON_Delete(root);
    ts_output_free(&o);
}

static void test_reset(void **state)
{
    (void)state;
    ts_output o = {0};
    /* No: nothing forgotten. */
    assert_int_equal(ts_shell(&o, false, "echo n | '%s' progress --reset reduction", ts_exe()), 1);
    assert_true(ts_contains(o.err, "nothing was forgotten"));
    assert_int_equal(ts_shell(&o, false, "'%s' progress", ts_exe()), 0);
    assert_true(ts_contains(o.out, "180x >= 100x"));
    /* A lab that does not exist, and --yes alone, are usage errors. */
    assert_int_equal(ts_shell(&o, false, "'%s' progress --reset nosuch --yes", ts_exe()), 2);
    assert_int_equal(ts_shell(&o, false, "'%s' progress --yes", ts_exe()), 2);
    /* Yes: that lab only. */
    assert_int_equal(ts_shell(&o, false, "echo y | '%s' progress --reset reduction", ts_exe()), 0);
    assert_int_equal(ts_shell(&o, false, "'%s' progress", ts_exe()), 0);
    assert_null(strstr(o.out, "180x >= 100x"));
    assert_true(ts_contains(o.out, "left at step 3"));
    assert_int_equal(ts_shell(&o, false, "'%s' progress --reset matmul --yes", ts_exe()), 0);
    assert_int_equal(ts_shell(&o, false, "'%s' progress", ts_exe()), 0);
    assert_null(strstr(o.out, "left at step"));
    ts_output_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_show), cmocka_unit_test(test_reset)};
    return cmocka_run_group_tests(tests, setup, teardown);
}

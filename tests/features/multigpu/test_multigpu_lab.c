/* The multigpu lab without a GPU: the lab file (its lesson, its seven
 * experiments, quizzes, its exercise and their milestones) loads and
 * `cudalab check` passes; `cudalab run multigpu` runs its coordinator,
 * whose rows say that no CUDA device was found, and the rows that need
 * NCCL also say what to install when NCCL is not found
 * (CUDALAB_MGPU_NO_NCCL narrows what is found); with --exercise the
 * learner's row (its starter copied to the workspace) says why it cannot
 * run.
 * CUDA_VISIBLE_DEVICES is emptied, so this holds on GPU machines too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/labmodel.h"
#include "lab/milestone.h"
#include "support.h"

static void test_lab_file(void **state)
{
    (void)state;
    lab *l = ts_lab_shipped("multigpu");
    assert_non_null(l);
    assert_string_equal(l->problem, "multigpu");
    assert_int_equal(l->nsizes, 0);
    static const char *const xps[] = {"peer",    "ar_naive",  "ar_ring",   "ar_nccl",
                                      "dp_1gpu", "dp_serial", "dp_overlap"};
    assert_int_equal(l->nvariants, 7);
    for (size_t i = 0; i < 7; i++)
        assert_string_equal(l->variants[i].id, xps[i]);
    assert_true(l->nsteps >= 9);
    assert_int_equal(l->nquizzes, 2);
    assert_int_equal(l->nmilestones, 5);
    /* the exercise: a kernel file alone, launched by the ranks */
    const lab_exercise *x = lab_own_exercise(l);
    assert_non_null(x);
    assert_string_equal(x->kernel, "starter.cu");
    assert_null(x->launcher);
    assert_false(x->python);
    assert_string_equal(x->problem, "multigpu");
    assert_true(x->nhints >= 4);
    static const char *const judged[] = {"ring_correct", "ring_half", "ring_near"};
    for (size_t i = 0; i < 3; i++) {
        assert_string_equal(l->milestones[2 + i].id, judged[i]);
        assert_true(lab_milestone_exercise(l, 2 + i) == x);
    }
    assert_string_equal(lab_milestone_size(l, 3), "256 MiB");
    assert_string_equal(lab_milestone_size(l, 4), "256 MiB");
    lab_free(l);
}

static void test_check_and_list(void **state)
{
    (void)state;
    static ts_output o;
    char dir[CL_PATH_MAX];
    ts_home_path(dir, sizeof dir, "labs/multigpu");
    ts_shell(&o, true, "'%s' check '%s'", ts_exe(), dir);
    if (o.status != 0)
        fail_msg("%s", o.out);
    assert_true(ts_contains(o.out, "1 lab ok"));
    ts_shell(&o, true, "'%s' list", ts_exe());
    assert_true(ts_contains(o.out, "multigpu"));
    ts_output_free(&o);
}

/* `cudalab run multigpu --json` with no device, and env before it. */
static cJSON *run_json(ts_output *o, const char *env)
{
    ts_shell(o, false, "CUDA_VISIBLE_DEVICES= %s '%s' run multigpu --json", env, ts_exe());
    cJSON *doc = cJSON_Parse(o->out);
    if (!doc)
        fail_msg("not JSON (exit %d):\n%s\n%s", o->status, o->out, o->err);
    return doc;
}

static const char *field(const cJSON *row, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItem(row, key));
}

static void test_no_device(void **state)
{
    (void)state;
    static ts_output o;
    cJSON *doc = run_json(&o, "CUDALAB_MGPU_NO_NCCL=0");
    assert_int_equal(o.status, 3);
    const cJSON *res = cJSON_GetObjectItem(doc, "results");
    assert_int_equal(cJSON_GetArraySize(res), 7);
    const cJSON *row;
    cJSON_ArrayForEach(row, res) {
        assert_string_equal(field(row, "status"), "no_device");
        assert_true(ts_starts_with(field(row, "message"), "no CUDA device found"));
    }
    cJSON_Delete(doc);
    ts_output_free(&o);
}

static void test_no_nccl(void **state)
{
    (void)state;
    static ts_output o;
    cJSON *doc = run_json(&o, "CUDALAB_MGPU_NO_NCCL=1");
    const cJSON *res = cJSON_GetObjectItem(doc, "results");
    const cJSON *nccl = cJSON_GetArrayItem(res, 3);
    assert_string_equal(field(nccl, "variant"), "ar_nccl");
    const char *msg = field(nccl, "message");
    assert_true(ts_contains(msg, "NCCL not found"));
    assert_true(ts_contains(msg, "pip install nvidia-nccl-cu13"));
    assert_true(ts_contains(msg, "libnccl2"));
    assert_true(ts_contains(msg, "NCCL_ROOT"));
    /* so do the data-parallel rows that all-reduce through it */
    assert_string_equal(field(cJSON_GetArrayItem(res, 5), "variant"), "dp_serial");
    assert_true(ts_contains(field(cJSON_GetArrayItem(res, 5), "message"), "pip install nvidia-nccl-cu13"));
    assert_string_equal(field(cJSON_GetArrayItem(res, 6), "variant"), "dp_overlap");
    assert_true(ts_contains(field(cJSON_GetArrayItem(res, 6), "message"), "pip install nvidia-nccl-cu13"));
    /* the other rows need no NCCL and do not mention it */
    assert_null(strstr(field(cJSON_GetArrayItem(res, 2), "message"), "NCCL"));
    assert_string_equal(field(cJSON_GetArrayItem(res, 4), "variant"), "dp_1gpu");
    assert_null(strstr(field(cJSON_GetArrayItem(res, 4), "message"), "NCCL"));
    cJSON_Delete(doc);

    /* one experiment asked for: one row */
    ts_shell(&o, false, "CUDA_VISIBLE_DEVICES= '%s' run multigpu --variant ar_ring --json", ts_exe());
    doc = cJSON_Parse(o.out);
    assert_non_null(doc);
    res = cJSON_GetObjectItem(doc, "results");
    assert_int_equal(cJSON_GetArraySize(res), 1);
    assert_string_equal(field(cJSON_GetArrayItem(res, 0), "variant"), "ar_ring");
    cJSON_Delete(doc);
    ts_output_free(&o);
}

/* The learner's row without a GPU, its starter copied to the workspace. */
static void test_exercise_no_device(void **state)
{
    (void)state;
    static ts_output o;
    ts_shell(&o, false, "CUDA_VISIBLE_DEVICES= '%s' run multigpu --exercise --variant exercise "
             "--workspace '%s/ws' --json", ts_exe(), ts_tmp);
    cJSON *doc = cJSON_Parse(o.out);
    if (!doc)
        fail_msg("not JSON (exit %d):\n%s\n%s", o.status, o.out, o.err);
    const cJSON *res = cJSON_GetObjectItem(doc, "results");
    /* the NCCL row its milestones compare with, and the learner's row at
     * each of the eleven sizes they judge */
    assert_int_equal(cJSON_GetArraySize(res), 12);
    const cJSON *mine = cJSON_GetArrayItem(res, 10);
    assert_string_equal(field(cJSON_GetArrayItem(res, 0), "variant"), "ar_nccl");
    assert_string_equal(field(mine, "size"), "256 MiB");
    assert_string_equal(field(mine, "variant"), "exercise");
    assert_string_equal(field(mine, "kind"), "exercise");
    assert_string_equal(field(mine, "status"), "no_device");
    assert_true(ts_contains(field(mine, "message"), "two or more GPUs"));
    printf("%s\n", field(mine, "message"));
    cJSON_Delete(doc);
    char copied[CL_PATH_MAX], shipped[CL_PATH_MAX];
    snprintf(copied, sizeof copied, "%s/ws/multigpu/starter.cu", ts_tmp);
    ts_home_path(shipped, sizeof shipped, "labs/multigpu/starter.cu");
    assert_true(ts_same_file(copied, shipped));
    ts_output_free(&o);
}

int main(void)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lab_file),
        cmocka_unit_test(test_check_and_list),
        cmocka_unit_test(test_no_device),
        cmocka_unit_test(test_no_nccl),
        cmocka_unit_test(test_exercise_no_device),
    };
    return cmocka_run_group_tests(tests, ts_tmp_setup, ts_tmp_teardown);
}

/* test_grade_nodevice.c - `cudalab grade` where it cannot grade (no CUDA
 * device: CUDA_VISIBLE_DEVICES is emptied, so the test means the same on a
 * GPU machine): it still writes results.json with a score of 0 and the
 * reason, and the other reports, signed with a key; it exits 3; and it
 * creates or changes nothing in the data folder.  Also: --assignment is
 * required with a key, and a worker that cannot start is reported the
 * same way. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <setjmp.h>
#include <cjson/cJSON.h>
#include <cmocka.h>

#include "core/jsondoc.h"
#include "grade/report.h"
#include "grade_fixture.h"
#include "store/store.h"
#include "support.h"

static char dir[CL_PATH_MAX];
static ts_output o;

static int setup(void **state)
{
    (void)state;
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    unsetenv(SIGN_KEY_ENV);
    return ts_tmpdir(dir, sizeof dir, "nodev") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ts_output_free(&o);
    ts_rm_rf(dir);
    return 0;
}

/* Every path below d with its size, sorted (malloc'd). */
static char *tree(const char *d)
{
    ts_output t = {0};
    assert_int_equal(ts_shell(&t, false, "cd '%s' && find . -printf '%%p %%s\\n' | sort", d), 0);
    char *s = strdup(t.out);
    ts_output_free(&t);
    return s;
}

static int grade(const char *extra, const char *ws, const char *data, const char *out)
{
    return ts_shell(&o, false, "'%s' grade --workspace '%s' --data '%s' --out '%s' %s", ts_exe(),
                    ws, data, out, extra);
}

static void test_results_without_device(void **state)
{
    (void)state;
    char ws[CL_PATH_MAX + 8], data[CL_PATH_MAX + 8], out[CL_PATH_MAX + 8];
    snprintf(ws, sizeof ws, "%s/ws", dir);
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    assert_int_equal(mkdir(ws, 0755), 0);
    assert_int_equal(mkdir(data, 0755), 0);
    assert_int_equal(grade("--learner ada", ws, data, out), 3);
    assert_true(ts_contains(o.err, "cannot grade: no CUDA device found"));
    assert_true(ts_contains(o.out, "ada: not graded, score 0"));
    /* The data folder gained nothing: no progress.db. */
    char *t = tree(data);
    assert_string_equal(t, ". 4096\n");
    free(t);
    cJSON *gs = gf_read_json(out, "results.json");
    assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(gs, "score")) == 0.0);
    assert_true(ts_contains(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(gs, "output")),
                            "could not grade this submission of ada: cannot grade: no CUDA "
                            "device found"));
    cJSON_Delete(gs);
    cJSON *rep = gf_read_json(out, "report.json");
    assert_true(ts_contains(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rep, "error")),
                            "no CUDA device found"));
    cJSON_Delete(rep);
    char *csv = gf_read(out, "grades.csv");
    assert_true(ts_contains(csv, "\r\nada,,,,0,0,false,cannot grade: no CUDA device found"));
    free(csv);
    char *xml = gf_read(out, "junit.xml");
    assert_true(ts_contains(xml, "<error type=\"not_graded\""));
    free(xml);
    /* A data folder that does not exist is not made. */
    char none[CL_PATH_MAX + 16];
    snprintf(none, sizeof none, "%s/no-such-data", dir);
    assert_int_equal(grade("--format=gradescope", ws, none, out), 3);
    assert_false(paths_is_dir(none));
    /* results.json is written even when --format did not ask for it */
    char only[CL_PATH_MAX + 16];
    snprintf(only, sizeof only, "%s/only-junit", dir);
    assert_int_equal(grade("--format=junit", ws, data, only), 3);
    assert_true(ts_contains(o.out, "reports in"));
    assert_true(ts_contains(o.out, "junit.xml results.json"));
    cJSON *again = gf_read_json(only, "results.json");
    cJSON_Delete(again);
}

/* A progress store with answers in it is only read: its folder and bytes
 * are the same afterwards. */
static void test_store_untouched(void **state)
{
    (void)state;
    char ws[CL_PATH_MAX + 8], data[CL_PATH_MAX + 8], out[CL_PATH_MAX + 8];
    snprintf(ws, sizeof ws, "%s/ws2", dir);
    snprintf(data, sizeof data, "%s/data2", dir);
    snprintf(out, sizeof out, "%s/out2", dir);
    assert_int_equal(mkdir(ws, 0755), 0);
    store *s = NULL;
    char notice[256];
    cl_err e = {{0}};
    assert_true(store_open(data, &s, notice, sizeof notice, &e));
    assert_true(store_quiz_answer(s, "reduction", "warps", 2, true, &e));
    store_close(s);
    char *before = tree(data);
    ts_output c = {0};
    assert_int_equal(ts_shell(&c, false, "cp '%s/%s' '%s/copy.db'", data, STORE_FILE, dir), 0);
    ts_output_free(&c);
    assert_int_equal(grade("", ws, data, out), 3);
    char *after = tree(data);
    assert_string_equal(after, before);
    char a[CL_PATH_MAX + 32], b[CL_PATH_MAX + 32];
    snprintf(a, sizeof a, "%s/%s", data, STORE_FILE);
    snprintf(b, sizeof b, "%s/copy.db", dir);
    assert_true(ts_same_file(a, b));
    free(before);
    free(after);
}

static void test_signed_failure(void **state)
{
    (void)state;
    char ws[CL_PATH_MAX + 8], data[CL_PATH_MAX + 8], out[CL_PATH_MAX + 8];
    snprintf(ws, sizeof ws, "%s/ws3", dir);
    snprintf(data, sizeof data, "%s/data3", dir);
    snprintf(out, sizeof out, "%s/out3", dir);
    assert_int_equal(mkdir(ws, 0755), 0);
    setenv(SIGN_KEY_ENV, gf_key, 1);
    assert_int_equal(grade("--assignment=hw1 --learner ada", ws, data, out), 3);
    assert_true(ts_contains(o.out, "reports (signed) in"));
    static const char *const files[] = {"report.json", "results.json", "junit.xml", "grades.csv"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(gf_verdict(out, files[i], gf_key), SIGN_VALID);
    cJSON *gs = gf_read_json(out, "results.json");
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(gs, "extra_data"), "cudalab");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "assignment")),
                        "hw1");
    assert_true(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "hostname"))[0] != '\0');
    cJSON_Delete(gs);
    unsetenv(SIGN_KEY_ENV);
}

static void test_assignment_required(void **state)
{
    (void)state;
    char key[CL_PATH_MAX + 16];
    snprintf(key, sizeof key, "%s/grade.key", dir);
    assert_true(ts_write(key, "sekrit\n"));
    assert_int_equal(ts_shell(&o, false, "'%s' grade --key '%s'", ts_exe(), key), 2);
    assert_true(ts_contains(o.err, "--assignment ID is required when the reports are signed"));
    setenv(SIGN_KEY_ENV, "sekrit", 1);
    assert_int_equal(ts_shell(&o, false, "'%s' grade", ts_exe()), 2);
    assert_true(ts_contains(o.err, "--assignment ID is required"));
    unsetenv(SIGN_KEY_ENV);
    assert_int_equal(ts_shell(&o, false, "'%s' grade --assignment 'hw 1'", ts_exe()), 2);
    assert_true(ts_contains(o.err, "grade: --assignment: the assignment id may hold letters"));
    assert_int_equal(ts_shell(&o, false, "'%s' grade --assignment=%065d", ts_exe(), 0), 2);
    assert_true(ts_contains(o.err, "at most 64"));
    assert_int_equal(ts_shell(&o, false, "'%s' grade --assignment=", ts_exe()), 2);
    assert_true(ts_contains(o.err, "empty"));
    /* the key is written nowhere, said nowhere */
    assert_null(strstr(o.out, "sekrit"));
    assert_null(strstr(o.err, "sekrit"));
}

/* The library's side: a worker that cannot start fails the grading, and
 * the report still carries its binding, to be written as not graded. */
static void test_worker_cannot_start(void **state)
{
    (void)state;
    lab_set set = {0};
    const char *argv[] = {"/nonexistent/cudalab-worker", NULL};
    grade_opts go = {.workspace = dir, .learner = "ada", .assignment = "hw1",
                     .worker_argv = argv};
    grade_report r;
    cl_err e = {{0}};
    /* one lab with an exercise, so that grading gets as far as the worker */
    char home[CL_PATH_MAX], labs[CL_PATH_MAX];
    lab_diags d = {0};
    ts_home_path(home, sizeof home, "%s", "");
    ts_home_path(labs, sizeof labs, "labs");
    const char *dirs[] = {labs};
    assert_true(lab_set_load(&set, dirs, 1, home, &d, &e));
    lab_diags_free(&d);
    grade_status st = grade_run(&set, &go, NULL, &r, &e);
    assert_int_equal(st, GRADE_FAILED);
    assert_true(ts_contains(e.msg, "worker"));
    assert_string_equal(r.learner, "ada");
    assert_string_equal(r.assignment, "hw1");
    assert_true(r.hostname[0] != '\0' && r.created[0] != '\0');
    grade_report_not_graded(&r, e.msg);
    cJSON *built = report_gradescope(&r);
    char *text = jsondoc_file_text(built);
    cJSON_Delete(built);
    cJSON *gs = cJSON_Parse(text);
    free(text);
    assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(gs, "score")) == 0.0);
    assert_true(ts_contains(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(gs, "output")),
                            "worker"));
    cJSON_Delete(gs);
    grade_report_free(&r);
    lab_set_free(&set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_results_without_device),
        cmocka_unit_test(test_store_untouched),
        cmocka_unit_test(test_signed_failure),
        cmocka_unit_test(test_assignment_required),
        cmocka_unit_test(test_worker_cannot_start),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* test_grade_bind.c - a report is bound to one submission: the learner,
 * the assignment, the graded sources' SHA-256, the time and the machine
 * are in all four formats, and the signature covers each of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cjson/cJSON.h>
#include <cmocka.h>

#include "grade/report.h"
#include "grade_fixture.h"
#include "support.h"

#define SHA "00000000000000000000000000000000000000000000000000000000000000a1"

static char dir[CL_PATH_MAX];

static int setup(void **state)
{
    (void)state;
    return ts_tmpdir(dir, sizeof dir, "bind") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ts_rm_rf(dir);
    return 0;
}

static const char *str_at(const cJSON *o, const char *a, const char *b)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b)
        it = cJSON_GetObjectItemCaseSensitive(it, b);
    const char *s = cJSON_GetStringValue(it);
    return s ? s : "(missing)";
}

/* The value of JUnit property name in the first testsuite. */
static char *junit_property(const char *out, const char *name)
{
    ts_output o = {0};
    assert_int_equal(ts_shell(&o, false, "xmllint --xpath 'string(//testsuite[1]/properties/"
                                         "property[@name=\"%s\"]/@value)' '%s/junit.xml'",
                              name, out),
                     0);
    char *v = strdup(o.out);
    ts_output_free(&o);
    return v;
}

static void test_binding_in_every_format(void **state)
{
    (void)state;
    char out[CL_PATH_MAX + 16];
    snprintf(out, sizeof out, "%s/all", dir);
    grade_report r;
    gf_report(&r, "ada", 1.25, SHA);
    gf_write_all(&r, out, true);
    grade_report_free(&r);

    cJSON *j = gf_read_json(out, "report.json");
    assert_string_equal(str_at(j, "learner", NULL), "ada");
    assert_string_equal(str_at(j, "assignment", NULL), GF_ASSIGNMENT);
    assert_string_equal(str_at(j, "hostname", NULL), GF_HOST);
    assert_string_equal(str_at(j, "created", NULL), "2026-11-24T10:00:00Z");
    const cJSON *lab0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "labs"), 0);
    assert_string_equal(str_at(cJSON_GetObjectItemCaseSensitive(lab0, "sources"), "kernel",
                               "sha256"),
                        SHA);
    cJSON_Delete(j);

    cJSON *g = gf_read_json(out, "results.json");
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(g, "extra_data"), "cudalab");
    assert_string_equal(str_at(b, "learner", NULL), "ada");
    assert_string_equal(str_at(b, "assignment", NULL), GF_ASSIGNMENT);
    assert_string_equal(str_at(b, "hostname", NULL), GF_HOST);
    assert_string_equal(str_at(b, "created", NULL), "2026-11-24T10:00:00Z");
    const cJSON *src = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(b, "sources"), 0);
    assert_string_equal(str_at(src, "kernel_sha256", NULL), SHA);
    assert_string_equal(str_at(g, "output_format", NULL), "text");
    cJSON_Delete(g);

    static const char *const props[][2] = {
        {"learner", "ada"}, {"assignment", GF_ASSIGNMENT}, {"hostname", GF_HOST},
        {"created", "2026-11-24T10:00:00Z"}, {"kernel_sha256", SHA},
    };
    for (size_t i = 0; i < sizeof props / sizeof props[0]; i++) {
        char *v = junit_property(out, props[i][0]);
        assert_true(ts_contains(v, props[i][1]));
        free(v);
    }

    char *csv = gf_read(out, "grades.csv");
    assert_true(ts_contains(csv, ",created,assignment,hostname,kernel_sha256,self_reported,"
                                 "counted\r\n"));
    assert_true(ts_contains(csv, ",2026-11-24T10:00:00Z," GF_ASSIGNMENT "," GF_HOST "," SHA
                                 ",false,true\r\n"));
    free(csv);
}

/* Each binding field changed in each format: the signature no longer holds. */
static void test_binding_is_signed(void **state)
{
    (void)state;
    static const struct {
        const char *file, *from, *to;
    } edits[] = {
        {"report.json", "\"assignment\":\t\"hw1\"", "\"assignment\":\t\"hw2\""},
        {"report.json", "\"hostname\":\t\"" GF_HOST "\"", "\"hostname\":\t\"other\""},
        {"report.json", "\"sha256\":\t\"" SHA "\"", "\"sha256\":\t\"" SHA "0\""},
        {"results.json", "\"assignment\":\t\"hw1\"", "\"assignment\":\t\"hw2\""},
        {"results.json", "\"hostname\":\t\"" GF_HOST "\"", "\"hostname\":\t\"other\""},
        {"results.json", "\"learner\":\t\"ada\"", "\"learner\":\t\"bob\""},
        {"junit.xml", "value=\"hw1\"", "value=\"hw2\""},
        {"junit.xml", "value=\"" GF_HOST "\"", "value=\"other\""},
        {"junit.xml", "value=\"" SHA "\"", "value=\"" SHA "0\""},
        {"grades.csv", ",hw1,", ",hw2,"},
        {"grades.csv", "," GF_HOST ",", ",other,"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        char out[CL_PATH_MAX + 16];
        snprintf(out, sizeof out, "%s/edit%zu", dir, i);
        grade_report r;
        gf_report(&r, "ada", 1.25, SHA);
        gf_write_all(&r, out, true);
        grade_report_free(&r);
        assert_int_equal(gf_verdict(out, edits[i].file, gf_key), SIGN_VALID);
        gf_tamper(out, edits[i].file, edits[i].from, edits[i].to);
        assert_int_equal(gf_verdict(out, edits[i].file, gf_key), SIGN_TAMPERED);
    }
}

static void test_assignment_ids(void **state)
{
    (void)state;
    cl_err e = {{0}};
    assert_true(grade_assignment_check("hw1", &e));
    assert_true(grade_assignment_check("CS-4420_fall.2026", &e));
    char longest[GRADE_ASSIGNMENT_MAX + 2];
    memset(longest, 'a', sizeof longest);
    longest[GRADE_ASSIGNMENT_MAX] = '\0';
    assert_true(grade_assignment_check(longest, &e));
    longest[GRADE_ASSIGNMENT_MAX] = 'a';
    longest[GRADE_ASSIGNMENT_MAX + 1] = '\0';
    assert_false(grade_assignment_check(longest, &e));
    assert_true(ts_contains(e.msg, "at most 64"));
    assert_false(grade_assignment_check("", &e));
    assert_true(ts_contains(e.msg, "empty"));
    assert_false(grade_assignment_check("hw 1", &e));
    assert_true(ts_contains(e.msg, "not ' ' (at character 3)"));
    assert_false(grade_assignment_check("hw1/../x", &e));
    assert_true(ts_contains(e.msg, "not '/'"));
    assert_false(grade_assignment_check("hw\x1b", &e));
    assert_true(ts_contains(e.msg, "byte 0x1B"));
}

/* A report of another assignment id form, or of the first format, is
 * refused when read back. */
static void test_read_back_refuses(void **state)
{
    (void)state;
    grade_report r, back;
    gf_report(&r, "ada", 1.25, SHA);
    cJSON *built = report_json(&r);
    char *text = cJSON_Print(built);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    cJSON_Delete(built);
    grade_report_free(&r);
    cl_err e = {{0}};
    assert_true(report_read_json(doc, &back, &e));
    assert_string_equal(back.assignment, GF_ASSIGNMENT);
    assert_string_equal(back.hostname, GF_HOST);
    assert_string_equal(back.labs[0].kernel_sha, SHA);
    grade_report_free(&back);
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "assignment", cJSON_CreateString("hw 1"));
    assert_false(report_read_json(doc, &back, &e));
    assert_true(ts_contains(e.msg, "field 'assignment'"));
    grade_report_free(&back);
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "format_version", cJSON_CreateNumber(1));
    assert_false(report_read_json(doc, &back, &e));
    assert_true(ts_contains(e.msg, "older format"));
    grade_report_free(&back);
    cJSON_Delete(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binding_in_every_format),
        cmocka_unit_test(test_binding_is_signed),
        cmocka_unit_test(test_assignment_ids),
        cmocka_unit_test(test_read_back_refuses),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* test_grade.c - grade reports without a GPU: each format written from a
 * recorded report and read by a real parser, Gradescope's fields exactly,
 * signing and tamper detection in every format, the class view over a
 * folder of good and bad files, and `cudalab grade` without a device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <setjmp.h>
#include <cjson/cJSON.h>
#include <cmocka.h>

#include "core/atomicfile.h"
#include "core/clock.h"
#include "grade/classview.h"
#include "grade/report.h"
#include "grade/sign.h"
#include "grade_fixture.h"
#include "support.h"

static char dir[CL_PATH_MAX];
static const char *const key = gf_key;

static int setup(void **state)
{
    (void)state;
    return ts_tmpdir(dir, sizeof dir, "grade") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ts_rm_rf(dir);
    return 0;
}

/* A kernel hash of its own for learner number i. */
static const char *sha_of(int i, char out[65])
{
    snprintf(out, 65, "%064d", 100 + i);
    return out;
}

static void make_report(grade_report *r, const char *learner, double best_ms)
{
    char sha[65];
    gf_report(r, learner, best_ms, sha_of((int)(best_ms * 1000), sha));
}

static void write_all(const grade_report *r, const char *out, bool signed_)
{
    gf_write_all(r, out, signed_);
}

static void test_json_roundtrip(void **state)
{
    (void)state;
    grade_report r, back;
    make_report(&r, "ada", 1.25);
    cJSON *built = report_json(&r);
    char *text = cJSON_Print(built);
    cJSON_Delete(built);
    cJSON *o = cJSON_Parse(text);
    free(text);
    cl_err e = {{0}};
    if (!report_read_json(o, &back, &e))
        fail_msg("report_read_json: %s", e.msg);
    assert_string_equal(back.learner, "ada");
    assert_true(back.score == 4 && back.max_score == 6 && back.seed == r.seed);
    assert_int_equal(back.nlabs, 2);
    assert_string_equal(back.labs[1].ms[0].id, "within2x");
    assert_false(back.labs[1].ms[0].passed);
    assert_true(back.labs[0].best_ms == 1.25);
    assert_string_equal(back.dev.name, "NVIDIA H100 80GB HBM3");
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "labs"), 0),
                                         "sources"),
        "kernel");
    assert_true(ts_contains(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(src, "text")),
                            "__global__"));
    cJSON_Delete(o);
    grade_report_free(&back);
    /* Not a grade report: refused, saying so. */
    cJSON *foreign = cJSON_Parse("{\"format\": \"something else\"}");
    assert_false(report_read_json(foreign, &back, &e));
    assert_true(ts_contains(e.msg, "not a cudalab grade report"));
    cJSON_Delete(foreign);
    grade_report_free(&back);
    grade_report_free(&r);
}

static void test_gradescope_fields(void **state)
{
    (void)state;
    char out[CL_PATH_MAX + 16], keys[512];
    snprintf(out, sizeof out, "%s/gs", dir);
    grade_report r;
    make_report(&r, "ada", 1.25);
    write_all(&r, out, false);
    cJSON *o = gf_read_json(out, "results.json");
    gf_keys_of(o, keys, sizeof keys);
    assert_string_equal(keys, "execution_time extra_data leaderboard output output_format score "
                              "test_name_format test_output_format tests visibility");
    assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "score")) == 4.0);
    assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "execution_time")) == 22);
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(o, "tests");
    assert_int_equal(cJSON_GetArraySize(tests), 3);
    double sum = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, tests) {
        gf_keys_of(t, keys, sizeof keys);
        assert_string_equal(keys, "max_score name name_format output output_format score status "
                                  "visibility");
        const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "status"));
        assert_true(strcmp(st, "passed") == 0 || strcmp(st, "failed") == 0);
        sum += cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "score"));
    }
    assert_true(sum == 4.0);
    const cJSON *board = cJSON_GetObjectItemCaseSensitive(o, "leaderboard");
    assert_int_equal(cJSON_GetArraySize(board), 1);
    gf_keys_of(cJSON_GetArrayItem(board, 0), keys, sizeof keys);
    assert_string_equal(keys, "name order value");
    cJSON_Delete(o);
    grade_report_free(&r);
}

static void test_junit_and_csv(void **state)
{
    (void)state;
    char out[CL_PATH_MAX + 16];
    snprintf(out, sizeof out, "%s/text", dir);
    grade_report r;
    make_report(&r, "ada & bob", 1.25);
    write_all(&r, out, true);
    ts_output o = {0};
    /* A real XML parser reads it: well formed, 2 suites, 3 cases, 1 failure. */
    assert_int_equal(ts_shell(&o, false, "xmllint --noout '%s/junit.xml'", out), 0);
    assert_int_equal(ts_shell(&o, false, "xmllint --xpath 'count(//testsuite)' '%s/junit.xml'",
                              out), 0);
    assert_true(ts_contains(o.out, "2"));
    assert_int_equal(ts_shell(&o, false, "xmllint --xpath 'count(//testcase)' '%s/junit.xml'",
                              out), 0);
    assert_true(ts_contains(o.out, "3"));
    assert_int_equal(ts_shell(&o, false, "xmllint --xpath 'count(//failure)' '%s/junit.xml'",
                              out), 0);
    assert_true(ts_contains(o.out, "1"));
    assert_int_equal(ts_shell(&o, false, "xmllint --xpath 'string(//failure)' '%s/junit.xml'",
                              out), 0);
    assert_true(ts_contains(o.out, "3 < 4 & \"wrong\""));
    ts_output_free(&o);

    char path[CL_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/grades.csv", out);
    char *csv = ts_read(path);
    assert_non_null(csv);
    assert_true(ts_starts_with(csv, "learner,lab,milestone,kind,points,earned,passed,value,size"));
    assert_true(ts_contains(csv, "\"ada & bob\"") || ts_contains(csv, "ada & bob,"));
    assert_true(ts_contains(csv, "matmul,within2x,measured,2,0,false,0.31x >= 0.5x,2^28,wrong"));
    int lines = 0;
    for (const char *p = csv; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 4);
    free(csv);
    grade_report_free(&r);
}

static void tamper(const char *path, const char *from, const char *to)
{
    char d[CL_PATH_MAX];
    assert_true(paths_dir_name(path, d, sizeof d));
    gf_tamper(d, paths_base_name(path), from, to);
}

static sign_verdict verdict(const char *out, const char *file, const char *k)
{
    return gf_verdict(out, file, k);
}

static void test_sign_and_tamper(void **state)
{
    (void)state;
    char out[CL_PATH_MAX + 16];
    snprintf(out, sizeof out, "%s/signed", dir);
    grade_report r;
    make_report(&r, "ada", 1.25);
    write_all(&r, out, true);
    static const char *const files[] = {"report.json", "results.json", "junit.xml", "grades.csv"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(verdict(out, files[i], key), SIGN_VALID);
        assert_int_equal(verdict(out, files[i], "another key"), SIGN_TAMPERED);
    }
    /* The key is written nowhere. */
    for (int i = 0; i < 4; i++) {
        char path[CL_PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/%s", out, files[i]);
        char *text = ts_read(path);
        assert_null(strstr(text, key));
        free(text);
    }
    /* One digit changed in each: tampered. */
    char path[CL_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/report.json", out);
    tamper(path, "\"max_score\":\t6", "\"max_score\":\t4");
    assert_int_equal(verdict(out, "report.json", key), SIGN_TAMPERED);
    snprintf(path, sizeof path, "%s/results.json", out);
    tamper(path, "\"score\":\t4", "\"score\":\t6");
    assert_int_equal(verdict(out, "results.json", key), SIGN_TAMPERED);
    snprintf(path, sizeof path, "%s/junit.xml", out);
    tamper(path, "failures=\"1\"", "failures=\"0\"");
    assert_int_equal(verdict(out, "junit.xml", key), SIGN_TAMPERED);
    snprintf(path, sizeof path, "%s/grades.csv", out);
    tamper(path, ",0,false,", ",2,true,");
    assert_int_equal(verdict(out, "grades.csv", key), SIGN_TAMPERED);
    /* Unsigned reports say so. */
    char plain[CL_PATH_MAX + 16];
    snprintf(plain, sizeof plain, "%s/plain", dir);
    write_all(&r, plain, false);
    for (int i = 0; i < 4; i++)
        assert_int_equal(verdict(plain, files[i], key), SIGN_UNSIGNED);
    grade_report_free(&r);

    /* The command: exit 0 when all are valid, 1 otherwise, per file. */
    ts_output o = {0};
    setenv(SIGN_KEY_ENV, key, 1);
    assert_int_equal(ts_shell(&o, false, "'%s' verify '%s/results.json' '%s/junit.xml'", ts_exe(),
                              plain, plain),
                     1);
    assert_true(ts_contains(o.out, "unsigned"));
    assert_int_equal(ts_shell(&o, false, "'%s' verify '%s/report.json'", ts_exe(), out), 1);
    assert_true(ts_contains(o.out, "report.json: tampered"));
    char good[CL_PATH_MAX + 16];
    snprintf(good, sizeof good, "%s/good", dir);
    make_report(&r, "ada", 1.25);
    write_all(&r, good, true);
    grade_report_free(&r);
    assert_int_equal(ts_shell(&o, false, "'%s' verify %s/report.json %s/junit.xml %s/grades.csv",
                              ts_exe(), good, good, good),
                     0);
    assert_true(ts_contains(o.out, "junit.xml: valid"));
    unsetenv(SIGN_KEY_ENV);
    assert_int_equal(ts_shell(&o, false, "'%s' verify '%s/report.json'", ts_exe(), good), 2);
    assert_true(ts_contains(o.err, "needs the instructor's key"));
    ts_output_free(&o);
}

static void test_class(void **state)
{
    (void)state;
    char cls[CL_PATH_MAX + 16], sub[CL_PATH_MAX + 48], path[CL_PATH_MAX + 64];
    snprintf(cls, sizeof cls, "%s/class", dir);
    grade_report r;
    const char *names[] = {"ada", "bob", "cy"};
    for (int i = 0; i < 3; i++) {
        snprintf(sub, sizeof sub, "%s/team/%s", cls, names[i]);
        make_report(&r, names[i], 1.0 + i);
        write_all(&r, sub, true);
        grade_report_free(&r);
    }
    snprintf(path, sizeof path, "%s/team/cy/report.json", cls);
    tamper(path, "\"learner\":\t\"cy\"", "\"learner\":\t\"cz\"");
    snprintf(path, sizeof path, "%s/broken.json", cls);
    assert_true(ts_write(path, "{ this is not json"));
    snprintf(path, sizeof path, "%s/other.json", cls);
    assert_true(ts_write(path, "{\"hello\": \"world\"}"));

    class_view v;
    cl_err e = {{0}};
    class_opts co = {.key = key, .keylen = strlen(key)};
    assert_true(class_load(cls, &co, &v, &e));
    assert_int_equal(v.nrows, 2);          /* ada and bob; cy was tampered with */
    assert_int_equal(v.ncols, 3);
    int problems = 0;
    bool saw_tampered = false, saw_malformed = false, saw_foreign = false;
    for (size_t i = 0; i < v.nfiles; i++) {
        if (v.files[i].usable)
            continue;
        problems++;
        saw_tampered |= ts_contains(v.files[i].problem, "tampered") &&
                        strstr(v.files[i].path, "/cy/report.json");
        saw_malformed |= strstr(v.files[i].problem, "malformed") != NULL;
        saw_foreign |= strstr(v.files[i].problem, "foreign") != NULL;
    }
    /* cy's report, broken, other; cudalab's results.json are passed over */
    assert_int_equal(problems, 3);
    assert_true(v.skipped >= 3);
    assert_true(saw_tampered && saw_malformed && saw_foreign);
    class_order(&v, CLASS_BY_TIME);
    assert_string_equal(v.files[v.rows[0]].rep.learner, "ada");
    char *md = class_markdown(&v), *csv = class_csv(&v), *html = class_html(&v);
    assert_true(ts_contains(md, "| ada |") && ts_contains(md, "reduction:cpu100x"));
    assert_true(ts_contains(csv, "bob,4,6,"));
    assert_true(ts_contains(html, "<td class=\"n\">no</td>") && ts_contains(html, "left out"));
    free(md);
    free(csv);
    free(html);
    class_free(&v);

    ts_output o = {0};
    assert_int_equal(ts_shell(&o, false, "'%s' class '%s' --format=md", ts_exe(), cls), 0);
    assert_true(ts_contains(o.out, "| bob |"));
    assert_true(ts_contains(o.err, "left out"));
    assert_int_equal(ts_shell(&o, false, "'%s' class '%s' --format csv --out '%s/c.csv'", ts_exe(),
                              cls, dir),
                     0);
    /* --json: one document, its layout version first, a row for bob with
     * a cell per milestone; a file left out listed with why */
    assert_int_equal(ts_shell(&o, false, "'%s' class '%s' --json", ts_exe(), cls), 0);
    cJSON *doc = cJSON_Parse(o.out);
    assert_non_null(doc);
    assert_string_equal(doc->child->string, "format_version");
    cJSON *learners = cJSON_GetObjectItemCaseSensitive(doc, "learners");
    cJSON *ms = cJSON_GetObjectItemCaseSensitive(doc, "milestones");
    bool bob = false;
    cJSON *l;
    cJSON_ArrayForEach(l, learners) {
        if (strcmp(cJSON_GetObjectItemCaseSensitive(l, "learner")->valuestring, "bob") == 0)
            bob = true;
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(l, "passed")),
                         cJSON_GetArraySize(ms));
    }
    assert_true(bob);
    assert_true(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "left_out")) > 0);
    cJSON_Delete(doc);
    assert_int_equal(ts_shell(&o, false, "'%s' class '%s'", ts_exe(), cls), 2);
    assert_true(ts_contains(o.err, "give --format"));
    ts_output_free(&o);
}

static void test_class_of_a_hundred(void **state)
{
    (void)state;
    char cls[CL_PATH_MAX + 16], sub[CL_PATH_MAX + 48];
    snprintf(cls, sizeof cls, "%s/hundred", dir);
    grade_report r;
    for (int i = 0; i < 100; i++) {
        char name[32];
        snprintf(name, sizeof name, "learner%03d", i);
        snprintf(sub, sizeof sub, "%s/%s", cls, name);
        make_report(&r, name, 1.0 + i * 0.01);
        report_kind k = REPORT_JSON;
        cl_err e = {{0}};
        assert_true(report_write(&r, sub, &k, 1, key, strlen(key), &e));
        grade_report_free(&r);
    }
    class_view v;
    cl_err e = {{0}};
    class_opts co = {.key = key, .keylen = strlen(key)};
    double t0 = clock_now_s();
    assert_true(class_load(cls, &co, &v, &e));
    double s = clock_now_s() - t0;
    assert_int_equal(v.nrows, 100);
    printf("100 signed reports checked and aggregated in %.3f s\n", s);
    class_free(&v);
}

static void test_grade_without_device(void **state)
{
    (void)state;
    ts_output o = {0};
    assert_int_equal(ts_shell(&o, false, "'%s' grade --out '%s/nodev'", ts_exe(), dir), 3);
    assert_true(ts_contains(o.err, "cannot grade: no CUDA device found"));
    assert_int_equal(ts_shell(&o, false, "'%s' grade --lab nosuch", ts_exe()), 2);
    assert_int_equal(ts_shell(&o, false, "'%s' grade --format=json,pdf", ts_exe()), 2);
    assert_true(ts_contains(o.err, "unknown format 'pdf'"));
    ts_output_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_roundtrip),  cmocka_unit_test(test_gradescope_fields),
        cmocka_unit_test(test_junit_and_csv),   cmocka_unit_test(test_sign_and_tamper),
        cmocka_unit_test(test_class),           cmocka_unit_test(test_class_of_a_hundred),
        cmocka_unit_test(test_grade_without_device),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

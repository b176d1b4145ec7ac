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
#include "support.h"

static char dir[CL_PATH_MAX];
static const char key[] = "correct horse battery staple";

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

static void milestone(grade_milestone *g, const char *id, const char *text, bool quiz, double pts,
                      bool passed, const char *value, const char *why)
{
    memset(g, 0, sizeof *g);
    snprintf(g->id, sizeof g->id, "%s", id);
    snprintf(g->text, sizeof g->text, "%s", text);
    g->quiz = quiz;
    g->points = pts;
    g->passed = passed;
    g->earned = passed ? pts : 0;
    snprintf(g->value, sizeof g->value, "%s", value);
    snprintf(g->why, sizeof g->why, "%s", why);
    if (!passed)
        snprintf(g->cause, sizeof g->cause, "wrong");
    if (!quiz)
        snprintf(g->size, sizeof g->size, "2^28");
}

/* A report as grade_run would write it: two labs, a pass, a failure whose
 * explanation holds characters XML and CSV must escape, a quiz. */
static void make_report(grade_report *r, const char *learner, double best_ms)
{
    memset(r, 0, sizeof *r);
    snprintf(r->learner, sizeof r->learner, "%s", learner);
    snprintf(r->workspace, sizeof r->workspace, "/home/%s/cudalab-workspace", learner);
    snprintf(r->version, sizeof r->version, "0.1.0");
    snprintf(r->created, sizeof r->created, "2026-11-24T10:00:00Z");
    r->dev.present = true;
    snprintf(r->dev.name, sizeof r->dev.name, "NVIDIA H100 80GB HBM3");
    r->seed = 12345678901234567ull;
    r->seconds = 21.5;
    r->nlabs = 2;
    r->labs = calloc(2, sizeof *r->labs);
    assert_non_null(r->labs);
    grade_lab *a = &r->labs[0], *b = &r->labs[1];
    snprintf(a->id, sizeof a->id, "reduction");
    snprintf(a->title, sizeof a->title, "Parallel reduction");
    a->measured = true;
    a->kernel_text = strdup("extern \"C\" __global__ void k() {}\n");
    snprintf(a->kernel_sha, sizeof a->kernel_sha, "%064d", 7);
    a->nms = 2;
    a->ms = calloc(2, sizeof *a->ms);
    milestone(&a->ms[0], "cpu100x", "Over 100x faster than the CPU", false, 3, true,
              "223x >= 100x", "");
    milestone(&a->ms[1], "warps", "Can explain warps", true, 1, true, "answered right", "");
    a->score = 4;
    a->max_score = 4;
    a->best_ms = best_ms;
    snprintf(a->best_size, sizeof a->best_size, "2^28");
    a->nrows = 1;
    a->rows = calloc(1, sizeof *a->rows);
    run_result_init(&a->rows[0]);
    snprintf(a->rows[0].variant, sizeof a->rows[0].variant, "exercise");
    a->rows[0].kind = RK_EXERCISE;
    a->rows[0].status = RS_CORRECT;
    a->rows[0].median_ms = best_ms;
    a->rows[0].samples = 9;
    snprintf(b->id, sizeof b->id, "matmul");
    snprintf(b->title, sizeof b->title, "Matrix multiplication");
    b->nms = 1;
    b->ms = calloc(1, sizeof *b->ms);
    milestone(&b->ms[0], "within2x", "Within 2x of cuBLAS", false, 2, false, "0.31x >= 0.5x",
              "Your output differs from the reference: C[17] is 3 < 4 & \"wrong\", at 1,2\x01 "
              "\xff\xfe (bad bytes)");
    b->score = 0;
    b->max_score = 2;
    r->score = 4;
    r->max_score = 6;
}

static void write_all(const grade_report *r, const char *out, bool signed_)
{
    report_kind kinds[] = {REPORT_JSON, REPORT_GRADESCOPE, REPORT_JUNIT, REPORT_CSV};
    cl_err e = {{0}};
    if (!report_write(r, out, kinds, 4, signed_ ? key : NULL, signed_ ? strlen(key) : 0, &e))
        fail_msg("report_write: %s", e.msg);
}

static cJSON *read_json(const char *path)
{
    char *text = ts_read(path);
    assert_non_null(text);
    cJSON *o = cJSON_Parse(text);
    free(text);
    assert_non_null(o);
    return o;
}

/* The keys of object o, sorted, space-separated, into out. */
static void keys_of(const cJSON *o, char *out, size_t n)
{
    const char *names[64];
    size_t k = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, o) names[k++] = it->string;
    for (size_t i = 0; i < k; i++)
        for (size_t j = i + 1; j < k; j++)
            if (strcmp(names[j], names[i]) < 0) {
                const char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    size_t at = 0;
    out[0] = '\0';
    for (size_t i = 0; i < k && at < n; i++)
        at += (size_t)snprintf(out + at, n - at, "%s%s", i ? " " : "", names[i]);
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
    char out[CL_PATH_MAX + 16], path[CL_PATH_MAX + 32], keys[512];
    snprintf(out, sizeof out, "%s/gs", dir);
    grade_report r;
    make_report(&r, "ada", 1.25);
    write_all(&r, out, false);
    snprintf(path, sizeof path, "%s/results.json", out);
    cJSON *o = read_json(path);
    keys_of(o, keys, sizeof keys);
    assert_string_equal(keys, "execution_time leaderboard output score tests visibility");
    assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "score")) == 4.0);
    assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "execution_time")) == 22);
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(o, "tests");
    assert_int_equal(cJSON_GetArraySize(tests), 3);
    double sum = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, tests) {
        keys_of(t, keys, sizeof keys);
        assert_string_equal(keys, "max_score name output score status visibility");
        const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "status"));
        assert_true(strcmp(st, "passed") == 0 || strcmp(st, "failed") == 0);
        sum += cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "score"));
    }
    assert_true(sum == 4.0);
    const cJSON *board = cJSON_GetObjectItemCaseSensitive(o, "leaderboard");
    assert_int_equal(cJSON_GetArraySize(board), 1);
    keys_of(cJSON_GetArrayItem(board, 0), keys, sizeof keys);
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

/* Replaces the first occurrence of from in the file with to. */
static void tamper(const char *path, const char *from, const char *to)
{
    char *text = ts_read(path);
    assert_non_null(text);
    char *p = strstr(text, from);
    if (!p)
        fail_msg("%s has no '%s' to change", path, from);
    size_t n = strlen(text) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
    assert_true(ts_write(path, out));
    free(out);
    free(text);
}

static sign_verdict verdict(const char *out, const char *file, const char *k)
{
    char path[CL_PATH_MAX + 32], why[256];
    snprintf(path, sizeof path, "%s/%s", out, file);
    return sign_verify_file(path, k, strlen(k), why, sizeof why);
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
    assert_true(class_load(cls, key, strlen(key), &v, &e));
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
    /* 3 results.json (Gradescope's, foreign here), cy's report, broken, other. */
    assert_int_equal(problems, 6);
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
    double t0 = clock_now_s();
    assert_true(class_load(cls, key, strlen(key), &v, &e));
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

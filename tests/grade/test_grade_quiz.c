/* test_grade_quiz.c - quiz milestones are self-reported: each recorded
 * answer is judged again by the lab's quiz (a forged "right" row passes
 * nothing), a refused store passes no quiz and says why, every export
 * marks quizzes self-reported (and the signatures still hold), --quizzes
 * ignore makes them worth 0 and lists them as not counted, the class view
 * shows quiz points apart, and `cudalab verify` names whose report it is,
 * for which assignment and when it was graded. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <cjson/cJSON.h>
#include <cmocka.h>

#include "grade/classview.h"
#include "grade/report.h"
#include "grade_fixture.h"
#include "store/store.h"
#include "support.h"

static char dir[CL_PATH_MAX];
static ts_output o;

static int setup(void **state)
{
    (void)state;
    unsetenv(SIGN_KEY_ENV);
    return ts_tmpdir(dir, sizeof dir, "gradequiz") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ts_output_free(&o);
    ts_rm_rf(dir);
    return 0;
}

/* ---- judging the answers ------------------------------------------------------ */

static lab_quiz_choice choices[] = {
    {.text = (char *)"a"}, {.text = (char *)"b", .correct = true}, {.text = (char *)"c"}};
static lab_quiz quiz = {.id = (char *)"warps", .question = (char *)"?", .choices = choices,
                        .nchoices = 3};
static lab quiz_lab = {.id = (char *)"reduction", .quizzes = &quiz, .nquizzes = 1};
static lab_milestone quiz_ms = {.id = (char *)"warps", .text = (char *)"Can explain warps",
                                .quiz = (char *)"warps", .points = 2};

/* A data folder name with the answers given (choice, what the store says
 * of it), written as a learner's own SQL would write them. */
static void store_with(const char *name, const int (*answers)[2], size_t n, char *d, size_t dn)
{
    snprintf(d, dn, "%s/%s", dir, name);
    assert_int_equal(mkdir(d, 0700), 0);
    store *s = NULL;
    char notice[256], db[CL_PATH_MAX + 32], sql[256];
    cl_err e = {{0}};
    assert_true(store_open(d, &s, notice, sizeof notice, &e));
    store_close(s);
    snprintf(db, sizeof db, "%s/%s", d, STORE_FILE);
    sqlite3 *h = NULL;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    for (size_t i = 0; i < n; i++) {
        snprintf(sql, sizeof sql, "INSERT INTO quiz_answers (lab, quiz, choice, correct, at)"
                                  " VALUES ('reduction', 'warps', %d, %d, %zu)",
                 answers[i][0], answers[i][1], 1000 + i);
        assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
    }
    sqlite3_close(h);
}

/* quiz_ms judged from the store in data folder d (NULL: none) into g. */
static void judge(const char *d, grade_quizzes how, const char *note, grade_milestone *g)
{
    store *st = NULL;
    cl_err e = {{0}};
    if (d)
        assert_true(store_open_untrusted(d, &st, &e));
    grade_opts opts = {.quizzes = how, .quiz_note = note};
    memset(g, 0, sizeof *g);
    g->quiz = true;
    g->points = quiz_ms.points;
    grade_judge_quiz(&quiz_lab, &quiz_ms, st, &opts, g);
    store_close(st);
    printf("  passed %d, points %g, value '%s', why '%s'\n", g->passed, g->points, g->value,
           g->why);
}

static void test_answers_judged_again(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 16];
    grade_milestone g;
    /* wrong, then right: passed, when first right */
    static const int honest[][2] = {{0, 0}, {1, 1}, {1, 1}};
    store_with("honest", honest, 3, d, sizeof d);
    judge(d, GRADE_QUIZZES_COUNT, NULL, &g);
    assert_true(g.passed);
    assert_int_equal(g.attempts, 3);
    assert_true(g.answered_at == 1001);
    assert_string_equal(g.value, "answered right after 3 attempts");
    assert_false(g.not_counted);
    /* rows saying "right" for a wrong choice and for one the quiz does not
     * have: not passed, and said */
    static const int forged[][2] = {{2, 1}, {99, 1}, {-1, 1}};
    store_with("forged", forged, 3, d, sizeof d);
    judge(d, GRADE_QUIZZES_COUNT, NULL, &g);
    assert_false(g.passed);
    assert_true(ts_contains(g.why, "the progress store records 3 answers as right that the "
                                   "lab's quiz does not accept"));
    /* --quizzes ignore: judged, listed, worth 0, not counted */
    store_with("ignored", honest, 3, d, sizeof d);
    judge(d, GRADE_QUIZZES_IGNORE, NULL, &g);
    assert_true(g.passed && g.not_counted);
    assert_true(g.points == 0);
    assert_true(ts_contains(g.why, "not counted: quiz answers are self-reported"));
    /* a refused store: not passed, the reason given */
    judge(NULL, GRADE_QUIZZES_COUNT, "the progress store was refused: it holds a view", &g);
    assert_false(g.passed);
    assert_string_equal(g.why, "the progress store was refused: it holds a view");
}

/* `cudalab grade` with a crafted store: refused with the reason before
 * grading goes on (here to a lab that is not there, which stops it at
 * once), nothing written into TMPDIR, the data folder as it was. */
static void test_grade_refuses_store(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 16], tmp[CL_PATH_MAX + 16], ws[CL_PATH_MAX + 16];
    char out[CL_PATH_MAX + 16], wal[CL_PATH_MAX + 48];
    static const int one[][2] = {{1, 1}};
    store_with("crafted", one, 1, d, sizeof d);
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    snprintf(ws, sizeof ws, "%s/ws", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    assert_int_equal(mkdir(tmp, 0700), 0);
    assert_int_equal(mkdir(ws, 0700), 0);
    snprintf(wal, sizeof wal, "%s/%s-wal", d, STORE_FILE);
    assert_true(ts_write(wal, ""));
    assert_int_equal(truncate(wal, (off_t)2 << 30), 0);
    char *before = ts_listing(d);
    assert_int_equal(ts_shell(&o, false,
                              "CUDA_VISIBLE_DEVICES= TMPDIR='%s' '%s' grade --workspace '%s' "
                              "--data '%s' --out '%s' --quizzes=ignore --lab=nosuch",
                              tmp, ts_exe(), ws, d, out),
                     2);
    assert_true(ts_contains(o.err, "no lab called 'nosuch'"));
    assert_true(ts_contains(o.err, "cudalab: the progress store was refused, its quizzes are "
                                   "not passed: "));
    assert_true(ts_contains(o.err, "progress.db-wal is 2 GiB (2147483648 bytes), past the 64 MiB"));
    char *l = ts_listing(tmp);
    assert_string_equal(l, ".\n..\n");
    free(l);
    l = ts_listing(d);
    assert_string_equal(l, before);
    free(l);
    free(before);
    /* --quizzes takes count or ignore */
    assert_int_equal(ts_shell(&o, false, "'%s' grade --quizzes=maybe", ts_exe()), 2);
    assert_true(ts_contains(o.err, "grade: --quizzes takes count or ignore, not 'maybe'"));
}

/* ---- the exports ------------------------------------------------------------- */

static const grade_milestone *quiz_of(const grade_report *r)
{
    return &r->labs[0].ms[1];
}

/* The fixture's report graded with --quizzes ignore: its quiz worth 0. */
static void ignored_report(grade_report *r, const char *learner)
{
    gf_report(r, learner, 1.5, "00000000000000000000000000000000000000000000000000000000000000aa");
    r->quizzes = GRADE_QUIZZES_IGNORE;
    grade_milestone *g = &r->labs[0].ms[1];
    g->not_counted = true;
    g->points = g->earned = 0;
    snprintf(g->why, sizeof g->why, "not counted: quiz answers are self-reported and this "
                                    "grading ignores them (--quizzes ignore)");
    r->labs[0].score = r->labs[0].max_score = 3;
    r->score = 3;
    r->max_score = 5;
}

static const cJSON *milestone_json(const cJSON *doc, int which, int k)
{
    const cJSON *labs = cJSON_GetObjectItemCaseSensitive(doc, "labs");
    return cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(labs, which), "milestones"), k);
}

static bool flag(const cJSON *obj, const char *k)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, k));
}

static void test_exports_mark_self_reported(void **state)
{
    (void)state;
    char out[CL_PATH_MAX + 16];
    snprintf(out, sizeof out, "%s/count", dir);
    grade_report r;
    gf_report(&r, "ada", 1.5, "00000000000000000000000000000000000000000000000000000000000000aa");
    gf_write_all(&r, out, true);
    static const char *const files[] = {"report.json", "results.json", "junit.xml", "grades.csv"};
    for (int i = 0; i < 4; i++)
        assert_int_equal(gf_verdict(out, files[i], gf_key), SIGN_VALID);
    cJSON *doc = gf_read_json(out, "report.json");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "quizzes")),
                        "count");
    assert_true(flag(milestone_json(doc, 0, 1), "self_reported"));
    assert_true(flag(milestone_json(doc, 0, 1), "counted"));
    assert_false(flag(milestone_json(doc, 0, 0), "self_reported"));
    cJSON_Delete(doc);
    doc = gf_read_json(out, "results.json");
    const cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "tests"), 1);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name")),
                        "reduction: Can explain warps (quiz, self-reported)");
    assert_true(ts_starts_with(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "output")),
                               "Self-reported: "));
    assert_true(ts_contains(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "output")),
                            "1 of 1 points are quiz points, self-reported"));
    cJSON_Delete(doc);
    char *xml = gf_read(out, "junit.xml");
    assert_true(ts_contains(xml, "name=\"warps: Can explain warps (quiz, self-reported)\""));
    assert_true(ts_contains(xml, "<system-out>self-reported: answered right</system-out>"));
    assert_true(ts_contains(xml, "<property name=\"quizzes\" value=\"count\"/>"));
    free(xml);
    char *csv = gf_read(out, "grades.csv");
    assert_true(ts_contains(csv, ",kernel_sha256,self_reported,counted\r\n"));
    assert_true(ts_contains(csv, "ada,reduction,warps,quiz,1,1,true,answered right,"));
    assert_true(ts_contains(csv, "aa,true,true\r\n"));
    assert_true(ts_contains(csv, "aa,false,true\r\n"));   /* the measured milestone */
    free(csv);
    grade_report_free(&r);
}

static void test_quizzes_ignored(void **state)
{
    (void)state;
    char out[CL_PATH_MAX + 16];
    snprintf(out, sizeof out, "%s/ignore", dir);
    grade_report r, back;
    ignored_report(&r, "bea");
    gf_write_all(&r, out, true);
    assert_int_equal(gf_verdict(out, "report.json", gf_key), SIGN_VALID);
    assert_int_equal(gf_verdict(out, "junit.xml", gf_key), SIGN_VALID);
    cJSON *doc = gf_read_json(out, "report.json");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "quizzes")),
                        "ignore");
    const cJSON *m = milestone_json(doc, 0, 1);
    assert_true(flag(m, "self_reported"));
    assert_false(flag(m, "counted"));
    assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(m, "points")) == 0);
    cl_err e = {{0}};
    assert_true(report_read_json(doc, &back, &e));
    assert_int_equal(back.quizzes, GRADE_QUIZZES_IGNORE);
    assert_true(quiz_of(&back)->not_counted);
    assert_false(back.labs[0].ms[0].not_counted);
    grade_report_free(&back);
    cJSON_Delete(doc);
    doc = gf_read_json(out, "results.json");
    const cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "tests"), 1);
    assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "max_score")) == 0);
    assert_true(ts_contains(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name")),
                            "(quiz, self-reported, not counted)"));
    assert_true(ts_contains(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "output")),
                            "1 quiz milestone is listed but not counted (--quizzes ignore)"));
    cJSON_Delete(doc);
    char *xml = gf_read(out, "junit.xml");
    assert_true(ts_contains(xml, "<skipped message=\"not counted: quiz answers are "
                                 "self-reported"));
    free(xml);
    char *csv = gf_read(out, "grades.csv");
    assert_true(ts_contains(csv, "bea,reduction,warps,quiz,0,0,true,"));
    assert_true(ts_contains(csv, "aa,true,false\r\n"));
    free(csv);
    grade_report_free(&r);
}

/* The class: quiz points apart from the measured ones, in every export;
 * quiz columns marked. */
static void test_class_apart(void **state)
{
    (void)state;
    char cls[CL_PATH_MAX + 16], out[CL_PATH_MAX + 32];
    snprintf(cls, sizeof cls, "%s/class", dir);
    grade_report r;
    snprintf(out, sizeof out, "%s/ada", cls);
    gf_report(&r, "ada", 1.5, "00000000000000000000000000000000000000000000000000000000000000a1");
    gf_write_all(&r, out, false);
    grade_report_free(&r);
    snprintf(out, sizeof out, "%s/bea", cls);
    ignored_report(&r, "bea");
    gf_write_all(&r, out, false);
    grade_report_free(&r);
    class_view v;
    class_opts opts = {0};
    cl_err e = {{0}};
    assert_true(class_load(cls, &opts, &v, &e));
    assert_int_equal(v.nrows, 2);
    char *csv = class_csv(&v), *md = class_markdown(&v), *html = class_html(&v);
    printf("%s\n%s\n", csv, md);
    assert_true(ts_starts_with(csv, "learner,score,max,measured,quiz (self-reported),device,"));
    assert_true(ts_contains(csv, "reduction:warps (quiz, self-reported)"));
    assert_true(ts_contains(csv, "\r\nada,4,6,3 of 5,1 of 1,"));
    assert_true(ts_contains(csv, "\r\nbea,3,5,3 of 5,not counted,"));
    assert_true(ts_contains(csv, ",yes,\"yes, not counted\",no,"));
    assert_true(ts_contains(md, "| quiz \\(self-reported\\) |"));
    assert_true(ts_contains(md, "| reduction:warps \\(quiz, self-reported\\) |"));
    assert_true(ts_contains(md, "| 3 of 5 | 1 of 1 |"));
    assert_true(ts_contains(html, "<td>3 of 5</td><td>not counted</td>"));
    free(csv);
    free(md);
    free(html);
    class_free(&v);
    /* `cudalab class --json`: the points apart, the quiz columns marked */
    assert_int_equal(ts_shell(&o, false, "'%s' class --json '%s'", ts_exe(), cls), 0);
    cJSON *doc = cJSON_Parse(o.out);
    assert_non_null(doc);
    const cJSON *l = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "learners"), 0);
    assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(l, "quiz_score")) == 1);
    assert_true(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(l, "measured_score")) == 3);
    const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "milestones"), 1);
    assert_true(flag(c, "self_reported"));
    cJSON_Delete(doc);
}

/* ---- verify names the report's learner, assignment and time ------------------- */

static void test_verify_names(void **state)
{
    (void)state;
    static const char learner[] = "=Ada \"the\" <Love>, & co";
    char out[CL_PATH_MAX + 16], key[CL_PATH_MAX + 16];
    snprintf(out, sizeof out, "%s/named", dir);
    snprintf(key, sizeof key, "%s/key", dir);
    assert_true(ts_write(key, gf_key));
    grade_report r;
    gf_report(&r, learner, 1.5, "00000000000000000000000000000000000000000000000000000000000000a2");
    gf_write_all(&r, out, true);
    grade_report_free(&r);
    static const char *const files[] = {"report.json", "results.json", "junit.xml", "grades.csv"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(ts_shell(&o, false, "'%s' verify --key '%s' '%s/%s'", ts_exe(), key, out,
                                  files[i]), 0);
        printf("%s", o.out);
        assert_true(ts_contains(o.out, ": valid (signed and unchanged)\n  learner =Ada \"the\" "
                                       "<Love>, & co, assignment hw1, graded "
                                       "2026-11-24T10:00:00Z\n"));
    }
    assert_int_equal(ts_shell(&o, false, "'%s' verify --key '%s' --json '%s/junit.xml'", ts_exe(),
                              key, out), 0);
    cJSON *doc = cJSON_Parse(o.out);
    const cJSON *rep = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "reports"), 0);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rep, "learner")),
                        learner);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rep, "assignment")),
                        GF_ASSIGNMENT);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rep, "created")),
                        "2026-11-24T10:00:00Z");
    cJSON_Delete(doc);
    /* a report that does not verify names no one */
    gf_tamper(out, "report.json", "\"score\":\t4", "\"score\":\t5");
    assert_int_equal(ts_shell(&o, false, "'%s' verify --key '%s' '%s/report.json'", ts_exe(), key,
                              out), 1);
    assert_true(ts_contains(o.out, ": tampered"));
    assert_null(strstr(o.out, "learner"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_answers_judged_again),
        cmocka_unit_test(test_grade_refuses_store),
        cmocka_unit_test(test_exports_mark_self_reported),
        cmocka_unit_test(test_quizzes_ignored),
        cmocka_unit_test(test_class_apart),
        cmocka_unit_test(test_verify_names),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

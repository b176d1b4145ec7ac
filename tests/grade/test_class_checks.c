/* test_class_checks.c - `cudalab class` flags what an instructor must
 * see: a learner twice (the newest kept), a report copied, the same kernel
 * under several learners, another assignment, unsigned and tampered
 * reports, link loops, unreadable entries and FIFOs (no hang), and a
 * folder with no reports at all. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <cjson/cJSON.h>
#include <cmocka.h>

#include "core/paths.h"
#include "grade/classview.h"
#include "grade/report.h"
#include "grade_fixture.h"
#include "support.h"

static char dir[CL_PATH_MAX];
static int folders;

static int setup(void **state)
{
    (void)state;
    return ts_tmpdir(dir, sizeof dir, "classchk") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ts_rm_rf(dir);
    return 0;
}

/* A fresh class folder under dir (its path into out). */
static void class_dir(char *out, size_t n)
{
    snprintf(out, n, "%s/class%d", dir, folders++);
    cl_err e = {{0}};
    assert_true(paths_mkdir_p(out, &e));
}

typedef struct spec {
    const char *learner, *assignment, *created, *sha;
    bool signed_, not_graded, starter;
} spec;

/* Writes s's report.json into cls/sub. */
static void put(const char *cls, const char *sub, spec s)
{
    char out[CL_PATH_MAX + 64];
    snprintf(out, sizeof out, "%s/%s", cls, sub);
    grade_report r;
    char sha[65];
    snprintf(sha, sizeof sha, "%064d", (int)strlen(s.learner) * 7 + s.learner[0]);
    gf_report(&r, s.learner, 1.5, s.sha ? s.sha : sha);
    if (s.assignment)
        snprintf(r.assignment, sizeof r.assignment, "%s", s.assignment);
    if (s.created)
        snprintf(r.created, sizeof r.created, "%s", s.created);
    r.labs[0].kernel_starter = s.starter;
    if (s.not_graded)
        grade_report_not_graded(&r, "cannot grade: no CUDA device found");
    report_kind k = REPORT_JSON;
    cl_err e = {{0}};
    if (!report_write(&r, out, &k, 1, s.signed_ ? gf_key : NULL, s.signed_ ? strlen(gf_key) : 0,
                      &e))
        fail_msg("report_write: %s", e.msg);
    grade_report_free(&r);
}

static void load(const char *cls, const char *assignment, bool key, class_view *v)
{
    class_opts o = {.key = key ? gf_key : NULL, .keylen = key ? strlen(gf_key) : 0,
                    .assignment = assignment};
    cl_err e = {{0}};
    if (!class_load(cls, &o, v, &e))
        fail_msg("class_load: %s", e.msg);
    for (size_t i = 0; i < v->nfiles; i++)
        printf("  %s %s: %s%s\n", v->files[i].usable ? "in " : "out", v->files[i].path,
               v->files[i].problem, v->files[i].note);
}

/* The file of v whose path ends with tail. */
static const class_file *file(const class_view *v, const char *tail)
{
    for (size_t i = 0; i < v->nfiles; i++) {
        size_t a = strlen(v->files[i].path), b = strlen(tail);
        if (a >= b && strcmp(v->files[i].path + a - b, tail) == 0)
            return &v->files[i];
    }
    fail_msg("no file ending with %s", tail);
    return NULL;
}

static void test_learner_twice(void **state)
{
    (void)state;
    char cls[CL_PATH_MAX];
    class_dir(cls, sizeof cls);
    put(cls, "early", (spec){.learner = "ada", .created = "2026-11-20T09:00:00Z", .signed_ = true});
    put(cls, "late", (spec){.learner = "ada", .created = "2026-11-24T09:00:00Z", .signed_ = true});
    put(cls, "broken", (spec){.learner = "ada", .created = "2026-11-25T09:00:00Z",
                              .signed_ = true, .not_graded = true});
    put(cls, "bob", (spec){.learner = "bob", .signed_ = true});
    class_view v;
    load(cls, NULL, true, &v);
    assert_int_equal(v.nrows, 2);
    assert_true(file(&v, "/late/report.json")->usable);
    const class_file *early = file(&v, "/early/report.json");
    assert_false(early->usable);
    assert_true(ts_contains(early->problem, "an older report of learner ada (created "
                                            "2026-11-20T09:00:00Z)"));
    assert_true(ts_contains(early->problem, "/late/report.json (created 2026-11-24T09:00:00Z) "
                                            "is kept"));
    /* newer, but not graded: the graded one is kept */
    const class_file *broken = file(&v, "/broken/report.json");
    assert_false(broken->usable);
    assert_true(ts_contains(broken->problem, "was not graded here"));
    class_free(&v);

    /* The command says which file was dropped and why, on stderr. */
    ts_output o = {0};
    setenv(SIGN_KEY_ENV, gf_key, 1);
    assert_int_equal(ts_shell(&o, false, "'%s' class '%s' --format=csv", ts_exe(), cls), 0);
    unsetenv(SIGN_KEY_ENV);
    assert_true(ts_contains(o.err, "left out"));
    assert_true(ts_contains(o.err, "/early/report.json: an older report of learner ada"));
    ts_output_free(&o);
}

/* A report copied into another learner's folder, or reached twice through
 * links: read once, the copy left out and named. */
static void test_copies_and_links(void **state)
{
    (void)state;
    char cls[CL_PATH_MAX], a[CL_PATH_MAX + 64], b[CL_PATH_MAX + 64];
    class_dir(cls, sizeof cls);
    put(cls, "ada", (spec){.learner = "ada", .signed_ = true});
    put(cls, "bob", (spec){.learner = "bob", .signed_ = true});
    snprintf(a, sizeof a, "%s/ada/report.json", cls);
    snprintf(b, sizeof b, "%s/bob/copied.json", cls);
    char *text = ts_read(a);
    assert_true(ts_write(b, text));
    free(text);
    snprintf(b, sizeof b, "%s/bob/linked.json", cls);
    assert_int_equal(symlink(a, b), 0);
    snprintf(b, sizeof b, "%s/zz-again", cls);
    assert_int_equal(symlink("ada", b), 0);   /* the folder once more: not a loop */
    class_view v;
    load(cls, NULL, true, &v);
    assert_int_equal(v.nrows, 2);
    assert_true(ts_contains(file(&v, "/bob/copied.json")->problem, "a copy of"));
    assert_true(ts_contains(file(&v, "/bob/linked.json")->problem, "the same file as"));
    assert_true(ts_contains(file(&v, "/zz-again/report.json")->problem, "the same file as"));
    class_free(&v);
}

/* The same graded kernel under two learners: both stay, both flagged, each
 * naming the other; an unchanged starter is not a copy. */
static void test_same_kernel(void **state)
{
    (void)state;
    static const char same[] = "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a";
    static const char starter[] = "1111111111111111111111111111111111111111111111111111111111111111";
    char cls[CL_PATH_MAX];
    class_dir(cls, sizeof cls);
    put(cls, "ada", (spec){.learner = "ada", .sha = same});
    put(cls, "bob", (spec){.learner = "bob", .sha = same});
    put(cls, "cy", (spec){.learner = "cy"});
    put(cls, "dee", (spec){.learner = "dee", .sha = starter, .starter = true});
    put(cls, "eve", (spec){.learner = "eve", .sha = starter, .starter = true});
    class_view v;
    load(cls, NULL, false, &v);
    assert_int_equal(v.nrows, 5);
    assert_int_equal(v.nflagged, 2);
    const class_file *ada = file(&v, "/ada/report.json"), *bob = file(&v, "/bob/report.json");
    assert_true(ada->usable && bob->usable);
    assert_true(ts_contains(ada->note, "the same reduction kernel as bob ("));
    assert_true(ts_contains(bob->note, "the same reduction kernel as ada ("));
    assert_string_equal(file(&v, "/cy/report.json")->note, "");
    assert_string_equal(file(&v, "/dee/report.json")->note, "");
    char *csv = class_csv(&v);
    assert_true(ts_contains(csv, "the same reduction kernel as bob"));
    free(csv);
    class_free(&v);
    ts_output o = {0};
    assert_int_equal(ts_shell(&o, false, "'%s' class '%s' --format=md", ts_exe(), cls), 0);
    assert_true(ts_contains(o.err, "flagged"));
    assert_true(ts_contains(o.err, "(ada): the same reduction kernel as bob"));
    ts_output_free(&o);
}

static void test_other_assignment(void **state)
{
    (void)state;
    char cls[CL_PATH_MAX];
    class_dir(cls, sizeof cls);
    put(cls, "ada", (spec){.learner = "ada", .assignment = "hw1"});
    put(cls, "bob", (spec){.learner = "bob", .assignment = "hw1"});
    put(cls, "cy", (spec){.learner = "cy", .assignment = "hw2"});
    class_view v;
    load(cls, NULL, false, &v);
    assert_int_equal(v.nrows, 2);
    assert_string_equal(v.assignment, "hw1");
    assert_true(ts_contains(file(&v, "/cy/report.json")->problem,
                            "a report of assignment hw2, not hw1 (the most common here"));
    class_free(&v);
    load(cls, "hw2", false, &v);
    assert_int_equal(v.nrows, 1);
    assert_true(ts_contains(file(&v, "/ada/report.json")->problem,
                            "not hw2 (the one asked for with --assignment)"));
    class_free(&v);
    /* as many of each: the choice is said to be a tie */
    put(cls, "dee", (spec){.learner = "dee", .assignment = "hw2"});
    load(cls, NULL, false, &v);
    assert_string_equal(v.assignment, "hw1");
    assert_true(ts_contains(file(&v, "/cy/report.json")->problem, "as common here as another"));
    class_free(&v);
    ts_output o = {0};
    assert_int_equal(ts_shell(&o, false, "'%s' class '%s' --assignment=hw2 --format=csv",
                              ts_exe(), cls), 0);
    assert_true(ts_contains(o.out, "\r\ncy,") && ts_contains(o.out, "\r\ndee,"));
    assert_true(ts_contains(o.err, "/ada/report.json: a report of assignment hw1, not hw2"));
    assert_int_equal(ts_shell(&o, false, "'%s' class '%s' --assignment='hw 2' --format=csv",
                              ts_exe(), cls), 2);
    assert_true(ts_contains(o.err, "may hold letters, digits"));
    assert_int_equal(ts_shell(&o, false, "'%s' class '%s' --assignment=hw9 --format=csv",
                              ts_exe(), cls), 1);
    assert_true(ts_contains(o.err, "passed the checks"));
    ts_output_free(&o);
}

static void test_unsigned_and_tampered(void **state)
{
    (void)state;
    char cls[CL_PATH_MAX], sub[CL_PATH_MAX + 8];
    class_dir(cls, sizeof cls);
    put(cls, "ada", (spec){.learner = "ada", .signed_ = true});
    put(cls, "bob", (spec){.learner = "bob"});
    put(cls, "cy", (spec){.learner = "cy", .signed_ = true});
    snprintf(sub, sizeof sub, "%s/cy", cls);
    gf_tamper(sub, "report.json", "\"score\":\t4", "\"score\":\t6");
    class_view v;
    load(cls, NULL, true, &v);
    assert_int_equal(v.nrows, 1);
    assert_true(ts_contains(file(&v, "/bob/report.json")->problem, "not signed: no signature"));
    assert_true(ts_contains(file(&v, "/cy/report.json")->problem, "tampered: the content"));
    class_free(&v);
    /* every report refused: nothing passed the checks, exit 1 */
    snprintf(sub, sizeof sub, "%s/ada", cls);
    gf_tamper(sub, "report.json", "\"score\":\t4", "\"score\":\t5");
    ts_output o = {0};
    setenv(SIGN_KEY_ENV, gf_key, 1);
    assert_int_equal(ts_shell(&o, false, "'%s' class '%s' --format=csv", ts_exe(), cls), 1);
    unsetenv(SIGN_KEY_ENV);
    assert_true(ts_contains(o.err, "no report in"));
    assert_true(ts_contains(o.err, "tampered: the content"));
    ts_output_free(&o);
}

/* Loops, broken links, FIFOs and folders that cannot be read: listed, and
 * the walk neither hangs nor stops. */
static void test_odd_entries(void **state)
{
    (void)state;
    char cls[CL_PATH_MAX], p[CL_PATH_MAX + 64], q[CL_PATH_MAX + 64];
    class_dir(cls, sizeof cls);
    put(cls, "ada", (spec){.learner = "ada"});
    snprintf(p, sizeof p, "%s/ada/up", cls);
    assert_int_equal(symlink("..", p), 0);                       /* back to the class folder */
    snprintf(p, sizeof p, "%s/ping", cls);
    snprintf(q, sizeof q, "%s/pong", cls);
    assert_int_equal(symlink(q, p), 0);                          /* ping -> pong -> ping */
    assert_int_equal(symlink(p, q), 0);
    snprintf(p, sizeof p, "%s/gone.json", cls);
    assert_int_equal(symlink("nowhere.json", p), 0);
    snprintf(p, sizeof p, "%s/pipe.json", cls);
    assert_int_equal(mkfifo(p, 0644), 0);
    snprintf(p, sizeof p, "%s/locked", cls);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(q, sizeof q, "%s/locked/x.json", cls);
    assert_true(ts_write(q, "{}"));
    assert_int_equal(chmod(p, 0), 0);
    bool root = geteuid() == 0;
    class_view v;
    load(cls, NULL, false, &v);
    assert_int_equal(v.nrows, 1);
    assert_true(ts_contains(file(&v, "/ada/up")->problem, "a link back to a folder above it"));
    assert_true(ts_contains(file(&v, "/ping")->problem, "a symbolic link loop"));
    assert_true(ts_contains(file(&v, "/pong")->problem, "a symbolic link loop"));
    assert_true(ts_contains(file(&v, "/gone.json")->problem, "a broken symbolic link"));
    assert_true(ts_contains(file(&v, "/pipe.json")->problem, "not a regular file"));
    if (root)
        printf("  (running as root: the folder without permissions can be read; not checked)\n");
    else
        assert_true(ts_contains(file(&v, "/locked")->problem, "cannot read the folder"));
    class_free(&v);
    ts_output o = {0};
    assert_int_equal(ts_shell(&o, false, "timeout 20 '%s' class '%s' --format=html", ts_exe(),
                              cls), 0);
    assert_true(ts_contains(o.err, "/ping: a symbolic link loop"));
    assert_true(ts_contains(o.out, "Files left out"));
    ts_output_free(&o);
    assert_int_equal(chmod(p, 0755), 0);
}

static void test_no_reports(void **state)
{
    (void)state;
    char cls[CL_PATH_MAX], p[CL_PATH_MAX + 32];
    class_dir(cls, sizeof cls);
    ts_output o = {0};
    assert_int_equal(ts_shell(&o, false, "'%s' class '%s' --format=csv", ts_exe(), cls), 3);
    assert_true(ts_contains(o.err, "no reports found in"));
    assert_string_equal(o.out, "");
    snprintf(p, sizeof p, "%s/notes.txt", cls);
    assert_true(ts_write(p, "hello"));
    snprintf(p, sizeof p, "%s/other.json", cls);
    assert_true(ts_write(p, "{\"hello\": \"world\"}"));
    assert_int_equal(ts_shell(&o, false, "'%s' class '%s' --format=md", ts_exe(), cls), 3);
    assert_true(ts_contains(o.err, "no reports found in"));
    assert_true(ts_contains(o.err, "other.json: foreign"));
    ts_output_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_learner_twice),     cmocka_unit_test(test_copies_and_links),
        cmocka_unit_test(test_same_kernel),       cmocka_unit_test(test_other_assignment),
        cmocka_unit_test(test_unsigned_and_tampered), cmocka_unit_test(test_odd_entries),
        cmocka_unit_test(test_no_reports),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* test_store_errors.c - the store in bad conditions and at its edges: a
 * read-only store or data folder shows its records and refuses writes,
 * saying why, and creates nothing beside the file; a -shm file left
 * unwritable does not stop later writes; a full disk is named as such; the
 * attempts count runs, not rows; a lab forgotten while its run goes on
 * gets no orphan rows; the summary `cudalab progress` reads is built by
 * the migration from the rows there and kept by every write.  The permission cases run as user nobody when the
 * tests run as root (root may write anything). */
#include <dirent.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "core/strbuf.h"
#include "store/recorder.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "support.h"

#define NOBODY 65534

static char dir[CL_PATH_MAX];

static int setup(void **state)
{
    (void)state;
    if (!ts_tmpdir(dir, sizeof dir, "storeerr"))
        return -1;
    return chmod(dir, 0755) == 0 ? 0 : -1;   /* nobody may come in */
}

static int teardown(void **state)
{
    (void)state;
    ts_rm_rf(dir);
    return 0;
}

static run_result row_of(const char *size, double ms, result_status status)
{
    run_result r;
    run_result_init(&r);
    snprintf(r.variant, sizeof r.variant, "exercise");
    snprintf(r.label, sizeof r.label, "exercise");
    snprintf(r.size, sizeof r.size, "%s", size);
    r.kind = RK_EXERCISE;
    r.status = status;
    r.median_ms = ms;
    r.samples = 10;
    r.speedup_cpu = 50.0 / ms;
    return r;
}

/* A store in d (made when missing) with a quiz answered and one run of the
 * learner's kernel; closed. */
static bool recorded(const char *d)
{
    store *s = NULL;
    char notice[512];
    cl_err e = {{0}};
    if (!store_open(d, &s, notice, sizeof notice, &e))
        return false;
    store_run_info info = {.lab = "reduction", .origin = "test"};
    int64_t run = 0;
    run_result r = row_of("2^20", 1.0, RS_CORRECT);
    bool ok = store_quiz_answer(s, "reduction", "warps", 2, true, &e) &&
              store_run_begin(s, &info, &run, &e) && store_row_add(s, run, &r, NULL, NULL, &e);
    store_close(s);
    return ok;
}

/* ---- checks in a child process, as another user --------------------------- */

static int child_failures;

static void check(bool ok, const char *fmt, ...)
{
    if (ok)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAILED: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    child_failures++;
}

/* Runs fn(d) in a child, as user nobody when this is root; true when every
 * check in it held. */
static bool as_learner(void (*fn)(const char *d), const char *d)
{
    fflush(NULL);
    pid_t kid = fork();
    assert_true(kid >= 0);
    if (kid == 0) {
        if (geteuid() == 0 && (setgid(NOBODY) != 0 || setuid(NOBODY) != 0))
            _exit(2);
        child_failures = 0;
        fn(d);
        fflush(NULL);
        _exit(child_failures ? 1 : 0);
    }
    int status = 0;
    assert_int_equal(waitpid(kid, &status, 0), kid);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* A folder made for nobody (when this is root), or for this user. */
static void learner_folder(char *d, size_t n, const char *name)
{
    snprintf(d, n, "%s/%s", dir, name);
    assert_int_equal(mkdir(d, 0755), 0);
    if (geteuid() == 0)
        assert_int_equal(chown(d, NOBODY, NOBODY), 0);
}

/* Opened only to read: the records show, writes are refused with why, a
 * run is said not to be recorded, and nothing appears in the folder. */
static void reads_only(const char *d)
{
    char *before = ts_listing(d);
    store *s = NULL;
    char notice[1024], path[CL_PATH_MAX + 32];
    cl_err e = {{0}};
    snprintf(path, sizeof path, "%s/%s", d, STORE_FILE);
    bool opened = store_open(d, &s, notice, sizeof notice, &e);
    check(opened, "store_open(%s): %s", d, e.msg);
    if (!opened)
        return;
    check(store_readonly(s), "the store is not read-only");
    check(strstr(notice, "progress cannot be saved") && strstr(notice, d),
          "the notice: %s", notice);
    check(strstr(store_readonly_why(s), d) != NULL, "why: %s", store_readonly_why(s));
    store_quiz *q = NULL;
    size_t n = 0;
    check(store_quizzes(s, "reduction", &q, &n, &e) && n == 1, "the quiz answer: %s", e.msg);
    free(q);
    store_exercise_summary sum;
    check(store_exercise_summary_get(s, "reduction", &sum, &e) && sum.runs == 1,
          "the runs: %s", e.msg);
    memset(&e, 0, sizeof e);
    check(!store_quiz_answer(s, "reduction", "warps", 1, false, &e), "a write went through");
    check(strstr(e.msg, "progress not saved") && strstr(e.msg, d), "the refusal: %s", e.msg);
    memset(&e, 0, sizeof e);
    check(!store_reset_lab(s, "reduction", &e) && strstr(e.msg, d), "the reset: %s", e.msg);
    recorder rc;
    recorder_init(&rc, s, "run");
    run_request req;
    memset(&req, 0, sizeof req);
    snprintf(req.lab, sizeof req.lab, "reduction");
    recorder_begin(&rc, &req, NULL);
    check(strstr(rc.failed, "not recorded") && strstr(rc.failed, d), "the run: %s", rc.failed);
    store_close(s);
    char *after = ts_listing(d);
    check(strcmp(before, after) == 0, "the folder held\n%sand now holds\n%s", before, after);
    free(before);
    free(after);
}

static void test_read_only(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 32], path[CL_PATH_MAX + 48];
    /* A data folder that cannot be written. */
    learner_folder(d, sizeof d, "ro-folder");
    assert_true(recorded(d));
    snprintf(path, sizeof path, "%s/%s", d, STORE_FILE);
    assert_int_equal(chmod(path, 0444), 0);
    assert_int_equal(chmod(d, 0555), 0);
    assert_true(as_learner(reads_only, d));
    assert_int_equal(chmod(d, 0755), 0);

    /* A store file that cannot be written in a folder that can. */
    learner_folder(d, sizeof d, "ro-file");
    assert_true(recorded(d));
    snprintf(path, sizeof path, "%s/%s", d, STORE_FILE);
    assert_int_equal(chmod(path, 0444), 0);
    assert_true(as_learner(reads_only, d));

    /* A folder that cannot be written and holds no store: an error. */
    learner_folder(d, sizeof d, "ro-empty");
    assert_int_equal(chmod(d, 0555), 0);
    store *s = NULL;
    char notice[512];
    cl_err e = {{0}};
    if (geteuid() != 0) {
        assert_false(store_open(d, &s, notice, sizeof notice, &e));
        assert_true(strstr(e.msg, "progress is not saved") && strstr(e.msg, d));
    }
    assert_int_equal(chmod(d, 0755), 0);
}

/* The learner's own store, its file made read-only, opened (read-only, no
 * -shm or -wal made), made writable again and written; then a -shm file of
 * theirs left unwritable beside it, which a writer puts right. */
static void shm_left_behind(const char *d)
{
    char path[CL_PATH_MAX + 32], shm[CL_PATH_MAX + 48], notice[1024];
    check(recorded(d), "recording in %s", d);
    snprintf(path, sizeof path, "%s/%s", d, STORE_FILE);
    snprintf(shm, sizeof shm, "%s-shm", path);
    check(chmod(path, 0400) == 0, "chmod");
    store *s = NULL;
    cl_err e = {{0}};
    check(store_open(d, &s, notice, sizeof notice, &e) && store_readonly(s), "read-only: %s",
          e.msg);
    store_close(s);
    check(!paths_is_file(shm), "a read-only open made %s", shm);
    check(chmod(path, 0600) == 0, "chmod");
    check(recorded(d), "writing after a read-only open");

    FILE *f = fopen(shm, "w");
    check(f != NULL, "making %s", shm);
    if (f)
        fclose(f);
    check(chmod(shm, 0400) == 0, "chmod");
    s = NULL;
    bool opened = store_open(d, &s, notice, sizeof notice, &e);
    check(opened && !store_readonly(s), "with an unwritable -shm of ours: %s %s", e.msg, notice);
    check(s && store_quiz_answer(s, "reduction", "warps", 1, false, &e), "writing: %s", e.msg);
    store_close(s);
}

static void record_in(const char *d)
{
    check(recorded(d), "recording in %s", d);
}

/* A -shm file another user left, which this user cannot write: read-only,
 * and the notice names it and says what to do. */
static void shm_of_another(const char *d)
{
    char notice[1024];
    store *s = NULL;
    cl_err e = {{0}};
    bool opened = store_open(d, &s, notice, sizeof notice, &e);
    check(opened && store_readonly(s), "opening: %s", e.msg);
    check(strstr(notice, STORE_FILE "-shm") && strstr(notice, "remove it"), "the notice: %s",
          notice);
    store_close(s);
}

static void test_shm_left_behind(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 32], shm[CL_PATH_MAX + 48];
    learner_folder(d, sizeof d, "shm");
    assert_true(as_learner(shm_left_behind, d));
    if (geteuid() != 0)
        return;   /* a file of another user needs root to make */
    learner_folder(d, sizeof d, "shm-other");
    assert_true(as_learner(record_in, d));
    snprintf(shm, sizeof shm, "%s/%s-shm", d, STORE_FILE);
    assert_true(ts_write(shm, ""));
    assert_int_equal(chmod(shm, 0644), 0);
    assert_true(as_learner(shm_of_another, d));
}

/* A full disk: SQLite's SQLITE_FULL (what it reports for ENOSPC), made by
 * capping the file's pages; the message says the disk is full and names
 * the data folder, for a write and for a recorder. */
static void test_disk_full(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 32];
    snprintf(d, sizeof d, "%s/full", dir);
    assert_true(recorded(d));
    store *s = NULL;
    char notice[512];
    cl_err e = {{0}};
    assert_true(store_open(d, &s, notice, sizeof notice, &e));
    assert_int_equal(sqlite3_exec(s->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(s->db, "PRAGMA page_count", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    char cap[64];
    snprintf(cap, sizeof cap, "PRAGMA max_page_count = %d", sqlite3_column_int(st, 0));
    sqlite3_finalize(st);
    assert_int_equal(sqlite3_exec(s->db, cap, NULL, NULL, NULL), SQLITE_OK);
    recorder rc;
    recorder_init(&rc, s, "run");
    run_request req;
    memset(&req, 0, sizeof req);
    snprintf(req.lab, sizeof req.lab, "reduction");
    recorder_begin(&rc, &req, NULL);
    run_result r = row_of("2^20", 1.0, RS_CORRECT);
    for (int i = 0; i < 2000 && !rc.stopped; i++)
        recorder_row(&rc, &r, NULL);
    assert_true(rc.stopped);
    if (!strstr(rc.failed, "the disk is full") || !strstr(rc.failed, d))
        fail_msg("the recorder: %s", rc.failed);
    memset(&e, 0, sizeof e);
    char big[4000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    bool ok = true;
    for (int i = 0; i < 200 && ok; i++)
        ok = store_milestone_reached(s, "reduction", big + i, big, 0, 0, NULL, &e);
    assert_false(ok);
    if (!strstr(e.msg, "progress not saved: the disk is full") || !strstr(e.msg, d))
        fail_msg("the write: %s", e.msg);
    store_close(s);
}

/* Four runs whose rows interleave (as two processes record at once): four
 * attempts; the best per size is the fastest correct row. */
static void test_attempts_are_runs(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 32];
    snprintf(d, sizeof d, "%s/attempts", dir);
    store *s = NULL;
    char notice[512];
    cl_err e = {{0}};
    assert_true(store_open(d, &s, notice, sizeof notice, &e));
    int64_t run[4];
    for (int i = 0; i < 4; i++) {
        store_run_info info = {.lab = "reduction", .origin = "test"};
        assert_true(store_run_begin(s, &info, &run[i], &e));
    }
    static const struct {
        int run;
        const char *size;
        double ms;
        result_status status;
    } rows[] = {
        {0, "2^20", 0.50, RS_CORRECT}, {1, "2^20", 0.40, RS_CORRECT}, {2, "2^28", 9.0, RS_CORRECT},
        {3, "2^20", 0.10, RS_WRONG},   {0, "2^28", 8.0, RS_CORRECT},  {1, "2^28", 8.0, RS_CORRECT},
        {2, "2^20", 0.45, RS_CORRECT}, {3, "2^28", 7.5, RS_CORRECT},  {0, "2^24", 2.0, RS_WRONG},
        {1, "2^20", 0.42, RS_CORRECT},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        run_result r = row_of(rows[i].size, rows[i].ms, rows[i].status);
        assert_true(store_row_add(s, run[rows[i].run], &r, NULL, NULL, &e));
    }
    store_exercise_summary sum;
    assert_true(store_exercise_summary_get(s, "reduction", &sum, &e));
    assert_int_equal(sum.runs, 4);
    assert_true(sum.latest_at > 0);
    assert_int_equal(sum.nbest, 2);   /* 2^24 had no correct row */
    assert_string_equal(sum.best[0].size, "2^20");
    assert_true(sum.best[0].median_ms == 0.40);
    assert_string_equal(sum.best[1].size, "2^28");
    assert_true(sum.best[1].median_ms == 7.5);
    assert_true(store_exercise_summary_get(s, "matmul", &sum, &e));
    assert_true(sum.runs == 0 && sum.nbest == 0);
    store_close(s);
}

/* A lab forgotten between a run's start and its rows: the rows and the
 * milestone are not written, and the writer is told why; rows an older
 * cudalab left for a forgotten run go with the next reset. */
static void test_reset_during_a_run(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 32];
    snprintf(d, sizeof d, "%s/reset", dir);
    store *s = NULL;
    char notice[512];
    cl_err e = {{0}};
    assert_true(store_open(d, &s, notice, sizeof notice, &e));
    store_run_info info = {.lab = "reduction", .origin = "test"};
    int64_t run = 0, other = 0;
    assert_true(store_run_begin(s, &info, &run, &e));
    store_run_info info2 = {.lab = "matmul", .origin = "test"};
    assert_true(store_run_begin(s, &info2, &other, &e));
    assert_true(store_reset_lab(s, "reduction", &e));

    recorder rc;
    recorder_init(&rc, s, "run");
    rc.run_id = run;   /* as recorder_begin left it before the reset */
    snprintf(rc.lab, sizeof rc.lab, "reduction");
    run_result r = row_of("2^20", 1.0, RS_CORRECT);
    recorder_row(&rc, &r, NULL);
    assert_true(rc.stopped);
    if (!strstr(rc.failed, "no longer recorded"))
        fail_msg("the recorder: %s", rc.failed);
    memset(&e, 0, sizeof e);
    bool first = true;
    assert_false(store_milestone_reached(s, "reduction", "cpu100x", "x", run, 0, &first, &e));
    assert_false(first);
    assert_true(strstr(e.msg, "no longer recorded") != NULL);
    int64_t runs = 0, nrows = 0;
    assert_true(store_counts(s, &runs, &nrows, &e));
    assert_int_equal(runs, 1);
    assert_int_equal(nrows, 0);
    store_milestone *ms = NULL;
    size_t n = 9;
    assert_true(store_milestones(s, "reduction", &ms, &n, &e));
    assert_int_equal(n, 0);
    free(ms);
    /* The other lab's run still records. */
    assert_true(store_row_add(s, other, &r, NULL, NULL, &e));

    assert_int_equal(sqlite3_exec(s->db,
                                  "INSERT INTO rows (run_id, at, variant, kind, size, status,"
                                  " record) VALUES (999, 1, 'exercise', 'exercise', '2^20',"
                                  " 'correct', '{}')",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    assert_true(store_reset_lab(s, "scan", &e));
    assert_true(store_counts(s, &runs, &nrows, &e));
    assert_int_equal(nrows, 1);
    store_close(s);
}

/* A store of schema 2 (before the summary tables): the migration fills
 * the summary from the rows there, and writes keep it. */
static void test_summary_migrated(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 32], path[CL_PATH_MAX + 48];
    snprintf(d, sizeof d, "%s/schema2", dir);
    assert_int_equal(mkdir(d, 0700), 0);
    snprintf(path, sizeof path, "%s/%s", d, STORE_FILE);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    for (int k = 0; k < 2; k++)
        assert_int_equal(sqlite3_exec(db, store_migrations[k], NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(
        sqlite3_exec(db,
                     "PRAGMA user_version = 2;"
                     "INSERT INTO runs (id, started_at, lab, origin, seed, kernel_sha) VALUES"
                     " (1, 1, 'reduction', 'tui', '1', 'aaa'), (2, 2, 'reduction', 'run', '2', 'bbb'),"
                     " (3, 3, 'matmul', 'run', '3', NULL), (4, 4, 'reduction', 'run', '4', 'ccc');"
                     "INSERT INTO rows (id, run_id, at, variant, kind, size, status, median_ms,"
                     " record) VALUES"
                     " (1, 1, 10, 'exercise', 'exercise', '2^28', 'correct', 3.0, '{}'),"
                     " (2, 2, 11, 'exercise', 'exercise', '2^20', 'correct', 0.5, '{}'),"
                     " (3, 1, 12, 'exercise', 'exercise', '2^20', 'correct', 0.4, '{}'),"
                     " (4, 2, 13, 'exercise', 'exercise', '2^28', 'correct', 2.0, '{}'),"
                     " (5, 2, 14, 'cpu', 'cpu', '2^28', 'correct', 100.0, '{}'),"
                     " (6, 3, 15, 'exercise', 'exercise', '2^10', 'wrong', 0.1, '{}'),"
                     " (7, 4, 16, 'exercise', 'exercise', '2^28', 'correct', 2.0, '{}'),"
                     " (8, 4, 17, 'exercise', 'exercise', '2^24', 'correct', NULL, '{}');",
                     NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(db);

    store *s = NULL;
    char notice[512];
    cl_err e = {{0}};
    store_exercise_summary sum;
    for (int pass = 0; pass < 2; pass++) {
        /* First read as it is (a store that cannot be migrated: the summary
         * comes from the rows), then opened to write (migrated). */
        if (pass == 0) {
            assert_true(store_open_readonly(d, &s, &e));
        } else {
            store_close(s);
            assert_true(store_open(d, &s, notice, sizeof notice, &e));
            assert_true(strstr(notice, "updated from schema 2") != NULL);
        }
        assert_true(store_exercise_summary_get(s, "reduction", &sum, &e));
        assert_int_equal(sum.runs, 3);
        assert_int_equal(sum.nbest, 2);
        assert_string_equal(sum.best[0].size, "2^28");
        assert_string_equal(sum.best[0].kernel_sha, "bbb");
    }
    assert_true(store_exercise_summary_get(s, "reduction", &sum, &e));
    assert_int_equal(sum.runs, 3);
    assert_true(sum.latest_at == 17);
    assert_int_equal(sum.nbest, 2);
    assert_string_equal(sum.best[0].size, "2^28");   /* its first correct row came first */
    assert_true(sum.best[0].median_ms == 2.0);
    assert_string_equal(sum.best[0].kernel_sha, "bbb");   /* the earlier of two equals */
    assert_string_equal(sum.best[1].size, "2^20");
    assert_true(sum.best[1].median_ms == 0.4);
    assert_string_equal(sum.best[1].kernel_sha, "aaa");
    assert_true(store_exercise_summary_get(s, "matmul", &sum, &e));
    assert_true(sum.runs == 1 && sum.nbest == 0);

    /* Written on: a second row of run 4 is no new run; a faster one leads. */
    run_result r = row_of("2^28", 1.5, RS_CORRECT);
    assert_true(store_row_add(s, 4, &r, NULL, NULL, &e));
    assert_true(store_exercise_summary_get(s, "reduction", &sum, &e));
    assert_int_equal(sum.runs, 3);
    assert_true(sum.best[0].median_ms == 1.5);
    assert_string_equal(sum.best[0].kernel_sha, "ccc");
    /* Forgetting the lab forgets its summary. */
    assert_true(store_reset_lab(s, "reduction", &e));
    assert_true(store_exercise_summary_get(s, "reduction", &sum, &e));
    assert_true(sum.runs == 0 && sum.nbest == 0);
    store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_only),
        cmocka_unit_test(test_shm_left_behind),
        cmocka_unit_test(test_disk_full),
        cmocka_unit_test(test_attempts_are_runs),
        cmocka_unit_test(test_reset_during_a_run),
        cmocka_unit_test(test_summary_migrated),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

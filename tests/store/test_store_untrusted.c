/* test_store_untrusted.c - store_open_untrusted reads a learner's progress
 * store as untrusted input: a sound store reads as store_open_readonly's
 * does and leaves nothing behind; a link, a FIFO, an oversized database or
 * a sparse oversized -wal file is refused before anything is copied (no
 * big file appears in TMPDIR); a view (a recursive one among them), a
 * trigger, an unknown table or a changed table is refused naming it, in
 * bounded time; a statement that runs too long is interrupted. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "core/clock.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "support.h"

static char dir[CL_PATH_MAX], tmp[CL_PATH_MAX + 8];

static int setup(void **state)
{
    (void)state;
    if (!ts_tmpdir(dir, sizeof dir, "storeun"))
        return -1;
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    if (mkdir(tmp, 0700) != 0)
        return -1;
    return setenv("TMPDIR", tmp, 1);
}

static int teardown(void **state)
{
    (void)state;
    ts_rm_rf(dir);
    return 0;
}

/* A store in a fresh folder d with one quiz answered, closed. */
static void recorded(char *d, size_t n, const char *name)
{
    snprintf(d, n, "%s/%s", dir, name);
    assert_int_equal(mkdir(d, 0700), 0);
    store *s = NULL;
    char notice[256];
    cl_err e = {{0}};
    assert_true(store_open(d, &s, notice, sizeof notice, &e));
    assert_true(store_quiz_answer(s, "reduction", "warps", 2, true, &e));
    store_close(s);
}

/* Runs sql on d's database as a learner would, with SQLite's own tools. */
static void forge(const char *d, const char *sql)
{
    char db[CL_PATH_MAX + 32];
    snprintf(db, sizeof db, "%s/%s", d, STORE_FILE);
    sqlite3 *h = NULL;
    char *msg = NULL;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("forging %s: %s", db, msg);
    sqlite3_close(h);
}

/* TMPDIR holds nothing: no copy was left, none was made. */
static void tmp_is_empty(void)
{
    char *l = ts_listing(tmp);
    assert_string_equal(l, ".\n..\n");
    free(l);
}

/* store_open_untrusted on d is refused, saying want, within a few seconds. */
static void refused(const char *d, const char *want)
{
    store *s = NULL;
    cl_err e = {{0}};
    double t0 = clock_now_s();
    assert_false(store_open_untrusted(d, &s, &e));
    double took = clock_now_s() - t0;
    printf("  refused in %.3f s: %s\n", took, e.msg);
    assert_null(s);
    assert_true(ts_contains(e.msg, want));
    assert_true(took < STORE_UNTRUSTED_OPEN_S + 2);
    tmp_is_empty();
}

static int quiz_attempts(store *s)
{
    store_quiz *q = NULL;
    size_t n = 0;
    cl_err e = {{0}};
    assert_true(store_quizzes(s, "reduction", &q, &n, &e));
    int attempts = n == 1 ? q[0].attempts : -1;
    free(q);
    return attempts;
}

static void test_sound_store(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 16];
    recorded(d, sizeof d, "sound");
    char *before = ts_listing(d);
    store *s = NULL;
    cl_err e = {{0}};
    assert_true(store_open_untrusted(d, &s, &e));
    assert_non_null(s);
    assert_int_equal(quiz_attempts(s), 1);
    assert_false(store_quiz_answer(s, "reduction", "warps", 1, false, &e));
    store_close(s);
    char *after = ts_listing(d);
    assert_string_equal(after, before);
    free(before);
    free(after);
    tmp_is_empty();
    /* No store, or no folder: nothing recorded. */
    snprintf(d, sizeof d, "%s/none", dir);
    assert_true(store_open_untrusted(d, &s, &e));
    assert_null(s);
    assert_false(paths_is_dir(d));
}

/* A -wal file left without its -shm: its records are read from the copy. */
static void test_wal_read_from_copy(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 16], left[CL_PATH_MAX + 16];
    recorded(d, sizeof d, "walsrc");
    store *w = NULL;
    char notice[256];
    cl_err e = {{0}};
    assert_true(store_open(d, &w, notice, sizeof notice, &e));
    assert_true(store_quiz_answer(w, "reduction", "warps", 1, false, &e));
    snprintf(left, sizeof left, "%s/walonly", dir);
    assert_int_equal(mkdir(left, 0700), 0);
    ts_output o = {0};
    assert_int_equal(ts_shell(&o, false, "cp '%s/%s' '%s/%s-wal' '%s/'", d, STORE_FILE, d,
                              STORE_FILE, left), 0);
    ts_output_free(&o);
    store_close(w);
    char *before = ts_listing(left);
    store *s = NULL;
    assert_true(store_open_untrusted(left, &s, &e));
    assert_int_equal(quiz_attempts(s), 2);
    store_close(s);
    char *after = ts_listing(left);
    assert_string_equal(after, before);
    free(before);
    free(after);
    tmp_is_empty();
}

static void test_files_refused(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 16], p[CL_PATH_MAX + 48], real[CL_PATH_MAX + 16];
    /* a link to a store elsewhere */
    recorded(real, sizeof real, "real");
    snprintf(d, sizeof d, "%s/linked", dir);
    assert_int_equal(mkdir(d, 0700), 0);
    snprintf(p, sizeof p, "%s/%s", d, STORE_FILE);
    char target[CL_PATH_MAX + 48];
    snprintf(target, sizeof target, "%s/%s", real, STORE_FILE);
    assert_int_equal(symlink(target, p), 0);
    refused(d, "progress.db is a symbolic link");
    /* a FIFO: refused without blocking */
    snprintf(d, sizeof d, "%s/fifo", dir);
    assert_int_equal(mkdir(d, 0700), 0);
    snprintf(p, sizeof p, "%s/%s", d, STORE_FILE);
    assert_int_equal(mkfifo(p, 0600), 0);
    refused(d, "progress.db is not a regular file (a FIFO)");
    /* a database past the bound (sparse: it takes no room) */
    recorded(d, sizeof d, "bigdb");
    snprintf(p, sizeof p, "%s/%s", d, STORE_FILE);
    assert_int_equal(truncate(p, STORE_UNTRUSTED_MAX_BYTES + 1), 0);
    refused(d, "progress.db is 64 MiB (67108865 bytes), past the 64 MiB");
}

/* A 2 GiB sparse -wal file beside a small store: refused from its size,
 * nothing copied into TMPDIR. */
static void test_sparse_wal_refused(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 16], p[CL_PATH_MAX + 48];
    recorded(d, sizeof d, "sparsewal");
    snprintf(p, sizeof p, "%s/%s-wal", d, STORE_FILE);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(truncate(p, (off_t)2 << 30), 0);
    refused(d, "progress.db-wal is 2 GiB (2147483648 bytes), past the 64 MiB a learner's "
               "store may hold: refused without reading it");
    ts_output o = {0};
    assert_int_equal(ts_shell(&o, false, "du -sk '%s' | cut -f1", tmp), 0);
    assert_true(atoi(o.out) < 64);
    ts_output_free(&o);
}

static void test_schema_refused(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 16];
    /* The quiz answers as a view that recurses without end: reading it
     * would never finish. */
    recorded(d, sizeof d, "view");
    forge(d, "DROP TABLE quiz_answers;"
             "CREATE VIEW quiz_answers AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL"
             " SELECT x + 1 FROM n) SELECT x AS id, 'reduction' AS lab, 'warps' AS quiz,"
             " 0 AS choice, 1 AS correct, 0.0 AS at FROM n;");
    refused(d, "progress.db holds a view 'quiz_answers', which cudalab's store never has");
    recorded(d, sizeof d, "trigger");
    forge(d, "CREATE TRIGGER t AFTER INSERT ON places BEGIN SELECT 1; END;");
    refused(d, "progress.db holds a trigger 't', which cudalab's store never has");
    recorded(d, sizeof d, "table");
    forge(d, "CREATE TABLE extra (x);");
    refused(d, "progress.db holds a table 'extra' that cudalab's store (schema 3) does not "
               "have");
    recorded(d, sizeof d, "index");
    forge(d, "CREATE INDEX quiz_choice ON quiz_answers (choice);");
    refused(d, "holds an index 'quiz_choice'");
    /* A table of cudalab's name, changed: a default the learner chose. */
    recorded(d, sizeof d, "changed");
    forge(d, "DROP TABLE places; CREATE TABLE places (lab TEXT PRIMARY KEY,"
             " step INTEGER NOT NULL, at REAL NOT NULL DEFAULT (random()));");
    refused(d, "progress.db has a table 'places' that is not as cudalab makes it (schema 3)");
    /* Another program's file. */
    recorded(d, sizeof d, "foreign");
    forge(d, "PRAGMA application_id = 7;");
    refused(d, "is not cudalab's progress store");
}

/* A statement that would run for ever is interrupted after its budget. */
static void test_statement_budget(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 16];
    recorded(d, sizeof d, "budget");
    store *s = NULL;
    cl_err e = {{0}};
    assert_true(store_open_untrusted(d, &s, &e));
    sqlite3_stmt *st = NULL;
    assert_true(store_prepare(s, "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM"
                                 " n) SELECT count(*) FROM n", &st, &e));
    double t0 = clock_now_s();
    int rc = sqlite3_step(st);
    double took = clock_now_s() - t0;
    sqlite3_finalize(st);
    printf("  interrupted after %.3f s\n", took);
    assert_int_equal(rc, SQLITE_INTERRUPT);
    assert_true(took >= STORE_UNTRUSTED_BUDGET_S * 0.9 && took < STORE_UNTRUSTED_BUDGET_S + 2);
    /* the next statement has a budget of its own */
    assert_int_equal(quiz_attempts(s), 1);
    store_close(s);
    tmp_is_empty();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sound_store),
        cmocka_unit_test(test_wal_read_from_copy),
        cmocka_unit_test(test_files_refused),
        cmocka_unit_test(test_sparse_wal_refused),
        cmocka_unit_test(test_schema_refused),
        cmocka_unit_test(test_statement_budget),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* test_store_readonly.c - store_open_readonly reads the progress store and
 * changes nothing on disk: no database, -wal or -shm file created, no
 * folder made, the file's bytes the same; it reads through the -wal file
 * while another process has the store open, and from a private copy when a
 * -wal file was left without its -shm; it refuses a newer schema. */
#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <setjmp.h>
#include <cmocka.h>

#include "core/strbuf.h"
#include "store/store.h"
#include "support.h"

static char dir[CL_PATH_MAX];

static int setup(void **state)
{
    (void)state;
    return ts_tmpdir(dir, sizeof dir, "storero") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ts_rm_rf(dir);
    return 0;
}

/* A store in a fresh folder d with one quiz answered right, closed. */
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

static void test_reads_and_changes_nothing(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 16], db[CL_PATH_MAX + 32], copy[CL_PATH_MAX + 32];
    recorded(d, sizeof d, "closed");
    snprintf(db, sizeof db, "%s/%s", d, STORE_FILE);
    snprintf(copy, sizeof copy, "%s/before.db", dir);
    ts_output o = {0};
    assert_int_equal(ts_shell(&o, false, "cp '%s' '%s'", db, copy), 0);
    ts_output_free(&o);
    char *before = ts_listing(d);
    store *s = NULL;
    cl_err e = {{0}};
    assert_true(store_open_readonly(d, &s, &e));
    assert_non_null(s);
    assert_int_equal(quiz_attempts(s), 1);
    /* Writing is refused: the connection is read-only. */
    assert_false(store_quiz_answer(s, "reduction", "warps", 1, false, &e));
    store_close(s);
    char *after = ts_listing(d);
    assert_string_equal(after, before);
    assert_true(ts_same_file(db, copy));
    free(before);
    free(after);
}

static void test_nothing_recorded(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 16];
    snprintf(d, sizeof d, "%s/none/deeper", dir);
    store *s = NULL;
    cl_err e = {{0}};
    assert_true(store_open_readonly(d, &s, &e));
    assert_null(s);
    assert_false(paths_is_dir(d));           /* no folder made */
    /* An empty database file: nothing recorded either, and left as it is. */
    snprintf(d, sizeof d, "%s/empty", dir);
    assert_int_equal(mkdir(d, 0700), 0);
    char db[CL_PATH_MAX + 32];
    snprintf(db, sizeof db, "%s/%s", d, STORE_FILE);
    assert_true(ts_write(db, ""));
    assert_true(store_open_readonly(d, &s, &e));
    assert_null(s);
    char *l = ts_listing(d);
    assert_string_equal(l, ".\n..\n" STORE_FILE "\n");
    free(l);
}

/* Another process has the store open and has written: the answer is read
 * through its -wal file. */
static void test_while_open_elsewhere(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 16];
    recorded(d, sizeof d, "live");
    store *w = NULL;
    char notice[256];
    cl_err e = {{0}};
    assert_true(store_open(d, &w, notice, sizeof notice, &e));
    assert_true(store_quiz_answer(w, "reduction", "warps", 1, false, &e));
    char *before = ts_listing(d);
    assert_true(ts_contains(before, STORE_FILE "-wal"));
    store *s = NULL;
    assert_true(store_open_readonly(d, &s, &e));
    assert_non_null(s);
    assert_int_equal(quiz_attempts(s), 2);
    store_close(s);
    char *after = ts_listing(d);
    assert_string_equal(after, before);
    free(before);
    free(after);
    store_close(w);
}

/* A -wal file left without its -shm (a writer killed, its -shm removed
 * since): the records only the -wal holds are read, from a private copy,
 * and the folder is left byte for byte. */
static void test_wal_without_shm(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 16], left[CL_PATH_MAX + 16];
    recorded(d, sizeof d, "walonly-src");
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
    assert_string_equal(before, ".\n..\n" STORE_FILE "\n" STORE_FILE "-wal\n");
    char db[CL_PATH_MAX + 32], copy[CL_PATH_MAX + 32];
    snprintf(db, sizeof db, "%s/%s-wal", left, STORE_FILE);
    snprintf(copy, sizeof copy, "%s/wal-before", dir);
    assert_int_equal(ts_shell(&o, false, "cp '%s' '%s'", db, copy), 0);
    ts_output_free(&o);
    store *s = NULL;
    assert_true(store_open_readonly(left, &s, &e));
    assert_non_null(s);
    assert_int_equal(quiz_attempts(s), 2);   /* the second answer is only in the -wal */
    assert_false(store_quiz_answer(s, "reduction", "warps", 1, false, &e));
    store_close(s);
    char *after = ts_listing(left);
    assert_string_equal(after, before);
    assert_true(ts_same_file(db, copy));
    free(before);
    free(after);
}

static void test_refusals(void **state)
{
    (void)state;
    char d[CL_PATH_MAX + 16], db[CL_PATH_MAX + 32];
    recorded(d, sizeof d, "newer");
    snprintf(db, sizeof db, "%s/%s", d, STORE_FILE);
    sqlite3 *h = NULL;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    store *s = NULL;
    cl_err e = {{0}};
    assert_false(store_open_readonly(d, &s, &e));
    assert_true(ts_contains(e.msg, "newer cudalab"));
    snprintf(d, sizeof d, "%s/junk", dir);
    assert_int_equal(mkdir(d, 0700), 0);
    snprintf(db, sizeof db, "%s/%s", d, STORE_FILE);
    assert_true(ts_write(db, "this is not a database, not even close to one......"));
    assert_false(store_open_readonly(d, &s, &e));
    assert_true(ts_contains(e.msg, "cannot read"));
    char *l = ts_listing(d);
    assert_string_equal(l, ".\n..\n" STORE_FILE "\n");   /* not moved aside, nothing added */
    free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_and_changes_nothing),
        cmocka_unit_test(test_nothing_recorded),
        cmocka_unit_test(test_while_open_elsewhere),
        cmocka_unit_test(test_wal_without_shm),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

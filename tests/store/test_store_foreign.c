/* test_store_foreign.c - an SQLite file at the store's path that is not
 * cudalab's (another program's tables, another application_id, a
 * user_version and nothing else, one in WAL mode) is left byte for byte as
 * it was by every way in: store_open (the TUI's and the CLI's), the
 * read-only open (`cudalab grade`), `cudalab progress` and `cudalab run`,
 * each saying what it found, where, and what to do.  A store an older
 * cudalab made (cudalab's tables, no mark) is adopted and marked. */
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
#include "store/store_internal.h"
#include "support.h"

static char dir[CL_PATH_MAX];

static int setup(void **state)
{
    (void)state;
    return ts_tmpdir(dir, sizeof dir, "storeforeign") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ts_rm_rf(dir);
    return 0;
}

static void sql(const char *path, const char *text)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, text, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", text, msg);
    sqlite3_close(db);
}

static const struct foreign {
    const char *name, *sql, *said;   /* what is made, and what the message says it is */
} foreigns[] = {
    {"tables", "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);"
               "INSERT INTO users (name) VALUES ('ada'), ('grace');",
     "tables cudalab does not make (users)"},
    {"appid", "PRAGMA application_id = 305419896; CREATE TABLE t (x);",
     "another program (application_id 0x12345678)"},
    {"appid-with-our-tables", "PRAGMA application_id = 1; CREATE TABLE meta (k, v);"
                              "CREATE TABLE runs (id); CREATE TABLE rows (id);",
     "application_id 0x00000001"},
    {"version", "PRAGMA user_version = 7;", "no tables and user_version 7"},
    {"wal", "PRAGMA journal_mode = WAL; CREATE TABLE notes (body TEXT);"
            "INSERT INTO notes VALUES ('mine');",
     "tables cudalab does not make (notes)"},
    {"some-of-ours", "CREATE TABLE runs (id); CREATE TABLE rows (id); CREATE TABLE extra (z);",
     "tables cudalab does not make (runs, rows, extra)"},
};

/* The message names the file, says what it is and what to do. */
static void says_what(const char *msg, const char *path, const struct foreign *f)
{
    if (!strstr(msg, path) || !strstr(msg, "is not cudalab's progress store") ||
        !strstr(msg, f->said) || !strstr(msg, "--data") || !strstr(msg, "left as it is"))
        fail_msg("%s: the message: %s", f->name, msg);
}

static void test_left_as_it_is(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof foreigns / sizeof foreigns[0]; i++) {
        const struct foreign *f = &foreigns[i];
        char d[CL_PATH_MAX + 32], path[CL_PATH_MAX + 48], copy[CL_PATH_MAX + 48];
        snprintf(d, sizeof d, "%s/%s", dir, f->name);
        assert_int_equal(mkdir(d, 0700), 0);
        snprintf(path, sizeof path, "%s/%s", d, STORE_FILE);
        snprintf(copy, sizeof copy, "%s/%s.db", dir, f->name);
        sql(path, f->sql);
        ts_output o = {0};
        assert_int_equal(ts_shell(&o, false, "cp '%s' '%s'", path, copy), 0);
        char *before = ts_listing(d);

        /* The TUI and the CLI open with store_open. */
        store *s = NULL;
        char notice[1024];
        cl_err e = {{0}};
        assert_false(store_open(d, &s, notice, sizeof notice, &e));
        assert_null(s);
        says_what(e.msg, path, f);
        /* `cudalab grade` reads with store_open_readonly. */
        memset(&e, 0, sizeof e);
        assert_false(store_open_readonly(d, &s, &e));
        says_what(e.msg, path, f);
        /* The commands. */
        setenv("CUDALAB_DATA", d, 1);
        assert_int_not_equal(ts_shell(&o, false, "'%s' progress", ts_exe()), 0);
        says_what(o.err, path, f);
        assert_string_equal(o.out, "");
        ts_shell(&o, false, "'%s' run reduction --size 2^10", ts_exe());
        says_what(o.err, path, f);
        assert_true(strstr(o.out, "cpu") != NULL);   /* the run ran */
        unsetenv("CUDALAB_DATA");
        ts_output_free(&o);

        if (!ts_same_file(path, copy))
            fail_msg("%s: %s changed", f->name, path);
        /* Nothing beside it but the lock every writable open takes. */
        char *after = ts_listing(d);
        char *lock = strstr(after, STORE_FILE ".lock\n");
        if (lock)
            memmove(lock, lock + strlen(STORE_FILE ".lock\n"),
                    strlen(lock + strlen(STORE_FILE ".lock\n")) + 1);
        if (strcmp(after, before) != 0)
            fail_msg("%s: the folder held\n%sand now holds\n%s", f->name, before, after);
        free(before);
        free(after);
    }
}

static int pragma(store *s, const char *text)
{
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(s->db, text, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Stores of every earlier schema, made without the mark, and one of this
 * schema made by a cudalab from before the mark: opened, kept, marked. */
static void test_adopts_older_stores(void **state)
{
    (void)state;
    for (int v = 1; v <= STORE_SCHEMA_VERSION; v++) {
        char d[CL_PATH_MAX + 32], path[CL_PATH_MAX + 48];
        snprintf(d, sizeof d, "%s/older-%d", dir, v);
        assert_int_equal(mkdir(d, 0700), 0);
        snprintf(path, sizeof path, "%s/%s", d, STORE_FILE);
        sqlite3 *db = NULL;
        assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
        for (int k = 0; k < v; k++)
            assert_int_equal(sqlite3_exec(db, store_migrations[k], NULL, NULL, NULL), SQLITE_OK);
        char set[160];
        snprintf(set, sizeof set,
                 "PRAGMA user_version = %d; INSERT INTO runs (id, started_at, lab, origin, seed)"
                 " VALUES (1, 1700000000, 'reduction', 'tui', '5');",
                 v);
        assert_int_equal(sqlite3_exec(db, set, NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(db);

        store *s = NULL;
        char notice[512];
        cl_err e = {{0}};
        if (!store_open(d, &s, notice, sizeof notice, &e))
            fail_msg("schema %d: %s", v, e.msg);
        assert_int_equal(pragma(s, "PRAGMA application_id"), STORE_APP_ID);
        assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
        int64_t runs = 0, rows = 0;
        assert_true(store_counts(s, &runs, &rows, &e));
        assert_int_equal(runs, 1);
        store_close(s);
    }
    /* A new store is marked from its first transaction. */
    char d[CL_PATH_MAX + 32];
    snprintf(d, sizeof d, "%s/new", dir);
    store *s = NULL;
    char notice[512];
    cl_err e = {{0}};
    assert_true(store_open(d, &s, notice, sizeof notice, &e));
    assert_int_equal(pragma(s, "PRAGMA application_id"), STORE_APP_ID);
    store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_left_as_it_is),
        cmocka_unit_test(test_adopts_older_stores),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

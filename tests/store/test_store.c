/* test_store.c - the progress store: each record written and read back,
 * migrations from every earlier schema, and the bad conditions (a corrupt
 * file, a newer schema, a data folder that cannot be written, two writers
 * at once). */
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "core/digest.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "support.h"

static char dir[CL_PATH_MAX];

static int setup(void **state)
{
    (void)state;
    return ts_tmpdir(dir, sizeof dir, "store") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ts_rm_rf(dir);
    return 0;
}

/* A fresh folder for one test, under dir. */
static void fresh(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
    ts_rm_rf(out);
    assert_int_equal(mkdir(out, 0700), 0);
}

static store *open_in(const char *d)
{
    store *s = NULL;
    char notice[512];
    cl_err e = {{0}};
    if (!store_open(d, &s, notice, sizeof notice, &e))
        fail_msg("store_open(%s): %s", d, e.msg);
    return s;
}

static run_result make_row(const char *variant, result_kind kind, double ms, double x_cpu)
{
    run_result r;
    run_result_init(&r);
    snprintf(r.variant, sizeof r.variant, "%s", variant);
    snprintf(r.label, sizeof r.label, "%s", variant);
    snprintf(r.size, sizeof r.size, "2^28");
    r.kind = kind;
    r.status = RS_CORRECT;
    r.median_ms = ms;
    r.samples = 20;
    r.gbps = 1000.0;
    r.speedup_cpu = x_cpu;
    r.seed = 12345678901234567ull;
    return r;
}

static void test_roundtrip(void **state)
{
    (void)state;
    char d[CL_PATH_MAX];
    fresh(d, sizeof d, "roundtrip");
    store *s = open_in(d);
    cl_err e = {{0}};
    assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);

    device_info dev = {.present = true, .cc_major = 9, .cc_minor = 0, .driver_version = 13000};
    snprintf(dev.name, sizeof dev.name, "NVIDIA H100");
    const char *kernel = "extern \"C\" __global__ void k() {}\n";
    store_run_info info = {.lab = "reduction", .origin = "test", .seed = 7, .dev = &dev,
                           .kernel_path = "/w/reduction/starter.cu", .kernel_text = kernel,
                           .launcher_path = "/w/reduction/starter.lua",
                           .launcher_text = "return function(args) end\n"};
    int64_t run = 0, row = 0;
    assert_true(store_run_begin(s, &info, &run, &e));
    run_result ex = make_row("exercise", RK_EXERCISE, 1.25, 223.0);
    run_result cpu = make_row("cpu", RK_CPU, 280.0, 0.0);
    assert_true(store_row_add(s, run, &cpu, NULL, NULL, &e));
    assert_true(store_row_add(s, run, &ex, NULL, &row, &e));
    assert_true(row > 0);

    bool first = false;
    assert_true(store_milestone_reached(s, "reduction", "100x", "223x >= 100x at 2^28", run, row,
                                        &first, &e));
    assert_true(first);
    assert_true(store_milestone_reached(s, "reduction", "100x", "300x", run, row, &first, &e));
    assert_false(first);

    assert_true(store_quiz_answer(s, "reduction", "warps", 1, false, &e));
    assert_true(store_quiz_answer(s, "reduction", "warps", 2, true, &e));
    assert_true(store_hint_revealed(s, "reduction", 0, &e));
    assert_true(store_hint_revealed(s, "reduction", 2, &e));
    assert_true(store_hint_revealed(s, "reduction", 0, &e));
    assert_true(store_place_set(s, "reduction", 4, &e));
    store_close(s);

    /* Everything is there after a reopen. */
    s = open_in(d);
    int step = -1;
    assert_true(store_place_get(s, "reduction", &step, &e));
    assert_int_equal(step, 4);
    assert_false(store_place_get(s, "matmul", &step, &e));
    char last[64];
    assert_true(store_last_lab(s, last, sizeof last, &e));
    assert_string_equal(last, "reduction");

    store_milestone *ms = NULL;
    size_t n = 0;
    assert_true(store_milestones(s, "reduction", &ms, &n, &e));
    assert_int_equal(n, 1);
    assert_string_equal(ms[0].id, "100x");
    assert_string_equal(ms[0].shown, "223x >= 100x at 2^28");
    assert_true(ms[0].run_id == run && ms[0].row_id == row);
    free(ms);

    store_quiz *qs = NULL;
    assert_true(store_quizzes(s, "reduction", &qs, &n, &e));
    assert_int_equal(n, 1);
    assert_string_equal(qs[0].id, "warps");
    assert_int_equal(qs[0].attempts, 2);
    assert_true(qs[0].answered_right && qs[0].last_correct);
    assert_int_equal(qs[0].last_choice, 2);
    free(qs);

    int *hints = NULL;
    assert_true(store_hints(s, "reduction", &hints, &n, &e));
    assert_int_equal(n, 2);
    assert_true(hints[0] == 0 && hints[1] == 2);
    free(hints);

    store_row *rows = NULL;
    assert_true(store_latest_exercise_run(s, "reduction", &rows, &n, &e));
    assert_int_equal(n, 2);
    assert_string_equal(rows[0].r.variant, "cpu");
    assert_string_equal(rows[1].r.variant, "exercise");
    assert_true(rows[1].r.median_ms == 1.25 && rows[1].r.speedup_cpu == 223.0);
    assert_true(rows[1].r.seed == 12345678901234567ull);
    assert_true(rows[1].r.gbps == 1000.0 && rows[1].r.tflops < 0);
    char sha[DIGEST_HEX_LEN + 1];
    assert_true(digest_sha256_hex(kernel, strlen(kernel), sha));
    assert_string_equal(rows[1].kernel_sha, sha);
    free(rows);

    char *text = store_source_text(s, sha, &e);
    assert_non_null(text);
    assert_string_equal(text, kernel);
    free(text);

    /* History across runs; a run without an exercise row is not "latest". */
    assert_true(store_run_begin(s, &info, &run, &e));
    ex.median_ms = 1.0;
    assert_true(store_row_add(s, run, &ex, NULL, NULL, &e));
    store_run_info plain = {.lab = "reduction", .origin = "test"};
    assert_true(store_run_begin(s, &plain, &run, &e));
    assert_true(store_row_add(s, run, &cpu, NULL, NULL, &e));
    assert_true(store_exercise_history(s, "reduction", &rows, &n, &e));
    assert_int_equal(n, 2);
    assert_true(rows[0].r.median_ms == 1.25 && rows[1].r.median_ms == 1.0);
    free(rows);
    assert_true(store_latest_exercise_run(s, "reduction", &rows, &n, &e));
    assert_int_equal(n, 1);
    assert_true(rows[0].r.median_ms == 1.0);
    free(rows);

    /* Forgetting one lab leaves the others. */
    assert_true(store_place_set(s, "matmul", 1, &e));
    assert_true(store_reset_lab(s, "reduction", &e));
    assert_true(store_milestones(s, "reduction", &ms, &n, &e));
    assert_int_equal(n, 0);
    free(ms);
    int64_t nruns = -1, nrows = -1;
    assert_true(store_counts(s, &nruns, &nrows, &e));
    assert_true(nruns == 0 && nrows == 0);
    assert_null(store_source_text(s, sha, &e));
    assert_true(store_place_get(s, "matmul", &step, &e));
    store_close(s);
}

/* A database at schema version v (0: empty), made the way that version's
 * cudalab made it, holding a run, a row and an answer when v >= 1. */
static void make_old(const char *path, int v)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    for (int k = 0; k < v; k++)
        assert_int_equal(sqlite3_exec(db, store_migrations[k], NULL, NULL, NULL), SQLITE_OK);
    char set[64];
    snprintf(set, sizeof set, "PRAGMA user_version = %d", v);
    assert_int_equal(sqlite3_exec(db, set, NULL, NULL, NULL), SQLITE_OK);
    if (v >= 1) {
        assert_int_equal(
            sqlite3_exec(db,
                         "INSERT INTO runs (id, started_at, lab, origin, seed)"
                         " VALUES (1, 1700000000, 'reduction', 'tui', '5');"
                         "INSERT INTO rows (run_id, at, variant, kind, size, status, record)"
                         " VALUES (1, 1700000001, 'exercise', 'exercise', '2^28', 'correct',"
                         " '{\"variant\":\"exercise\",\"kind\":\"exercise\",\"status\":"
                         "\"correct\",\"median_ms\":2.5,\"samples\":9}');"
                         "INSERT INTO quiz_answers (lab, quiz, choice, correct, at)"
                         " VALUES ('reduction', 'warps', 1, 1, 1700000002);",
                         NULL, NULL, NULL),
            SQLITE_OK);
    }
    sqlite3_close(db);
}

/* A schema-1 store opened only to read is not migrated: it has no hints
 * table, and reading the hints gives none instead of an error. */
static void test_readonly_old_schema(void **state)
{
    (void)state;
    char d[CL_PATH_MAX], path[CL_PATH_MAX + 16];
    fresh(d, sizeof d, "ro-schema1");
    snprintf(path, sizeof path, "%s/%s", d, STORE_FILE);
    make_old(path, 1);
    store *s = NULL;
    cl_err e = {{0}};
    if (!store_open_readonly(d, &s, &e))
        fail_msg("schema 1, read-only: %s", e.msg);
    int *hints = NULL;
    size_t n = 5;
    if (!store_hints(s, "reduction", &hints, &n, &e))
        fail_msg("hints of a schema-1 store: %s", e.msg);
    assert_int_equal(n, 0);
    free(hints);
    store_close(s);
}

static void test_migrations(void **state)
{
    (void)state;
    for (int v = 0; v < STORE_SCHEMA_VERSION; v++) {
        char d[CL_PATH_MAX], path[CL_PATH_MAX + 16], name[32];
        snprintf(name, sizeof name, "schema%d", v);
        fresh(d, sizeof d, name);
        snprintf(path, sizeof path, "%s/%s", d, STORE_FILE);
        make_old(path, v);
        store *s = NULL;
        char notice[512];
        cl_err e = {{0}};
        if (!store_open(d, &s, notice, sizeof notice, &e))
            fail_msg("schema %d: %s", v, e.msg);
        assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
        if (v >= 1)
            assert_true(ts_contains(notice, "updated from schema"));
        int64_t runs = 0, rows = 0;
        assert_true(store_counts(s, &runs, &rows, &e));
        assert_int_equal(runs, v >= 1 ? 1 : 0);
        assert_int_equal(rows, v >= 1 ? 1 : 0);
        if (v >= 1) {
            store_row *r = NULL;
            size_t n = 0;
            assert_true(store_exercise_history(s, "reduction", &r, &n, &e));
            assert_int_equal(n, 1);
            assert_true(r[0].r.median_ms == 2.5);
            /* The newest features work on a migrated database. */
            assert_true(store_hint_revealed(s, "reduction", 1, &e));
            assert_true(store_row_add(s, 1, &r[0].r, "wrong", NULL, &e));
            free(r);
        }
        store_close(s);
    }
}

static void test_corrupt(void **state)
{
    (void)state;
    char d[CL_PATH_MAX], path[CL_PATH_MAX + 16];
    fresh(d, sizeof d, "corrupt");
    snprintf(path, sizeof path, "%s/%s", d, STORE_FILE);
    assert_true(ts_write(path, "this is not a database, it is a text file that lost its way\n"));
    store *s = NULL;
    char notice[1024];
    cl_err e = {{0}};
    assert_true(store_open(d, &s, notice, sizeof notice, &e));
    assert_true(ts_contains(notice, "damaged"));
    assert_true(ts_contains(notice, ".corrupt-"));
    int64_t runs = -1, rows = -1;
    assert_true(store_counts(s, &runs, &rows, &e));
    assert_true(runs == 0 && rows == 0);
    store_close(s);
    /* The damaged file is kept, aside, as it was. */
    const char *moved = strstr(notice, "aside to ");
    assert_non_null(moved);
    char aside[CL_PATH_MAX + 64];
    snprintf(aside, sizeof aside, "%s", moved + strlen("aside to "));
    char *sp = strchr(aside, ' ');
    assert_non_null(sp);
    *sp = '\0';
    char *was = ts_read(aside);
    assert_non_null(was);
    assert_true(ts_contains(was, "lost its way"));
    free(was);
}

/* A damaged page inside a file whose header is sound: reading the
 * milestones says so, instead of showing the ones before the damage, and
 * opening the store moves the file aside. */
static void test_damaged_page(void **state)
{
    (void)state;
    char d[CL_PATH_MAX], path[CL_PATH_MAX + 16];
    fresh(d, sizeof d, "damaged-page");
    snprintf(path, sizeof path, "%s/%s", d, STORE_FILE);
    store *s = open_in(d);
    cl_err e = {{0}};
    char id[32], shown[200];
    for (int i = 0; i < 400; i++) {
        snprintf(id, sizeof id, "m%03d", i);
        snprintf(shown, sizeof shown, "%0150d", i);    /* rows long enough to fill pages */
        bool first = false;
        assert_true(store_milestone_reached(s, "reduction", id, shown, 0, 0, &first, &e));
    }
    store_milestone *ms = NULL;
    size_t n = 0;
    assert_true(store_milestones(s, "reduction", &ms, &n, &e));
    assert_int_equal(n, 400);
    free(ms);
    store_close(s);

    /* a leaf page of the milestones table, overwritten */
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT max(pageno) FROM dbstat WHERE name = "
                                            "'milestones' AND pagetype = 'leaf'", -1, &st, NULL),
                     SQLITE_OK);
    long page = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &st, NULL), SQLITE_OK);
    long size = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    sqlite3_close(db);
    assert_true(page > 1 && size > 0);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, (page - 1) * size, SEEK_SET), 0);
    for (long k = 0; k < size; k++)
        fputc(0xA5, f);
    fclose(f);

    /* Read through a connection that skips the check made on opening (as
     * a process that had the store open before the damage reads it). */
    s = calloc(1, sizeof *s);
    assert_non_null(s);
    snprintf(s->path, sizeof s->path, "%s", path);
    assert_int_equal(sqlite3_open(path, &s->db), SQLITE_OK);
    ms = NULL;
    n = 7;
    memset(&e, 0, sizeof e);
    assert_false(store_milestones(s, "reduction", &ms, &n, &e));
    assert_null(ms);
    assert_int_equal(n, 0);
    if (!ts_contains(e.msg, "cannot read the milestones reached") || !ts_contains(e.msg, path))
        fail_msg("the message: %s", e.msg);
    store_close(s);

    /* Opening it finds the damage and moves the file aside. */
    char notice[1024];
    s = NULL;
    assert_true(store_open(d, &s, notice, sizeof notice, &e));
    if (!ts_contains(notice, "was damaged") || !ts_contains(notice, ".corrupt-"))
        fail_msg("the notice: %s", notice);
    assert_true(store_milestones(s, "reduction", &ms, &n, &e));
    assert_int_equal(n, 0);
    free(ms);
    store_close(s);
}

static void test_newer(void **state)
{
    (void)state;
    char d[CL_PATH_MAX], path[CL_PATH_MAX + 16];
    fresh(d, sizeof d, "newer");
    snprintf(path, sizeof path, "%s/%s", d, STORE_FILE);
    make_old(path, STORE_SCHEMA_VERSION);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char set[64];
    snprintf(set, sizeof set, "PRAGMA user_version = %d", STORE_SCHEMA_VERSION + 5);
    assert_int_equal(sqlite3_exec(db, set, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);

    store *s = NULL;
    char notice[512], want[96];
    cl_err e = {{0}};
    assert_false(store_open(d, &s, notice, sizeof notice, &e));
    assert_null(s);
    snprintf(want, sizeof want, "schema %d; this cudalab knows up to %d", STORE_SCHEMA_VERSION + 5,
             STORE_SCHEMA_VERSION);
    assert_true(ts_contains(e.msg, want));
    /* Left as it was: not downgraded, not moved. */
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), STORE_SCHEMA_VERSION + 5);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static void test_unwritable(void **state)
{
    (void)state;
    /* A data folder below a regular file can never be made. */
    char file[CL_PATH_MAX + 16], d[CL_PATH_MAX + 32];
    snprintf(file, sizeof file, "%s/plainfile", dir);
    assert_true(ts_write(file, "x"));
    snprintf(d, sizeof d, "%s/cudalab", file);
    store *s = NULL;
    char notice[512];
    cl_err e = {{0}};
    assert_false(store_open(d, &s, notice, sizeof notice, &e));
    assert_true(ts_contains(e.msg, "progress is not saved"));
    assert_true(ts_contains(e.msg, "cannot be created"));
    /* What doctor says is what opening says, word for word. */
    char why[CL_ERR_MAX];
    bool missing = true;
    assert_false(store_dir_usable(d, &missing, why, sizeof why));
    assert_string_equal(why, e.msg);
    char want[CL_PATH_MAX * 2 + 128];
    snprintf(want, sizeof want,
             "progress is not saved: the data folder %s cannot be created (%s is not a folder)", d,
             file);
    assert_string_equal(e.msg, want);
    char later[CL_PATH_MAX + 16];
    snprintf(later, sizeof later, "%s/later", dir);
    assert_true(store_dir_usable(later, &missing, why, sizeof why));
    assert_true(missing);

    /* A folder without write permission (only meaningful when not root). */
    if (geteuid() != 0) {
        char ro[CL_PATH_MAX];
        fresh(ro, sizeof ro, "readonly");
        assert_int_equal(chmod(ro, 0500), 0);
        assert_false(store_open(ro, &s, notice, sizeof notice, &e));
        assert_true(ts_contains(e.msg, "cannot be written"));
        chmod(ro, 0700);
    }
}

/* Records n rows of its own run in d; exits 0 when every write worked. */
static int writer(const char *d, const char *lab, int n)
{
    store *s = NULL;
    char notice[256];
    cl_err e = {{0}};
    if (!store_open(d, &s, notice, sizeof notice, &e)) {
        fprintf(stderr, "writer: %s\n", e.msg);
        return 1;
    }
    store_run_info info = {.lab = lab, .origin = "test"};
    int64_t run = 0;
    if (!store_run_begin(s, &info, &run, &e)) {
        fprintf(stderr, "writer: %s\n", e.msg);
        return 1;
    }
    run_result r = make_row("exercise", RK_EXERCISE, 1.0, 10.0);
    for (int i = 0; i < n; i++) {
        if (!store_row_add(s, run, &r, NULL, NULL, &e) ||
            !store_quiz_answer(s, lab, "q", i, i % 2 == 0, &e)) {
            fprintf(stderr, "writer: %s\n", e.msg);
            return 1;
        }
    }
    store_close(s);
    return 0;
}

static void test_two_writers(void **state)
{
    (void)state;
    char d[CL_PATH_MAX];
    fresh(d, sizeof d, "two");
    store_close(open_in(d));
    pid_t kid = fork();
    assert_true(kid >= 0);
    if (kid == 0)
        _exit(writer(d, "matmul", 150));
    int mine = writer(d, "reduction", 150);
    int status = 0;
    assert_int_equal(waitpid(kid, &status, 0), kid);
    assert_int_equal(mine, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    store *s = open_in(d);
    int64_t runs = 0, rows = 0;
    cl_err e = {{0}};
    assert_true(store_counts(s, &runs, &rows, &e));
    assert_int_equal(runs, 2);
    assert_int_equal(rows, 300);
    store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),   cmocka_unit_test(test_migrations),
        cmocka_unit_test(test_corrupt),     cmocka_unit_test(test_newer),
        cmocka_unit_test(test_damaged_page), cmocka_unit_test(test_readonly_old_schema),
        cmocka_unit_test(test_unwritable),  cmocka_unit_test(test_two_writers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

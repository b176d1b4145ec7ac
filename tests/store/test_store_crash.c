/* test_store_crash.c - a process recording runs is killed with SIGKILL at
 * random moments, 200 times; after each kill the database passes SQLite's
 * integrity check and holds every run and row whose write had returned. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "store/store.h"
#include "support.h"

#define KILLS 200
#define MAX_IDS 100000

/* The child: records runs of a few rows each, forever, reporting on fd
 * each id whose write returned ('r' run, 'w' row). */
static void child(const char *dir, int fd)
{
    store *s = NULL;
    char notice[512];
    cl_err e = {{0}};
    if (!store_open(dir, &s, notice, sizeof notice, &e))
        _exit(3);
    run_result r;
    run_result_init(&r);
    snprintf(r.variant, sizeof r.variant, "exercise");
    snprintf(r.size, sizeof r.size, "2^20");
    r.kind = RK_EXERCISE;
    r.status = RS_CORRECT;
    r.median_ms = 0.5;
    r.samples = 10;
    const char *text = "extern \"C\" __global__ void k(float *x) { x[0] = 1.0f; }\n";
    for (int k = 0;; k++) {
        store_run_info info = {.lab = k % 2 ? "reduction" : "matmul", .origin = "crash",
                               .seed = (uint64_t)k, .kernel_path = "starter.cu",
                               .kernel_text = text};
        int64_t run = 0;
        if (!store_run_begin(s, &info, &run, &e))
            _exit(4);
        char rec[17];
        rec[0] = 'r';
        memcpy(rec + 1, &run, 8);
        if (write(fd, rec, 9) != 9)
            _exit(5);
        for (int i = 0; i < 4; i++) {
            int64_t row = 0;
            r.median_ms = 0.5 + i;
            if (!store_row_add(s, run, &r, NULL, &row, &e))
                _exit(6);
            rec[0] = 'w';
            memcpy(rec + 1, &row, 8);
            if (write(fd, rec, 9) != 9)
                _exit(5);
        }
    }
}

/* The first of ids[0..n) that table does not hold, or -1. */
static int64_t first_missing(sqlite3 *db, const char *table, const int64_t *ids, size_t n)
{
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT 1 FROM %s WHERE id = ?1", table);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return n ? ids[0] : -1;
    int64_t missing = -1;
    for (size_t i = 0; i < n && missing < 0; i++) {
        sqlite3_bind_int64(st, 1, ids[i]);
        if (sqlite3_step(st) != SQLITE_ROW)
            missing = ids[i];
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return missing;
}

static void test_kill_while_writing(void **state)
{
    (void)state;
    char dir[CL_PATH_MAX], path[CL_PATH_MAX + 16];
    assert_true(ts_tmpdir(dir, sizeof dir, "crash"));
    snprintf(path, sizeof path, "%s/%s", dir, STORE_FILE);
    srand((unsigned)time(NULL));
    int64_t *runs = malloc(MAX_IDS * sizeof *runs), *rows = malloc(MAX_IDS * sizeof *rows);
    assert_true(runs && rows);
    size_t nruns = 0, nrows = 0;
    int early = 0;
    for (int kill_no = 0; kill_no < KILLS; kill_no++) {
        int p[2];
        assert_int_equal(pipe(p), 0);
        pid_t kid = fork();
        assert_true(kid >= 0);
        if (kid == 0) {
            close(p[0]);
            child(dir, p[1]);
        }
        close(p[1]);
        /* Somewhere between at once and 25 ms in: during the open, a
         * migration, a run, a row or a commit. */
        struct timespec t = {0, (long)(rand() % 25000) * 1000};
        nanosleep(&t, NULL);
        kill(kid, SIGKILL);
        int status = 0;
        waitpid(kid, &status, 0);
        if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
            if (WIFEXITED(status))
                fail_msg("kill %d: the writer stopped by itself with status %d", kill_no,
                         WEXITSTATUS(status));
            early++;
        }
        unsigned char rec[9];
        ssize_t got;
        while ((got = read(p[0], rec, sizeof rec)) == (ssize_t)sizeof rec) {
            int64_t id;
            memcpy(&id, rec + 1, 8);
            if (rec[0] == 'r' && nruns < MAX_IDS)
                runs[nruns++] = id;
            else if (rec[0] == 'w' && nrows < MAX_IDS)
                rows[nrows++] = id;
        }
        close(p[0]);

        sqlite3 *db = NULL;
        assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                         NULL),
                         SQLITE_OK);
        sqlite3_busy_timeout(db, 2000);
        sqlite3_stmt *st = NULL;
        assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL),
                         SQLITE_OK);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        const char *verdict = (const char *)sqlite3_column_text(st, 0);
        if (!verdict || strcmp(verdict, "ok") != 0)
            fail_msg("kill %d: integrity_check says %s", kill_no, verdict ? verdict : "(null)");
        sqlite3_finalize(st);
        int64_t gone = first_missing(db, "runs", runs, nruns);
        if (gone >= 0)
            fail_msg("kill %d: run %lld was committed but is gone", kill_no, (long long)gone);
        gone = first_missing(db, "rows", rows, nrows);
        if (gone >= 0)
            fail_msg("kill %d: row %lld was committed but is gone", kill_no, (long long)gone);
        sqlite3_close(db);
    }
    printf("%d kills: %zu runs and %zu rows committed, all present, integrity ok\n", KILLS, nruns,
           nrows);
    assert_true(nrows > 0);
    free(runs);
    free(rows);
    ts_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_kill_while_writing)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

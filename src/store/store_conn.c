/* store_conn.c - a connection's small pieces every store file uses: words
 * for SQLite's errors, statements run and stepped, transactions, and the
 * open store's accessors and close. */
#include "store/store.h"
#include "store/store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"

double store_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void store_explain(int rc, int errno_, const char *path, char *out, size_t cap)
{
    char dir[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir)
        *slash = '\0';
    int primary = rc & 0xff;
    if (primary == SQLITE_FULL || errno_ == ENOSPC || errno_ == EDQUOT)
        snprintf(out, cap, "the disk is full (the data folder %s, holding %s)", dir, path);
    else if (rc == SQLITE_READONLY_DBMOVED)
        snprintf(out, cap, "%s was moved away while this cudalab had it open", path);
    else if (primary == SQLITE_READONLY || primary == SQLITE_PERM || errno_ == EROFS)
        snprintf(out, cap, "%s cannot be written (%s)", path,
                 errno_ ? strerror(errno_) : "read-only");
    else if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB)
        snprintf(out, cap, "%s is damaged (%s)", path, sqlite3_errstr(rc));
    else if (primary == SQLITE_IOERR)
        snprintf(out, cap, "a disk I/O error on %s%s%s", path, errno_ ? ": " : "",
                 errno_ ? strerror(errno_) : "");
    else if (primary == SQLITE_CANTOPEN)
        snprintf(out, cap, "%s cannot be opened%s%s", path, errno_ ? ": " : "",
                 errno_ ? strerror(errno_) : "");
    else if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
        snprintf(out, cap, "%s is busy: another process kept it locked for over %d s", path,
                 STORE_BUSY_TIMEOUT_MS / 1000);
    else if (primary == SQLITE_INTERRUPT)
        snprintf(out, cap, "reading %s took too long (a learner's store is read for at most "
                           "%g s a statement, %g s when it is opened): stopped",
                 path, STORE_UNTRUSTED_BUDGET_S, STORE_UNTRUSTED_OPEN_S);
    else if (primary == SQLITE_NOMEM)
        snprintf(out, cap, "out of memory reading %s", path);
    else
        snprintf(out, cap, "%s: %s", path, sqlite3_errstr(rc));
}

bool store_fail(store *db, cl_err *err, const char *what)
{
    if (!db || !db->db)
        return err_set(err, "%s: no database", what);
    int rc = sqlite3_extended_errcode(db->db);
    char words[CL_ERR_MAX];
    if ((rc & 0xff) == SQLITE_ERROR || (rc & 0xff) == SQLITE_CONSTRAINT)
        snprintf(words, sizeof words, "%s: %s", db->path, sqlite3_errmsg(db->db));
    else
        store_explain(rc, sqlite3_system_errno(db->db), db->path, words, sizeof words);
    return err_set(err, "%s: %s", what, words);
}

bool store_writable(store *db, cl_err *err)
{
    if (!db->readonly)
        return true;
    return err_set(err, "progress not saved: %s", db->why);
}

bool store_exec(store *db, const char *sql, cl_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        err_set(err, "%s", msg ? msg : sqlite3_errmsg(db->db));
        sqlite3_free(msg);
        return false;
    }
    return true;
}

bool store_prepare(store *db, const char *sql, sqlite3_stmt **st, cl_err *err)
{
    if (db->budget_s > 0)
        db->deadline = clock_now_s() + db->budget_s;
    if (sqlite3_prepare_v2(db->db, sql, -1, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return store_fail(db, err, "progress store");
    }
    return true;
}

bool store_step_done(store *db, sqlite3_stmt *st, cl_err *err, const char *what)
{
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return store_fail(db, err, what);
    return true;
}

bool store_begin(store *db, cl_err *err)
{
    return store_exec(db, "BEGIN IMMEDIATE", err);
}

bool store_commit(store *db, cl_err *err)
{
    if (store_exec(db, "COMMIT", err))
        return true;
    store_rollback(db);
    return false;
}

void store_rollback(store *db)
{
    if (!sqlite3_get_autocommit(db->db))
        sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_bind_text(sqlite3_stmt *st, int col, const char *text)
{
    if (!text)
        return sqlite3_bind_null(st, col);
    return sqlite3_bind_text(st, col, text, -1, SQLITE_TRANSIENT);
}

void store_column_text(sqlite3_stmt *st, int col, char *out, size_t cap)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(out, cap, "%s", t ? (const char *)t : "");
}

const char *store_path(const store *db)
{
    return db->path;
}

int store_schema_version(store *db)
{
    sqlite3_stmt *st = NULL;
    int v = -1;
    if (sqlite3_prepare_v2(db->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Removes the private folder a read-only store's copy was read from
 * (store_readonly.c), with whatever SQLite left beside the copy. */
static void snapshot_remove(const char *dir)
{
    static const char *const names[] = {STORE_FILE, STORE_FILE "-wal", STORE_FILE "-shm",
                                        STORE_FILE "-journal"};
    char p[CL_PATH_MAX + 32];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
}

void store_close(store *db)
{
    if (!db)
        return;
    sqlite3_close(db->db);
    if (db->snapshot[0])
        snapshot_remove(db->snapshot);
    free(db);
}

bool store_readonly(const store *db)
{
    return db && db->readonly;
}

const char *store_readonly_why(const store *db)
{
    return db && db->readonly ? db->why : "";
}

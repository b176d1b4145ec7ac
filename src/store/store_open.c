/* store_open.c - opening the database: creating, migrating, refusing a
 * newer one, moving a corrupt one aside; and the helpers the other store
 * files share. */
#include "store/store.h"
#include "store/store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double store_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool store_fail(store *s, cl_err *e, const char *what)
{
    return err_set(e, "%s: %s", what, s && s->db ? sqlite3_errmsg(s->db) : "no database");
}

bool store_exec(store *s, const char *sql, cl_err *e)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        err_set(e, "%s", msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return false;
    }
    return true;
}

bool store_prepare(store *s, const char *sql, sqlite3_stmt **st, cl_err *e)
{
    if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return store_fail(s, e, "progress store");
    }
    return true;
}

bool store_step_done(store *s, sqlite3_stmt *st, cl_err *e, const char *what)
{
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return store_fail(s, e, what);
    return true;
}

bool store_begin(store *s, cl_err *e)
{
    return store_exec(s, "BEGIN IMMEDIATE", e);
}

bool store_commit(store *s, cl_err *e)
{
    if (store_exec(s, "COMMIT", e))
        return true;
    store_rollback(s);
    return false;
}

void store_rollback(store *s)
{
    if (!sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_bind_text(sqlite3_stmt *st, int i, const char *v)
{
    if (!v)
        return sqlite3_bind_null(st, i);
    return sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
}

void store_column_text(sqlite3_stmt *st, int i, char *out, size_t n)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(out, n, "%s", t ? (const char *)t : "");
}

const char *store_path(const store *s)
{
    return s->path;
}

int store_schema_version(store *s)
{
    sqlite3_stmt *st = NULL;
    int v = -1;
    if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

void store_close(store *s)
{
    if (!s)
        return;
    sqlite3_close(s->db);
    free(s);
}

/* Opens path read-write (creating it when create) with the connection's
 * settings; SQLite's result code in *rc. */
static store *connect(const char *path, bool create, int *rc)
{
    store *s = calloc(1, sizeof *s);
    if (!s) {
        *rc = SQLITE_NOMEM;
        return NULL;
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    *rc = sqlite3_open_v2(path, &s->db, flags, NULL);
    if (*rc == SQLITE_OK) {
        sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
        sqlite3_extended_result_codes(s->db, 1);
    }
    return s;
}

/* Reads the schema version and the list of tables: the first reads of a
 * file, where a file that is not a database, or whose header is damaged,
 * shows.  SQLite's primary result code. */
static int probe(store *s, int *version)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            *version = sqlite3_column_int(st, 0);
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(s->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
    return rc & 0xff;
}

static bool newer(store *s, int v, cl_err *e)
{
    return err_set(e, "%s was written by a newer cudalab (schema %d; this cudalab knows up to %d): "
                      "it is left as it is",
                   s->path, v, STORE_SCHEMA_VERSION);
}

/* Brings the database to STORE_SCHEMA_VERSION, one transaction a step
 * (another process may be migrating too: the version is read again inside
 * each transaction). */
static bool migrate(store *s, cl_err *e)
{
    for (;;) {
        int v = store_schema_version(s);
        if (v < 0)
            return store_fail(s, e, "cannot read the schema version");
        if (v > STORE_SCHEMA_VERSION)
            return newer(s, v, e);
        if (v == STORE_SCHEMA_VERSION)
            return true;
        if (!store_begin(s, e))
            return err_prefix(e, "cannot update %s", s->path);
        if (store_schema_version(s) != v) {
            store_rollback(s);
            continue;
        }
        char set[64];
        snprintf(set, sizeof set, "PRAGMA user_version = %d", v + 1);
        if (!store_exec(s, store_migrations[v], e) || !store_exec(s, set, e)) {
            store_rollback(s);
            return err_prefix(e, "cannot update %s to schema %d", s->path, v + 1);
        }
        if (!store_commit(s, e))
            return err_prefix(e, "cannot update %s", s->path);
    }
}

/* Moves path (and its -wal and -shm files) aside to path.corrupt-<time>;
 * the new name into moved. */
static bool move_aside(const char *path, char *moved, size_t n, cl_err *e)
{
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(moved, n, "%s.corrupt-%s", path, stamp);
    if (rename(path, moved) != 0)
        return err_set(e, "cannot move the damaged %s aside: %s", path, strerror(errno));
    static const char *const sides[] = {"-wal", "-shm"};
    for (size_t i = 0; i < 2; i++) {
        char a[CL_PATH_MAX + 8], b[CL_PATH_MAX + 48];
        snprintf(a, sizeof a, "%s%s", path, sides[i]);
        snprintf(b, sizeof b, "%s%s", moved, sides[i]);
        if (access(a, F_OK) == 0)
            (void)rename(a, b);
    }
    return true;
}

/* Opens path as it is: a usable, current database, or false with *corrupt
 * telling whether the file itself is damaged. */
static bool open_as_is(const char *path, store **out, int *from, bool *corrupt, cl_err *e)
{
    int rc = SQLITE_OK, version = 0;
    *corrupt = false;
    store *s = connect(path, true, &rc);
    if (!s)
        return err_set(e, "out of memory opening %s", path);
    if (rc != SQLITE_OK) {
        err_set(e, "cannot open %s: %s", path, sqlite3_errstr(rc));
        store_close(s);
        return false;
    }
    rc = probe(s, &version);
    if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT) {
        *corrupt = true;
        err_set(e, "%s is damaged: %s", path, sqlite3_errstr(rc));
        store_close(s);
        return false;
    }
    if (rc != SQLITE_OK) {
        err_set(e, "cannot read %s: %s", path, sqlite3_errstr(rc));
        store_close(s);
        return false;
    }
    if (sqlite3_db_readonly(s->db, "main") == 1) {
        err_set(e, "%s cannot be written (read-only)", path);
        store_close(s);
        return false;
    }
    *from = version;
    if (version > STORE_SCHEMA_VERSION) {
        newer(s, version, e);
        store_close(s);
        return false;
    }
    if (!store_exec(s, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;", e) ||
        !migrate(s, e)) {
        /* A file that is a database but whose pages are damaged shows here. */
        int code = sqlite3_errcode(s->db) & 0xff;
        *corrupt = code == SQLITE_CORRUPT || code == SQLITE_NOTADB;
        store_close(s);
        return false;
    }
    *out = s;
    return true;
}

bool store_open_file(const char *path, store **out, cl_err *e)
{
    bool corrupt = false;
    int from = 0;
    *out = NULL;
    return open_as_is(path, out, &from, &corrupt, e);
}

bool store_dir_usable(const char *dir, bool *missing, char *why, size_t n)
{
    char reason[CL_ERR_MAX];
    paths_dir_state st = paths_dir_probe(dir, reason, sizeof reason);
    if (missing)
        *missing = st == PATHS_DIR_MISSING;
    if (st != PATHS_DIR_NOT_WRITABLE)
        return true;
    snprintf(why, n, "progress is not saved: the data folder %s %s", dir, reason);
    return false;
}

bool store_open(const char *dir, store **out, char *notice, size_t notice_n, cl_err *e)
{
    char data[CL_PATH_MAX], path[CL_PATH_MAX];
    *out = NULL;
    if (notice_n)
        notice[0] = '\0';
    if (!dir) {
        if (!paths_data_dir(data, sizeof data, e))
            return false;
        dir = data;
    }
    char why[CL_ERR_MAX];
    if (!store_dir_usable(dir, NULL, why, sizeof why))
        return err_set(e, "%s", why);
    if (!paths_mkdir_p(dir, e))
        return err_prefix(e, "progress is not saved: the data folder %s cannot be created", dir);
    if (!store_dir_usable(dir, NULL, why, sizeof why))
        return err_set(e, "%s", why);
    if (!paths_join(path, sizeof path, dir, STORE_FILE))
        return err_set(e, "the data folder's path is too long");
    int from = STORE_SCHEMA_VERSION;
    bool corrupt = false;
    if (open_as_is(path, out, &from, &corrupt, e)) {
        if (from > 0 && from < STORE_SCHEMA_VERSION && notice_n)
            snprintf(notice, notice_n, "progress store updated from schema %d to %d", from,
                     STORE_SCHEMA_VERSION);
        return true;
    }
    if (!corrupt)
        return false;
    char moved[CL_PATH_MAX + 40];
    if (!move_aside(path, moved, sizeof moved, e))
        return false;
    if (notice_n)
        snprintf(notice, notice_n,
                 "the progress store %s was damaged: it was moved aside to %s and a new one "
                 "started",
                 path, moved);
    return open_as_is(path, out, &from, &corrupt, e);
}

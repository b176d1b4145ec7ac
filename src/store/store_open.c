/* store_open.c - opening the database: creating, migrating, refusing a
 * newer one, moving a corrupt one aside; and the helpers the other store
 * files share. */
#include "store/store.h"
#include "store/store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double store_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void store_explain(int rc, int errno_, const char *path, char *out, size_t n)
{
    char dir[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir)
        *slash = '\0';
    int primary = rc & 0xff;
    if (primary == SQLITE_FULL || errno_ == ENOSPC || errno_ == EDQUOT)
        snprintf(out, n, "the disk is full (the data folder %s, holding %s)", dir, path);
    else if (rc == SQLITE_READONLY_DBMOVED)
        snprintf(out, n, "%s was moved away while this cudalab had it open", path);
    else if (primary == SQLITE_READONLY || primary == SQLITE_PERM || errno_ == EROFS)
        snprintf(out, n, "%s cannot be written (%s)", path,
                 errno_ ? strerror(errno_) : "read-only");
    else if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB)
        snprintf(out, n, "%s is damaged (%s)", path, sqlite3_errstr(rc));
    else if (primary == SQLITE_IOERR)
        snprintf(out, n, "a disk I/O error on %s%s%s", path, errno_ ? ": " : "",
                 errno_ ? strerror(errno_) : "");
    else if (primary == SQLITE_CANTOPEN)
        snprintf(out, n, "%s cannot be opened%s%s", path, errno_ ? ": " : "",
                 errno_ ? strerror(errno_) : "");
    else if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
        snprintf(out, n, "%s is busy: another process kept it locked for over %d s", path,
                 STORE_BUSY_TIMEOUT_MS / 1000);
    else if (primary == SQLITE_NOMEM)
        snprintf(out, n, "out of memory reading %s", path);
    else
        snprintf(out, n, "%s: %s", path, sqlite3_errstr(rc));
}

bool store_fail(store *s, cl_err *e, const char *what)
{
    if (!s || !s->db)
        return err_set(e, "%s: no database", what);
    int rc = sqlite3_extended_errcode(s->db);
    char words[CL_ERR_MAX];
    if ((rc & 0xff) == SQLITE_ERROR || (rc & 0xff) == SQLITE_CONSTRAINT)
        snprintf(words, sizeof words, "%s: %s", s->path, sqlite3_errmsg(s->db));
    else
        store_explain(rc, sqlite3_system_errno(s->db), s->path, words, sizeof words);
    return err_set(e, "%s: %s", what, words);
}

bool store_writable(store *s, cl_err *e)
{
    if (!s->readonly)
        return true;
    return err_set(e, "progress not saved: %s", s->why);
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

bool store_readonly(const store *s)
{
    return s && s->readonly;
}

const char *store_readonly_why(const store *s)
{
    return s && s->readonly ? s->why : "";
}

/* While a file is being looked at (it may be damaged, or another
 * program's), closing the connection must leave it and its -wal file as
 * they were: no checkpoint into it, no -wal removed. */
static void keep_as_found(store *s, bool on)
{
    int v = on ? 1 : 0;
    sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, v, (int *)NULL);
    sqlite3_file_control(s->db, "main", SQLITE_FCNTL_PERSIST_WAL, &v);
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
        keep_as_found(s, true);
    }
    return s;
}

/* An integer PRAGMA's value; SQLite's result code. */
static int pragma_int(store *s, const char *sql, int *v)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        *v = sqlite3_column_int(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

int store_identify(store *s, store_ident *id)
{
    memset(id, 0, sizeof *id);
    int rc = pragma_int(s, "PRAGMA application_id", &id->app_id);
    if (rc == SQLITE_OK)
        rc = pragma_int(s, "PRAGMA user_version", &id->version);
    sqlite3_stmt *st = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(s->db,
                                "SELECT name, name IN ('meta', 'sources', 'runs', 'rows',"
                                " 'milestones', 'quiz_answers', 'places') FROM sqlite_master"
                                " WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid",
                                -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        id->ours += sqlite3_column_int(st, 1);
        size_t used = strlen(id->names);
        if (id->tables++ < 4)
            snprintf(id->names + used, sizeof id->names - used, "%s%s", used ? ", " : "",
                     name ? name : "?");
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc & 0xff;
}

bool store_ident_ours(const store_ident *id, char *what, size_t n)
{
    if (id->app_id == STORE_APP_ID)
        return true;
    if (id->app_id != 0) {
        snprintf(what, n, "an SQLite database of another program (application_id 0x%08X)",
                 (unsigned)id->app_id);
        return false;
    }
    if (id->tables == 0 && id->version == 0)
        return true;   /* empty: a new store, or one whose first transaction never ended */
    if (id->ours == 7)
        return true;   /* made by a cudalab from before the mark */
    if (id->tables == 0)
        snprintf(what, n, "an SQLite database with no tables and user_version %d", id->version);
    else
        snprintf(what, n, "an SQLite database with tables cudalab does not make (%s%s)",
                 id->names, id->tables > 4 ? ", ..." : "");
    return false;
}

bool store_foreign(const char *path, const char *what, cl_err *e)
{
    return err_set(e, "%s is not cudalab's progress store: it is %s, and was left as it is; "
                      "move it away, or keep your progress in another folder with --data DIR",
                   path, what);
}

/* The application_id in the header of the SQLite file at path, without
 * opening it with SQLite; 0 when the file is not there, too short or no
 * SQLite file. */
static unsigned header_app_id(const char *path)
{
    unsigned char h[100];
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t got = fread(h, 1, sizeof h, f);
    fclose(f);
    if (got < sizeof h || memcmp(h, "SQLite format 3", 16) != 0)
        return 0;
    return (unsigned)h[68] << 24 | (unsigned)h[69] << 16 | (unsigned)h[70] << 8 | h[71];
}

static bool newer(const char *path, int v, cl_err *e)
{
    return err_set(e, "%s was written by a newer cudalab (schema %d; this cudalab knows up to %d): "
                      "it is left as it is",
                   path, v, STORE_SCHEMA_VERSION);
}

/* Brings the database to STORE_SCHEMA_VERSION with cudalab's mark, one
 * transaction a step (another process may be migrating too: the version
 * is read again inside each transaction). */
static bool migrate(store *s, cl_err *e)
{
    for (;;) {
        int v = -1, app = 0;
        if (pragma_int(s, "PRAGMA user_version", &v) != SQLITE_OK ||
            pragma_int(s, "PRAGMA application_id", &app) != SQLITE_OK)
            return store_fail(s, e, "cannot read the schema version");
        if (v > STORE_SCHEMA_VERSION)
            return newer(s->path, v, e);
        if (v == STORE_SCHEMA_VERSION && app == STORE_APP_ID)
            return true;
        if (!store_begin(s, e))
            return err_prefix(e, "cannot update %s", s->path);
        int again = -1, app_again = 0;
        if (pragma_int(s, "PRAGMA user_version", &again) != SQLITE_OK ||
            pragma_int(s, "PRAGMA application_id", &app_again) != SQLITE_OK || again != v ||
            app_again != app) {
            store_rollback(s);
            continue;
        }
        char set[96];
        snprintf(set, sizeof set, "PRAGMA user_version = %d; PRAGMA application_id = %d",
                 v < STORE_SCHEMA_VERSION ? v + 1 : v, STORE_APP_ID);
        if ((v < STORE_SCHEMA_VERSION && !store_exec(s, store_migrations[v], e)) ||
            !store_exec(s, set, e)) {
            store_rollback(s);
            return err_prefix(e, "cannot update %s to schema %d", s->path, v + 1);
        }
        if (!store_commit(s, e))
            return err_prefix(e, "cannot update %s", s->path);
    }
}

static bool exists_beside(const char *path, const char *suffix)
{
    char p[CL_PATH_MAX + 8];
    struct stat st;
    snprintf(p, sizeof p, "%s%s", path, suffix);
    return lstat(p, &st) == 0;
}

/* Removes the -wal (when still empty) and -shm files that looking at the
 * WAL-mode file at path made (made[0], made[1]: they were not there). */
static void forget_made(const char *path, const bool made[2])
{
    char wal[CL_PATH_MAX + 8], shm[CL_PATH_MAX + 8];
    struct stat st;
    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(shm, sizeof shm, "%s-shm", path);
    if (made[0] && stat(wal, &st) == 0 && st.st_size == 0) {
        unlink(wal);
        if (made[1])
            unlink(shm);
    }
}

/* How opening the file as it is went. */
typedef enum opened { OPENED, OPEN_DAMAGED, OPEN_READONLY, OPEN_FAILED } opened;

/* Opens path as it is (the lock held): a usable, current database, or
 * what kept it from being one (e says which, but for OPEN_READONLY). */
static opened open_as_is(const char *path, const char *dir, store **out, int *from, cl_err *e)
{
    struct stat st;
    long long size = stat(path, &st) == 0 ? (long long)st.st_size : 0;
    unsigned app = header_app_id(path);
    if (app != 0 && app != STORE_APP_ID) {
        char what[96];
        store_ident id = {.app_id = (int)app};
        store_ident_ours(&id, what, sizeof what);
        store_foreign(path, what, e);
        return OPEN_FAILED;
    }
    bool made[2] = {!exists_beside(path, "-wal"), !exists_beside(path, "-shm")};
    int rc = SQLITE_OK;
    store *s = connect(path, true, &rc);
    if (!s) {
        err_set(e, "out of memory opening %s", path);
        return OPEN_FAILED;
    }
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    char words[CL_ERR_MAX], what[160];
    opened how = OPEN_FAILED;
    store_ident id;
    if (rc != SQLITE_OK) {
        store_explain(rc, sqlite3_system_errno(s->db), path, words, sizeof words);
        err_set(e, "cannot open the progress store: %s", words);
    } else if (sqlite3_db_readonly(s->db, "main") == 1) {
        how = OPEN_READONLY;   /* a file SQLite could only open to read */
    } else if ((rc = store_identify(s, &id)) == SQLITE_NOTADB || rc == SQLITE_CORRUPT) {
        err_set(e, "%s is damaged: %s", path, sqlite3_errstr(rc));
        how = OPEN_DAMAGED;
    } else if (rc != SQLITE_OK) {
        store_explain(sqlite3_extended_errcode(s->db), sqlite3_system_errno(s->db), path, words,
                      sizeof words);
        err_set(e, "cannot read the progress store: %s", words);
    } else if (!store_ident_ours(&id, what, sizeof what)) {
        store_foreign(path, what, e);
    } else if (id.version > STORE_SCHEMA_VERSION) {
        newer(path, id.version, e);
    } else if (size > 0 && (rc = store_check_pages(s, size)) != SQLITE_OK) {
        if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB) {
            err_set(e, "%s is damaged: SQLite's quick_check found damaged pages", path);
            how = OPEN_DAMAGED;
        } else {
            store_explain(rc, sqlite3_system_errno(s->db), path, words, sizeof words);
            err_set(e, "cannot check the progress store: %s", words);
        }
    } else if (!store_exec(s, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;", e) ||
               !migrate(s, e)) {
        /* A file that is a database but whose pages are damaged shows here. */
        int code = sqlite3_errcode(s->db) & 0xff;
        how = code == SQLITE_CORRUPT || code == SQLITE_NOTADB ? OPEN_DAMAGED : OPEN_FAILED;
    } else {
        keep_as_found(s, false);
        *from = id.version;
        *out = s;
        return OPENED;
    }
    store_close(s);
    forget_made(path, made);
    return how;
}

bool store_open_file(const char *path, store **out, cl_err *e)
{
    int from = 0;
    *out = NULL;
    char dir[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    opened how = open_as_is(path, slash ? dir : ".", out, &from, e);
    if (how == OPEN_READONLY)
        err_set(e, "%s cannot be written (read-only)", path);
    return how == OPENED;
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

/* Opens the store at path only to read it, why being why it cannot be
 * written. */
static bool open_to_read(const char *path, const char *dir, const char *why, store **out,
                         char *notice, size_t notice_n, cl_err *e)
{
    int rc = SQLITE_OK;
    store *s = store_connect_readonly(path, &rc);
    if (!s)
        return err_set(e, "out of memory opening %s", path);
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    s->readonly = true;
    snprintf(s->why, sizeof s->why, "%s", why);
    store_ident id;
    char what[160], words[CL_ERR_MAX];
    if (rc == SQLITE_OK)
        rc = store_identify(s, &id);
    if (rc != SQLITE_OK) {
        store_explain(rc, sqlite3_system_errno(s->db), path, words, sizeof words);
        err_set(e, "progress is not saved (%s), and the store cannot be read: %s", why, words);
    } else if (!store_ident_ours(&id, what, sizeof what)) {
        store_foreign(path, what, e);
    } else if (id.version > STORE_SCHEMA_VERSION) {
        newer(path, id.version, e);
    } else if (id.version == 0) {
        err_set(e, "progress is not saved: %s", why);   /* nothing recorded to show */
    } else {
        if (notice_n)
            snprintf(notice, notice_n,
                     "progress cannot be saved: %s; what was recorded is shown, read-only", why);
        *out = s;
        return true;
    }
    store_close(s);
    return false;
}

/* Opens, with the lock held, the store at path of the writable folder dir,
 * moving a damaged file aside. */
static bool open_locked(const char *path, const char *dir, store **out, char *notice,
                        size_t notice_n, cl_err *e)
{
    int from = STORE_SCHEMA_VERSION;
    char why[CL_ERR_MAX];
    opened how = open_as_is(path, dir, out, &from, e);
    if (how == OPEN_DAMAGED) {
        char moved[CL_PATH_MAX + 80], damage[CL_ERR_MAX];
        snprintf(damage, sizeof damage, "%s", e->msg);
        if (!store_move_aside(path, moved, sizeof moved, e))
            return err_prefix(e, "%s", damage);
        if (notice_n)
            snprintf(notice, notice_n,
                     "the progress store %s was damaged: it was moved aside to %s and a new one "
                     "started",
                     path, moved);
        how = open_as_is(path, dir, out, &from, e);
    }
    if (how == OPEN_READONLY) {
        snprintf(why, sizeof why, "%s cannot be written (read-only)", path);
        return open_to_read(path, dir, why, out, notice, notice_n, e);
    }
    if (how != OPENED)
        return false;
    if (from > 0 && from < STORE_SCHEMA_VERSION && notice_n && !notice[0])
        snprintf(notice, notice_n, "progress store updated from schema %d to %d", from,
                 STORE_SCHEMA_VERSION);
    return true;
}

bool store_open(const char *dir, store **out, char *notice, size_t notice_n, cl_err *e)
{
    char data[CL_PATH_MAX], path[CL_PATH_MAX], why[CL_ERR_MAX], reason[CL_ERR_MAX];
    *out = NULL;
    if (notice_n)
        notice[0] = '\0';
    if (!dir) {
        if (!paths_data_dir(data, sizeof data, e))
            return false;
        dir = data;
    }
    if (!paths_join(path, sizeof path, dir, STORE_FILE))
        return err_set(e, "the data folder's path is too long");
    if (paths_dir_probe(dir, reason, sizeof reason) == PATHS_DIR_NOT_WRITABLE) {
        snprintf(why, sizeof why, "the data folder %s %s", dir, reason);
        if (paths_is_file(path))
            return open_to_read(path, dir, why, out, notice, notice_n, e);
        return err_set(e, "progress is not saved: %s", why);
    }
    if (!paths_mkdir_p(dir, e))
        return err_prefix(e, "progress is not saved: the data folder %s cannot be created", dir);
    if (!store_dir_usable(dir, NULL, why, sizeof why))
        return err_set(e, "%s", why);
    /* Everything below looks at the file with the lock held: another
     * process may be moving it aside or making it. */
    int lock = -1;
    if (!store_lock(path, &lock, e))
        return false;
    bool ok;
    if (access(path, W_OK) != 0 && errno != ENOENT) {
        snprintf(why, sizeof why, "%s cannot be written (%s)", path, strerror(errno));
        ok = open_to_read(path, dir, why, out, notice, notice_n, e);
    } else if (!store_side_files_writable(path, why, sizeof why)) {
        ok = open_to_read(path, dir, why, out, notice, notice_n, e);
    } else {
        ok = open_locked(path, dir, out, notice, notice_n, e);
    }
    store_unlock(lock);
    return ok;
}

/* store_open.c - opening the database: creating, migrating, refusing a
 * newer one, moving a corrupt one aside. */
#include "store/store.h"
#include "store/store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
        if (store_pragma_int(s, "PRAGMA user_version", &v) != SQLITE_OK ||
            store_pragma_int(s, "PRAGMA application_id", &app) != SQLITE_OK)
            return store_fail(s, e, "cannot read the schema version");
        if (v > STORE_SCHEMA_VERSION)
            return newer(s->path, v, e);
        if (v == STORE_SCHEMA_VERSION && app == STORE_APP_ID)
            return true;
        if (!store_begin(s, e))
            return err_prefix(e, "cannot update %s", s->path);
        int again = -1, app_again = 0;
        if (store_pragma_int(s, "PRAGMA user_version", &again) != SQLITE_OK ||
            store_pragma_int(s, "PRAGMA application_id", &app_again) != SQLITE_OK || again != v ||
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

bool store_open_file(const char *path, store **out, cl_err *err)
{
    int from = 0;
    *out = NULL;
    char dir[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    opened how = open_as_is(path, slash ? dir : ".", out, &from, err);
    if (how == OPEN_READONLY)
        err_set(err, "%s cannot be written (read-only)", path);
    return how == OPENED;
}

bool store_dir_usable(const char *dir, bool *missing, char *why, size_t cap)
{
    char reason[CL_ERR_MAX];
    paths_dir_state st = paths_dir_probe(dir, reason, sizeof reason);
    if (missing)
        *missing = st == PATHS_DIR_MISSING;
    if (st != PATHS_DIR_NOT_WRITABLE)
        return true;
    snprintf(why, cap, "progress is not saved: the data folder %s %s", dir, reason);
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

bool store_open(const char *dir, store **out, char *notice, size_t notice_n, cl_err *err)
{
    char data[CL_PATH_MAX], path[CL_PATH_MAX], why[CL_ERR_MAX], reason[CL_ERR_MAX];
    *out = NULL;
    if (notice_n)
        notice[0] = '\0';
    if (!dir) {
        if (!paths_data_dir(data, sizeof data, err))
            return false;
        dir = data;
    }
    if (!paths_join(path, sizeof path, dir, STORE_FILE))
        return err_set(err, "the data folder's path is too long");
    if (paths_dir_probe(dir, reason, sizeof reason) == PATHS_DIR_NOT_WRITABLE) {
        snprintf(why, sizeof why, "the data folder %s %s", dir, reason);
        if (paths_is_file(path))
            return open_to_read(path, dir, why, out, notice, notice_n, err);
        return err_set(err, "progress is not saved: %s", why);
    }
    if (!paths_mkdir_p(dir, err))
        return err_prefix(err, "progress is not saved: the data folder %s cannot be created", dir);
    if (!store_dir_usable(dir, NULL, why, sizeof why))
        return err_set(err, "%s", why);
    /* Everything below looks at the file with the lock held: another
     * process may be moving it aside or making it. */
    int lock = -1;
    if (!store_lock(path, &lock, err))
        return false;
    bool ok;
    if (access(path, W_OK) != 0 && errno != ENOENT) {
        snprintf(why, sizeof why, "%s cannot be written (%s)", path, strerror(errno));
        ok = open_to_read(path, dir, why, out, notice, notice_n, err);
    } else if (!store_side_files_writable(path, why, sizeof why)) {
        ok = open_to_read(path, dir, why, out, notice, notice_n, err);
    } else {
        ok = open_locked(path, dir, out, notice, notice_n, err);
    }
    store_unlock(lock);
    return ok;
}

/* store_internal.h - what the store's files share.  Private to src/store/. */
#ifndef CUDALAB_STORE_STORE_INTERNAL_H
#define CUDALAB_STORE_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "core/paths.h"
#include "store/store.h"

struct store {
    sqlite3 *db;
    char path[CL_PATH_MAX];
    char dir[CL_PATH_MAX];         /* the folder holding it, for messages */
    bool readonly;                 /* opened only to read: every write is refused */
    char why[CL_ERR_MAX];          /* when readonly, why progress cannot be saved */
    char snapshot[CL_PATH_MAX];    /* a private folder holding the copy read, removed at close */
    /* A learner's store opened as untrusted input (store_untrusted.c): each
     * statement prepared gets budget_s seconds, past which its progress
     * handler interrupts it (deadline: clock_now_s's time); 0: no budget. */
    double budget_s, deadline;
};

/* The migrations, oldest first: migration k (1-based) takes a database of
 * schema k - 1 to schema k. */
extern const char *const store_migrations[STORE_SCHEMA_VERSION];

/* Whether every object in db's schema (sqlite_master) is one that
 * migrations 1..version make, exactly as they make it: false + e naming
 * the first that is not (a view, a trigger, a table or index cudalab does
 * not make, or one changed). */
bool store_schema_matches(store *db, int version, cl_err *err);

/* Unix time now, with fractions of a second. */
double store_now(void);
/* Fills e with "what: " and what went wrong where, in words (a full disk
 * names the folder, a read-only or damaged file names the file), and
 * returns false. */
bool store_fail(store *db, cl_err *err, const char *what);
/* The words store_fail uses for SQLite's (extended) result code rc on the
 * store at path, with errno_ the system error behind it (0: none). */
void store_explain(int rc, int errno_, const char *path, char *out, size_t cap);
/* false + "progress not saved: why" when s was opened only to read. */
bool store_writable(store *db, cl_err *err);
/* Runs sql (no results wanted); false + e on error. */
bool store_exec(store *db, const char *sql, cl_err *err);
/* Prepares sql; false + e on error. */
bool store_prepare(store *db, const char *sql, sqlite3_stmt **st, cl_err *err);
/* Steps st to its end (an INSERT, UPDATE or DELETE); finalizes it. */
bool store_step_done(store *db, sqlite3_stmt *st, cl_err *err, const char *what);
/* BEGIN IMMEDIATE / COMMIT / ROLLBACK. */
bool store_begin(store *db, cl_err *err);
bool store_commit(store *db, cl_err *err);
void store_rollback(store *db);
/* Binds text, or NULL for a NULL or empty pointer when empty_null. */
int store_bind_text(sqlite3_stmt *st, int col, const char *text);
/* Copies column i's text (or "") into out. */
void store_column_text(sqlite3_stmt *st, int col, char *out, size_t cap);

/* What an SQLite file is, as far as telling cudalab's from another's goes. */
typedef struct store_ident {
    int app_id, version;           /* PRAGMA application_id, user_version */
    int tables, ours;              /* its tables, and how many of them schema 1 made */
    char names[160];               /* the first few tables' names */
} store_ident;

/* An integer PRAGMA's value (sql is "PRAGMA name") into *v; SQLite's
 * result code. */
int store_pragma_int(store *db, const char *sql, int *value);
/* Reads id from the open file: SQLite's primary result code (NOTADB or
 * CORRUPT for a damaged file). */
int store_identify(store *db, store_ident *id);
/* Whether id is cudalab's store (marked, made by an older cudalab, or an
 * empty database); else what it is, in words, into what. */
bool store_ident_ours(const store_ident *id, char *what, size_t cap);
/* false + "path is not cudalab's progress store: it is what, ..." */
bool store_foreign(const char *path, const char *what, cl_err *err);

/* ---- store_recover.c: opening safely beside other processes ----------- */

/* Takes the lock that every process opening the database at path holds
 * while it checks, repairs or migrates it (flock on path.lock); *fd for
 * store_unlock.  Waits up to STORE_LOCK_WAIT_S. */
bool store_lock(const char *path, int *fd, cl_err *err);
void store_unlock(int fd);
/* Moves the damaged database at path, with its -wal and -shm files, to a
 * name no other file has (path.corrupt-<time>-<pid>, never overwriting one);
 * the new name into moved. */
bool store_move_aside(const char *path, char *moved, size_t cap, cl_err *err);
/* Whether the file of size bytes that s holds open is sound page by page:
 * SQLITE_OK, SQLITE_CORRUPT when it is damaged, else the code of what kept
 * it from being checked. */
int store_check_pages(store *db, long long size);
/* Makes the -wal and -shm files left beside path writable again when this
 * process owns them (a read-only open by an older cudalab leaves them with
 * the database's mode); false with why set when one is there that this
 * process cannot write. */
bool store_side_files_writable(const char *path, char *why, size_t cap);

/* ---- store_readonly.c ---------------------------------------------------- */

/* Connects to path only to read it, creating no file beside it; SQLite's
 * result code in *rc (NULL only when out of memory). */
store *store_connect_readonly(const char *path, int *rc);
/* path as an SQLite URI ("file:/a%20b/progress.db?mode=ro"): every byte
 * but letters, digits and "/._~-" percent-encoded, then the query
 * (malloc'd; NULL when out of memory). */
char *store_uri_of(const char *path, const char *query);

#endif

/* store_internal.h - what the store's files share.  Private to src/store/. */
#ifndef CUDALAB_STORE_STORE_INTERNAL_H
#define CUDALAB_STORE_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>

#include "core/err.h"
#include "core/paths.h"
#include "store/store.h"

struct store {
    sqlite3 *db;
    char path[CL_PATH_MAX];
};

/* The migrations, oldest first: migration k (1-based) takes a database of
 * schema k - 1 to schema k. */
extern const char *const store_migrations[STORE_SCHEMA_VERSION];

/* Unix time now, with fractions of a second. */
double store_now(void);
/* Fills e with "what: SQLite's message" and returns false. */
bool store_fail(store *s, cl_err *e, const char *what);
/* Runs sql (no results wanted); false + e on error. */
bool store_exec(store *s, const char *sql, cl_err *e);
/* Prepares sql; false + e on error. */
bool store_prepare(store *s, const char *sql, sqlite3_stmt **st, cl_err *e);
/* Steps st to its end (an INSERT, UPDATE or DELETE); finalizes it. */
bool store_step_done(store *s, sqlite3_stmt *st, cl_err *e, const char *what);
/* BEGIN IMMEDIATE / COMMIT / ROLLBACK. */
bool store_begin(store *s, cl_err *e);
bool store_commit(store *s, cl_err *e);
void store_rollback(store *s);
/* Binds text, or NULL for a NULL or empty pointer when empty_null. */
int store_bind_text(sqlite3_stmt *st, int i, const char *v);
/* Copies column i's text (or "") into out. */
void store_column_text(sqlite3_stmt *st, int i, char *out, size_t n);

#endif

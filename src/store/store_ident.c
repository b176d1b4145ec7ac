/* store_ident.c - telling cudalab's progress store from another SQLite
 * file: its mark (application_id), schema version and tables. */
#include "store/store.h"
#include "store/store_internal.h"

#include <stdio.h>
#include <string.h>

/* An integer PRAGMA's value; SQLite's result code. */
int store_pragma_int(store *db, const char *sql, int *value)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        *value = sqlite3_column_int(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

int store_identify(store *db, store_ident *id)
{
    memset(id, 0, sizeof *id);
    int rc = store_pragma_int(db, "PRAGMA application_id", &id->app_id);
    if (rc == SQLITE_OK)
        rc = store_pragma_int(db, "PRAGMA user_version", &id->version);
    sqlite3_stmt *st = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db->db,
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

bool store_ident_ours(const store_ident *id, char *what, size_t cap)
{
    if (id->app_id == STORE_APP_ID)
        return true;
    if (id->app_id != 0) {
        snprintf(what, cap, "an SQLite database of another program (application_id 0x%08X)",
                 (unsigned)id->app_id);
        return false;
    }
    if (id->tables == 0 && id->version == 0)
        return true;   /* empty: a new store, or one whose first transaction never ended */
    if (id->ours == 7)
        return true;   /* made by a cudalab from before the mark */
    if (id->tables == 0)
        snprintf(what, cap, "an SQLite database with no tables and user_version %d", id->version);
    else
        snprintf(what, cap, "an SQLite database with tables cudalab does not make (%s%s)",
                 id->names, id->tables > 4 ? ", ..." : "");
    return false;
}

bool store_foreign(const char *path, const char *what, cl_err *err)
{
    return err_set(err, "%s is not cudalab's progress store: it is %s, and was left as it is; "
                      "move it away, or keep your progress in another folder with --data DIR",
                   path, what);
}

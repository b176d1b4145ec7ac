/* store_schema.c - the database's schema, as forward migrations.
 *
 * A database records its schema in PRAGMA user_version.  Each entry below
 * moves a database one version forward and is never changed once shipped:
 * a new version appends an entry (and raises STORE_SCHEMA_VERSION).  A
 * row's every figure is kept in `record`, the run's record in its JSON form
 * (result/record_json.h); the other columns are what queries select on.
 * exercise_runs and exercise_best summarize the learner's rows per lab as
 * they are written (store_write.c), so that `cudalab progress` reads a few
 * rows however many runs there are.  store_schema_matches compares a
 * learner's store with what the migrations make, object by object. */
#include "store/store_internal.h"

#include <stdio.h>
#include <string.h>

#include "core/escape.h"

const char *const store_migrations[STORE_SCHEMA_VERSION] = {
    /* 1: runs, their rows, sources, milestones, quiz answers, places */
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE sources (sha256 TEXT PRIMARY KEY, text TEXT NOT NULL);"
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY, started_at REAL NOT NULL, lab TEXT NOT NULL,"
    "  origin TEXT NOT NULL, seed TEXT NOT NULL, device_name TEXT, device_cc TEXT,"
    "  driver_version INTEGER, kernel_path TEXT, kernel_sha TEXT, launcher_path TEXT,"
    "  launcher_sha TEXT);"
    "CREATE INDEX runs_lab ON runs (lab, id);"
    "CREATE TABLE rows ("
    "  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs (id),"
    "  at REAL NOT NULL, variant TEXT NOT NULL, kind TEXT NOT NULL, size TEXT NOT NULL,"
    "  status TEXT NOT NULL, median_ms REAL, speedup_cpu REAL, record TEXT NOT NULL);"
    "CREATE INDEX rows_run ON rows (run_id);"
    "CREATE INDEX rows_kind ON rows (kind, run_id);"
    "CREATE TABLE milestones ("
    "  lab TEXT NOT NULL, id TEXT NOT NULL, shown TEXT NOT NULL, at REAL NOT NULL,"
    "  run_id INTEGER, row_id INTEGER, PRIMARY KEY (lab, id));"
    "CREATE TABLE quiz_answers ("
    "  id INTEGER PRIMARY KEY, lab TEXT NOT NULL, quiz TEXT NOT NULL,"
    "  choice INTEGER NOT NULL, correct INTEGER NOT NULL, at REAL NOT NULL);"
    "CREATE INDEX quiz_lab ON quiz_answers (lab, quiz);"
    "CREATE TABLE places (lab TEXT PRIMARY KEY, step INTEGER NOT NULL, at REAL NOT NULL);",

    /* 2: the diagnosis of a failed learner row, and the hints revealed */
    "ALTER TABLE rows ADD COLUMN diag_cause TEXT;"
    "CREATE TABLE hints ("
    "  lab TEXT NOT NULL, idx INTEGER NOT NULL, at REAL NOT NULL, PRIMARY KEY (lab, idx));",

    /* 3: per lab, the runs of the learner's kernel and its best correct row
     * at each size (first_row: the size's first correct row, for order),
     * filled from the rows already there */
    "CREATE TABLE exercise_runs ("
    "  lab TEXT PRIMARY KEY, runs INTEGER NOT NULL, latest_at REAL NOT NULL);"
    "CREATE TABLE exercise_best ("
    "  lab TEXT NOT NULL, size TEXT NOT NULL, first_row INTEGER NOT NULL,"
    "  row_id INTEGER NOT NULL, median_ms REAL NOT NULL, speedup_cpu REAL, at REAL NOT NULL,"
    "  kernel_sha TEXT, PRIMARY KEY (lab, size));"
    "INSERT INTO exercise_runs (lab, runs, latest_at)"
    "  SELECT u.lab, count(DISTINCT r.run_id), max(r.at) FROM rows r"
    "  JOIN runs u ON u.id = r.run_id WHERE r.kind = 'exercise' GROUP BY u.lab;"
    "INSERT INTO exercise_best (lab, size, first_row, row_id, median_ms, speedup_cpu, at,"
    "  kernel_sha)"
    "  SELECT lab, size, first, id, median_ms, speedup_cpu, at, kernel_sha FROM ("
    "    SELECT u.lab, r.size, r.id, r.median_ms, r.speedup_cpu, r.at, u.kernel_sha,"
    "      row_number() OVER (PARTITION BY u.lab, r.size ORDER BY r.median_ms, r.id) AS k,"
    "      min(r.id) OVER (PARTITION BY u.lab, r.size) AS first"
    "    FROM rows r JOIN runs u ON u.id = r.run_id"
    "    WHERE r.kind = 'exercise' AND r.status = 'correct' AND r.median_ms IS NOT NULL)"
    "  WHERE k = 1;",
};

/* A fresh in-memory database with migrations 1..version run: the schema
 * cudalab makes, to compare a learner's store with. */
static sqlite3 *made_schema(int version, cl_err *err)
{
    sqlite3 *mem = NULL;
    char *msg = NULL;
    if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        sqlite3_close(mem);
        err_set(err, "out of memory checking a store's schema");
        return NULL;
    }
    for (int k = 0; k < version && k < STORE_SCHEMA_VERSION; k++) {
        if (sqlite3_exec(mem, store_migrations[k], NULL, NULL, &msg) != SQLITE_OK) {
            err_set(err, "cannot make schema %d to compare with: %s", k + 1,
                    msg ? msg : sqlite3_errmsg(mem));
            sqlite3_free(msg);
            sqlite3_close(mem);
            return NULL;
        }
    }
    return mem;
}

/* Says what is wrong with the object (type, name) of db's schema: known
 * says whether the made schema has one of that type and name. */
static bool refuse(store *db, const char *type, const char *name, bool known, int version,
                   cl_err *err)
{
    char t[32], n[96];
    escape_line(t, sizeof t, type ? type : "?");
    escape_line(n, sizeof n, name ? name : "?");
    if (strcmp(t, "view") == 0 || strcmp(t, "trigger") == 0)
        return err_set(err, "%s holds a %s '%s', which cudalab's store never has (%s): "
                            "refused",
                       db->path, t, n,
                       t[0] == 'v' ? "reading a view runs a query the file itself holds"
                                   : "a trigger runs SQL the file itself holds");
    if (strcmp(t, "table") != 0 && strcmp(t, "index") != 0)
        return err_set(err, "%s holds an object '%s' of type '%s', which cudalab's store "
                            "never has: refused",
                       db->path, n, t);
    const char *a = t[0] == 'i' ? "an" : "a";
    if (!known)
        return err_set(err, "%s holds %s %s '%s' that cudalab's store (schema %d) does not "
                            "have: refused",
                       db->path, a, t, n, version);
    return err_set(err, "%s has %s %s '%s' that is not as cudalab makes it (schema %d): "
                        "refused",
                   db->path, a, t, n, version);
}

bool store_schema_matches(store *db, int version, cl_err *err)
{
    sqlite3 *mem = made_schema(version, err);
    if (!mem)
        return false;
    sqlite3_stmt *theirs = NULL, *ours = NULL, *named = NULL;
    bool ok = false;
    if (sqlite3_prepare_v2(db->db, "SELECT type, name, tbl_name, sql FROM sqlite_master"
                                   " ORDER BY rowid", -1, &theirs, NULL) != SQLITE_OK) {
        store_fail(db, err, "cannot read the store's schema");
        goto done;
    }
    if (sqlite3_prepare_v2(mem, "SELECT sql IS ?4 FROM sqlite_master WHERE type = ?1 AND"
                                " name = ?2 AND tbl_name = ?3", -1, &ours, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(mem, "SELECT 1 FROM sqlite_master WHERE type = ?1 AND name = ?2",
                           -1, &named, NULL) != SQLITE_OK) {
        err_set(err, "cannot compare the store's schema: %s", sqlite3_errmsg(mem));
        goto done;
    }
    int rc;
    while ((rc = sqlite3_step(theirs)) == SQLITE_ROW) {
        for (int i = 0; i < 4; i++)
            sqlite3_bind_value(ours, i + 1, sqlite3_column_value(theirs, i));
        bool same = sqlite3_step(ours) == SQLITE_ROW && sqlite3_column_int(ours, 0) == 1;
        sqlite3_reset(ours);
        if (same)
            continue;
        sqlite3_bind_value(named, 1, sqlite3_column_value(theirs, 0));
        sqlite3_bind_value(named, 2, sqlite3_column_value(theirs, 1));
        bool known = sqlite3_step(named) == SQLITE_ROW;
        refuse(db, (const char *)sqlite3_column_text(theirs, 0),
               (const char *)sqlite3_column_text(theirs, 1), known, version, err);
        goto done;
    }
    if (rc != SQLITE_DONE)
        store_fail(db, err, "cannot read the store's schema");
    else
        ok = true;
done:
    sqlite3_finalize(theirs);
    sqlite3_finalize(ours);
    sqlite3_finalize(named);
    sqlite3_close(mem);
    return ok;
}

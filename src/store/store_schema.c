/* store_schema.c - the database's schema, as forward migrations.
 *
 * A database records its schema in PRAGMA user_version.  Each entry below
 * moves a database one version forward and is never changed once shipped:
 * a new version appends an entry (and raises STORE_SCHEMA_VERSION).  A
 * row's every figure is kept in `record`, the run's record in its JSON form
 * (result/record_json.h); the other columns are what queries select on.
 * exercise_runs and exercise_best summarize the learner's rows per lab as
 * they are written (store_write.c), so that `cudalab progress` reads a few
 * rows however many runs there are. */
#include "store/store_internal.h"

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

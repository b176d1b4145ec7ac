/* store_write.c - recording runs, rows, milestones, answers, hints and
 * places: each call one transaction. */
#include "store/store.h"
#include "store/store_internal.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/digest.h"
#include "result/record_json.h"

/* Keeps text once under its SHA-256 (into sha); "" and NULL keep nothing. */
static bool keep_source(store *s, const char *text, char sha[DIGEST_HEX_LEN + 1], cl_err *e)
{
    sha[0] = '\0';
    if (!text)
        return true;
    if (!digest_sha256_hex(text, strlen(text), sha))
        return err_set(e, "cannot hash a source file (libcrypto failed)");
    sqlite3_stmt *st;
    if (!store_prepare(s, "INSERT OR IGNORE INTO sources (sha256, text) VALUES (?1, ?2)", &st, e))
        return false;
    sqlite3_bind_text(st, 1, sha, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
    return store_step_done(s, st, e, "cannot record a source file");
}

static void device_cc(const device_info *d, char *out, size_t n)
{
    snprintf(out, n, "%d.%d", d->cc_major, d->cc_minor);
}

bool store_run_begin(store *db, const store_run_info *info, int64_t *run_id, cl_err *err)
{
    char ksha[DIGEST_HEX_LEN + 1], lsha[DIGEST_HEX_LEN + 1], seed[24], cc[16];
    sqlite3_stmt *st = NULL;
    if (!store_writable(db, err))
        return false;
    if (!store_begin(db, err))
        return err_prefix(err, "progress not saved");
    if (!keep_source(db, info->kernel_text, ksha, err) ||
        !keep_source(db, info->launcher_text, lsha, err))
        goto fail;
    if (!store_prepare(db,
                       "INSERT INTO runs (started_at, lab, origin, seed, device_name, device_cc,"
                       " driver_version, kernel_path, kernel_sha, launcher_path, launcher_sha)"
                       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                       &st, err))
        goto fail;
    snprintf(seed, sizeof seed, "%" PRIu64, info->seed);
    sqlite3_bind_double(st, 1, store_now());
    store_bind_text(st, 2, info->lab ? info->lab : "");
    store_bind_text(st, 3, info->origin ? info->origin : "");
    store_bind_text(st, 4, seed);
    if (info->dev && info->dev->present) {
        device_cc(info->dev, cc, sizeof cc);
        store_bind_text(st, 5, info->dev->name);
        store_bind_text(st, 6, cc);
        sqlite3_bind_int(st, 7, info->dev->driver_version);
    }
    store_bind_text(st, 8, info->kernel_text ? info->kernel_path : NULL);
    store_bind_text(st, 9, ksha[0] ? ksha : NULL);
    store_bind_text(st, 10, info->launcher_text ? info->launcher_path : NULL);
    store_bind_text(st, 11, lsha[0] ? lsha : NULL);
    if (!store_step_done(db, st, err, "cannot record a run"))
        goto fail;
    *run_id = sqlite3_last_insert_rowid(db->db);
    return store_commit(db, err) || err_prefix(err, "progress not saved");
fail:
    store_rollback(db);
    return err_prefix(err, "progress not saved");
}

bool store_run_device(store *db, int64_t run_id, const device_info *dev, cl_err *err)
{
    sqlite3_stmt *st;
    char cc[16];
    if (!dev || !dev->present)
        return true;
    if (!store_writable(db, err))
        return false;
    if (!store_prepare(db, "UPDATE runs SET device_name = ?1, device_cc = ?2, driver_version = ?3"
                          " WHERE id = ?4",
                       &st, err))
        return false;
    device_cc(dev, cc, sizeof cc);
    store_bind_text(st, 1, dev->name);
    store_bind_text(st, 2, cc);
    sqlite3_bind_int(st, 3, dev->driver_version);
    sqlite3_bind_int64(st, 4, run_id);
    return store_step_done(db, st, err, "progress not saved");
}

/* A double column: NULL for "unknown" (negative rates, zero speedups). */
static void bind_figure(sqlite3_stmt *st, int i, double v, bool zero_unknown)
{
    if (v < 0 || (zero_unknown && v == 0) || v != v)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_double(st, i, v);
}

/* "progress not saved: run N ... was forgotten" for a run no longer there. */
static bool run_forgotten(cl_err *e, int64_t run_id)
{
    return err_set(e, "progress not saved: run %lld is no longer recorded (its lab was forgotten "
                      "with 'cudalab progress --reset' while it ran)",
                   (long long)run_id);
}

/* Counts the row of the learner's kernel just written (row_id, of run_id)
 * in its lab's summary: a run more when it is the run's first such row,
 * and the best at its size when it is correct and faster than the best. */
static bool summarize(store *s, int64_t run_id, int64_t row_id, const run_result *r, double at,
                      cl_err *e)
{
    sqlite3_stmt *st;
    if (!store_prepare(s,
                       "INSERT INTO exercise_runs (lab, runs, latest_at)"
                       " SELECT lab, 1, ?3 FROM runs WHERE id = ?1"
                       " ON CONFLICT (lab) DO UPDATE SET latest_at = max(latest_at, ?3),"
                       "  runs = runs + (NOT EXISTS (SELECT 1 FROM rows WHERE run_id = ?1"
                       "   AND kind = 'exercise' AND id <> ?2))",
                       &st, e))
        return false;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, row_id);
    sqlite3_bind_double(st, 3, at);
    if (!store_step_done(s, st, e, "progress not saved"))
        return false;
    if (r->status != RS_CORRECT || r->samples <= 0 || r->median_ms < 0 || r->median_ms != r->median_ms)
        return true;
    if (!store_prepare(s,
                       "INSERT INTO exercise_best (lab, size, first_row, row_id, median_ms,"
                       " speedup_cpu, at, kernel_sha)"
                       " SELECT lab, ?3, ?2, ?2, ?4, ?5, ?6, kernel_sha FROM runs WHERE id = ?1"
                       " ON CONFLICT (lab, size) DO UPDATE SET row_id = ?2, median_ms = ?4,"
                       "  speedup_cpu = ?5, at = ?6, kernel_sha = excluded.kernel_sha"
                       " WHERE ?4 < median_ms",
                       &st, e))
        return false;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, row_id);
    store_bind_text(st, 3, r->size);
    sqlite3_bind_double(st, 4, r->median_ms);
    bind_figure(st, 5, r->speedup_cpu, true);
    sqlite3_bind_double(st, 6, at);
    return store_step_done(s, st, e, "progress not saved");
}

bool store_row_add(store *db, int64_t run_id, const run_result *row, const char *diag_cause,
                   int64_t *row_id, cl_err *err)
{
    if (!store_writable(db, err))
        return false;
    cJSON *o = cJSON_CreateObject();
    char *json = NULL;
    bool ok = false, begun = false;
    if (!o || !record_put_result(o, row) || !(json = cJSON_PrintUnformatted(o))) {
        err_set(err, "progress not saved: out of memory");
        goto cleanup;
    }
    if (!(begun = store_begin(db, err))) {
        err_prefix(err, "progress not saved");
        goto cleanup;
    }
    /* The run is looked for inside the transaction that writes the row: a
     * run forgotten meanwhile gets no row. */
    sqlite3_stmt *st;
    if (!store_prepare(db,
                       "INSERT INTO rows (run_id, at, variant, kind, size, status, median_ms,"
                       " speedup_cpu, record, diag_cause)"
                       " SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10"
                       " WHERE EXISTS (SELECT 1 FROM runs WHERE id = ?1)",
                       &st, err))
        goto cleanup;
    double at = store_now();
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_double(st, 2, at);
    store_bind_text(st, 3, row->variant);
    store_bind_text(st, 4, result_kind_name(row->kind));
    store_bind_text(st, 5, row->size);
    store_bind_text(st, 6, result_status_name(row->status));
    bind_figure(st, 7, row->samples > 0 ? row->median_ms : -1, false);
    bind_figure(st, 8, row->speedup_cpu, true);
    store_bind_text(st, 9, json);
    store_bind_text(st, 10, diag_cause && diag_cause[0] ? diag_cause : NULL);
    if (!store_step_done(db, st, err, "progress not saved"))
        goto cleanup;
    if (sqlite3_changes(db->db) == 0) {
        run_forgotten(err, run_id);
        goto cleanup;
    }
    int64_t id = sqlite3_last_insert_rowid(db->db);
    if (row->kind == RK_EXERCISE && !summarize(db, run_id, id, row, at, err))
        goto cleanup;
    if (!store_commit(db, err)) {
        begun = false;
        err_prefix(err, "progress not saved");
        goto cleanup;
    }
    begun = false;
    ok = true;
    if (row_id)
        *row_id = id;
cleanup:
    if (begun)
        store_rollback(db);
    cJSON_free(json);
    cJSON_Delete(o);
    return ok;
}

bool store_milestone_reached(store *db, const char *lab, const char *id, const char *shown,
                             int64_t run_id, int64_t row_id, bool *first, cl_err *err)
{
    sqlite3_stmt *st;
    if (first)
        *first = false;
    if (!store_writable(db, err))
        return false;
    if (!store_prepare(db, "INSERT OR IGNORE INTO milestones (lab, id, shown, at, run_id, row_id)"
                          " SELECT ?1, ?2, ?3, ?4, ?5, ?6"
                          " WHERE ?5 IS NULL OR EXISTS (SELECT 1 FROM runs WHERE id = ?5)",
                       &st, err))
        return false;
    store_bind_text(st, 1, lab);
    store_bind_text(st, 2, id);
    store_bind_text(st, 3, shown ? shown : "");
    sqlite3_bind_double(st, 4, store_now());
    if (run_id > 0)
        sqlite3_bind_int64(st, 5, run_id);
    if (row_id > 0)
        sqlite3_bind_int64(st, 6, row_id);
    if (!store_step_done(db, st, err, "progress not saved"))
        return false;
    if (sqlite3_changes(db->db) > 0) {
        if (first)
            *first = true;
        return true;
    }
    /* Nothing written: reached before, or its run was forgotten. */
    if (run_id <= 0 || !store_prepare(db, "SELECT 1 FROM runs WHERE id = ?1", &st, err))
        return true;
    sqlite3_bind_int64(st, 1, run_id);
    bool there = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return there || run_forgotten(err, run_id);
}

bool store_quiz_answer(store *db, const char *lab, const char *quiz, int choice, bool correct,
                       cl_err *err)
{
    sqlite3_stmt *st;
    if (!store_writable(db, err))
        return false;
    if (!store_prepare(db, "INSERT INTO quiz_answers (lab, quiz, choice, correct, at)"
                          " VALUES (?1, ?2, ?3, ?4, ?5)",
                       &st, err))
        return false;
    store_bind_text(st, 1, lab);
    store_bind_text(st, 2, quiz);
    sqlite3_bind_int(st, 3, choice);
    sqlite3_bind_int(st, 4, correct ? 1 : 0);
    sqlite3_bind_double(st, 5, store_now());
    return store_step_done(db, st, err, "progress not saved");
}

bool store_hint_revealed(store *db, const char *lab, int index, cl_err *err)
{
    sqlite3_stmt *st;
    if (!store_writable(db, err))
        return false;
    if (!store_prepare(db, "INSERT OR IGNORE INTO hints (lab, idx, at) VALUES (?1, ?2, ?3)", &st,
                       err))
        return false;
    store_bind_text(st, 1, lab);
    sqlite3_bind_int(st, 2, index);
    sqlite3_bind_double(st, 3, store_now());
    return store_step_done(db, st, err, "progress not saved");
}

bool store_place_set(store *db, const char *lab, int step, cl_err *err)
{
    sqlite3_stmt *st = NULL;
    if (!store_writable(db, err))
        return false;
    if (!store_begin(db, err))
        return err_prefix(err, "progress not saved");
    if (!store_prepare(db, "INSERT INTO places (lab, step, at) VALUES (?1, ?2, ?3)"
                          " ON CONFLICT (lab) DO UPDATE SET step = ?2, at = ?3",
                       &st, err))
        goto fail;
    store_bind_text(st, 1, lab);
    sqlite3_bind_int(st, 2, step);
    sqlite3_bind_double(st, 3, store_now());
    if (!store_step_done(db, st, err, "progress not saved"))
        goto fail;
    if (!store_prepare(db, "INSERT INTO meta (key, value) VALUES ('last_lab', ?1)"
                          " ON CONFLICT (key) DO UPDATE SET value = ?1",
                       &st, err))
        goto fail;
    store_bind_text(st, 1, lab);
    if (!store_step_done(db, st, err, "progress not saved"))
        goto fail;
    return store_commit(db, err);
fail:
    store_rollback(db);
    return false;
}

bool store_reset_lab(store *db, const char *lab, cl_err *err)
{
    static const char *const sql[] = {
        "DELETE FROM rows WHERE run_id IN (SELECT id FROM runs WHERE lab = ?1)",
        "DELETE FROM runs WHERE lab = ?1",
        /* rows an older cudalab wrote for a run forgotten while it ran */
        "DELETE FROM rows WHERE run_id NOT IN (SELECT id FROM runs)",
        "DELETE FROM milestones WHERE lab = ?1",
        "DELETE FROM quiz_answers WHERE lab = ?1",
        "DELETE FROM hints WHERE lab = ?1",
        "DELETE FROM places WHERE lab = ?1",
        "DELETE FROM exercise_runs WHERE lab = ?1",
        "DELETE FROM exercise_best WHERE lab = ?1",
        "DELETE FROM meta WHERE key = 'last_lab' AND value = ?1",
        "DELETE FROM sources WHERE sha256 NOT IN (SELECT kernel_sha FROM runs WHERE kernel_sha"
        " IS NOT NULL UNION SELECT launcher_sha FROM runs WHERE launcher_sha IS NOT NULL)",
    };
    if (db->readonly)
        return err_set(err, "cannot forget lab '%s': %s", lab, db->why);
    if (!store_begin(db, err))
        return false;
    for (size_t i = 0; i < sizeof sql / sizeof sql[0]; i++) {
        sqlite3_stmt *st;
        if (!store_prepare(db, sql[i], &st, err)) {
            store_rollback(db);
            return false;
        }
        if (sqlite3_bind_parameter_count(st) > 0)
            store_bind_text(st, 1, lab);
        if (!store_step_done(db, st, err, "cannot forget the lab")) {
            store_rollback(db);
            return false;
        }
    }
    return store_commit(db, err);
}

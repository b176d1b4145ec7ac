/* store_read.c - what the TUI and the CLI ask of the record. */
#include "store/store.h"
#include "store/store_internal.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "result/record_json.h"

/* A growing array of n_items items of size sz. */
static bool grow(void **v, size_t *cap, size_t n, size_t sz, cl_err *e)
{
    if (!grow_one(v, cap, n, sz, 16))
        return err_set(e, "out of memory reading the progress store");
    return true;
}

/* After a loop of sqlite3_step: true when it ended at the last row; else
 * (a damaged page, an I/O error) what was read so far is dropped and e says
 * why, so that a reader never shows part of the record as the whole. */
static bool read_done(store *s, sqlite3_stmt *st, int rc, void **out, size_t *n, cl_err *e,
                      const char *what)
{
    if (rc == SQLITE_DONE) {
        sqlite3_finalize(st);
        return true;
    }
    store_fail(s, e, what);
    sqlite3_finalize(st);
    free(*out);
    *out = NULL;
    *n = 0;
    return false;
}

bool store_place_get(store *db, const char *lab, int *step, cl_err *err)
{
    sqlite3_stmt *st;
    if (!store_prepare(db, "SELECT step FROM places WHERE lab = ?1", &st, err))
        return false;
    store_bind_text(st, 1, lab);
    bool found = sqlite3_step(st) == SQLITE_ROW;
    if (found)
        *step = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return found;
}

bool store_last_lab(store *db, char *out, size_t cap, cl_err *err)
{
    sqlite3_stmt *st;
    if (!store_prepare(db, "SELECT value FROM meta WHERE key = 'last_lab'", &st, err))
        return false;
    bool found = sqlite3_step(st) == SQLITE_ROW;
    if (found)
        store_column_text(st, 0, out, cap);
    sqlite3_finalize(st);
    return found;
}

bool store_milestones(store *db, const char *lab, store_milestone **out, size_t *count, cl_err *err)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    *out = NULL;
    *count = 0;
    if (!store_prepare(db, "SELECT id, shown, at, run_id, row_id FROM milestones WHERE lab = ?1"
                          " ORDER BY at",
                       &st, err))
        return false;
    store_bind_text(st, 1, lab);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!grow((void **)out, &cap, *count, sizeof **out, err)) {
            sqlite3_finalize(st);
            return false;
        }
        store_milestone *m = &(*out)[(*count)++];
        memset(m, 0, sizeof *m);
        store_column_text(st, 0, m->id, sizeof m->id);
        store_column_text(st, 1, m->shown, sizeof m->shown);
        m->at = sqlite3_column_double(st, 2);
        m->run_id = sqlite3_column_int64(st, 3);
        m->row_id = sqlite3_column_int64(st, 4);
    }
    return read_done(db, st, rc, (void **)out, count, err, "cannot read the milestones reached");
}

bool store_quizzes(store *db, const char *lab, store_quiz **out, size_t *count, cl_err *err)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    *out = NULL;
    *count = 0;
    /* Per quiz: attempts, any right, first and last time, and the latest
     * answer (the row of the highest id). */
    if (!store_prepare(db,
                       "SELECT q.quiz, count(*), max(q.correct), min(q.at), max(q.at),"
                       " (SELECT choice FROM quiz_answers WHERE lab = ?1 AND quiz = q.quiz"
                       "  ORDER BY id DESC LIMIT 1),"
                       " (SELECT correct FROM quiz_answers WHERE lab = ?1 AND quiz = q.quiz"
                       "  ORDER BY id DESC LIMIT 1)"
                       " FROM quiz_answers q WHERE q.lab = ?1 GROUP BY q.quiz ORDER BY min(q.id)",
                       &st, err))
        return false;
    store_bind_text(st, 1, lab);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!grow((void **)out, &cap, *count, sizeof **out, err)) {
            sqlite3_finalize(st);
            return false;
        }
        store_quiz *q = &(*out)[(*count)++];
        memset(q, 0, sizeof *q);
        store_column_text(st, 0, q->id, sizeof q->id);
        q->attempts = sqlite3_column_int(st, 1);
        q->answered_right = sqlite3_column_int(st, 2) != 0;
        q->first_at = sqlite3_column_double(st, 3);
        q->last_at = sqlite3_column_double(st, 4);
        q->last_choice = sqlite3_column_int(st, 5);
        q->last_correct = sqlite3_column_int(st, 6) != 0;
    }
    return read_done(db, st, rc, (void **)out, count, err, "cannot read the quiz answers");
}

bool store_quiz_answers(store *db, const char *lab, const char *quiz, store_answer **out,
                        size_t *count, cl_err *err)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    *out = NULL;
    *count = 0;
    if (!store_prepare(db, "SELECT choice, correct, at FROM quiz_answers WHERE lab = ?1 AND"
                          " quiz = ?2 ORDER BY id LIMIT " STORE_ANSWERS_MAX_TEXT,
                       &st, err))
        return false;
    store_bind_text(st, 1, lab);
    store_bind_text(st, 2, quiz);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!grow((void **)out, &cap, *count, sizeof **out, err)) {
            sqlite3_finalize(st);
            return false;
        }
        store_answer *a = &(*out)[(*count)++];
        a->choice = sqlite3_column_int(st, 0);
        a->correct = sqlite3_column_int(st, 1) != 0;
        a->at = sqlite3_column_double(st, 2);
    }
    return read_done(db, st, rc, (void **)out, count, err, "cannot read the quiz answers");
}

/* Whether the database has table name: a store of an older schema opened
 * only to read is not migrated, and may lack the newer tables. */
static bool has_table(store *s, const char *name)
{
    sqlite3_stmt *st;
    cl_err ignored = {{0}};
    if (!store_prepare(s, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", &st,
                       &ignored))
        return true;   /* let the read itself say what is wrong */
    store_bind_text(st, 1, name);
    bool found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

bool store_hints(store *db, const char *lab, int **out, size_t *count, cl_err *err)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    *out = NULL;
    *count = 0;
    if (db->readonly && !has_table(db, "hints"))
        return true;   /* schema 1, read as it is: no hint was recorded */
    if (!store_prepare(db, "SELECT idx FROM hints WHERE lab = ?1 ORDER BY idx", &st, err))
        return false;
    store_bind_text(st, 1, lab);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!grow((void **)out, &cap, *count, sizeof **out, err)) {
            sqlite3_finalize(st);
            return false;
        }
        (*out)[(*count)++] = sqlite3_column_int(st, 0);
    }
    return read_done(db, st, rc, (void **)out, count, err, "cannot read the hints shown");
}

/* Reads the rows a statement selects as (id, run_id, at, kernel_sha,
 * diag_cause, record); a record that does not decode is skipped. */
static bool read_rows(store *s, sqlite3_stmt *st, store_row **out, size_t *n, cl_err *e)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *json = (const char *)sqlite3_column_text(st, 5);
        cJSON *o = json ? cJSON_Parse(json) : NULL;
        if (!o)
            continue;
        if (!grow((void **)out, &cap, *n, sizeof **out, e)) {
            cJSON_Delete(o);
            sqlite3_finalize(st);
            return false;
        }
        store_row *row = &(*out)[*n];
        memset(row, 0, sizeof *row);
        row->row_id = sqlite3_column_int64(st, 0);
        row->run_id = sqlite3_column_int64(st, 1);
        row->at = sqlite3_column_double(st, 2);
        store_column_text(st, 3, row->kernel_sha, sizeof row->kernel_sha);
        store_column_text(st, 4, row->diag_cause, sizeof row->diag_cause);
        bool ok = record_get_result(o, &row->r, NULL);
        cJSON_Delete(o);
        if (ok)
            (*n)++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(*out);
        *out = NULL;
        *n = 0;
        return store_fail(s, e, "cannot read the progress store");
    }
    return true;
}

#define ROW_COLUMNS \
    "SELECT r.id, r.run_id, r.at, u.kernel_sha, r.diag_cause, r.record FROM rows r" \
    " JOIN runs u ON u.id = r.run_id"

bool store_latest_exercise_run(store *db, const char *lab, store_row **out, size_t *count,
                               cl_err *err)
{
    sqlite3_stmt *st;
    if (!store_prepare(db,
                       ROW_COLUMNS " WHERE r.run_id = (SELECT max(x.run_id) FROM rows x"
                                   " JOIN runs y ON y.id = x.run_id"
                                   " WHERE y.lab = ?1 AND x.kind = 'exercise')"
                                   " ORDER BY r.id",
                       &st, err))
        return false;
    store_bind_text(st, 1, lab);
    return read_rows(db, st, out, count, err);
}

bool store_exercise_history(store *db, const char *lab, store_row **out, size_t *count, cl_err *err)
{
    sqlite3_stmt *st;
    if (!store_prepare(db, ROW_COLUMNS " WHERE u.lab = ?1 AND r.kind = 'exercise' ORDER BY r.id",
                       &st, err))
        return false;
    store_bind_text(st, 1, lab);
    return read_rows(db, st, out, count, err);
}

char *store_source_text(store *db, const char *sha, cl_err *err)
{
    sqlite3_stmt *st;
    char *text = NULL;
    if (!store_prepare(db, "SELECT text FROM sources WHERE sha256 = ?1", &st, err))
        return NULL;
    store_bind_text(st, 1, sha);
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        text = strdup(t ? t : "");
        if (!text)
            err_set(err, "out of memory");
    }
    sqlite3_finalize(st);
    return text;
}

/* The summary, from the rows themselves: for a store of a schema before
 * the summary tables that could not be migrated (opened only to read). */
#define RUNS_FROM_ROWS \
    "SELECT count(DISTINCT r.run_id), max(r.at) FROM runs u CROSS JOIN rows r" \
    " ON r.run_id = u.id WHERE u.lab = ?1 AND r.kind = 'exercise'"
#define BEST_FROM_ROWS \
    "SELECT size, median_ms, speedup_cpu, at, kernel_sha FROM (" \
    " SELECT r.size, r.median_ms, r.speedup_cpu, r.at, u.kernel_sha," \
    "  row_number() OVER (PARTITION BY r.size ORDER BY r.median_ms, r.id) AS k," \
    "  min(r.id) OVER (PARTITION BY r.size) AS first" \
    " FROM runs u CROSS JOIN rows r ON r.run_id = u.id" \
    " WHERE u.lab = ?1 AND r.kind = 'exercise' AND r.status = 'correct'" \
    "  AND r.median_ms IS NOT NULL)" \
    " WHERE k = 1 ORDER BY first"

bool store_exercise_summary_get(store *db, const char *lab, store_exercise_summary *out,
                                cl_err *err)
{
    sqlite3_stmt *st;
    memset(out, 0, sizeof *out);
    bool kept = !db->readonly || store_schema_version(db) >= 3;
    if (!store_prepare(db, kept ? "SELECT runs, latest_at FROM exercise_runs WHERE lab = ?1"
                               : RUNS_FROM_ROWS,
                       &st, err))
        return false;
    store_bind_text(st, 1, lab);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->runs = sqlite3_column_int64(st, 0);
        out->latest_at = sqlite3_column_double(st, 1);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_fail(db, err, "cannot read the runs of your kernel");
    if (!store_prepare(db,
                       kept ? "SELECT size, median_ms, speedup_cpu, at, kernel_sha"
                              " FROM exercise_best WHERE lab = ?1 ORDER BY first_row"
                            : BEST_FROM_ROWS,
                       &st, err))
        return false;
    store_bind_text(st, 1, lab);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && out->nbest < STORE_BEST_MAX) {
        store_best *b = &out->best[out->nbest++];
        store_column_text(st, 0, b->size, sizeof b->size);
        b->median_ms = sqlite3_column_double(st, 1);
        b->speedup_cpu = sqlite3_column_double(st, 2);
        b->at = sqlite3_column_double(st, 3);
        store_column_text(st, 4, b->kernel_sha, sizeof b->kernel_sha);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        out->nbest = 0;
        return store_fail(db, err, "cannot read the best figures of your kernel");
    }
    return true;
}

bool store_counts(store *db, int64_t *runs, int64_t *rows, cl_err *err)
{
    sqlite3_stmt *st;
    if (!store_prepare(db, "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM rows)", &st,
                       err))
        return false;
    bool ok = sqlite3_step(st) == SQLITE_ROW;
    if (ok) {
        *runs = sqlite3_column_int64(st, 0);
        *rows = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return ok || store_fail(db, err, "cannot count the records");
}

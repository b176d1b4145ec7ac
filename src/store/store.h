/* store.h - the learner's progress, kept across sessions (SQLite).
 *
 * One database, <data folder>/progress.db, that nothing but this module
 * touches.  It keeps every run (lab, device, seed, and the text of the
 * learner's starter.cu and starter.lua as they were run, by SHA-256), every
 * row of every run with its figures, the milestones reached (first time,
 * the run and row that earned them), each quiz answer, the hints revealed,
 * and where each lab was left.
 *
 * Each logical write is one transaction; rows are written as they arrive,
 * so a crash loses at most the row in flight.  WAL mode and a busy timeout
 * let two cudalab processes record at once.  A write that fails says what
 * is wrong and where: a full disk names the data folder, a read-only or
 * damaged file names the file.  Opening:
 *   - a missing database is created, a database of an older schema is
 *     migrated forward, one of a newer schema is refused (never
 *     downgraded), naming both versions;
 *   - the database is marked as cudalab's (PRAGMA application_id); a store
 *     made by an older cudalab (cudalab's tables, no mark) is adopted and
 *     marked; any other SQLite file at that path is left byte for byte as
 *     it is and refused, saying what it is, where, and what to do;
 *   - a damaged file (a bad header, or a damaged page found by SQLite's
 *     quick_check, which reads every page of a store up to
 *     STORE_CHECK_MAX_BYTES and the small tables of a larger one) is moved
 *     aside with its -wal and -shm files to
 *     progress.db.corrupt-<time>-<pid>, never over another file, and a new
 *     one started, with a notice naming where it went.  Processes opening
 *     at once take turns (a lock file, progress.db.lock), so one of them
 *     moves the file and the others open the new one;
 *   - a file or folder that cannot be written is opened only to read
 *     (nothing is created beside it): the records show, every write is
 *     refused, and the notice says that progress cannot be saved and why;
 *   - a folder that cannot be written and holds no store is an error: the
 *     caller carries on without a store, in memory, and says that progress
 *     is not saved. */
#ifndef CUDALAB_STORE_STORE_H
#define CUDALAB_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/devinfo.h"
#include "core/err.h"
#include "result/record.h"

#define STORE_FILE "progress.db"
#define STORE_SCHEMA_VERSION 3
#define STORE_BUSY_TIMEOUT_MS 2000
#define STORE_ID_MAX 64
#define STORE_TEXT_MAX 160
/* PRAGMA application_id of cudalab's stores ("CLab"). */
#define STORE_APP_ID 0x434C6162
/* How long an open waits for another process's open to finish. */
#define STORE_LOCK_WAIT_S 30
/* Stores up to this size are checked page by page on every writable open
 * (SQLite's quick_check reads about a MiB a millisecond: 8 ms at most);
 * larger ones have their small tables checked, in well under a
 * millisecond, and their large ones checked as they are read
 * (bench/storebench prints both times). */
#define STORE_CHECK_MAX_BYTES ((long long)8 << 20)
/* The most sizes store_exercise_summary_get reports. */
#define STORE_BEST_MAX 16

typedef struct store store;

/* Opens (creating, migrating or replacing a corrupt file as above) the
 * database in dir (NULL: the data folder, core/paths.h).  notice receives a
 * line worth telling the learner ("" when none): a corrupt file moved
 * aside, a migration, a store opened only to read (store_readonly).  false
 * + e when the store cannot be used: a folder that cannot be created or
 * written and holds none, another program's file, a newer schema, a disk
 * error; e names the file or folder. */
bool store_open(const char *dir, store **out, char *notice, size_t notice_n, cl_err *err);
/* Whether progress can be kept in data folder dir, changing nothing: false
 * with why set to what store_open would say ("progress is not saved: the
 * data folder D cannot be created (E is not a folder)"); true when dir is
 * writable or can be made (then *missing says whether it is still to be
 * made; may be NULL). */
bool store_dir_usable(const char *dir, bool *missing, char *why, size_t cap);
/* Opens the database of data folder dir (NULL: the data folder) only to
 * read it (`cudalab grade`), changing nothing on disk: no file or folder is
 * created (neither the database nor its -wal and -shm files), no journal
 * mode set, no schema migrated.  While another process has the database
 * open (its -wal and -shm files exist) it is read through them; otherwise
 * the file holds everything and is read as it is (SQLite's immutable
 * mode).  *out is NULL, and true returned, when nothing was recorded: no
 * database, or an empty one.  false + e when the file cannot be read as a
 * database, is another program's, or is of a newer schema. */
bool store_open_readonly(const char *dir, store **out, cl_err *err);
/* The most bytes the database, and its -wal file, of a learner's store may
 * hold to be read by store_open_untrusted; how long one statement on it
 * may run, and the checks when it is opened. */
#define STORE_UNTRUSTED_MAX_BYTES ((long long)64 << 20)
#define STORE_UNTRUSTED_BUDGET_S 2.0
#define STORE_UNTRUSTED_OPEN_S 10.0
/* Opens the database of data folder dir (NULL: the data folder) as
 * untrusted input (`cudalab grade`: the learner controls every byte of
 * it), changing nothing on disk.  progress.db and its -wal file are opened
 * without following a link, must be regular files of at most
 * STORE_UNTRUSTED_MAX_BYTES (their size checked before anything is read),
 * and are copied into a private folder under $TMPDIR, read there only to
 * read (a -shm file is never read) and removed at store_close.  The
 * connection runs in SQLite's defensive mode, with untrusted schema,
 * triggers and views off and small limits; its schema must be exactly
 * what cudalab's migrations make for its version (a view, a trigger, an
 * unknown table or index, or a table changed is refused, naming it), and
 * its pages pass quick_check.  Every statement on it is interrupted after
 * STORE_UNTRUSTED_BUDGET_S seconds (the checks at open after
 * STORE_UNTRUSTED_OPEN_S).  *out NULL and true when nothing was recorded;
 * false + e saying what is wrong, naming the file, when it is refused. */
bool store_open_untrusted(const char *dir, store **out, cl_err *err);
/* Opens a database file by path with no repair, for tools and tests:
 * false on any problem. */
bool store_open_file(const char *path, store **out, cl_err *err);
void store_close(store *db);
/* Whether s was opened only to read (a file or folder that cannot be
 * written): reads work, every write fails with "progress not saved: "
 * and store_readonly_why. */
bool store_readonly(const store *db);
/* Why progress cannot be saved in a read-only store ("" otherwise):
 * "the data folder D cannot be written (Permission denied)". */
const char *store_readonly_why(const store *db);
/* The database's file path. */
const char *store_path(const store *db);
/* The schema version of the open database. */
int store_schema_version(store *db);

/* ---- writing ------------------------------------------------------------- */

/* What a run is, when it starts. */
typedef struct store_run_info {
    const char *lab;
    const char *origin;           /* "tui", "run", "grade", ... */
    uint64_t seed;                /* 0: chosen by the worker (rows carry it) */
    const device_info *dev;       /* NULL: not known yet */
    /* The learner's files as they were when the run was asked for (NULL
     * when the run has no exercise); their text is kept once per hash. */
    const char *kernel_path, *kernel_text;
    const char *launcher_path, *launcher_text;
} store_run_info;

/* Starts a run; *run_id names it for the rows.  One transaction. */
bool store_run_begin(store *db, const store_run_info *info, int64_t *run_id, cl_err *err);
/* Sets the device of a run begun without one. */
bool store_run_device(store *db, int64_t run_id, const device_info *dev, cl_err *err);
/* Records one row of a run (diag_cause: the diagnosis's cause name for a
 * failed learner row, or NULL); *row_id may be NULL.  One transaction,
 * which writes nothing when the run is no longer recorded (its lab was
 * forgotten while it ran): then false, and e says so. */
bool store_row_add(store *db, int64_t run_id, const run_result *row, const char *diag_cause,
                   int64_t *row_id, cl_err *err);
/* Records that milestone id of lab was reached, with the value shown
 * ("223x >= 100x at 2^28") and the run and row that earned it; only the
 * first time counts (later calls change nothing).  *first tells which.
 * Like a row, nothing is written for a run no longer recorded. */
bool store_milestone_reached(store *db, const char *lab, const char *id, const char *shown,
                             int64_t run_id, int64_t row_id, bool *first, cl_err *err);
/* Records one answer to quiz id of lab. */
bool store_quiz_answer(store *db, const char *lab, const char *quiz, int choice, bool correct,
                       cl_err *err);
/* Records that hint index (0-based) of lab was shown. */
bool store_hint_revealed(store *db, const char *lab, int index, cl_err *err);
/* Where the learner left lab (its lesson step), and that it was the last
 * lab open. */
bool store_place_set(store *db, const char *lab, int step, cl_err *err);
/* Forgets everything about lab (its runs, rows, milestones, answers,
 * hints and place); the sources no run refers to any longer go too. */
bool store_reset_lab(store *db, const char *lab, cl_err *err);

/* ---- reading ------------------------------------------------------------- */

typedef struct store_milestone {
    char id[STORE_ID_MAX];
    char shown[STORE_TEXT_MAX];
    double at;                    /* Unix time reached */
    int64_t run_id, row_id;
} store_milestone;

typedef struct store_quiz {
    char id[STORE_ID_MAX];
    int attempts;
    bool answered_right;          /* some attempt was right */
    int last_choice;              /* the latest answer */
    bool last_correct;
    double first_at, last_at;
} store_quiz;

/* One recorded row with when it ran and the learner's source it ran. */
typedef struct store_row {
    int64_t row_id, run_id;
    double at;                    /* Unix time the row was recorded */
    char kernel_sha[65];          /* "" when the run had no exercise */
    char diag_cause[32];
    run_result r;
} store_row;

/* The lesson step lab was left at; false when never opened. */
bool store_place_get(store *db, const char *lab, int *step, cl_err *err);
/* The last lab open (id into out); false when none. */
bool store_last_lab(store *db, char *out, size_t cap, cl_err *err);
/* The milestones of lab reached so far, oldest first (malloc'd; *n). */
bool store_milestones(store *db, const char *lab, store_milestone **out, size_t *count, cl_err *err);
/* Each quiz of lab answered at least once (malloc'd; *n). */
bool store_quizzes(store *db, const char *lab, store_quiz **out, size_t *count, cl_err *err);
/* One recorded answer to a quiz: the choice picked (0-based, as recorded:
 * a learner's store may hold any number), whether the store says it was
 * right, and when. */
typedef struct store_answer {
    int choice;
    bool correct;
    double at;
} store_answer;
#define STORE_ANSWERS_MAX 1000
#define STORE_ANSWERS_MAX_TEXT "1000"
/* The answers to quiz of lab, oldest first, at most STORE_ANSWERS_MAX of
 * them (malloc'd; *n). */
bool store_quiz_answers(store *db, const char *lab, const char *quiz, store_answer **out,
                        size_t *count, cl_err *err);
/* The hints of lab revealed (0-based indices, malloc'd; *n). */
bool store_hints(store *db, const char *lab, int **out, size_t *count, cl_err *err);
/* The rows of lab's latest run that had an exercise row (the learner's
 * latest results with the baselines beside them), in the order recorded
 * (malloc'd; *n, 0 when none). */
bool store_latest_exercise_run(store *db, const char *lab, store_row **out, size_t *count,
                               cl_err *err);
/* Every row of the learner's kernel in lab, oldest first (malloc'd; *n). */
bool store_exercise_history(store *db, const char *lab, store_row **out, size_t *count, cl_err *err);
/* The text of the source whose SHA-256 is sha (malloc'd), or NULL. */
char *store_source_text(store *db, const char *sha, cl_err *err);
/* The learner's fastest correct row at one size. */
typedef struct store_best {
    char size[RUN_SIZE_MAX];
    double median_ms;
    double speedup_cpu;           /* 0 when unknown */
    double at;                    /* Unix time the row was recorded */
    char kernel_sha[65];          /* "" when not known */
} store_best;

/* What `cudalab progress` shows of the learner's kernel in one lab. */
typedef struct store_exercise_summary {
    int64_t runs;                 /* runs with a row of the learner's kernel */
    double latest_at;             /* when the latest such row was recorded; 0: none */
    size_t nbest;
    store_best best[STORE_BEST_MAX]; /* per size, in the order sizes first had one */
} store_exercise_summary;

/* Summarizes the learner's kernel in lab: a few rows of the summary kept
 * as rows are written, however many runs there are. */
bool store_exercise_summary_get(store *db, const char *lab, store_exercise_summary *out,
                                cl_err *err);
/* How many runs and rows are recorded (all labs). */
bool store_counts(store *db, int64_t *runs, int64_t *rows, cl_err *err);

#endif

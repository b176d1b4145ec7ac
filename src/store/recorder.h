/* recorder.h - one run written to the progress store as it happens.
 *
 * The TUI, `cudalab run` and `cudalab report` record alike: begin when a
 * request is sent (the learner's files are read then, as they are about to
 * run), one row per result as it arrives, and at the end the lab's
 * milestones judged on the run's rows, the reached ones recorded with the
 * run and the learner's row that earned them.
 *
 * A recorder without a store (it could not be opened) records nothing and
 * says so; one with a store opened only to read (store_readonly) records
 * nothing and, when a run begins, leaves "this run's results were not
 * recorded: why" in `failed`; the first write that fails (a full disk, a
 * folder gone read-only, the lab forgotten meanwhile) stops it and leaves
 * one message in `failed` for the caller to show once.  Nothing here ever
 * stops a run. */
#ifndef CUDALAB_STORE_RECORDER_H
#define CUDALAB_STORE_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/devinfo.h"
#include "core/err.h"
#include "lab/labmodel.h"
#include "lab/milestone.h"
#include "result/record.h"
#include "store/store.h"

typedef struct recorder {
    store *s;                /* NULL: not recording */
    const char *origin;      /* "tui", "run", "report" */
    int64_t run_id;          /* 0: no run begun */
    int64_t exercise_row;    /* the latest learner row of this run, 0: none */
    char lab[RUN_ID_MAX];
    bool stopped;            /* a write failed; nothing more is written */
    char failed[CL_ERR_MAX]; /* why, once; "" when all went well */
} recorder;

/* s may be NULL (then every call is a no-op). */
void recorder_init(recorder *rc, store *db, const char *origin);
/* Starts recording req's run (dev may be NULL, set later). */
void recorder_begin(recorder *rc, const run_request *req, const device_info *dev);
void recorder_device(recorder *rc, const device_info *dev);
/* Records one row; diag_cause names the diagnosis of a failed learner row
 * (supervise/diagnose.h) or is NULL. */
void recorder_row(recorder *rc, const run_result *row, const char *diag_cause);
/* Judges l's measured milestones on rows (all rows of the run) into evals
 * (l->nmilestones entries, may be NULL) and records each one reached.
 * *newly counts the milestones reached for the first time ever. */
void recorder_milestones(recorder *rc, lab *the_lab, const run_result *rows, size_t cap, ms_eval *evals,
                         int *newly);

#endif

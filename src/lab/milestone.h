/* milestone.h - judging a lab's milestones against measured results.
 *
 * A check milestone's Lua function receives a read-only table r built from
 * the result rows (see lua/README.md): r.exercise, r.variants[id],
 * r.exercises[id], r.library, r.cpu, r.cpu_mt (each the row at the largest
 * size measured; r.exercise, r.cpu and r.cpu_mt the rows called
 * "exercise", "cpu" and "cpu_mt" when there are several of the kind) and
 * r.all (every row); rows and r are strict (lab/rowview.h).  It returns
 * reached, value, why:
 *   reached: true -> MS_REACHED, false -> MS_MISSED, nil -> MS_PENDING
 *            (nothing to judge yet, e.g. the exercise has not run);
 *   value:   a number shown beside the target ("312x >= 100x"), or nil;
 *   why:     for a miss, which condition failed, in words ("2.1x, needs
 *            >= 3x", "no report.md beside your kernel"), or nil.  A missed
 *            milestone with a why shows the why, never a passing figure.
 * A check that says missed after reading a row that did not run (no
 * device, a compile error) gives MS_PENDING: nothing it judged was
 * measured.  A pending milestone without a value shows "target: ...".
 * A check that errors, runs past its time budget or exhausts its memory
 * gives MS_ERROR with "file:line: message", never a crash. */
#ifndef CUDALAB_LAB_MILESTONE_H
#define CUDALAB_LAB_MILESTONE_H

#include <stdbool.h>
#include <stddef.h>

#include "lab/labmodel.h"
#include "result/record.h"   /* run_result */

typedef enum { MS_PENDING, MS_REACHED, MS_MISSED, MS_ERROR } ms_state;

typedef struct ms_eval {
    ms_state state;
    double value;
    bool has_value;
    char shown[160];      /* "312x >= 100x"; for a miss with a why, the why */
    char why[160];        /* a miss: which condition failed ("" when the check gave none);
                           * pending: "not judged: ..." when the check read a row that
                           * did not run (lab/rowview.h) and said missed */
    char error[256];
} ms_eval;

/* Evaluates the milestone at ms_index of model against the nrows results in
 * rs (all rows of the latest runs; only those of the milestone's exercise
 * count: rows whose exercise id is the one it names, or "" when it names
 * none).  Quiz milestones are MS_PENDING here (answered elsewhere).  Returns
 * false only when ms_index is out of range or the state is MS_ERROR. */
bool lab_milestone_eval(lab *model, size_t ms_index, const run_result *rs, size_t nrows,
                        ms_eval *out);

/* The exercise the milestone at ms_index judges (the lab's own when it names
 * none); NULL for a lab without that exercise. */
const lab_exercise *lab_milestone_exercise(const lab *model, size_t ms_index);
/* The size label the milestone at ms_index is judged at: its own `size`, else
 * the largest of its exercise's sizes (the lab's, when it names no exercise)
 * by the bytes one run moves (a declared problem without `bytes`: its
 * buffers' bytes); NULL for a quiz or when there are no sizes. */
const char *lab_milestone_size(const lab *model, size_t ms_index);
/* Whether size labels size_a and size_b mean the same size for model's
 * problem ("2^28" and "268435456"); an unreadable label equals only its own
 * text. */
bool lab_same_size(const lab *model, const char *size_a, const char *size_b);
/* The same for the problem of the exercise of the milestone at ms_index. */
bool lab_milestone_same_size(const lab *model, size_t ms_index, const char *size_a,
                             const char *size_b);
/* lab_milestone_eval judged on the rows measured at the size of the milestone
 * at ms_index only; rows of other sizes are left out (so a check sees no
 * learner row, and stays pending, when the judged size was not run). */
bool lab_milestone_eval_judged(lab *model, size_t ms_index, const run_result *rs, size_t nrows,
                               ms_eval *out);

/* lab_milestone_eval_judged into out; when that stays pending for want of
 * a measurement at the judged size, aside receives the judgement on the
 * largest other size measured (for showing as information only: "22x at
 * 2^20") and aside_size its label; aside->state is MS_PENDING and
 * aside_size "" when there is none. */
bool lab_milestone_eval_sized(lab *model, size_t ms_index, const run_result *rs, size_t nrows,
                              ms_eval *out, ms_eval *aside, char *aside_size, size_t an);

/* Answers the quiz at index quiz with its choice at index choice: sets
 * *correct and returns the feedback text (owned by the lab).  NULL (and
 * *correct false) when quiz or choice is out of range. */
const char *lab_quiz_answer(const lab *model, size_t quiz, size_t choice, bool *correct);

/* "pending", "reached", "missed", "error". */
const char *ms_state_name(ms_state state);

#endif

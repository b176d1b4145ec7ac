/* rowview.h - the read-only view of results a milestone check receives.
 *
 * rowview_push builds the table r of lua/README.md ("Milestone checks")
 * from result rows: r.exercise, r.exercises[id], r.variants[id],
 * r.library, r.cpu, r.cpu_mt (each the row at the largest size measured)
 * and r.all.  Rows and r itself are strict: reading a field that no row
 * has (r.exercise.pct_peek) is an error at the check's line that names the
 * field and the one it looks like ("did you mean 'pct_peak'?"); a field a
 * row has but the engine could not measure reads nil.  The caller freezes
 * the result (sandbox_freeze).
 *
 * A row that did not run (no device, a compile error: RS_ERROR,
 * RS_NO_DEVICE) reads the same, but every read of it is noted: a check
 * that read one and then says "missed" judged what was not measured
 * (lab/milestone.c makes that pending). */
#ifndef CUDALAB_LAB_ROWVIEW_H
#define CUDALAB_LAB_ROWVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "result/record.h"

struct lua_State;

/* Pushes r for rows rs[0..nrows). */
void rowview_push(struct lua_State *L, const run_result *rs, size_t nrows);

/* Whether the check that received the r last pushed read a row that did not
 * run; *what (n bytes) then says which and why ("your kernel at 2^20 did
 * not run (no device: ...)"). */
bool rowview_unrun_read(struct lua_State *L, char *what, size_t n);

/* The names of a row's fields, NULL-terminated. */
const char *const *rowview_row_fields(void);

#endif

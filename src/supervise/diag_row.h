/* diag_row.h - one row (and the fault that ended its run) in plain words.
 *
 * What the TUI, `cudalab run` and `cudalab grade` show under a learner's
 * row that went wrong: the row's status and message, a compiler error
 * carried in the message ("starter.cu:12:5: error: ... (and 2 more
 * errors)"), and the run's fault, read together by diagnose(). */
#ifndef CUDALAB_SUPERVISE_DIAG_ROW_H
#define CUDALAB_SUPERVISE_DIAG_ROW_H

#include <stdbool.h>
#include <stddef.h>

#include "result/record.h"
#include "supervise/diagnose.h"

struct problem_spec;

/* Diagnoses the row result (NULL: no row came) with its fault (NULL: none)
 * of a run whose time limit was time_limit_s (0: unknown); output is the end
 * of what the worker printed (NULL: unknown), where a failed device assert
 * shows. */
void diag_row(const run_result *result, const run_fault *fault, const struct problem_spec *spec,
              double time_limit_s, const char *output, diagnosis *out);
/* When result is a learner row whose message is a compiler's "file:line:col:
 * error: message [(and N more errors)]", fills the compile fields of in
 * (the strings live in result and in text, of size text_size) and returns true. */
bool diag_row_compile(const run_result *result, diag_input *in, char *text, size_t text_size);

#endif

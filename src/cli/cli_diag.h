/* cli_diag.h - what went wrong with the learner's kernel, on the command
 * line: the same plain-words diagnosis the TUI shows (supervise/diagnose.h),
 * as an indented block of text or as a JSON object. */
#ifndef CUDALAB_CLI_CLI_DIAG_H
#define CUDALAB_CLI_CLI_DIAG_H

#include <stdbool.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#include "result/record.h"
#include "supervise/diagnose.h"

struct problem_spec;

/* Whether result is a learner row worth a diagnosis: not correct, and not a row
 * that merely found no device. */
bool cli_diag_wanted(const run_result *result);
/* Prints diag as "title (where)", the explanation and "Next step: ..."
 * wrapped to the terminal's usual width, each line after indent. */
void cli_diag_print(FILE *out, const diagnosis *diag, const char *indent);
/* {"cause", "title", "where", "explanation", "next_step"}; NULL when out of
 * memory. */
cJSON *cli_diag_json(const diagnosis *diag);
/* Adds "diagnosis" to every learner row of doc's "results" that wants one
 * and to its "fault", read with the worker's output (may be NULL). */
void cli_diag_annotate(cJSON *doc, const run_result *rows, size_t nrows, const run_fault *fault,
                       const struct problem_spec *spec, double time_limit_s,
                       const char *output);

#endif

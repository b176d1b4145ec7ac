/* cli_sanitize.h - `cudalab run LAB --exercise --sanitize TOOL`: the
 * learner's kernel once under compute-sanitizer (supervise/sanitize.h),
 * what the tool found printed first, as text or JSON. */
#ifndef CUDALAB_CLI_SANITIZE_H
#define CUDALAB_CLI_SANITIZE_H

#include <stdbool.h>

#include "cli/cli.h"
#include "lab/labmodel.h"
#include "result/record.h"
#include "supervise/sanitize.h"

/* Runs req's exercise under tool san_tool; returns the exit code (0 clean, 1 a
 * finding or a failed row, 3 no device or no tool). */
int cli_run_sanitize(cli_ctx *ctx, const lab *the_lab, const run_request *req,
                     sanitize_tool san_tool, bool json);

#endif

/* cli_pipeline.h - the pipeline lab's rows, one line per step.
 *
 * `cudalab run pipeline` prints a row per measurement (cpu.fill, fill,
 * exercise.fill, ...).  After them, this summary puts each step's figures
 * side by side at every size: the CPU on one thread and on all of them,
 * the lab's GPU step with its speedup over one CPU thread and its GB/s,
 * the learner's step and its speedup; then the end-to-end line; then
 * where the time goes on each side, a bar per step for its share of that
 * side's total.  Pure: reads rows, writes text. */
#ifndef CUDALAB_CLI_CLI_PIPELINE_H
#define CUDALAB_CLI_CLI_PIPELINE_H

#include <stddef.h>
#include <stdio.h>

#include "result/record.h"

/* The summary for every size that has pipeline rows; nothing when none. */
void cli_pipeline_summary(const run_result *rows, size_t nrows, bool ascii, FILE *out);

#endif

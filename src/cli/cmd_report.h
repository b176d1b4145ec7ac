/* cmd_report.h - `cudalab report profiling`: the profiling lab's report.
 *
 *   cudalab report profiling [--size ROWSxFEATURES] [--seed N] [--budget S]
 *
 * Runs the lab's starter and the learner's pipeline (from the workspace,
 * its starters copied there first when missing) in the GPU worker, times
 * both end to end beside the CPU baselines, records one call of each with
 * CUPTI, and writes <workspace>/profiling/report.md atomically: the
 * before-and-after table, both timelines summarised, what changed between
 * them, and the learner's notes section, carried over from the previous
 * report (an earlier report.md without that section is first saved as
 * report-<date>-<time>.md).  The two Chrome traces are written beside it
 * as starter-timeline.json and pipeline-timeline.json.  The size defaults
 * to the lab's first.
 *
 * Exit 0 when the report was written and both pipelines checked correct,
 * 1 when a result was wrong or the worker faulted (a report is still
 * written when both rows came back), 2 on a bad command line, 3 without a
 * CUDA device (nothing is written) or when the workspace cannot be used. */
#ifndef CUDALAB_CLI_CMD_REPORT_H
#define CUDALAB_CLI_CMD_REPORT_H

#include "cli/cli.h"

#define REPORT_STARTER_TRACE "starter-timeline.json"
#define REPORT_PIPELINE_TRACE "pipeline-timeline.json"
#define REPORT_GAP_MIN_NS 10000u   /* idle stretches shorter than 10 us are not counted as gaps */

int cmd_report(cli_ctx *ctx, int argc, char **argv);
extern const struct cli_command cmd_report_spec;

#endif

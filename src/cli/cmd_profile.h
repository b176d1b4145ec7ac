/* cmd_profile.h - `cudalab profile`: the profiling lab's experiments from
 * the command line.
 *
 *   cudalab profile [EXPERIMENT...] [--trace FILE] [--json] [--budget S]
 *                   [--seed N] [--ncu KERNEL_REGEX]
 *
 * Runs the experiments (experiments/experiments.h; none named: all) in the GPU
 * worker and prints their rows with what each shows, a text roofline when
 * the roofline experiment ran, and where the GPU idled on the recorded
 * timeline.  --trace copies the timeline (a Chrome trace: open it in
 * ui.perfetto.dev or chrome://tracing) to FILE.  --ncu profiles the first
 * launch of the kernel matching KERNEL_REGEX with Nsight Compute instead
 * and prints its metrics.  Exit 0 when every row checked out, 1 when one
 * did not or the worker faulted, 2 on a bad command line, 3 without a CUDA
 * device (or without ncu for --ncu). */
#ifndef CUDALAB_CLI_CMD_PROFILE_H
#define CUDALAB_CLI_CMD_PROFILE_H

#include "cli/cli.h"

int cmd_profile(cli_ctx *ctx, int argc, char **argv);
extern const struct cli_command cmd_profile_spec;

#endif

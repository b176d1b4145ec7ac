/* tui_ncu.h - Nsight Compute from the terminal lab: one kernel of a row
 * profiled in a child process (tui_job.h), its metrics as lines for the
 * row's details.
 *
 * The child runs `ncu ... --kernel-name regex:<kernel> --launch-count 1
 * cudalab <args>` through ncu_run (prof/ncu.h) and writes "OK\n" and the
 * metric lines, or "ERR\n" and why it could not. */
#ifndef CUDALAB_TUI_NCU_H
#define CUDALAB_TUI_NCU_H

#include <stddef.h>

#include "prof/ncu.h"

#define TUI_NCU_MAX_ARGS 24
#define TUI_NCU_ARG_MAX 1024

typedef struct tui_ncu_job {
    char ncu[TUI_NCU_ARG_MAX];                  /* the ncu executable */
    char kernel[128];                           /* regular expression of the kernel's name */
    char args[TUI_NCU_MAX_ARGS][TUI_NCU_ARG_MAX];   /* the program profiled: args[0] is cudalab */
    int nargs;
    double timeout_s;
} tui_ncu_job;

/* The metrics of kernel as lines: what ran (grid, block), then duration,
 * throughputs, occupancy and hit rates, then the max_stalls largest stall
 * reasons.  Returns the length snprintf would have written. */
int tui_ncu_format(const ncu_kernel *kernel, int max_stalls, char *buf, size_t buf_size);
/* The names of the __global__ functions in a CUDA source, as a regular
 * expression for ncu ("^(reduce_sum|finish)$"); comments are skipped.
 * Returns how many were found (0: out is ""). */
int tui_ncu_kernel_regex(const char *source, char *out, size_t out_size);
/* The child's work (a tui_job_fn): ud is a tui_ncu_job. */
int tui_ncu_child(void *ud, int fd);

#endif

/* ncu.h - profiling one kernel with Nsight Compute and reading its numbers.
 *
 * `ncu --csv --page raw` prints, after whatever the profiled program
 * printed, a header row (fixed columns "ID", "Process ID", ..., "CC", then
 * one column per metric), a units row, and one row per profiled kernel
 * launch; numbers may carry thousands separators and unavailable values
 * read "n/a".  ncu_parse_csv reads that table; ncu_run runs ncu on a
 * command and parses what it printed. */
#ifndef CUDALAB_PROF_NCU_H
#define CUDALAB_PROF_NCU_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

typedef struct ncu_metric {
    char name[128];       /* "dram__throughput.avg.pct_of_peak_sustained_elapsed" */
    char unit[32];        /* "%", "nsecond", "" */
    char text[64];        /* the value as printed */
    double value;         /* parsed value when has_value */
    bool has_value;       /* false for "n/a" and empty cells */
} ncu_metric;

typedef struct ncu_kernel {
    int id;
    char name[256];
    char block[32], grid[32];   /* "(256, 1, 1)" */
    char device[32], cc[16];
    ncu_metric *metrics;
    size_t nmetrics;
} ncu_kernel;

typedef struct ncu_report {
    ncu_kernel *kernels;
    size_t nkernels;
} ncu_report;

/* Parses ncu's raw-page CSV out of text (lines before the header are
 * skipped).  false + err when no header is found or a row is malformed. */
bool ncu_parse_csv(const char *text, ncu_report *out, cl_err *err);
void ncu_report_free(ncu_report *report);
const ncu_metric *ncu_metric_find(const ncu_kernel *kernel, const char *name);

/* The metrics cudalab asks for, comma-separated: DRAM and SM throughput,
 * achieved occupancy, L1 and L2 hit rates, duration, and the main warp
 * stall reasons (smsp__average_warps_issue_stalled_*_per_issue_active). */
const char *ncu_default_metrics(void);
/* A short human label for a metric name ("DRAM throughput", "stall: long
 * scoreboard"); the name itself when it has none. */
const char *ncu_metric_label(const char *name);

/* Finds ncu (core/which.h); path receives its location. */
bool ncu_find(char *path, size_t path_size);
/* How to get Nsight Compute, in one paragraph. */
const char *ncu_install_hint(void);

/* The argument vector ncu_run executes, NULL-terminated, in one malloc'd
 * block (free it with free):
 *   ncu --csv --page raw --target-processes all --clock-control none
 *       --kernel-name regex:<kernel_regex> --launch-count 1
 *       --metrics <metrics> <cmd...>
 * metrics NULL means ncu_default_metrics().  NULL + err for an empty command. */
char **ncu_argv(const char *ncu, const char *kernel_regex, const char *metrics,
                const char *const *cmd, cl_err *err);

/* Runs ncu on cmd (argv of the program to profile), waits at most
 * timeout_s seconds (0: 600), parses the table into out.  *output (may be
 * NULL) receives everything ncu and the program printed (malloc'd).  On a
 * failure err says why in plain words (see ncu_explain). */
bool ncu_run(const char *ncu, const char *kernel_regex, const char *metrics,
             const char *const *cmd, double timeout_s, ncu_report *out, char **output,
             cl_err *err);
/* Turns ncu's complaints in output into one sentence in err: missing
 * permission to read the performance counters, no kernel matching the
 * name, an unknown metric, or the last ==ERROR== line. */
void ncu_explain(const char *output, const char *kernel_regex, cl_err *err);

#endif

/* sanitize.h - the learner's kernel under NVIDIA compute-sanitizer.
 *
 * sanitize_run starts `compute-sanitizer --tool
 * memcheck|racecheck|synccheck|initcheck --log-file <tmp> --print-limit 50
 * [--racecheck-report all] <cudalab> worker`, sends it one check-only
 * request for the exercise (one checked run at the smallest of the given
 * sizes, no timing, no shipped rungs, no CPU baselines), lets the worker
 * quit so the tool writes its summary, and parses the tool's log into
 * findings: invalid or misaligned accesses with the kernel, file:line
 * (learner kernels are compiled with -lineinfo), thread, block, size and
 * address; shared-memory race hazards (racecheck); barriers that not every
 * thread reached and bad __syncwarp() masks (synccheck); reads of global
 * memory nothing had written (initcheck); leaks; CUDA errors the tool saw.
 * A race that happened to give the right answer is still a finding.
 * initcheck runs without --track-unused-memory: cudalab's own buffers would
 * be reported beside the learner's, though the parser reads those reports
 * when a log has them.  The parent never touches CUDA. */
#ifndef CUDALAB_SUPERVISE_SANITIZE_H
#define CUDALAB_SUPERVISE_SANITIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/devinfo.h"
#include "core/err.h"
#include "result/record.h"

#define SANITIZE_PRINT_LIMIT 50
#define SANITIZE_DEFAULT_LIMIT_S 600.0

struct problem_spec;

typedef enum sanitize_tool {
    SANITIZE_MEMCHECK,
    SANITIZE_RACECHECK,
    SANITIZE_SYNCCHECK,
    SANITIZE_INITCHECK,
} sanitize_tool;

#define SANITIZE_TOOLS 4
/* "memcheck, racecheck, synccheck or initcheck", for messages. */
#define SANITIZE_TOOL_LIST "memcheck, racecheck, synccheck or initcheck"

typedef enum sanitize_kind {
    SAN_INVALID_READ,
    SAN_INVALID_WRITE,
    SAN_INVALID_ATOMIC,
    SAN_MISALIGNED,
    SAN_RACE,            /* hazard says RAW, WAR or WAW */
    SAN_BARRIER,         /* a barrier not every thread reaches, or misused (synccheck) */
    SAN_UNINIT,          /* a read of global memory nothing had written (initcheck) */
    SAN_UNUSED,          /* an allocation partly never used (initcheck --track-unused-memory) */
    SAN_LEAK,
    SAN_CUDA_ERROR,      /* a CUDA call failed under the tool ("Program hit ...") */
    SAN_OTHER,           /* anything else the tool reported: see headline */
} sanitize_kind;

typedef struct sanitize_finding {
    sanitize_kind kind;
    bool warning;               /* the tool called it a warning, not an error */
    char space[16];             /* "global", "shared", "local"; "" unknown */
    char hazard[4];             /* races: "RAW", "WAR", "WAW"; "" otherwise */
    char kernel[128];           /* "reduce_sum"; "" unknown */
    char file[256];             /* base name, "starter.cu"; "" unknown */
    int line;                   /* 0 unknown */
    char file2[256];            /* races: the other access */
    int line2;
    bool has_thread, has_block;
    int thread[3], block[3];
    int size;                   /* bytes of the access; 0 unknown */
    bool has_address;
    uint64_t address;
    long long hazards;          /* races: hazards the tool counted; 0 unknown */
    int count;                  /* reports merged into this one (same kind and place) */
    char headline[256];         /* the report's first line as the tool wrote it */
    char detail[256];           /* "Access at 0x... is out of bounds; and is 4 bytes after ...";
                                 * barriers and uninitialised reads: what it means, in plain words */
} sanitize_finding;

typedef struct sanitize_report {
    sanitize_finding *findings; /* malloc'd, in log order */
    size_t n;
    int errors;                 /* from the tool's summary line; -1 when absent */
    int warnings;               /* racecheck's summary; -1 when absent */
    long long leaked_bytes;     /* memcheck's leak summary; 0 none */
    int consequences;           /* CUDA errors folded as following from the first finding */
} sanitize_report;

/* Parses a compute-sanitizer log (any of the four tools, with or without
 * the "========= " prefix), then arranges the findings as
 * sanitize_report_arrange does.  false only when out of memory. */
bool sanitize_parse_log(const char *log, sanitize_report *out);
void sanitize_report_free(sanitize_report *report);
/* The learner's own problems first (accesses, races, barriers, in log
 * order), then the CUDA errors the tool saw, then leaks.  When there is a
 * problem of the kernel's own, the CUDA errors that follow from it ("Program
 * hit cudaErrorLaunchFailure ... unspecified launch failure" on every later
 * call) are folded into one finding, their number in consequences. */
void sanitize_report_arrange(sanitize_report *report);

const char *sanitize_tool_name(sanitize_tool tool);       /* "memcheck", ..., "initcheck" */
bool sanitize_tool_from_name(const char *name, sanitize_tool *tool);
/* What the tool finds, in a few words ("shared-memory races"). */
const char *sanitize_tool_finds(sanitize_tool tool);
const char *sanitize_kind_name(sanitize_kind kind);       /* "invalid write", "race", ... */
/* Sets finding's detail to what a synccheck or initcheck report means, in plain
 * words, from its kind and headline ("not every thread of the block reached
 * this barrier: ..."); other findings keep theirs. */
void sanitize_finding_explain(sanitize_finding *finding);
/* One line: "invalid write of 4 bytes to global memory in reduce_sum at
 * starter.cu:12, thread (255,0,0) of block (3,0,0): Access at 0x... is out
 * of bounds (50 reports)".  Returns the length snprintf would have written. */
int sanitize_finding_format(const sanitize_finding *finding, char *buf, size_t buf_size);

/* Index of the size in sizes[0..n) of spec whose problem data is smallest
 * (parsed without CUDA), or -1 with err when none parses. */
int sanitize_smallest_size(const struct problem_spec *spec, const char *const *sizes, int nsizes,
                           cl_err *err);

typedef struct sanitize_opts {
    sanitize_tool tool;
    const char *problem;              /* "reduce_sum", "sgemm", "embedding" */
    const struct problem_spec *spec;  /* how its sizes read; NULL: the shipped problem's */
    const char *lab;                  /* for the request; may be NULL */
    const char *lab_file;             /* a problem the lab declares: its lab.lua; else NULL */
    const char *const *sizes;         /* the lab's sizes: the smallest runs */
    int nsizes;
    const char *kernel;               /* the learner's .cu */
    const char *launcher;             /* the learner's .lua */
    uint64_t seed;                    /* 0: the worker picks */
    double time_limit_s;              /* 0: SANITIZE_DEFAULT_LIMIT_S */
    const char *sanitizer;            /* NULL: which_tool("compute-sanitizer") */
    const char *self;                 /* the cudalab executable; NULL: this one */
} sanitize_opts;

typedef struct sanitize_result {
    char tool_path[1024];
    char size[RUN_SIZE_MAX];        /* the size that ran */
    bool have_dev;
    device_info dev;                  /* the worker's hello */
    bool have_row;
    run_result row;                   /* the exercise's checked run */
    bool faulted;
    run_fault fault;                  /* the worker died, timed out or hit a CUDA error */
    int exit_status;                  /* the tool's exit status; -1 killed by a signal */
    sanitize_report report;
    char *log;                        /* the tool's log (malloc'd; "" when none) */
    char *output;                     /* what the tool and the worker printed (malloc'd) */
    char *worker_log;                 /* the worker's log messages, one a line (malloc'd) */
} sanitize_result;

/* Runs the exercise once under the tool.  false + err when it could not run
 * at all: the tool is not installed (the message says how to get it), no
 * size parses, the worker cannot be started.  true otherwise, whatever the
 * kernel did: out holds the row or the fault and the findings.  Free out
 * with sanitize_result_free in both cases. */
bool sanitize_run(const sanitize_opts *opts, sanitize_result *out, cl_err *err);
/* compute-sanitizer's path into out (n bytes): given when it is set, else
 * the one on PATH or in the toolkit; false + e saying how to get it. */
bool sanitize_tool_path(const char *given, char *out, size_t n, cl_err *e);
void sanitize_result_free(sanitize_result *result);

#endif

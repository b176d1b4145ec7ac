/* tui_san.h - compute-sanitizer from the terminal lab: the learner's kernel
 * checked in a child process (tui_job.h) with sanitize_run
 * (supervise/sanitize.h), its findings as the lines of an overlay.
 *
 * The child writes "OK\n" and the lines, or "ERR\n" and why the tool could
 * not run (not installed: sanitize.h's message says how to get it). */
#ifndef CUDALAB_TUI_SAN_H
#define CUDALAB_TUI_SAN_H

#include <stddef.h>

#include "result/record.h"
#include "supervise/sanitize.h"

typedef struct tui_san_job {
    sanitize_tool tool;
    char problem[RUN_ID_MAX];
    char lab[RUN_ID_MAX];
    const struct problem_spec *spec;    /* how the sizes read (the lab's, alive in the child) */
    char lab_file[RUN_PATH_MAX];        /* a problem the lab declares: its lab.lua; else "" */
    char sizes[RUN_MAX_SIZES][RUN_SIZE_MAX];
    int nsizes;
    char kernel[RUN_PATH_MAX];
    char launcher[RUN_PATH_MAX];
    double time_limit_s;                /* 0: sanitize.h's default */
} tui_san_job;

/* What the tool found, for the learner: what ran and how it ended, then
 * one block per finding (what, in which kernel; file:line, thread and
 * block; the tool's message).  Returns the length snprintf would have
 * written. */
int tui_san_format(const sanitize_result *result, sanitize_tool tool, char *buf, size_t buf_size);
/* The child's work (a tui_job_fn): ud is a tui_san_job. */
int tui_san_child(void *ud, int fd);

#endif

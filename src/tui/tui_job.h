/* tui_job.h - slow work in a child process, so the screen never freezes.
 *
 * A job forks (core/spawn.h); the child runs a function that writes its
 * answer to a pipe and exits; the parent puts the pipe's descriptor in its
 * poll set, reads what arrives with tui_job_pump and reaps the child when
 * the pipe closes.  The child gets its own process group (the terminal's
 * Ctrl-C does not reach it), default signal handlers, /dev/null for its
 * standard streams and no descriptor of the parent's but the pipe.  Nsight Compute and
 * compute-sanitizer runs take seconds to minutes; they run this way. */
#ifndef CUDALAB_TUI_JOB_H
#define CUDALAB_TUI_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/err.h"
#include "core/spawn.h"
#include "core/strbuf.h"

#define TUI_JOB_OUT_MAX (256u * 1024u)   /* answer bytes kept; the rest is dropped */

/* The child's work: writes its answer to fd; returns the exit status. */
typedef spawn_fn tui_job_fn;

typedef struct tui_job {
    pid_t pid;                 /* 0: none */
    int fd;                    /* read end of the pipe; -1 once closed */
    strbuf got;                /* what the child wrote so far */
    char *out;                 /* all it wrote, NUL-terminated, once done */
    bool done;
    int status;                /* exit status; 128 + signal when killed */
} tui_job;

void tui_job_init(tui_job *job);
/* Starts fn(ud, fd) in a child.  false + err when the pipe or fork failed. */
bool tui_job_start(tui_job *job, tui_job_fn fn, void *ud, cl_err *err);
/* True while a child runs or its answer is unread. */
bool tui_job_active(const tui_job *job);
/* The descriptor to poll, -1 when there is none. */
int tui_job_fd(const tui_job *job);
/* Reads what is waiting without blocking; true once the child has closed
 * the pipe and been reaped (out and status are then complete). */
bool tui_job_pump(tui_job *job);
/* Kills the child and every process below it (the tools it starts may
 * sit in process groups of their own), and reaps it. */
void tui_job_cancel(tui_job *job);
/* Frees the answer and forgets the job (cancelling it if it runs). */
void tui_job_clear(tui_job *job);
/* Writes all of text to fd, retrying short writes; false on an error. */
bool tui_job_write(int fd, const char *text);

#endif

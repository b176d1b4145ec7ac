/* spawn.h - starting a child process, talking to it through pipes, and
 * stopping it.
 *
 * A child runs a program (posix_spawn of argv) or, for work that must not
 * block the caller, a function in a forked copy of this process.  Its
 * standard streams are /dev/null, the parent's own, or pipes; an extra
 * pipe can carry a second channel from the child's descriptor extra_fd
 * (the worker's protocol, a job's answer).  Every other descriptor of the
 * parent is closed in the child (with glibc before 2.34, a program child
 * only loses those marked close-on-exec); signal handlers are the defaults
 * and no signal is blocked; the child may lead a process group of its own,
 * so the terminal's Ctrl-C does not reach it and it can be killed with
 * whatever it started.  The parent's ends of the pipes are non-blocking
 * and close-on-exec.  No child ever sees an environment variable named
 * SPAWN_SECRET_PREFIX* (the grading key, CUDALAB_GRADE_KEY): the worker
 * that runs learner code, the tools it runs under, nothing. */
#ifndef CUDALAB_CORE_SPAWN_H
#define CUDALAB_CORE_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/err.h"

#define SPAWN_SECRET_PREFIX "CUDALAB_GRADE_"

typedef enum spawn_io {
    SPAWN_NULL,          /* /dev/null (the default) */
    SPAWN_INHERIT,       /* the parent's own stream */
    SPAWN_PIPE,          /* a pipe to or from the parent */
    SPAWN_TO_OUT,        /* stderr only: wherever stdout goes */
} spawn_io;

/* A forked child's work: ud as given, fd the child's end of the extra pipe
 * (-1 without one); returns the exit status. */
typedef int (*spawn_fn)(void *ud, int fd);

typedef struct spawn_opts {
    const char *const *argv;      /* the program (a path) and its arguments */
    spawn_fn fn;                  /* without argv: run fn(ud, extra_fd) in a fork */
    void *ud;
    const char *what;             /* the child in messages; NULL: argv[0] */
    spawn_io in, out, err;        /* stdin, stdout, stderr */
    int extra_fd;                 /* > 2: a pipe from this descriptor of the child */
    bool own_group;               /* the child leads a new process group */
    const char *const *env;       /* "NAME=value" set in the child's environment */
} spawn_opts;

typedef struct spawn_child {
    pid_t pid;                    /* 0: none */
    int in;                       /* writes to the child's stdin; -1: none */
    int out, err;                 /* reads its stdout, stderr; -1: none */
    int extra;                    /* reads its extra_fd; -1: none */
} spawn_child;

/* Starts a child as opts says and fills child (pid 0 and no descriptors
 * on failure).  false + err ("cannot start <what>: <why>") when a pipe, the
 * fork or the program could not be had. */
bool spawn_start(const spawn_opts *opts, spawn_child *child, cl_err *err);
/* Closes the parent's ends of child's pipes that are still open. */
void spawn_close(spawn_child *child);

/* Reads what a non-blocking fd holds now, retrying on EINTR: the bytes
 * read (> 0), 0 when nothing is waiting, -1 at the end of the stream or on
 * an error. */
ssize_t spawn_read(int fd, void *buf, size_t cap);
/* Writes what fd takes now without raising SIGPIPE: the bytes written
 * (0 while a non-blocking pipe is full), or -1 when the reader is gone or
 * another error occurred. */
ssize_t spawn_write(int fd, const void *data, size_t len);
/* Writes all of data, waiting while a pipe is full; false when the reader
 * is gone or on an error. */
bool spawn_write_all(int fd, const void *data, size_t len);

/* SIGKILL to pid and, when group, to its process group. */
void spawn_kill(pid_t pid, bool group);

/* Starts a child as opts says (its stdout is made a pipe), reads what it
 * writes there into out (at most out_size - 1 bytes kept, NUL-ended) until
 * it closes it, and waits for it, *status its wait status.  A child still
 * writing after timeout_s is killed (its process group too with
 * own_group): false with err "<what> did not answer within N s"; false with
 * err too when it could not start. */
bool spawn_capture(const spawn_opts *opts, double timeout_s, char *out, size_t out_size,
                   int *status, cl_err *err);
/* SIGKILL to pid, every process below it and the process groups they lead
 * (tools put what they start in groups of their own), except the
 * caller's. */
void spawn_kill_tree(pid_t pid);
/* waitpid without EINTR: pid once reaped (*status, when not NULL, gets the
 * wait status), 0 while it runs (block false), -1 on an error. */
pid_t spawn_wait(pid_t pid, bool block, int *status);
/* Whether pid has exited, without reaping it. */
bool spawn_exited(pid_t pid);
/* A descriptor that polls readable once pid exits (pidfd_open), or -1
 * where the kernel has none. */
int spawn_pidfd(pid_t pid);

#endif

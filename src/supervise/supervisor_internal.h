/* supervisor_internal.h - what the pieces of the supervisor share: its
 * state, and the calls between starting and stopping the worker
 * (supervisor_worker.c), reading its messages (supervisor_messages.c) and
 * turning deaths, time limits and broken promises into faults
 * (supervisor_faults.c).  supervisor.c calls them all; the messages call
 * the faults, the faults the worker, and none of them calls back.
 * Private to src/supervise/supervisor*.c. */
#ifndef CUDALAB_SUPERVISE_SUPERVISOR_INTERNAL_H
#define CUDALAB_SUPERVISE_SUPERVISOR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/err.h"
#include "core/strbuf.h"
#include "proto/protocol.h"
#include "supervise/supervisor.h"

#define SUP_DEFAULT_LIMIT_S 120.0
#define SUP_TAIL_MAX (16 * 1024)      /* worker output kept for fault messages */
#define SUP_CHUNK (64 * 1024)
#define SUP_READS_PER_PUMP 16         /* bounds the work one pump does on a flood */
#define SUP_POLL_SLICE_MS 50          /* without pidfd: how often to look for an exit */
#define SUP_MAX_DYING 16
#define SUP_PRINTED_LINES 100         /* printed lines a run passes to the log */
#define SUP_PRINTED_WIDTH 400         /* bytes kept of one printed line */
#define SUP_QUIT_GRACE_MS 1000

/* What an epoll event is about. */
enum { SUP_TAG_PROTO = 1, SUP_TAG_OUTPUT, SUP_TAG_INPUT, SUP_TAG_PID, SUP_TAG_TIMER };

struct supervisor {
    char **argv;                  /* owned copy of the worker command */
    bool group;                   /* argv is the multigpu coordinator's (worker --group) */
    char **other;                 /* owned: the command of the other kind (group or not),
                                   * swapped with argv when a run needs it; NULL when the
                                   * given command is not cudalab's worker (never switched) */
    char what[128];               /* the worker in messages */
    double limit_s;               /* default per-request limit */
    supervisor_callbacks cb;
    void *ud;

    int epfd, timerfd;
    unsigned gen;                 /* bumped whenever a worker starts or stops */

    /* the running worker; pid 0 when none */
    pid_t pid;
    int pidfd;
    int in_fd, proto_fd, out_fd;
    bool have_hello;
    device_info dev;

    char *line;                   /* protocol line being assembled */
    size_t line_len;
    strbuf pending;               /* request bytes not yet written */
    char *last_req;               /* the current run's request line */
    size_t last_req_len;

    char *tail;                   /* ring of the last SUP_TAIL_MAX bytes of output */
    size_t tail_len, tail_head;
    char *chunk;

    /* printed lines on their way to the log (supervisor_printed.c) */
    char printed[SUP_PRINTED_WIDTH + 1];
    size_t printed_len;
    bool printed_cut;
    unsigned printed_shown;
    unsigned long printed_dropped;

    int next_run;
    int cur_run;                  /* 0 when idle */
    char cur_variant[RUN_ID_MAX];  /* what the last progress message was about */
    char cur_size[RUN_SIZE_MAX];
    char cur_phase[32];
    double cur_limit_s;
    double deadline;              /* monotonic seconds */

    char last_stop[512];          /* why the last worker stopped */
    pid_t dying[SUP_MAX_DYING];   /* killed, not yet reaped */
    int ndying;

    proto_msg msg;                /* scratch for decoding */
};

/* ---- printed lines (supervisor_printed.c) ---------------------------------- */

/* Passes what the worker printed to the log, a line at a time, at most
 * SUP_PRINTED_LINES lines a run; begin at a run's start, end at its end
 * (the last partial line, and how many lines were left out). */
void supervisor_printed_add(supervisor *sup, const char *data, size_t len);
void supervisor_printed_begin(supervisor *sup);
void supervisor_printed_end(supervisor *sup);

/* ---- the worker process (supervisor_worker.c) ---------------------------- */

/* Makes the epoll set and the run's timer; false + err when it cannot. */
bool supervisor_worker_open(supervisor *sup, cl_err *err);
/* Closes what supervisor_worker_open made (after the worker is gone). */
void supervisor_worker_close(supervisor *sup);
/* Starts the worker and watches its pipes; false + err when it cannot. */
bool supervisor_worker_start(supervisor *sup, cl_err *err);
/* Kills the worker's process group (the worker and anything it started)
 * and forgets the worker; reaping happens without blocking, later if
 * needed. */
void supervisor_worker_stop(supervisor *sup);
/* Reaps the workers killed earlier (waiting for them when block). */
void supervisor_worker_reap_dying(supervisor *sup, bool block);
/* Reaps a worker known to have exited and returns its wait status.  The
 * leader is still a zombie, so its process group id cannot have been
 * reused: what it left behind is killed first. */
int supervisor_worker_reap_exited(supervisor *sup);
/* Arms the run's timer to fire after seconds (0: disarms it). */
void supervisor_worker_arm_timer(supervisor *sup, double seconds);
/* Stops watching fd and closes it. */
void supervisor_worker_unwatch(supervisor *sup, int *fd);
/* Queues request bytes for the worker's stdin; false + err when out of memory. */
bool supervisor_worker_queue(supervisor *sup, const char *text, size_t len, cl_err *err);
/* Writes queued bytes without blocking; a worker that stopped reading loses
 * its stdin (its exit is noticed by the pump). */
void supervisor_worker_flush(supervisor *sup);
/* Reads what the worker printed, at most max_reads chunks. */
void supervisor_worker_drain_output(supervisor *sup, int max_reads);

/* ---- its messages (supervisor_messages.c) --------------------------------- */

/* Reads protocol lines, at most max_reads chunks, and dispatches them.
 * Returns false when the worker was replaced meanwhile. */
bool supervisor_messages_read(supervisor *sup, int max_reads);

/* ---- faults (supervisor_faults.c) ------------------------------------------ */

/* Ends the current run with fault (the worker is gone already), or, with no
 * run, logs fault's message at level idle_level.  fault->run is set here. */
void supervisor_faults_end_run(supervisor *sup, run_fault *fault, int idle_level);
/* Ends the current run (if any) with a fault of cause and message, after
 * the worker is gone. */
void supervisor_faults_fail_run(supervisor *sup, const char *cause, const char *message);
/* Stops the worker, then fails the run. */
void supervisor_faults_kill_and_fail(supervisor *sup, const char *cause, const char *message);
/* A worker that broke the protocol: what it did, in words. */
void supervisor_faults_protocol(supervisor *sup, const char *what);
/* Reports a worker that exited on its own with wait status status, after
 * its last words were read: fails the run, or logs the exit when idle; a
 * run submitted since run_before (by a callback) goes to a fresh worker. */
void supervisor_faults_exited(supervisor *sup, int status, int run_before);
/* Fails the current run when it ran past its time limit. */
void supervisor_faults_check_deadline(supervisor *sup);

#endif

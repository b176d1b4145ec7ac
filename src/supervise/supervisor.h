/* supervisor.h - the parent's side of the worker process.
 *
 * Spawns `cudalab worker` (or any command speaking the protocol, which the
 * tests use to plant hanging, crashing and flooding workers), writes run
 * requests to its stdin, reads JSON lines from its stdout without ever
 * blocking the caller, and turns everything that can go wrong into a fault:
 * a per-run time limit (SIGKILL on expiry), death by signal, non-zero exit,
 * unparsable or over-long output.  After a fault the worker is restarted on
 * the next submit.  The parent never initialises CUDA.  A request of the
 * multigpu lab goes to the coordinator (`worker --group`, group/group.h)
 * instead, unless opts gave a command of its own: the worker of the other
 * kind is stopped first.
 *
 * Event loop use (TUI): poll() on supervisor_fd() alongside stdin, then call
 * supervisor_pump(s, 0).  Blocking use (CLI): supervisor_wait(s, run). */
#ifndef CUDALAB_SUPERVISE_SUPERVISOR_H
#define CUDALAB_SUPERVISE_SUPERVISOR_H

#include <stdbool.h>

#include "core/err.h"
#include "proto/protocol.h"

typedef struct supervisor supervisor;

/* Callbacks run inside supervisor_pump (and the calls that pump); they may
 * call supervisor_submit and supervisor_cancel, never pump, wait or free. */
typedef struct supervisor_callbacks {
    void (*on_hello)(void *ud, const device_info *dev);
    void (*on_progress)(void *ud, const run_progress *progress);
    void (*on_result)(void *ud, const run_result *result);
    void (*on_log)(void *ud, int level, const char *msg);
    void (*on_fault)(void *ud, const run_fault *fault);
    void (*on_done)(void *ud, int run);     /* after a fault too */
} supervisor_callbacks;

typedef struct supervisor_opts {
    const char *const *argv;   /* worker command; NULL: this executable with "worker" */
    double time_limit_s;       /* per request; 0: 120 s */
    const supervisor_callbacks *cb;
    void *ud;
} supervisor_opts;

supervisor *supervisor_new(const supervisor_opts *opts, cl_err *err);
void supervisor_free(supervisor *sup);          /* kills the worker if running */

/* Starts the worker if needed and sends the request; assigns req->run. */
bool supervisor_submit(supervisor *sup, run_request *req, double time_limit_s, cl_err *err);
/* Reads what is available (waiting up to timeout_ms), dispatches callbacks,
 * enforces the time limit.  Returns false only on an internal error. */
bool supervisor_pump(supervisor *sup, int timeout_ms);
/* Pumps until run is done (or faulted). */
bool supervisor_wait(supervisor *sup, int run);
/* Kills the worker; the current run ends with a "cancelled" fault. */
void supervisor_cancel(supervisor *sup);
bool supervisor_busy(const supervisor *sup);
int supervisor_fd(const supervisor *sup);       /* -1 when no worker runs */
/* Starts the worker (if not running) and waits up to timeout_ms for hello. */
bool supervisor_hello(supervisor *sup, int timeout_ms, device_info *out, cl_err *err);
/* Copies the end of what the worker printed on stdout/stderr (at most the
 * last 16 KiB, NUL-terminated) into buf of size buf_size; returns the length.  The
 * text stays available after the worker stopped, until the next one starts. */
size_t supervisor_output(const supervisor *sup, char *buf, size_t buf_size);

#endif

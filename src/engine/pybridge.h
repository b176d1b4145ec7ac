/* pybridge.h - a Python row's python3 child, from the worker's side.
 *
 * A lab's Python row (a rung `variant { python = ... }`, or a Python
 * exercise) runs in python3 (python/cudalab_bridge.py, started as lab/pyenv.h
 * says), one child a row, kept across the sizes of a request and started
 * again after it failed.  Requests and replies are JSON lines (the bridge's
 * header documents them); what the child prints is kept for the log.  A
 * child that does not answer in time is killed with its process group.
 * Nothing here uses CUDA: engine_python.c measures the row. */
#ifndef CUDALAB_ENGINE_PYBRIDGE_H
#define CUDALAB_ENGINE_PYBRIDGE_H

#include <stdbool.h>
#include <stddef.h>

struct cJSON;

typedef struct pyrow pyrow;

/* The Python row of file path (shown: how messages name it); NULL with why
 * in msg when it cannot run: no such file, or python3 cannot import what it
 * needs ("unavailable: ... (pip install ...)"): CuPy, and Numba when the
 * file mentions numba.  No child is started yet. */
pyrow *engine_python_open(const char *path, const char *shown, char *msg, size_t msg_size);
/* Asks the child to quit (killing it when it does not) and frees py. */
void engine_python_close(pyrow *py);

/* Starts the child, after making this process not dumpable (the child may
 * not attach to it nor open its memory); false with msg (the bridge
 * missing, spawn failing). */
bool pybridge_start(pyrow *py, char *msg, size_t msg_size);
/* Whether the child runs (started, not failed since). */
bool pybridge_live(const pyrow *py);
/* The row's file, and how messages name it ("rungs/x.py"). */
const char *pybridge_path(const pyrow *py);
const char *pybridge_shown(const pyrow *py);
/* {"cmd": cmd}, or NULL when out of memory. */
struct cJSON *pybridge_command(const char *cmd);
/* Sends req (consumed; NULL: out of memory) and waits up to limit_s for an
 * ok reply, into *out (NULL: dropped).  false with msg: the row's error as
 * "file:line: Error: message" (a CUDA error in the child also ends it),
 * or the child gone or silent past the limit (then stopped). */
bool pybridge_call(pyrow *py, struct cJSON *req, double limit_s, struct cJSON **out, char *msg,
                   size_t msg_size);
/* What the child printed since the last take (trailing blank lines cut)
 * into out; false when nothing. */
bool pybridge_take_output(pyrow *py, char *out, size_t out_size);

#endif

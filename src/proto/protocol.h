/* protocol.h - the messages between the parent (TUI/CLI) and the worker.
 *
 * One JSON object per line (cJSON) in each direction over pipes.
 *   parent -> worker: {"type":"run", ...run_request}   {"type":"quit"}
 *   worker -> parent: {"type":"hello","device":{...}}   once, at start
 *                     {"type":"progress", ...}          while measuring
 *                     {"type":"result", ...run_result}  one per row
 *                     {"type":"log","level":..,"msg":..}
 *                     {"type":"fault", ...}             a CUDA error the worker caught
 *                     {"type":"done","run":N}           the request is finished
 * The messages' bodies are the run's record in its JSON form
 * (result/record_json.h).  The parent turns signals, timeouts and non-zero exits into faults itself
 * (supervise/supervisor.c); a fault is a result with a cause, never a crash. */
#ifndef CUDALAB_PROTO_PROTOCOL_H
#define CUDALAB_PROTO_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/devinfo.h"
#include "core/err.h"
#include "result/record.h"

#define PROTO_LINE_MAX (64 * 1024)   /* longest line either side accepts */
/* The worker writes its messages on this file descriptor (its stdout and
 * stderr carry device printf and library chatter, kept apart). */
#define PROTO_FD 3
/* Set to 1 in a worker's environment: skip the copy-bandwidth measurement
 * (a worker under compute-sanitizer, whose timings mean nothing). */
#define PROTO_NO_PEAK_ENV "CUDALAB_NO_PEAK"
/* Set for a worker that runs under compute-sanitizer: memory is left as the
 * tool needs to see it (no guard bytes after a problem's buffers, new
 * Buffers not filled), so each stray or unwritten access is the tool's to
 * report. */
#define PROTO_UNDER_SANITIZER_ENV "CUDALAB_UNDER_SANITIZER"

typedef enum msg_type {
    MSG_INVALID, MSG_HELLO, MSG_RUN, MSG_QUIT, MSG_PROGRESS, MSG_RESULT,
    MSG_LOG, MSG_FAULT, MSG_DONE,
} msg_type;

typedef struct proto_msg {
    msg_type type;
    union {
        device_info hello;
        run_request run;
        run_progress progress;
        run_result result;
        run_fault fault;
        struct { int level; char msg[1024]; } log;  /* level: 0 info, 1 warn, 2 error */
        int done_run;
    } u;
} proto_msg;

/* Encodes a message as one JSON line with a trailing '\n' (malloc'd). */
char *proto_encode(const proto_msg *msg);
/* The quit message as a line (malloc'd; NULL out of memory). */
char *proto_encode_quit(void);
/* Decodes one line (without or with its '\n').  false + err on bad input. */
bool proto_decode(const char *line, proto_msg *msg, cl_err *err);

#endif

/* cli_rows.h - what a command hears from the GPU worker, and the parts of
 * showing it that every command does alike.
 *
 * A command keeps a cli_rows in the state its supervisor callbacks get: the
 * device the worker reported, the rows it sent (in order), a fault.  The
 * calls below record those, print the device line, progress, log and fault
 * lines, format a table's cells and give the exit code; each command still
 * prints its own table and summary.  In JSON mode stdout carries only the
 * JSON document, and progress lines are never drawn. */
#ifndef CUDALAB_CLI_CLI_ROWS_H
#define CUDALAB_CLI_CLI_ROWS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "result/record.h"
#include "result/record_json.h"
#include "supervise/supervisor.h"

typedef struct cli_rows {
    bool json;          /* --json */
    bool tty;           /* stderr is a terminal: a progress line is redrawn in place */
    device_info dev;
    bool have_dev;
    run_result *v;
    size_t n, cap;
    run_fault fault;
    bool faulted;
    char *output;       /* the end of what the worker printed (device printf, asserts) */
    bool interrupted;   /* SIGINT or SIGTERM stopped the run (exit code 130) */
} cli_rows;

/* Empty rows; tty from stderr. */
void cli_rows_init(cli_rows *rows, bool json);
void cli_rows_free(cli_rows *rows);

/* Starts a worker, submits req (its run id assigned) and waits until the
 * run ends, callbacks getting ud; keeps the end of what the worker printed
 * in rows->output.  EXIT_OK, or EXIT_ENV after saying on stderr why the
 * worker could not start. */
int cli_rows_run(cli_rows *rows, run_request *req, double time_limit_s,
                 const supervisor_callbacks *cb, void *ud);

/* Records the worker's device.  Unless JSON, prints a line with its name,
 * SMs and peaks, or the reason none was found followed by absent. */
void cli_rows_hello(cli_rows *rows, const device_info *dev, const char *absent);
/* Appends a copy of result; false (result dropped) when out of memory. */
bool cli_rows_add(cli_rows *rows, const run_result *result);
/* Records the fault and says "fault (cause) in variant: message" on stderr. */
void cli_rows_fault(cli_rows *rows, const run_fault *fault);
/* A worker log line on stderr ("warning: " for level 1, "error: " for 2
 * and up); info lines (level 0) are left out in JSON mode. */
void cli_rows_log(const cli_rows *rows, int level, const char *msg);

/* On a terminal, not in JSON mode: redraws the progress line on stderr. */
void cli_rows_progress(const cli_rows *rows, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Erases the progress line, if one is drawn. */
void cli_rows_clear_progress(const cli_rows *rows);

/* The worker said there is no usable device. */
bool cli_rows_no_device(const cli_rows *rows);

/* Whether a table may print non-ASCII marks (the "+-" of a spread, a bar):
 * not with --ascii, and only where LC_ALL, else LC_CTYPE, else LANG names a
 * UTF-8 character set (the locale itself is left as it is: a decimal comma
 * would change every number printed). */
bool cli_rows_unicode(bool ascii);
/* Why there is none: the worker's reason, or "no CUDA device found". */
const char *cli_rows_reason(const cli_rows *rows);
/* The exit code of a run: 1 when the worker faulted or a row is wrong or
 * could not run for a reason of its own (the learner's compile or launcher
 * error included), with a device or without; else 3 when rows could not
 * run for want of a device; else 0. */
int cli_rows_exit_code(const cli_rows *rows);

/* A rate cell: "-" when negative, "1234" from 100 up, else "12.34". */
void cli_rows_fmt_rate(char *buf, size_t buf_size, double value);
/* A percent-of-peak cell, as units_pct writes it: "87%", "5.2%", "-". */
void cli_rows_fmt_pct(char *buf, size_t buf_size, double pct);

/* Prints root (pretty) on stdout and deletes it; NULL prints nothing. */
/* The layout version every JSON document of the command line carries as
 * its first field, "format_version". */
#define CLI_JSON_FORMAT_VERSION 1
void cli_print_json(cJSON *root);

#endif

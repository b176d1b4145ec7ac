/* support.h - helpers the tests share.
 *
 * Text checks that print what they looked at, paths under the source tree
 * and the tests folder, temporary folders, whole files, commands run with
 * their output captured (a shell command, or a subcommand called
 * in-process), engine rows collected through a sink, Lua snippets run in a
 * sandbox, the worker side of a test binary that serves as its own worker,
 * hand-made timelines.  Helpers that check something fail the test through
 * cmocka, so call them from inside a test (or a group setup); ts_tmpdir,
 * ts_rm_rf and ts_serve_worker only return, and suit main(). */
#ifndef CUDALAB_TESTS_SUPPORT_H
#define CUDALAB_TESTS_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/cli.h"
#include "core/err.h"
#include "prof/timeline.h"
#include "lab/sandbox.h"
#include "engine/engine.h"
#include "proto/protocol.h"
#include "worker/dispatch.h"
#include "worker/workerloop.h"

struct diag_input;
struct nvrtc_output;

#define TS_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ---- text ---------------------------------------------------------------- */

/* True when hay holds needle; otherwise prints both and returns false, for
 * assert_true(ts_contains(...)). */
bool ts_contains(const char *hay, const char *needle);
/* True when s begins with prefix; otherwise prints both and returns false. */
bool ts_starts_with(const char *s, const char *prefix);

/* ---- paths and files -------------------------------------------------------- */

/* $CUDALAB_HOME (the source tree) joined with the formatted relative path;
 * fails the test when the variable is unset (run the tests through ctest). */
void ts_home_path(char *out, size_t n, const char *fmt, ...) TS_PRINTF(3, 4);
/* $CUDALAB_TEST_DATA (the tests folder) joined with the formatted path. */
void ts_data_path(char *out, size_t n, const char *fmt, ...) TS_PRINTF(3, 4);
/* $CUDALAB_EXE, the cudalab binary; fails the test when unset. */
const char *ts_exe(void);

/* Makes a fresh folder cudalab-<tag>-XXXXXX under $TMPDIR (/tmp when unset)
 * and writes its path into out; false when it cannot be made. */
bool ts_tmpdir(char *out, size_t n, const char *tag);
/* The names in folder d (with . and ..), sorted, one a line (malloc'd). */
char *ts_listing(const char *d);
/* Points the data and the cache folders at dir (XDG_DATA_HOME and
 * XDG_CACHE_HOME; CUDALAB_DATA and CUDALAB_CACHE unset): 0, or -1 when the
 * environment cannot be set. */
int ts_data_home(const char *dir);
/* A group's private data folder, for cmocka_run_group_tests: ts_tmp_setup
 * makes a fresh temporary folder, names it in ts_tmp and points the data
 * and cache folders at it (ts_data_home); ts_tmp_teardown removes it. */
extern char ts_tmp[CL_PATH_MAX];
int ts_tmp_setup(void **state);
int ts_tmp_teardown(void **state);
/* Removes dir and everything below it; true when nothing is left. */
bool ts_rm_rf(const char *dir);
/* The whole file, NUL-terminated (malloc'd; the caller frees), or NULL. */
char *ts_read(const char *path);
/* Writes text to path in place; false on error. */
bool ts_write(const char *path, const char *text);
/* True when a and b hold the same bytes. */
bool ts_same_file(const char *a, const char *b);

/* ---- commands --------------------------------------------------------------- */

/* What a command wrote and how it ended.  Start one zeroed: each call below
 * frees what the previous call left in it; ts_output_free at the end. */
typedef struct ts_output {
    int status;   /* exit status or return value; -1 when it did not exit */
    char *out;    /* stdout (never NULL after a call) */
    char *err;    /* stderr; "" when merged into out */
} ts_output;

/* Runs the formatted shell command with stdin from /dev/null and stdout and
 * stderr captured apart, or both into out when merge is set.  Returns
 * o->status. */
int ts_shell(ts_output *o, bool merge, const char *fmt, ...) TS_PRINTF(3, 4);

typedef int (*ts_cmd_fn)(cli_ctx *ctx, int argc, char **argv);
/* Calls cmd in this process with argv = name, words... (words
 * NULL-terminated; NULL for none) while its stdout and stderr go to o.
 * Returns o->status, the command's return value. */
int ts_capture_cmd(ts_output *o, ts_cmd_fn cmd, cli_ctx *ctx, const char *name,
                   const char *const *words);
void ts_output_free(ts_output *o);

/* A context as main.c would make it: prog "cudalab", the shipped labs of
 * home as the only lab folder (none when home is NULL), the time limit. */
void ts_cli_ctx(cli_ctx *ctx, const char *home, double time_limit_s);

/* ---- engine rows ------------------------------------------------------------- */

#define TS_MAX_ROWS 128
#define TS_MAX_LOGS 64
#define TS_LOG_MAX 32768

/* Everything a run sent to its sink. */
typedef struct ts_rows {
    run_result rows[TS_MAX_ROWS];
    int nrows;
    int nprogress;                  /* progress reports */
    int cpu_progress;               /* of them, in the phase "cpu" */
    char log[TS_LOG_MAX];           /* every log message as "[level] message\n" */
    char logs[TS_MAX_LOGS][1024];   /* the first TS_MAX_LOGS messages, one each */
    int levels[TS_MAX_LOGS];
    int nlogs;
    bool echo;                      /* print each log message as "log L: message" */
} ts_rows;

/* The sink callbacks (ud is a ts_rows), for sinks of one's own. */
void ts_rows_progress(void *ud, const run_progress *p);
void ts_rows_result(void *ud, const run_result *r);
void ts_rows_log(void *ud, int level, const char *msg);
/* A sink that collects into c. */
engine_sink ts_rows_sink(ts_rows *c);
/* Empties c; echo is kept. */
void ts_rows_clear(ts_rows *c);

typedef bool (*ts_run_fn)(const run_request *req, const engine_sink *sink, run_fault *fault);
/* Empties c and runs req through run (engine_run, experiments_run, ...)
 * into it.  Returns what run returned; fault (NULL: not kept) is filled when
 * that is false. */
bool ts_run(ts_run_fn run, const run_request *req, ts_rows *c, run_fault *fault);
/* ts_run with the worker's dispatch_run (engine_run, or the experiments for the
 * profiling lab). */
bool ts_engine_run(const run_request *req, ts_rows *c, run_fault *fault);

/* The first row of variant at size (any size when size is NULL), or NULL. */
const run_result *ts_row(const ts_rows *c, const char *variant, const char *size);
/* The first row of kind at size (any size when size is NULL), or NULL. */
const run_result *ts_row_of_kind(const ts_rows *c, result_kind kind, const char *size);
/* Prints every row, one a line, and the log. */
void ts_rows_dump(const ts_rows *c);

/* Appends a size to req. */
void ts_add_size(run_request *req, const char *size);
/* Appends a variant to req; kernel NULL leaves the variant's kernel empty. */
void ts_add_variant(run_request *req, const char *id, const char *kernel);

/* ---- labs and Lua ------------------------------------------------------------ */

struct lab;
/* Loads the lab file at path (lab/labmodel.h), printing its diagnostics to
 * stderr as "  file:line: message"; *ndiags (may be NULL) gets how many
 * there were.  NULL when it did not load. */
struct lab *ts_lab_load(const char *path, const char *home, size_t *ndiags);
/* The shipped lab labs/<id>/lab.lua of the source tree, loaded as
 * ts_lab_load does; NULL when it did not load or had any diagnostic. */
struct lab *ts_lab_shipped(const char *id);

struct problem_spec;
/* The spec of a problem of lua/problems/ (or, failing that, of the C
 * catalog), loaded once as the worker loads it and kept to the end of the
 * run; fails the test when there is no such problem. */
const struct problem_spec *ts_shipped_spec(const char *name);

/* Writes code to dir/name.lua, runs it in s with nres results left on the
 * stack, removes the file.  False + e when the script raised an error. */
bool ts_lua_run(lab_state *s, const char *dir, const char *name, const char *code, int nres,
                cl_err *e);

/* ---- the worker side ---------------------------------------------------------- */

/* Serves requests as `cudalab worker` does, with eng as the engine: from
 * stdin, to file descriptor 3 when the supervisor opened it as a pipe or a
 * socket, else to stdout.  Returns the worker's exit status. */
int ts_serve_worker(const workerloop_engine *eng);
/* Whether `cudalab worker` (ts_exe) finds a CUDA device, asked as grading
 * asks; why (n bytes) says what it found, or why it could not ask. */
bool ts_worker_has_device(char *why, size_t n);

/* ---- timelines ------------------------------------------------------------------ */

/* Appends an item to t (failing the test when it is refused) and returns
 * its index. */
int ts_tl_add(timeline *t, int lane, tl_kind kind, const char *name, uint64_t start_ns,
              uint64_t end_ns, uint64_t bytes, unsigned flags, uint32_t stream);

/* ---- diagnosis ------------------------------------------------------------- */

/* Fills the compile fields of in from a failed nvrtc_compile (gpu/nvrtc.h),
 * as the worker's row would carry them; the strings point into out, which
 * must outlive in. */
void ts_diag_from_compile(struct diag_input *in, const struct nvrtc_output *out);

#endif

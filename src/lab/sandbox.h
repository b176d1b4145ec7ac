/* sandbox.h - one Lua state with only what lab code may use.
 *
 * The state is owned by exactly one module (a lab, a learner's launcher).
 * Opened: base (without dofile, loadfile, and with load() limited to text
 * chunks), string (without string.dump), table, math, utf8, coroutine, and
 * os.time/os.clock.  Not opened: io, os (the rest), package, debug; using
 * one of those (or require, dofile, loadfile, string.dump) is an error
 * "file:line: 'io' is not available in lab files (the sandbox allows: ...)".
 * Chunks load as text only (luaL_loadfilex(..., "t")).  An allocator limit
 * stops a memory hog and an instruction-count hook stops a runaway script,
 * each with a clear message.  Every call goes through one protected call with
 * a message handler, so an error reaches the user as "file:line: message".
 *
 * Globals: each chunk runs with a fresh private _ENV whose __index is a
 * read-only view of the allowed globals; library tables (string, math, ...)
 * are read-only too, rawset() refuses them, and every protected metatable
 * (the environment's, the string metatable) reads as "locked".  print()
 * writes into a bounded buffer (sandbox_output), never to the terminal.
 * collectgarbage() accepts only "collect", "count", "step" and "isrunning";
 * setmetatable() refuses a metatable with __gc. */
#ifndef CUDALAB_LAB_SANDBOX_H
#define CUDALAB_LAB_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

struct lua_State;
typedef struct lab_state lab_state;

#define SANDBOX_DEFAULT_MEM (64u << 20)     /* bytes */
#define SANDBOX_DEFAULT_BUDGET_MS 500       /* per call into Lua */
#define SANDBOX_OUTPUT_MAX 8192             /* bytes of print() output kept */

/* mem_limit: bytes (0: default).  budget_ms: budget for each call into Lua,
 * in CPU time of the calling thread (time spent waiting does not count),
 * enforced by a count hook (0: default). */
lab_state *sandbox_new(size_t mem_limit, int budget_ms, cl_err *err);
void sandbox_free(lab_state *sandbox);
struct lua_State *sandbox_lua(lab_state *sandbox);

/* Loads a text chunk from path and runs it with a fresh private _ENV whose
 * __index is the sandbox's globals (frozen), leaving nresults values on the
 * stack.  false + "file:line: message" in err on any error. */
bool sandbox_dofile(lab_state *sandbox, const char *path, int nresults, cl_err *err);
/* Loads the text chunk at path without running it: false + "file:line:
 * message" in err when it does not parse (or cannot be read). */
bool sandbox_parsefile(lab_state *sandbox, const char *path, cl_err *err);
/* Calls the function below nargs arguments on the stack like lua_pcall, with
 * the message handler, the count hook and the memory limit armed. */
bool sandbox_pcall(lab_state *sandbox, int nargs, int nresults, cl_err *err);
/* Sets the budget of each later call into Lua (ms > 0); returns the one
 * it replaces, to be put back. */
int sandbox_set_budget(lab_state *sandbox, int ms);

/* Like sandbox_dofile for a trusted library chunk shipped with cudalab
 * (lua/lab.lua): the chunk receives one argument, located(fn), which
 * returns a function that calls fn(file, line, ...) with the file and line
 * it was called from (also when called in tail position, as in
 * `return lab { ... }`).  Lab code never sees located. */
bool sandbox_dofile_trusted(lab_state *sandbox, const char *path, int nresults, cl_err *err);
/* Pops the value on top of the stack and adds it to the allowed globals
 * under name; a table is made read-only (with every table inside it). */
bool sandbox_set_global(lab_state *sandbox, const char *name, cl_err *err);
/* Pops a table and adds each of its string-keyed fields to the globals as
 * sandbox_set_global does. */
bool sandbox_expose(lab_state *sandbox, cl_err *err);
/* Replaces the table on top of the stack by a read-only view of it (tables
 * inside it too): writes, rawset and setmetatable fail; reads, pairs,
 * ipairs and # work. */
bool sandbox_freeze(lab_state *sandbox, cl_err *err);

/* Text printed by Lua code since the last sandbox_clear_output() (at most
 * SANDBOX_OUTPUT_MAX bytes; later output is dropped and the text ends in
 * "[output truncated]\n"). */
const char *sandbox_output(const lab_state *sandbox);
void sandbox_clear_output(lab_state *sandbox);
/* The Lua traceback of the last failed call ("" when none). */
const char *sandbox_traceback(const lab_state *sandbox);

/* Raises a Lua error with the formatted message, prefixed with the calling
 * Lua line as luaL_error does; never returns.  For C helpers that do not
 * return an int (a C function returns luaL_error(...) instead). */
_Noreturn void sandbox_raise(struct lua_State *L, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif

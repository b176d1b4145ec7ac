/* sandbox.h - one Lua state with only what lab code may use.
 *
 * The state is owned by exactly one module (a lab, a learner's launcher).
 * Opened: base (without dofile, loadfile, and with load() limited to text
 * chunks), string (without string.dump), table, math, utf8, coroutine, and
 * os.time/os.clock.  Not opened: io, os (the rest), package, debug.
 * Chunks load as text only (luaL_loadfilex(..., "t")).  An allocator limit
 * stops a memory hog and an instruction-count hook stops a runaway script,
 * each with a clear message.  Every call goes through one protected call with
 * a message handler, so an error reaches the user as "file:line: message". */
#ifndef CUDALAB_LAB_SANDBOX_H
#define CUDALAB_LAB_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

struct lua_State;
typedef struct lab_state lab_state;

#define SANDBOX_DEFAULT_MEM (64u << 20)     /* bytes */
#define SANDBOX_DEFAULT_BUDGET_MS 500       /* per call into Lua */

/* mem_limit: bytes (0: default).  budget_ms: wall-clock budget for each call
 * into Lua, enforced by a count hook (0: default). */
lab_state *sandbox_new(size_t mem_limit, int budget_ms, cl_err *e);
void sandbox_free(lab_state *s);
struct lua_State *sandbox_lua(lab_state *s);

/* Loads a text chunk from path and runs it with a fresh private _ENV whose
 * __index is the sandbox's globals (frozen), leaving nresults values on the
 * stack.  false + "file:line: message" in e on any error. */
bool sandbox_dofile(lab_state *s, const char *path, int nresults, cl_err *e);
/* Calls the function below nargs arguments on the stack like lua_pcall, with
 * the message handler, the count hook and the memory limit armed. */
bool sandbox_pcall(lab_state *s, int nargs, int nresults, cl_err *e);

#endif

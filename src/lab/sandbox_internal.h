/* sandbox_internal.h - what the pieces of the Lua sandbox share: the state
 * behind a lab_state, the registry keys, and the helpers for limits,
 * messages and read-only tables.
 * Private to src/lab/sandbox*.c.  The pieces call one way: sandbox.c (the
 * set-up) and sandbox_run.c call the others, sandbox_base.c calls the
 * patterns and the read-only tables, sandbox_errors.c calls the limits,
 * and every piece may call sandbox_common.c, which calls none of them. */
#ifndef CUDALAB_LAB_SANDBOX_INTERNAL_H
#define CUDALAB_LAB_SANDBOX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <lua.h>

#include "core/err.h"
#include "lab/sandbox.h"

#define HOOK_EVERY 1000      /* instructions between two clock checks */
#define TRACE_MAX 2048
#define LOCKED "locked"

struct lab_state {
    lua_State *L;
    size_t used, limit;
    int budget_ms;
    int depth;               /* nested sandbox_pcall calls in progress */
    struct timespec deadline, cpu_deadline;   /* wall clock, this thread's CPU time */
    bool mem_hit, time_hit;
    bool reporting;          /* the message handler is writing a traceback */
    unsigned alloc_ticks;
    char time_msg[512];
    char mem_where[512];     /* "file:line" where the memory limit was first hit */
    char last_where[512];    /* "file:line" the count hook saw last */
    char trace[TRACE_MAX];
    char out[SANDBOX_OUTPUT_MAX + 32];
    size_t outlen;
    bool out_full;
};

/* ---- shared (sandbox_common.c) ---- */

/* Registry keys (their addresses). */
extern const char sandbox_key_api;     /* allowed globals, writable from C only */
extern const char sandbox_key_view;    /* read-only view of sandbox_key_api */
extern const char sandbox_key_frozen;  /* weak set of read-only views */
extern const char sandbox_key_envmt;   /* metatable of every private _ENV */

/* The lab_state that owns L (its allocator's user data). */
lab_state *sandbox_state_of(lua_State *L);
/* A function's source as messages name it: the path, or Lua's short name. */
const char *sandbox_display_source(const lua_Debug *ar);
/* The innermost Lua function below the running C function that has a
 * current line: pushes its source (nil when none) into *src and returns
 * its line (NULL and 0 when none). */
int sandbox_caller(lua_State *L, const char **src);
/* Raises "file:line: msg" at the innermost Lua line below the running C
 * function (msg alone when there is none). */
int sandbox_raise_at_caller(lua_State *L, const char *msg);

/* ---- limits (sandbox_limits.c) ---- */

/* The Lua allocator: keeps the state under its memory limit, and fails
 * growth once the time budget is spent. */
void *sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* The count hook: raises the time-limit error once the budget is spent. */
void sandbox_hook(lua_State *L, lua_Debug *ar);
/* The memory limit as text ("64 MiB"). */
void sandbox_limit_text(const lab_state *sandbox, char *out, size_t out_size);
/* Starts the time budget of a call into Lua. */
void sandbox_arm_deadline(lab_state *sandbox);

/* ---- messages and the protected call (sandbox_errors.c) ---- */

/* Writes msg into out; a chunk name Lua shortened to "...tail" gets its
 * whole path back when full or a function on the stack explains it. */
void sandbox_restore_source(lua_State *L, const char *msg, const char *full, char *out,
                            size_t out_size);
/* sandbox_pcall, naming the call `name` in messages that have no line
 * (NULL: the called function's source). */
bool sandbox_pcall_named(lab_state *sandbox, int nargs, int nresults, const char *name,
                         cl_err *err);

/* ---- base functions (sandbox_base.c) ---- */

/* Pushes a fresh private _ENV (its metatable: sandbox_key_envmt). */
void sandbox_push_private_env(lua_State *L);
/* located(fn), as sandbox_dofile_trusted passes it to a library chunk. */
int sandbox_located(lua_State *L);
/* Puts the sandbox's print, rawset, xpcall, setmetatable, load and
 * collectgarbage into the table at api (load and collectgarbage wrap the
 * originals in the global table at globals), and in the loaded libraries (the
 * table at loaded) removes string.dump and guards string.rep and
 * table.insert, remove and move.  The stack is left as it was. */
void sandbox_replace_base(lua_State *L, int globals, int loaded, int api);

/* ---- pattern matching (sandbox_patterns.c) ---- */

/* Replaces find, match, gmatch and gsub in the string library at strlib
 * by versions whose CPU time the budget bounds. */
void sandbox_guard_patterns(lua_State *L, int strlib);

/* ---- names allowed and left out (sandbox_absent.c) ---- */

/* The allow-lists, each ending in NULL: the base functions lab code gets
 * as they are (the sandbox's own print, load, ... join them), the
 * libraries it gets whole (string without string.dump), and the fields
 * of os it gets. */
extern const char *const sandbox_allowed_base[];
extern const char *const sandbox_allowed_libs[];
extern const char *const sandbox_allowed_os[];

/* Gives the table at idx a metatable whose __index raises "<lib>.<key> is
 * not available in lab files (the sandbox allows: ...)" ("'<key>'" when
 * lib is NULL: the globals) for the keys in names (space separated; NULL:
 * every absent string key). */
void sandbox_guard_library(lua_State *L, int idx, const char *lib, const char *names);

/* ---- read-only tables (sandbox_readonly.c) ---- */

/* Whether the value at idx is a read-only view. */
bool sandbox_is_frozen(lua_State *L, int idx);
/* Replaces the value on top of the stack, when a table, by its read-only
 * view (tables inside it too). */
void sandbox_freeze_value(lua_State *L);

#endif

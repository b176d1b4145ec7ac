/* probcall.h - a declared problem's Lua reference and Lua judge (lua/
 * problems.md), called on one size's host memory.
 *
 * The engine calls them on the inputs it made and the outputs a row wrote;
 * `cudalab check` calls them without a GPU, on inputs made by the same
 * fill code and the reference's own answer (lab/probprobe.h).  Each call
 * runs in the lab's sandbox, with its memory limit and a time limit; the
 * views the function is handed expire when it returns (lab/probview.h).
 * A failure comes back as "file:line: message", the line the lab's
 * function's own where Lua names one. */
#ifndef CUDALAB_LAB_PROBCALL_H
#define CUDALAB_LAB_PROBCALL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "lab/probdecl.h"

/* The time a Lua reference over a size whose buffers hold elems elements
 * may take: 0.5 s, and 1 ms more for each 400 elements (about 11 s at
 * PROBDECL_LUA_REF_MAX). */
int probcall_reference_budget_ms(size_t elems);

/* Calls Lua reference fn (a registry reference in decl's lab state:
 * decl->ref_fn, or a reference kernel's decl->ref_check) with h's
 * arguments: inputs as read-only views, each output i as a writable view
 * of out[i] (h->count[i] doubles, set to NaN first), scalars as numbers
 * (integer types as Lua integers, f32 rounded to a float: what the kernel
 * receives).  Runs for probcall_reference_budget_ms of h's elements; the
 * caller keeps to PROBDECL_LUA_REF_MAX.  false + err: the function's error
 * as Lua reports it ("lab.lua:23: attempt to ..."), its time or memory
 * running out, or, at the function's line, an output element it left
 * unwritten or set to NaN ("lab.lua:20: left y[5] unwritten (3 of the
 * 1024 elements of y; ...)"). */
bool probcall_reference(const problem_decl *decl, int fn, const probdecl_host *h,
                        double *const out[DECL_MAX_ARGS], cl_err *err);

typedef enum probcall_verdict {
    PROBCALL_OK,        /* the judge returned true */
    PROBCALL_WRONG,     /* it returned false (note: its message) */
    PROBCALL_FAILED,    /* it raised an error or ran out of time (note: "file:line: ...") */
} probcall_verdict;

/* Calls the judge function of output arg with out (count elements of the
 * arg's type) and ref (count doubles) as read-only views, and the size
 * table of dims; note receives its message ("" when it gave none and
 * returned true). */
probcall_verdict probcall_judge(const problem_decl *decl, int arg, const problem_dims *dims,
                                const void *out, const double *ref, size_t count, char *note,
                                size_t note_size);

/* The line of decl's lab file where Lua function ref (a registry
 * reference in its state) is defined; 0 when unknown. */
int probcall_function_line(const problem_decl *decl, int ref);

#endif

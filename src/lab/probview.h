/* probview.h - read-only and writable views, for Lua, of a declared
 * problem's host memory.
 *
 * A lab's Lua reference reads its inputs and writes its outputs through
 * views (a.x[i], a.y[i] = v), a fill function's values come back through
 * a table, and a judge function reads the output and the reference through
 * views: userdata counted from 0 like the kernel's arrays, with #v the
 * element count.  Reading past the end, writing a read-only view, or
 * writing a value that is not a number is an error at the Lua line.  A
 * view lives as long as the call it is handed to: the caller expires the
 * state's views when the call returns (the memory behind them is freed
 * later), and a view a lab kept in a variable then reads as an error. */
#ifndef CUDALAB_LAB_PROBVIEW_H
#define CUDALAB_LAB_PROBVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "lab/probdecl.h"

struct lua_State;

/* Pushes a view of count elements of the given type at ptr (DT_F64 for the
 * reference's doubles); writable views take numbers, rounded to type. */
void probview_push(struct lua_State *L, void *ptr, size_t count, decl_type type, bool writable);
/* Makes every view pushed so far in L's state unusable (before the memory
 * behind them goes).  Raises nothing. */
void probview_expire(struct lua_State *L);
/* Element elem of the elements of the given type at ptr, as a double. */
double probview_get(const void *ptr, decl_type type, size_t elem);
/* Stores value as element elem of the given type at ptr (rounded, clamped to
 * integer types' ranges). */
void probview_set(void *ptr, decl_type type, size_t elem, double value);

#endif

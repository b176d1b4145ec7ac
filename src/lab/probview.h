/* probview.h - read-only and writable views, for Lua, of a declared
 * problem's host memory.
 *
 * A lab's Lua reference reads its inputs and writes its outputs through
 * views (a.x[i], a.y[i] = v), a fill function's values come back through
 * a table, and a judge function reads the output and the reference through
 * views: userdata counted from 0 like the kernel's arrays, with #v the
 * element count.  Reading past the end, writing a read-only view, or
 * writing a value that is not a number is an error at the Lua line. */
#ifndef CUDALAB_LAB_PROBVIEW_H
#define CUDALAB_LAB_PROBVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "lab/probdecl.h"

struct lua_State;

/* Pushes a view of count elements of type t at ptr (DT_F64 for the
 * reference's doubles); writable views take numbers, rounded to t. */
void probview_push(struct lua_State *L, void *ptr, size_t count, decl_type t, bool writable);
/* Element i of count elements of type t at ptr, as a double. */
double probview_get(const void *ptr, decl_type t, size_t i);
/* Stores v as element i of type t at ptr (rounded, clamped to integer
 * types' ranges). */
void probview_set(void *ptr, decl_type t, size_t i, double v);

#endif

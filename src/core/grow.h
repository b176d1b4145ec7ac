/* grow.h - the one growable array: room for one more element, doubling. */
#ifndef CUDALAB_CORE_GROW_H
#define CUDALAB_CORE_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* Makes room in *v (capacity *cap elements of elem bytes, n in use) for
 * one more: when n == *cap, reallocates to twice the capacity (first when
 * it was 0).  false when out of memory, *v and *cap unchanged. */
bool grow_one(void **v, size_t *cap, size_t n, size_t elem, size_t first);

#endif

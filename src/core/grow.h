/* grow.h - the one growable array: room for one more element, doubling. */
#ifndef CUDALAB_CORE_GROW_H
#define CUDALAB_CORE_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* Makes room in *items (capacity *cap elements of elem bytes, count in
 * use) for one more: when count == *cap, reallocates to twice the capacity
 * (first when it was 0).  false when out of memory, *items and *cap
 * unchanged. */
bool grow_one(void **items, size_t *cap, size_t count, size_t elem, size_t first);

#endif

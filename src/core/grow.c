/* grow.c - the one growable array (grow.h). */
#include "core/grow.h"

#include <stdint.h>
#include <stdlib.h>

bool grow_one(void **items, size_t *cap, size_t count, size_t elem, size_t first)
{
    if (count < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : first;
    if (c < count + 1 || elem == 0 || c > SIZE_MAX / elem)
        return false;
    void *p = realloc(*items, c * elem);
    if (!p)
        return false;
    *items = p;
    *cap = c;
    return true;
}

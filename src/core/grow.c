/* grow.c - the one growable array (grow.h). */
#include "core/grow.h"

#include <stdint.h>
#include <stdlib.h>

bool grow_one(void **v, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : first;
    if (c < n + 1 || elem == 0 || c > SIZE_MAX / elem)
        return false;
    void *p = realloc(*v, c * elem);
    if (!p)
        return false;
    *v = p;
    *cap = c;
    return true;
}

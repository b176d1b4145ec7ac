#include "core/invariant.h"

#include <stdio.h>
#include <stdlib.h>

void cl_invariant_failed(const char *what, const char *file, int line, const char *func)
{
    fprintf(stderr, "cudalab: internal error at %s:%d (%s): %s\n", file, line, func, what);
    fflush(stderr);
    abort();
}

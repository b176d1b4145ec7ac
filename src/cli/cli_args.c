#include "cli/cli_args.h"

#include <stdlib.h>

bool cli_args_u64(const char *v, uint64_t *out)
{
    char *end = NULL;
    if (!v)
        return false;
    unsigned long long x = strtoull(v, &end, 0);
    if (end == v || *end)
        return false;
    *out = (uint64_t)x;
    return true;
}

bool cli_args_seconds(const char *v, double *out)
{
    char *end = NULL;
    if (!v)
        return false;
    double x = strtod(v, &end);
    if (end == v || *end || !(x > 0))
        return false;
    *out = x;
    return true;
}

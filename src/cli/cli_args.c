#include "cli/cli_args.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

bool cli_args_u64(const char *v, uint64_t *out)
{
    char *end = NULL;
    if (!v || !isdigit((unsigned char)v[0]))
        return false;          /* no sign: strtoull would wrap "-5" around */
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);   /* "010" is ten, not eight */
    if (end == v || *end || errno == ERANGE)
        return false;
    *out = (uint64_t)x;
    return true;
}

bool cli_args_seed(const char *v, uint64_t *out)
{
    uint64_t x = 0;
    if (!cli_args_u64(v, &x) || x == 0)
        return false;
    *out = x;
    return true;
}

/* v as a finite number of seconds in [lo, hi]. */
static bool seconds_in(const char *v, double lo, double hi, double *out)
{
    char *end = NULL;
    if (!v)
        return false;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end || errno == ERANGE || !isfinite(x) || !(x >= lo && x <= hi))
        return false;
    *out = x;
    return true;
}

bool cli_args_seconds(const char *v, double *out)
{
    double x = 0;
    if (!seconds_in(v, 1e-6, CLI_ARGS_MAX_SECONDS, &x))
        return false;
    *out = x;
    return true;
}

bool cli_args_time_limit(const char *v, double *out)
{
    return seconds_in(v, CLI_ARGS_MIN_TIME_LIMIT, CLI_ARGS_MAX_SECONDS, out);
}

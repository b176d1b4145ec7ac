#include "cli/cli_args.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

bool cli_args_u64(const char *value, uint64_t *out)
{
    char *end = NULL;
    if (!value || !isdigit((unsigned char)value[0]))
        return false;          /* no sign: strtoull would wrap "-5" around */
    errno = 0;
    unsigned long long x = strtoull(value, &end, 10);   /* "010" is ten, not eight */
    if (end == value || *end || errno == ERANGE)
        return false;
    *out = (uint64_t)x;
    return true;
}

bool cli_args_seed(const char *value, uint64_t *out)
{
    uint64_t x = 0;
    if (!cli_args_u64(value, &x) || x == 0)
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

bool cli_args_seconds(const char *value, double *out)
{
    double x = 0;
    if (!seconds_in(value, 1e-6, CLI_ARGS_MAX_SECONDS, &x))
        return false;
    *out = x;
    return true;
}

bool cli_args_time_limit(const char *value, double *out)
{
    return seconds_in(value, CLI_ARGS_MIN_TIME_LIMIT, CLI_ARGS_MAX_SECONDS, out);
}

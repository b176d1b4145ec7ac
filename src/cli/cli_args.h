/* cli_args.h - option values the commands read alike. */
#ifndef CUDALAB_CLI_CLI_ARGS_H
#define CUDALAB_CLI_CLI_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#define CLI_ARGS_MAX_SECONDS 86400.0    /* a day */
#define CLI_ARGS_MIN_TIME_LIMIT 1.0     /* starting the worker alone takes a good part of it */
#define CLI_ARGS_SEED_RANGE "a whole number from 1 to 18446744073709551615, in decimal"
#define CLI_ARGS_SECONDS_RANGE "a number of seconds from 0.000001 to 86400"

/* value (may be NULL) as a whole unsigned number in decimal (leading zeros
 * change nothing), without a sign, within 64 bits. */
bool cli_args_u64(const char *value, uint64_t *out);
/* value as a seed: cli_args_u64 and not 0 (--seed). */
bool cli_args_seed(const char *value, uint64_t *out);
/* value (may be NULL) as a positive, finite number of seconds up to a day:
 * --budget. */
bool cli_args_seconds(const char *value, double *out);
/* value as a time limit: finite, from CLI_ARGS_MIN_TIME_LIMIT seconds to a day. */
bool cli_args_time_limit(const char *value, double *out);

#endif

/* cli_args.h - option values the commands read alike. */
#ifndef CUDALAB_CLI_CLI_ARGS_H
#define CUDALAB_CLI_CLI_ARGS_H

#include <stdbool.h>
#include <stdint.h>

/* v (may be NULL) as a whole unsigned number in C notation (decimal, 0x
 * hex, 0 octal): --seed. */
bool cli_args_u64(const char *v, uint64_t *out);
/* v (may be NULL) as a positive number of seconds: --budget. */
bool cli_args_seconds(const char *v, double *out);

#endif

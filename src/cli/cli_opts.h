/* cli_opts.h - a command's options as a table, parsed with getopt_long.
 *
 * Each subcommand describes itself once (name, operands, one-line summary,
 * its options with their help); the same table drives the parsing, the
 * command's --help and the global help's list of commands.  Options take
 * "--opt VALUE" and "--opt=VALUE" (and "-s VALUE" where a short letter is
 * given), anywhere on the line; "--" ends the options.  The global options
 * (--labs, --workspace, --time-limit, --no-color, --ascii) are accepted by
 * every command as well as before it, and land in the cli_ctx. */
#ifndef CUDALAB_CLI_CLI_OPTS_H
#define CUDALAB_CLI_CLI_OPTS_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"

/* Keys of long-only options start here; below it a key is the short letter. */
#define CLI_LONG_ONLY 256

typedef struct cli_opt {
    const char *name;        /* "size" for --size; NULL ends the table */
    int key;                 /* 's' (also -s), or CLI_LONG_ONLY + k */
    const char *arg;         /* the value's placeholder ("N"); NULL: a flag; starting
                                with '[' ("[=ID]"): an optional value, given only as
                                --opt=VALUE */
    const char *help;        /* one line */
    const char *need;        /* what the value is, for "--size needs a size such
                                as 2^24"; NULL: "a value" */
} cli_opt;

typedef struct cli_command {
    const char *name;        /* "run" */
    const char *operands;    /* "LAB", "[PATH...]", or "" */
    const char *summary;     /* one line for the list of commands */
    const char *details;     /* a paragraph for its --help, or NULL */
    const cli_opt *opts;     /* ends with a {NULL} entry */
    int (*run)(cli_ctx *ctx, int argc, char **argv);
} cli_command;

/* Receives one parsed option of the command (never a global one); returns
 * EXIT_OK, or an exit code (after printing why) to stop. */
typedef int (*cli_opt_fn)(cli_ctx *ctx, void *ud, int key, const char *value);

/* A cli_opt_fn for a command whose options are all flags of one meaning
 * ("--json"): sets *(bool *)ud. */
int cli_opts_set_flag(cli_ctx *ctx, void *ud, int key, const char *value);

/* Returned by cli_opts_parse after printing the command's help. */
#define CLI_HELPED (-1)

/* Parses argv (argv[0] is the command's name) against cmd's options and the
 * global ones.  On EXIT_OK the operands are argv[*first..argc), in order.
 * Unknown options, missing values and unexpected values are usage errors
 * naming the command and the option; fn may be NULL when cmd has no options
 * of its own.  --help prints cmd's help on stdout
 * and returns CLI_HELPED. */
int cli_opts_parse(cli_ctx *ctx, const cli_command *cmd, int argc, char **argv, cli_opt_fn fn,
                   void *ud, int *first);

/* The global options, for main.c: parses argv up to the command word (the
 * first operand), applying them to ctx; -h/--help and -V/--version set
 * *help or *version.  Returns EXIT_OK with *first the command word's index
 * (argc when none), or EXIT_USAGE. */
int cli_opts_global(cli_ctx *ctx, int argc, char **argv, int *first, bool *help, bool *version);

/* "usage: cudalab NAME OPERANDS [options]", the summary, details and one
 * line per option. */
void cli_opts_help(const cli_command *cmd, FILE *out);
/* The global options' help lines. */
void cli_opts_global_help(FILE *out);
/* The global options' table (ends with a {NULL} entry). */
const cli_opt *cli_opts_global_table(void);

#endif

/* cli_commands.h - every command of `cudalab COMMAND`, in one table.
 *
 * The table drives dispatch (main.c), the global help's list of commands,
 * `cudalab help [COMMAND]` and the shell completion (`cudalab __complete`),
 * so none of them can forget a command.  Hidden commands (the completion
 * helper) are dispatched but never listed. */
#ifndef CUDALAB_CLI_CLI_COMMANDS_H
#define CUDALAB_CLI_CLI_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cli_opts.h"

/* The listed commands, in the order the help shows them. */
const cli_command *const *cli_commands(size_t *count);
/* The listed command called name; NULL when there is none. */
const cli_command *cli_command_listed(const char *name);
/* The command called name, listed or hidden (cli_dispatch.c); NULL when
 * there is none. */
const cli_command *cli_command_find(const char *name);

/* The global help: usage, the commands, the global options, exit codes. */
void cli_usage(FILE *out);
/* "cudalab VERSION (commit C), built with CUDA runtime X.Y" and the
 * architectures, one line each. */
void cli_version_print(FILE *out);

int cmd_help(cli_ctx *ctx, int argc, char **argv);
int cmd_version(cli_ctx *ctx, int argc, char **argv);
int cmd_complete(cli_ctx *ctx, int argc, char **argv);
int cmd_workspace(cli_ctx *ctx, int argc, char **argv);
extern const cli_command cmd_help_spec, cmd_version_spec, cmd_complete_spec,
    cmd_workspace_spec;

#endif

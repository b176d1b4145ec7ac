/* cli_dispatch.c - the command main.c dispatches a word to: a listed one
 * (the table in cli_commands.c) or the hidden completion helper
 * (cmd_complete.c), which the help never lists. */
#include "cli/cli_commands.h"

#include <string.h>

const cli_command *cli_command_find(const char *name)
{
    const cli_command *cmd = cli_command_listed(name);
    if (cmd)
        return cmd;
    if (strcmp(name, cmd_complete_spec.name) == 0)
        return &cmd_complete_spec;
    return NULL;
}

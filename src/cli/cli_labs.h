/* cli_labs.h - loading the lab set, and a lab's exercise files, for a command. */
#ifndef CUDALAB_CLI_CLI_LABS_H
#define CUDALAB_CLI_CLI_LABS_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"
#include "lab/labmodel.h"
#include "lab/workspace.h"

/* Loads every lab from the context's folders; false (message printed) only
 * when a folder cannot be read.  Problems with single labs go to diags and
 * are printed on stderr as "file:line: message", the words `cudalab check`
 * uses: a lab that check rejects is left out, and says why, everywhere. */
bool cli_load_labs(const cli_ctx *ctx, lab_set *set, lab_diags *diags);
/* One "file:line: message" per diagnostic. */
void cli_print_diags(const lab_diags *diags, FILE *out);
/* Makes the files of the_lab's exercise (NULL: the lab's own) ready in the
 * workspace, copying the lab's starters there when missing (said on
 * stderr).  EXIT_OK, or EXIT_ENV after saying why on stderr, also when a
 * path is too long for a run request. */
int cli_prepare_workspace(const lab *the_lab, const lab_exercise *exercise, workspace_files *files);

#endif

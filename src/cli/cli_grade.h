/* cli_grade.h - the grading commands: grade, verify, class. */
#ifndef CUDALAB_CLI_CLI_GRADE_H
#define CUDALAB_CLI_CLI_GRADE_H

#include "cli/cli.h"

int cmd_grade(cli_ctx *ctx, int argc, char **argv);
int cmd_verify(cli_ctx *ctx, int argc, char **argv);
int cmd_class(cli_ctx *ctx, int argc, char **argv);
extern const struct cli_command cmd_grade_spec, cmd_verify_spec, cmd_class_spec;

#endif

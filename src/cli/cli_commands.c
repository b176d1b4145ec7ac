#include "cli/cli_commands.h"

#include <string.h>

#include "cli/cli_grade.h"
#include "cli/cmd_profile.h"
#include "cli/cmd_report.h"

static const cli_command *const listed[] = {
    &cmd_list_spec,     &cmd_check_spec,   &cmd_doctor_spec,   &cmd_run_spec,
    &cmd_profile_spec,  &cmd_report_spec,  &cmd_progress_spec, &cmd_workspace_spec,
    &cmd_grade_spec,    &cmd_verify_spec,  &cmd_class_spec,    &cmd_help_spec,
    &cmd_version_spec,
};
#define NLISTED (sizeof listed / sizeof listed[0])

const cli_command *const *cli_commands(size_t *count)
{
    *count = NLISTED;
    return listed;
}

const cli_command *cli_command_listed(const char *name)
{
    for (size_t i = 0; i < NLISTED; i++)
        if (strcmp(name, listed[i]->name) == 0)
            return listed[i];
    return NULL;
}

void cli_usage(FILE *out)
{
    fputs("usage: cudalab [options] [command [args] [options]]\n"
          "\n"
          "Without a command, cudalab opens the terminal lab.\n"
          "\n"
          "commands:\n",
          out);
    for (size_t i = 0; i < NLISTED; i++) {
        const char *s = listed[i]->summary;
        const char *nl = strchr(s, '\n');
        int len = nl ? (int)(nl - s) : (int)strlen(s);
        fprintf(out, "  %-10s %.*s%s\n", listed[i]->name, len, s, nl ? " ..." : "");
    }
    fputs("\n'cudalab help COMMAND' (or 'cudalab COMMAND --help') shows a command's arguments\n"
          "and options; 'man cudalab' has the whole manual.\n"
          "\n"
          "options:\n",
          out);
    cli_opts_global_help(out);
    fputs("  -h, --help                 show this help\n"
          "  -V, --version              show the version, commit and CUDA runtime\n"
          "\n"
          "exit codes:\n"
          "  0    ran, and everything was correct\n"
          "  1    a check failed, or your code is broken (compile error, wrong answer, fault)\n"
          "  2    usage error\n"
          "  3    cannot run here: no CUDA device, no data folder, labs not found\n"
          "  130  interrupted\n"
          "  ('cudalab grade' exits 0 whenever grading happened, whatever the score.)\n",
          out);
}

/* ---- cudalab help [COMMAND] ------------------------------------------------ */

const cli_command cmd_help_spec = {
    .name = "help",
    .operands = "[COMMAND]",
    .summary = "the global help, or one command's (as 'cudalab COMMAND --help')",
    .run = cmd_help,
};

int cmd_help(cli_ctx *ctx, int argc, char **argv)
{
    int first = 0;
    int rc = cli_opts_parse(ctx, &cmd_help_spec, argc, argv, NULL, NULL, &first);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    if (first == argc) {
        cli_usage(stdout);
        return EXIT_OK;
    }
    if (first + 1 < argc)
        return cli_usage_error(ctx, "help: unexpected argument '%s'", argv[first + 1]);
    const cli_command *cmd = cli_command_listed(argv[first]);
    if (!cmd)
        return cli_usage_error(ctx, "help: no command called '%s' (see 'cudalab help')",
                               argv[first]);
    cli_opts_help(cmd, stdout);
    return EXIT_OK;
}

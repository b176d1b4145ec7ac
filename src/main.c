/* main.c - command-line entry: parses the global options and dispatches.
 *
 *   cudalab [options]                   open the terminal lab
 *   cudalab COMMAND [args] [options]    one of the commands below
 *   cudalab worker                      the GPU worker process (started by cudalab itself)
 * Each command describes its own options (cli/cli_opts.h); `cudalab
 * COMMAND --help` prints them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "cli/cli_grade.h"
#include "cli/cmd_profile.h"
#include "cli/cmd_report.h"
#include "tui/tui.h"
#include "tui/tui_class.h"
#include "worker/worker.h"

static const cli_command *const commands[] = {
    &cmd_list_spec, &cmd_check_spec, &cmd_doctor_spec,
    &cmd_run_spec,  &cmd_profile_spec, &cmd_report_spec, &cmd_progress_spec,
    &cmd_grade_spec, &cmd_verify_spec, &cmd_class_spec,
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fputs("usage: cudalab [options] [command [args] [options]]\n"
          "\n"
          "Without a command, cudalab opens the terminal lab.\n"
          "\n"
          "commands:\n",
          out);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        const char *nl = strchr(commands[i]->summary, '\n');
        int len = nl ? (int)(nl - commands[i]->summary) : (int)strlen(commands[i]->summary);
        fprintf(out, "  %-10s %.*s%s\n", commands[i]->name, len, commands[i]->summary,
                nl ? " ..." : "");
    }
    fputs("\n'cudalab COMMAND --help' shows a command's arguments and options.\n"
          "\n"
          "options:\n",
          out);
    cli_opts_global_help(out);
    fputs("  -h, --help                 show this help\n"
          "  -V, --version              show the version\n"
          "\n"
          "exit codes: 0 ok, 1 check failed, 2 usage error, 3 environment problem\n"
          "            (for example: no CUDA device found)\n",
          out);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "worker") == 0)
        return worker_main(argc - 1, argv + 1);

    static cli_ctx ctx;
    cli_ctx *c = &ctx;
    c->prog = argv[0];
    c->browse_class = tui_class_browse;
    /* The shipped labs come first; --labs folders follow as they are read. */
    cl_err e = {{0}};
    if (paths_home(c->home, sizeof c->home, &e))
        paths_join(c->shipped_labs, sizeof c->shipped_labs, c->home, "labs");
    else
        snprintf(c->home_error, sizeof c->home_error, "%s", e.msg);
    c->lab_dirs[c->nlab_dirs++] = c->shipped_labs;

    int first = argc;
    bool help = false, version = false;
    int rc = cli_opts_global(c, argc, argv, &first, &help, &version);
    if (rc != EXIT_OK)
        return rc;
    if (help) {
        usage(stdout);
        return EXIT_OK;
    }
    if (version) {
        printf("cudalab %s\n", CUDALAB_VERSION);
        return EXIT_OK;
    }
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        c->no_color = true;

    if (first < argc) {
        for (size_t k = 0; k < NCOMMANDS; k++)
            if (strcmp(argv[first], commands[k]->name) == 0)
                return commands[k]->run(c, argc - first, argv + first);
        return cli_usage_error(c, "unknown command '%s'", argv[first]);
    }
    if (c->home_error[0]) {
        fprintf(stderr, "cudalab: %s\n", c->home_error);
        return EXIT_ENV;
    }
    tui_opts o = {
        .home = c->home,
        .lab_dirs = c->lab_dirs,
        .nlab_dirs = c->nlab_dirs,
        .no_color = c->no_color,
        .ascii = c->ascii,
        .time_limit_s = c->time_limit_s,
    };
    return tui_run(&o);
}

/* main.c - command-line entry: parses the global options and dispatches.
 *
 *   cudalab [options]                   open the terminal lab
 *   cudalab COMMAND [args] [options]    a command of cli/cli_commands.c
 *   cudalab worker                      the GPU worker process (started by cudalab itself)
 * The commands are listed in cli/cli_commands.c, each describing its own
 * options (cli/cli_opts.h); `cudalab help COMMAND` prints them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_commands.h"
#include "cli/cli_opts.h"
#include "tui/tui.h"
#include "tui/tui_class.h"
#include "worker/kernelcheck.h"
#include "worker/worker.h"

/* A command's exit code, or EXIT_ENV when what it printed on standard
 * output could not all be written (a full disk, a closed pipe): output
 * that was lost is never a success. */
static int checked_output(int rc)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    fprintf(stderr, "cudalab: standard output could not be written: %s\n",
            errno ? strerror(errno) : "write error");
    return rc == EXIT_OK ? EXIT_ENV : rc;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "worker") == 0)
        return worker_main(argc - 1, argv + 1);

    static cli_ctx ctx;
    cli_ctx *c = &ctx;
    c->prog = argv[0];
    c->browse_class = tui_class_browse;
    c->kernel_check = worker_kernel_check;
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
        cli_usage(stdout);
        return checked_output(EXIT_OK);
    }
    if (version) {
        if (first < argc)
            return cli_usage_error(c, "--version takes no command or argument: '%s'",
                                   argv[first]);
        cli_version_print(stdout);
        return checked_output(EXIT_OK);
    }
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        c->no_color = true;

    if (first < argc) {
        const cli_command *cmd = cli_command_find(argv[first]);
        if (cmd)
            return checked_output(cmd->run(c, argc - first, argv + first));
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

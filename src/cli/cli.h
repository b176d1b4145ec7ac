/* cli.h - the subcommands behind `cudalab <command>`.
 *
 * main.c parses the global options into a cli_ctx and hands the remaining
 * arguments to one command.  Each command returns a process exit code. */
#ifndef CUDALAB_CLI_CLI_H
#define CUDALAB_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "core/paths.h"

struct cli_command;
struct class_view;

enum {
    EXIT_OK = 0,
    EXIT_FAIL = 1,     /* check or grade found problems */
    EXIT_USAGE = 2,    /* bad command line */
    EXIT_ENV = 3,      /* environment: no device, missing files, ... */
    EXIT_INTERRUPTED = 130,  /* SIGINT or SIGTERM: the rows that finished are kept */
};

#define CLI_MAX_LAB_DIRS 16

typedef struct cli_ctx {
    char home[CL_PATH_MAX];                   /* labs/, lua/, assets/ */
    char shipped_labs[CL_PATH_MAX];           /* home/labs */
    const char *lab_dirs[CLI_MAX_LAB_DIRS];   /* shipped first, then --labs */
    size_t nlab_dirs;
    bool no_color, ascii;
    double time_limit_s;                      /* --time-limit; 0 = lab default */
    const char *prog;                         /* argv[0] for messages */
    const char *command;                      /* the command being run, for messages */
    char home_error[CL_ERR_MAX];              /* why home is unknown; "" when it is known */
    /* Browses a class table in the terminal (set by main.c: the TUI's);
     * returns an exit code. */
    int (*browse_class)(struct class_view *table, bool ascii, bool no_color);
    /* Compiles a lab's kernel file and loads its launcher, as a run would,
     * without a GPU (set by main.c: worker/kernelcheck.h); false with msg
     * when either is broken.  A NULL launcher: the kernel file alone (the
     * multigpu lab's exercise).  NULL: `check` compiles nothing. */
    bool (*kernel_check)(const char *kernel, const char *launcher, const char *root, char *msg,
                         size_t msg_size);
} cli_ctx;

/* Prints "cudalab: <msg>" and where to read the command's help to stderr;
 * returns EXIT_USAGE. */
int cli_usage_error(const cli_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The subcommands: each parses its own argv (argv[0] is its name) and
 * returns the exit code; each has its table (cli/cli_opts.h). */
int cmd_list(cli_ctx *ctx, int argc, char **argv);
int cmd_check(cli_ctx *ctx, int argc, char **argv);
int cmd_doctor(cli_ctx *ctx, int argc, char **argv);
int cmd_run(cli_ctx *ctx, int argc, char **argv);
int cmd_progress(cli_ctx *ctx, int argc, char **argv);
extern const struct cli_command cmd_list_spec, cmd_check_spec, cmd_doctor_spec, cmd_run_spec,
    cmd_progress_spec;

#endif

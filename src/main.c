/* main.c - command-line entry: parses the global options and dispatches.
 *
 *   cudalab [options]                   open the terminal lab
 *   cudalab list [--json]               labs with their steps, variants, milestones
 *   cudalab check [PATH...]             validate lab files
 *   cudalab doctor [--json]             toolkit, driver, devices, tools, terminal
 *   cudalab run LAB [...]               run a lab's kernels and print the results
 *   cudalab profile [EXPERIMENT...]     the profiling lab's experiments
 *   cudalab report profiling            time and trace your pipeline, write a report
 *   cudalab worker                      the GPU worker process (started by cudalab itself)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_profile.h"
#include "cli/cmd_report.h"
#include "tui/tui.h"
#include "worker/worker.h"

static const char usage_text[] =
    "usage: cudalab [options] [command [args]]\n"
    "\n"
    "Without a command, cudalab opens the terminal lab.\n"
    "\n"
    "commands:\n"
    "  list [--json]            list the labs: id, title, steps, variants, milestones\n"
    "  check [PATH...]          validate lab files (default: every lab found);\n"
    "                           prints each problem as file:line: message\n"
    "  doctor [--json]          CUDA toolkit, NVRTC, driver and devices, tools,\n"
    "                           terminal, data and workspace folders\n"
    "  run LAB [--variant V]... [--size N]... [--seed S] [--budget SEC] [--no-cpu]\n"
    "          [--exercise] [--sanitize memcheck|racecheck] [--json]\n"
    "                           run a lab's kernels and print a table of results;\n"
    "                           --exercise adds your kernel from the workspace,\n"
    "                           --sanitize checks it under compute-sanitizer\n"
    "  profile [EXPERIMENT...] [--trace FILE] [--ncu KERNEL_REGEX] [--json]\n"
    "                           the profiling experiments (transfers, overlap, stride,\n"
    "                           gemv, blocksize, transpose, timing, roofline);\n"
    "                           --trace writes a Chrome trace for Perfetto\n"
    "  report profiling [--size ROWSxFEATURES] [--seed N] [--budget SEC]\n"
    "                           time the starter and your pipeline, record a timeline\n"
    "                           of each, write profiling/report.md in your workspace\n"
    "\n"
    "options:\n"
    "  --labs DIR               add a folder of labs (repeatable)\n"
    "  --workspace DIR          where your exercise files live (default ~/cudalab-workspace)\n"
    "  --time-limit SECONDS     limit for one run of the worker (default: the lab's)\n"
    "  --no-color               monochrome display (also when NO_COLOR is set)\n"
    "  --ascii                  ASCII marks and borders instead of Unicode\n"
    "  -h, --help               show this help\n"
    "  -V, --version            show the version\n"
    "\n"
    "exit codes: 0 ok, 1 check failed, 2 usage error, 3 environment problem\n"
    "            (for example: no CUDA device found)\n";

int cli_usage_error(const cli_ctx *c, const char *fmt, ...)
{
    (void)c;
    va_list ap;
    fputs("cudalab: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'cudalab --help' for more information.\n", stderr);
    return EXIT_USAGE;
}

typedef int (*command_fn)(cli_ctx *c, int argc, char **argv);

static const struct {
    const char *name;
    command_fn fn;
} commands[] = {
    {"list", cmd_list},
    {"check", cmd_check},
    {"doctor", cmd_doctor},
    {"run", cmd_run},
    {"profile", cmd_profile},
    {"report", cmd_report},
};

/* Takes the value of an option given as "--opt VALUE" or "--opt=VALUE". */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    size_t len = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, len) != 0)
        return NULL;
    if (a[len] == '=')
        return a + len + 1;
    if (a[len] == '\0' && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static bool is_option(const char *a, const char *name)
{
    size_t len = strlen(name);
    return strncmp(a, name, len) == 0 && (a[len] == '\0' || a[len] == '=');
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "worker") == 0)
        return worker_main(argc - 1, argv + 1);

    static cli_ctx ctx;
    cli_ctx *c = &ctx;
    c->prog = argv[0];
    const char *extra_dirs[CLI_MAX_LAB_DIRS];
    size_t nextra = 0;

    /* Global options may stand anywhere; the first other word is the command
     * and everything the command does not recognise is its own business. */
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest) {
        fputs("cudalab: out of memory\n", stderr);
        return EXIT_ENV;
    }
    int nrest = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            free(rest);
            return EXIT_OK;
        }
        if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
            printf("cudalab %s\n", CUDALAB_VERSION);
            free(rest);
            return EXIT_OK;
        }
        if (is_option(a, "--labs")) {
            if (!(v = option_value(argc, argv, &i, "--labs"))) {
                free(rest);
                return cli_usage_error(c, "--labs needs a folder");
            }
            if (nextra + 1 >= CLI_MAX_LAB_DIRS) {
                free(rest);
                return cli_usage_error(c, "too many --labs folders (at most %d)",
                                       CLI_MAX_LAB_DIRS - 1);
            }
            extra_dirs[nextra++] = v;
        } else if (is_option(a, "--workspace")) {
            if (!(v = option_value(argc, argv, &i, "--workspace"))) {
                free(rest);
                return cli_usage_error(c, "--workspace needs a folder");
            }
            paths_set_workspace(v);
        } else if (is_option(a, "--time-limit")) {
            char *end = NULL;
            if (!(v = option_value(argc, argv, &i, "--time-limit")) ||
                (c->time_limit_s = strtod(v, &end), end == v || *end || c->time_limit_s <= 0)) {
                free(rest);
                return cli_usage_error(c, "--time-limit needs a positive number of seconds");
            }
        } else if (strcmp(a, "--no-color") == 0) {
            c->no_color = true;
        } else if (strcmp(a, "--ascii") == 0) {
            c->ascii = true;
        } else {
            rest[nrest++] = argv[i];
        }
    }
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        c->no_color = true;

    cl_err e;
    if (!paths_home(c->home, sizeof c->home, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        free(rest);
        return EXIT_ENV;
    }
    paths_join(c->shipped_labs, sizeof c->shipped_labs, c->home, "labs");
    c->lab_dirs[c->nlab_dirs++] = c->shipped_labs;
    for (size_t k = 0; k < nextra; k++)
        c->lab_dirs[c->nlab_dirs++] = extra_dirs[k];

    int rc;
    if (nrest == 0) {
        tui_opts o = {
            .home = c->home,
            .lab_dirs = c->lab_dirs,
            .nlab_dirs = c->nlab_dirs,
            .no_color = c->no_color,
            .ascii = c->ascii,
            .time_limit_s = c->time_limit_s,
        };
        rc = tui_run(&o);
    } else if (rest[0][0] == '-') {
        rc = cli_usage_error(c, "unknown option '%s'", rest[0]);
    } else {
        rc = -1;
        for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
            if (strcmp(rest[0], commands[k].name) == 0) {
                rc = commands[k].fn(c, nrest, rest);
                break;
            }
        }
        if (rc == -1)
            rc = cli_usage_error(c, "unknown command '%s'", rest[0]);
    }
    free(rest);
    return rc;
}

#include "cli/cli_opts.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_args.h"
#include "core/invariant.h"
#include "core/paths.h"

enum {
    GLOBAL_LABS = 1 << 20,
    GLOBAL_WORKSPACE,
    GLOBAL_DATA,
    GLOBAL_TIME_LIMIT,
    GLOBAL_NO_COLOR,
    GLOBAL_ASCII,
    GLOBAL_HELP,
    GLOBAL_VERSION,
};

static const cli_opt global_opts[] = {
    {.name = "labs", .key = GLOBAL_LABS, .arg = "DIR",
     .help = "add a folder of labs (repeatable)",
     .need = "a folder"},
    {.name = "workspace", .key = GLOBAL_WORKSPACE, .arg = "DIR",
     .help = "where your exercise files live (default ~/cudalab-workspace)",
     .need = "a folder"},
    {.name = "data", .key = GLOBAL_DATA, .arg = "DIR",
     .help = "where progress is kept (default ~/.local/share/cudalab; caches: ~/.cache/cudalab)",
     .need = "a folder"},
    {.name = "time-limit", .key = GLOBAL_TIME_LIMIT, .arg = "SECONDS",
     .help = "limit for one run of the worker (default: the lab's)",
     .need = "a positive number of seconds"},
    {.name = "no-color", .key = GLOBAL_NO_COLOR,
     .help = "monochrome display (also when NO_COLOR is set)"},
    {.name = "ascii", .key = GLOBAL_ASCII, .help = "ASCII marks and borders instead of Unicode"},
    {.name = NULL},
};

#define MAX_OPTS 48

int cli_usage_error(const cli_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    fputs("cudalab: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (ctx && ctx->command)
        fprintf(stderr, "\nTry 'cudalab %s --help' for more information.\n", ctx->command);
    else
        fputs("\nTry 'cudalab --help' for more information.\n", stderr);
    return EXIT_USAGE;
}

/* Applies a global option to c. */
static int apply_global(cli_ctx *c, int key, const char *v, const char *who)
{
    switch (key) {
    case GLOBAL_LABS:
        if (c->nlab_dirs >= CLI_MAX_LAB_DIRS)
            return cli_usage_error(c, "%stoo many --labs folders (at most %d)", who,
                                   CLI_MAX_LAB_DIRS - 1);
        if (!v[0])
            return cli_usage_error(c, "%s--labs needs a folder", who);
        c->lab_dirs[c->nlab_dirs++] = v;
        return EXIT_OK;
    case GLOBAL_WORKSPACE:
        if (!v[0])
            return cli_usage_error(c, "%s--workspace needs a folder", who);
        paths_set_workspace(v);
        return EXIT_OK;
    case GLOBAL_DATA:
        if (!v[0])
            return cli_usage_error(c, "%s--data needs a folder", who);
        setenv("CUDALAB_DATA", v, 1);
        return EXIT_OK;
    case GLOBAL_TIME_LIMIT:
        if (!cli_args_time_limit(v, &c->time_limit_s))
            return cli_usage_error(c, "%s--time-limit needs a number of seconds from %g to %g",
                                   who, CLI_ARGS_MIN_TIME_LIMIT, CLI_ARGS_MAX_SECONDS);
        return EXIT_OK;
    case GLOBAL_NO_COLOR:
        c->no_color = true;
        return EXIT_OK;
    case GLOBAL_ASCII:
        c->ascii = true;
        return EXIT_OK;
    default:
        return EXIT_USAGE;
    }
}

/* The getopt_long tables for opts (may be NULL) plus the global options;
 * help adds --help/-h (and -V/--version when version). */
static void build_tables(const cli_opt *opts, bool version, struct option *lo, char *shorts,
                         size_t nshort)
{
    size_t n = 0, s = 0;
    shorts[s++] = ':';
    shorts[s++] = 'h';
    if (version)
        shorts[s++] = 'V';
    const cli_opt *lists[2] = {opts, global_opts};
    for (int l = 0; l < 2; l++) {
        for (const cli_opt *o = lists[l]; o && o->name; o++) {
            CL_ASSERT(n + 3 < MAX_OPTS && s + 3 < nshort);
            int has = !o->arg ? no_argument : o->arg[0] == '[' ? optional_argument
                                                                : required_argument;
            lo[n++] = (struct option){.name = o->name, .has_arg = has, .val = o->key};
            if (o->key > 0 && o->key < CLI_LONG_ONLY) {
                shorts[s++] = (char)o->key;
                if (o->arg)
                    shorts[s++] = ':';
                if (o->arg && o->arg[0] == '[')
                    shorts[s++] = ':';
            }
        }
    }
    lo[n++] = (struct option){.name = "help", .has_arg = no_argument, .val = GLOBAL_HELP};
    if (version)
        lo[n++] = (struct option){.name = "version", .has_arg = no_argument, .val = GLOBAL_VERSION};
    lo[n] = (struct option){.name = NULL};
    shorts[s] = '\0';
}

static bool is_global(int key)
{
    return key >= GLOBAL_LABS && key <= GLOBAL_ASCII;
}

/* What the option whose key is key needs, from opts or the global table. */
static const char *needs(const cli_opt *opts, int key)
{
    const cli_opt *lists[2] = {opts, global_opts};
    for (int l = 0; l < 2; l++)
        for (const cli_opt *o = lists[l]; o && o->name; o++)
            if (o->key == key && o->need)
                return o->need;
    return "a value";
}

/* The usage error for getopt_long's '?' (unknown option, or a value given
 * to a flag) or ':' (missing value) answer. */
static int bad_option(cli_ctx *c, const cli_opt *opts, int ch, char **argv, const char *who)
{
    const char *a = optind > 0 ? argv[optind - 1] : "";
    bool is_long = a && strncmp(a, "--", 2) == 0;
    char name[128];
    if (is_long) {
        const char *eq = strchr(a, '=');
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
    } else {
        snprintf(name, sizeof name, "-%c", optopt > 0 && optopt < CLI_LONG_ONLY ? optopt : '?');
    }
    if (ch == ':')
        return cli_usage_error(c, "%s%s needs %s", who, name, needs(opts, optopt));
    if (is_long && optopt)
        return cli_usage_error(c, "%s%s takes no value", who, name);
    return cli_usage_error(c, "%sunknown option '%s'", who, name);
}

int cli_opts_set_flag(cli_ctx *ctx, void *ud, int key, const char *value)
{
    (void)ctx;
    (void)key;
    (void)value;
    *(bool *)ud = true;
    return EXIT_OK;
}

int cli_opts_parse(cli_ctx *ctx, const cli_command *cmd, int argc, char **argv, cli_opt_fn fn,
                   void *ud, int *first)
{
    struct option lo[MAX_OPTS];
    char shorts[2 * MAX_OPTS + 4];
    char who[64];
    build_tables(cmd->opts, false, lo, shorts, sizeof shorts);
    snprintf(who, sizeof who, "%s: ", cmd->name);
    ctx->command = cmd->name;
    opterr = 0;
    optind = 0;   /* glibc: start afresh, GNU argument order */
    int ch;
    while ((ch = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        if (ch == '?' || ch == ':')
            return bad_option(ctx, cmd->opts, ch, argv, who);
        if (ch == 'h' || ch == GLOBAL_HELP) {
            cli_opts_help(cmd, stdout);
            return CLI_HELPED;
        }
        int rc = is_global(ch) ? apply_global(ctx, ch, optarg, who)
                 : fn ? fn(ctx, ud, ch, optarg) : EXIT_USAGE;
        if (rc != EXIT_OK)
            return rc;
    }
    *first = optind;
    return EXIT_OK;
}

int cli_opts_global(cli_ctx *ctx, int argc, char **argv, int *first, bool *help, bool *version)
{
    struct option lo[MAX_OPTS];
    char shorts[2 * MAX_OPTS + 4];
    build_tables(NULL, true, lo, shorts, sizeof shorts);
    /* '+': stop at the command word; what follows is the command's. */
    char plus[sizeof shorts + 1];
    snprintf(plus, sizeof plus, "+%s", shorts);
    opterr = 0;
    optind = 0;
    *help = *version = false;
    int ch;
    while ((ch = getopt_long(argc, argv, plus, lo, NULL)) != -1) {
        if (ch == '?' || ch == ':')
            return bad_option(ctx, NULL, ch, argv, "");
        if (ch == 'h' || ch == GLOBAL_HELP) {
            *help = true;
        } else if (ch == 'V' || ch == GLOBAL_VERSION) {
            *version = true;
        } else {
            int rc = apply_global(ctx, ch, optarg, "");
            if (rc != EXIT_OK)
                return rc;
        }
    }
    *first = optind;
    return EXIT_OK;
}

static void opt_lines(const cli_opt *opts, FILE *out)
{
    for (const cli_opt *o = opts; o && o->name; o++) {
        char head[64];
        const char *sep = !o->arg || o->arg[0] == '[' ? "" : " ";
        if (o->key > 0 && o->key < CLI_LONG_ONLY)
            snprintf(head, sizeof head, "-%c, --%s%s%s", o->key, o->name, sep,
                     o->arg ? o->arg : "");
        else
            snprintf(head, sizeof head, "    --%s%s%s", o->name, sep, o->arg ? o->arg : "");
        fprintf(out, "  %-26s %s\n", head, o->help);
    }
}

void cli_opts_help(const cli_command *cmd, FILE *out)
{
    fprintf(out, "usage: cudalab %s%s%s [options]\n\n%s\n", cmd->name,
            cmd->operands[0] ? " " : "", cmd->operands, cmd->summary);
    if (cmd->details)
        fprintf(out, "\n%s\n", cmd->details);
    if (cmd->opts && cmd->opts[0].name) {
        fputs("\noptions:\n", out);
        opt_lines(cmd->opts, out);
    }
    fputs("\nglobal options:\n", out);
    opt_lines(global_opts, out);
    fputs("  -h, --help                 show this help\n", out);
}

void cli_opts_global_help(FILE *out)
{
    opt_lines(global_opts, out);
}

const cli_opt *cli_opts_global_table(void)
{
    return global_opts;
}

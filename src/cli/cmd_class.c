/* cmd_class.c - `cudalab class DIR`: a class's grade reports at a glance. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_grade.h"
#include "cli/cli_opts.h"
#include "core/atomicfile.h"
#include "grade/classview.h"
#include "grade/sign.h"

enum { OPT_FORMAT = CLI_LONG_ONLY, OPT_OUT, OPT_KEY, OPT_SORT };

typedef struct class_args {
    const char *format;        /* "csv", "md", "html"; NULL: browse */
    const char *out;
    const char *key_file;
    class_sort sort;
} class_args;

static const cli_opt class_opts[] = {
    {"format", OPT_FORMAT, "FMT", "write the table as csv, md or html instead of browsing it",
     "csv, md or html"},
    {"out", OPT_OUT, "FILE", "with --format: the file to write (default: standard output)",
     "a file name"},
    {"key", OPT_KEY, "FILE", "check each report's signature with the instructor's key",
     "a key file"},
    {"sort", OPT_SORT, "BY", "learner (default), score or time", "learner, score or time"},
    {NULL, 0, NULL, NULL, NULL},
};

const cli_command cmd_class_spec = {
    "class", "DIR", "a class at a glance: learner x milestone from a folder of grade reports",
    "Reads every report.json under DIR (nested folders too).  Files that are not grade\n"
    "reports, cannot be read, or (with --key, or CUDALAB_GRADE_KEY) whose signature does\n"
    "not hold are listed as such and left out of the table.  Without --format the table\n"
    "opens in the terminal: arrows scroll, s changes the order, q quits.",
    class_opts, cmd_class,
};

static int class_option(cli_ctx *c, void *ud, int key, const char *v)
{
    class_args *a = ud;
    switch (key) {
    case OPT_FORMAT:
        if (strcmp(v, "csv") != 0 && strcmp(v, "md") != 0 && strcmp(v, "html") != 0)
            return cli_usage_error(c, "class: unknown format '%s' (csv, md or html)", v);
        a->format = v;
        return EXIT_OK;
    case OPT_OUT:
        a->out = v;
        return EXIT_OK;
    case OPT_KEY:
        a->key_file = v;
        return EXIT_OK;
    case OPT_SORT:
        if (strcmp(v, "learner") == 0)
            a->sort = CLASS_BY_LEARNER;
        else if (strcmp(v, "score") == 0)
            a->sort = CLASS_BY_SCORE;
        else if (strcmp(v, "time") == 0)
            a->sort = CLASS_BY_TIME;
        else
            return cli_usage_error(c, "class: --sort takes learner, score or time, not '%s'", v);
        return EXIT_OK;
    default:
        return EXIT_USAGE;
    }
}

/* The files left out, one a line, on stderr. */
static void list_left_out(const class_view *v)
{
    for (size_t i = 0; i < v->nfiles; i++)
        if (!v->files[i].usable)
            fprintf(stderr, "cudalab: left out %s: %s\n", v->files[i].path,
                    v->files[i].problem);
}

static int write_table(const class_view *v, const class_args *a)
{
    char *text = strcmp(a->format, "csv") == 0 ? class_csv(v)
               : strcmp(a->format, "md") == 0  ? class_markdown(v)
                                               : class_html(v);
    if (!text) {
        fputs("cudalab: out of memory\n", stderr);
        return EXIT_ENV;
    }
    int rc = EXIT_OK;
    cl_err e = {{0}};
    if (!a->out || strcmp(a->out, "-") == 0)
        fputs(text, stdout);
    else if (!atomicfile_write(a->out, text, strlen(text), &e)) {
        fprintf(stderr, "cudalab: cannot write %s: %s\n", a->out, e.msg);
        rc = EXIT_ENV;
    } else
        fprintf(stderr, "cudalab: wrote %s (%zu learners, %zu milestones)\n", a->out, v->nrows,
                v->ncols);
    free(text);
    return rc;
}

int cmd_class(cli_ctx *c, int argc, char **argv)
{
    class_args a = {0};
    int first = 0;
    int rc = cli_opts_parse(c, &cmd_class_spec, argc, argv, class_option, &a, &first);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    if (first >= argc)
        return cli_usage_error(c, "class: which folder? (cudalab class DIR)");
    if (first + 1 < argc)
        return cli_usage_error(c, "class: unexpected argument '%s'", argv[first + 1]);
    if (a.out && !a.format)
        return cli_usage_error(c, "class: --out goes with --format csv|md|html");
    if (!a.format && (!c->browse_class || !isatty(STDOUT_FILENO)))
        return cli_usage_error(c, "class: not a terminal: give --format csv, md or html");

    char *key = NULL;
    size_t keylen = 0;
    cl_err e = {{0}};
    if (!sign_key_load(a.key_file, &key, &keylen, &e))
        return cli_usage_error(c, "class: %s", e.msg);
    static class_view v;
    rc = EXIT_ENV;
    if (!class_load(argv[first], key, keylen, &v, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        goto done;
    }
    class_order(&v, a.sort);
    if (a.format) {
        list_left_out(&v);
        rc = write_table(&v, &a);
    } else {
        rc = c->browse_class(&v, c->ascii, c->no_color);
        list_left_out(&v);
    }
done:
    class_free(&v);
    if (key) {
        memset(key, 0, keylen);
        free(key);
    }
    return rc;
}

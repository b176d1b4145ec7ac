/* cmd_class.c - `cudalab class DIR`: a class's grade reports at a glance. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_grade.h"
#include "cli/cli_opts.h"
#include "cli/cli_rows.h"
#include "core/atomicfile.h"
#include "core/escape.h"
#include "core/jsondoc.h"
#include "grade/classview.h"
#include "grade/sign.h"

enum { OPT_FORMAT = CLI_LONG_ONLY, OPT_OUT, OPT_KEY, OPT_SORT, OPT_ASSIGNMENT, OPT_JSON };

typedef struct class_args {
    const char *format;        /* "csv", "md", "html", "json"; NULL: browse */
    const char *out;
    const char *key_file;
    const char *assignment;    /* NULL: the most common one */
    class_sort sort;
} class_args;

static const cli_opt class_opts_table[] = {
    {.name = "format", .key = OPT_FORMAT, .arg = "FMT",
     .help = "write the table as csv, md, html or json instead of browsing it",
     .need = "csv, md, html or json"},
    {.name = "json", .key = OPT_JSON,
     .help = "the same as --format json: one JSON document on standard output"},
    {.name = "out", .key = OPT_OUT, .arg = "FILE",
     .help = "with --format: the file to write (default: standard output)",
     .need = "a file name"},
    {.name = "key", .key = OPT_KEY, .arg = "FILE",
     .help = "check each report's signature with the instructor's key",
     .need = "a key file"},
    {.name = "assignment", .key = OPT_ASSIGNMENT, .arg = "ID",
     .help = "show this assignment's reports (default: the most common one's)",
     .need = "an assignment id"},
    {.name = "sort", .key = OPT_SORT, .arg = "BY",
     .help = "learner (default), score or time",
     .need = "learner, score or time"},
    {.name = NULL},
};

const cli_command cmd_class_spec = {
    .name = "class",
    .operands = "DIR",
    .summary = "a class at a glance: learner x milestone from a folder of grade reports",
    .details = "Reads every report.json under DIR (nested folders too, each once).  Left out of the\n"
               "table, each with a line on standard error saying why: files that are not grade\n"
               "reports, cannot be read, or are not exactly as cudalab wrote them; with --key (or\n"
               "CUDALAB_GRADE_KEY) reports whose signature does not hold; reports of another\n"
               "assignment (--assignment ID, else the most common one); a learner's older reports\n"
               "(the newest by its time of grading is kept); links that loop.  Flagged in the table:\n"
               "the same graded kernel under several learners, reports that could not be graded.\n"
               "Without --format the table opens in the terminal: arrows scroll, s changes the order,\n"
               "q quits.  Exits 3 when DIR holds no report, 1 when none passed the checks.",
    .opts = class_opts_table,
    .run = cmd_class,
};

static int class_option(cli_ctx *c, void *ud, int key, const char *v)
{
    class_args *a = ud;
    cl_err e = {{0}};
    switch (key) {
    case OPT_FORMAT:
        if (strcmp(v, "csv") != 0 && strcmp(v, "md") != 0 && strcmp(v, "html") != 0 &&
            strcmp(v, "json") != 0)
            return cli_usage_error(c, "class: unknown format '%s' (csv, md, html or json)", v);
        if (a->format && strcmp(a->format, v) != 0)
            return cli_usage_error(c, "class: --format %s and %s ask for two formats; pick one",
                                   v, strcmp(a->format, "json") == 0 ? "--json" : a->format);
        a->format = v;
        return EXIT_OK;
    case OPT_JSON:
        if (a->format && strcmp(a->format, "json") != 0)
            return cli_usage_error(c, "class: --json and --format %s ask for two formats; pick "
                                      "one", a->format);
        a->format = "json";
        return EXIT_OK;
    case OPT_OUT:
        a->out = v;
        return EXIT_OK;
    case OPT_KEY:
        a->key_file = v;
        return EXIT_OK;
    case OPT_ASSIGNMENT:
        if (!grade_assignment_check(v, &e))
            return cli_usage_error(c, "class: --assignment: %s", e.msg);
        a->assignment = v;
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

/* The files left out and those flagged, one a line, on stderr. */
static void list_problems(const class_view *v)
{
    char path[CL_PATH_MAX], text[CLASS_TEXT_MAX], learner[128];
    for (size_t i = 0; i < v->nfiles; i++) {
        const class_file *f = &v->files[i];
        if (!f->usable)
            fprintf(stderr, "cudalab: left out %s: %s\n", escape_line(path, sizeof path, f->path),
                    escape_line(text, sizeof text, f->problem));
        else if (f->note[0])
            fprintf(stderr, "cudalab: flagged %s (%s): %s\n",
                    escape_line(path, sizeof path, f->path),
                    escape_line(learner, sizeof learner, f->rep.learner),
                    escape_line(text, sizeof text, f->note));
    }
}

/* When the table is empty: says so, and the exit code (3 no report at all,
 * 1 none passed the checks). */
static int nothing_to_show(const class_view *v, const char *dir)
{
    char shown[CL_PATH_MAX];
    escape_line(shown, sizeof shown, dir);
    if (v->nreports == 0) {
        fprintf(stderr, "cudalab: no reports found in %s\n", shown);
        return EXIT_ENV;
    }
    fprintf(stderr, "cudalab: no report in %s passed the checks (%zu left out, listed above)\n",
            shown, v->nreports);
    return EXIT_FAIL;
}

/* The class as one JSON document: the columns (a quiz's self-reported), a
 * learner a row with the measured and the quiz points apart and each
 * milestone passed (true), failed (false) or not graded (null), and the
 * files left out with why. */
static cJSON *class_json(const class_view *v)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "format_version", CLI_JSON_FORMAT_VERSION);
    cJSON_AddStringToObject(doc, "assignment", v->assignment);
    cJSON_AddBoolToObject(doc, "signatures_checked", v->checked);
    cJSON *cols = cJSON_AddArrayToObject(doc, "milestones");
    for (size_t c = 0; c < v->ncols; c++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "lab", v->cols[c].lab);
        cJSON_AddStringToObject(o, "id", v->cols[c].id);
        cJSON_AddStringToObject(o, "text", v->cols[c].text);
        cJSON_AddNumberToObject(o, "points", v->cols[c].points);
        cJSON_AddStringToObject(o, "kind", v->cols[c].quiz ? "quiz" : "measured");
        cJSON_AddBoolToObject(o, "self_reported", v->cols[c].quiz);
        cJSON_AddItemToArray(cols, o);
    }
    cJSON *rows = cJSON_AddArrayToObject(doc, "learners");
    for (size_t r = 0; r < v->nrows; r++) {
        const class_file *f = &v->files[v->rows[r]];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "learner", f->rep.learner);
        cJSON_AddStringToObject(o, "file", f->path);
        cJSON_AddStringToObject(o, "created", f->rep.created);
        cJSON_AddNumberToObject(o, "score", f->rep.score);
        cJSON_AddNumberToObject(o, "max_score", f->rep.max_score);
        class_points pts;
        class_points_of(&f->rep, &pts);
        cJSON_AddNumberToObject(o, "measured_score", pts.measured);
        cJSON_AddNumberToObject(o, "measured_max_score", pts.measured_max);
        cJSON_AddNumberToObject(o, "quiz_score", pts.quiz);
        cJSON_AddNumberToObject(o, "quiz_max_score", pts.quiz_max);
        cJSON_AddStringToObject(o, "quizzes", grade_quizzes_name(f->rep.quizzes));
        cJSON_AddStringToObject(o, "error", f->rep.error);
        cJSON_AddStringToObject(o, "flag", f->note);
        cJSON *cells = cJSON_AddArrayToObject(o, "passed");
        for (size_t c = 0; c < v->ncols; c++) {
            const grade_milestone *m = class_cell(v, f, c);
            cJSON_AddItemToArray(cells, m ? cJSON_CreateBool(m->passed) : cJSON_CreateNull());
        }
        cJSON_AddItemToArray(rows, o);
    }
    cJSON *out = cJSON_AddArrayToObject(doc, "left_out");
    for (size_t i = 0; i < v->nfiles; i++) {
        const class_file *f = &v->files[i];
        if (f->usable)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "path", f->path);
        cJSON_AddStringToObject(o, "why", f->problem);
        cJSON_AddItemToArray(out, o);
    }
    /* Every string as text: names and notes come from learners' files. */
    jsondoc_clean_strings(doc, ESCAPE_WS_LINES);
    return doc;
}

static int write_table(const class_view *v, const class_args *a)
{
    if (strcmp(a->format, "json") == 0 && (!a->out || strcmp(a->out, "-") == 0)) {
        cli_print_json(class_json(v));
        return EXIT_OK;
    }
    char *text = NULL;
    if (strcmp(a->format, "json") == 0) {
        cJSON *doc = class_json(v);
        text = doc ? jsondoc_file_text(doc) : NULL;
        cJSON_Delete(doc);
    } else {
        text = strcmp(a->format, "csv") == 0 ? class_csv(v)
             : strcmp(a->format, "md") == 0  ? class_markdown(v)
                                             : class_html(v);
    }
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

int cmd_class(cli_ctx *ctx, int argc, char **argv)
{
    class_args a = {0};
    int first = 0;
    int rc = cli_opts_parse(ctx, &cmd_class_spec, argc, argv, class_option, &a, &first);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    if (first >= argc)
        return cli_usage_error(ctx, "class: which folder? (cudalab class DIR)");
    if (first + 1 < argc)
        return cli_usage_error(ctx, "class: unexpected argument '%s'", argv[first + 1]);
    if (a.out && !a.format)
        return cli_usage_error(ctx, "class: --out goes with --format csv|md|html|json");
    if (!a.format && (!ctx->browse_class || !isatty(STDOUT_FILENO)))
        return cli_usage_error(ctx, "class: not a terminal: give --format csv, md, html or json");

    char *key = NULL;
    size_t keylen = 0;
    cl_err e = {{0}};
    if (!sign_key_load(a.key_file, &key, &keylen, &e))
        return cli_usage_error(ctx, "class: %s", e.msg);
    static class_view v;
    class_opts o = {.key = key, .keylen = keylen, .assignment = a.assignment};
    rc = EXIT_ENV;
    if (!class_load(argv[first], &o, &v, &e)) {
        char shown[CL_ERR_MAX];
        fprintf(stderr, "cudalab: %s\n", escape_line(shown, sizeof shown, e.msg));
        goto done;
    }
    class_order(&v, a.sort);
    if (v.nrows == 0) {
        list_problems(&v);
        rc = nothing_to_show(&v, argv[first]);
    } else if (a.format) {
        list_problems(&v);
        rc = write_table(&v, &a);
    } else {
        rc = ctx->browse_class(&v, ctx->ascii, ctx->no_color);
        list_problems(&v);
    }
done:
    class_free(&v);
    if (key) {
        memset(key, 0, keylen);
        free(key);
    }
    return rc;
}

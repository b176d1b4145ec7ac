/* cmd_grade.c - `cudalab grade`: grade a workspace headless and write the
 * reports, bound to the learner and the assignment.  It changes nothing
 * but the report folder: the progress store is only read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_grade.h"
#include "cli/cli_labs.h"
#include "cli/cli_opts.h"
#include "core/escape.h"
#include "core/paths.h"
#include "grade/report.h"
#include "grade/sign.h"

#define MAX_ONLY 32

enum {
    OPT_LAB = CLI_LONG_ONLY,
    OPT_OUT,
    OPT_FORMAT,
    OPT_SEED,
    OPT_KEY,
    OPT_LEARNER,
    OPT_BUDGET,
    OPT_ASSIGNMENT,
    OPT_QUIZZES,
    OPT_CONFINE,
    OPT_NO_CONFINE,
    OPT_SANDBOX,
};

typedef struct grade_args {
    const char *only[MAX_ONLY];
    size_t nonly;
    const char *out;
    report_kind kinds[REPORT_NKINDS];
    size_t nkinds;
    uint64_t seed;
    const char *key_file;
    const char *learner;
    const char *assignment;
    double budget_s;
    grade_quizzes quizzes;
    grade_sandbox sandbox;
    bool sandbox_given;
} grade_args;

static const cli_opt grade_opts_table[] = {
    {.name = "lab", .key = OPT_LAB, .arg = "ID",
     .help = "grade this lab only (repeatable; default: every lab with an exercise)",
     .need = "a lab id"},
    {.name = "out", .key = OPT_OUT, .arg = "DIR",
     .help = "where the reports go (default ./cudalab-grade)",
     .need = "a folder"},
    {.name = "format", .key = OPT_FORMAT, .arg = "LIST",
     .help = "which reports: json, gradescope, junit, csv, comma-separated (default: all)",
     .need = "a list of formats: json,gradescope,junit,csv"},
    {.name = "seed", .key = OPT_SEED, .arg = "S",
     .help = "the inputs' random seed (default: a fresh one each time)",
     .need = "a number"},
    {.name = "key", .key = OPT_KEY, .arg = "FILE",
     .help = "sign the reports with the instructor's key in FILE (needs "
             "--assignment)",
     .need = "a key file"},
    {.name = "assignment", .key = OPT_ASSIGNMENT, .arg = "ID",
     .help = "the assignment the reports are for (required with a key; letters, digits, . _ -)",
     .need = "an assignment id"},
    {.name = "learner", .key = OPT_LEARNER, .arg = "NAME",
     .help = "the learner's name in the reports (default: the owner "
             "of the workspace)",
     .need = "a name"},
    {.name = "budget", .key = OPT_BUDGET, .arg = "SEC",
     .help = "GPU time to spend timing each row (default 0.25)",
     .need = "a positive number of seconds"},
    {.name = "quizzes", .key = OPT_QUIZZES, .arg = "HOW",
     .help = "count (the default) or ignore the quiz milestones: their points are the "
             "learner's own answers, self-reported in every report either way",
     .need = "count or ignore"},
    {.name = "sandbox", .key = OPT_SANDBOX, .arg = "LEVEL",
     .help = "where the learner's code runs: namespaces (bubblewrap, the default; grading "
             "refuses to start without it), landlock (the weaker fallback where namespaces "
             "cannot be had: Landlock and seccomp in the grader's PID space), none (not "
             "confined: never for grades that must be trusted)",
     .need = "a level: " GRADE_SANDBOX_NAMES},
    {.name = "confine", .key = OPT_CONFINE,
     .help = "the same as --sandbox=namespaces"},
    {.name = "no-confine", .key = OPT_NO_CONFINE,
     .help = "the same as --sandbox=none: the learner's code runs unconfined and can read "
             "what the grader can, the key's file included"},
    {.name = NULL},
};

const cli_command cmd_grade_spec = {
    .name = "grade",
    .operands = "",
    .summary = "grade a learner's workspace: re-measure their kernels and write signed reports",
    .details = "Recompiles each lab's starter.cu and starter.lua from the workspace (--workspace DIR)\n"
               "and measures them afresh in the GPU worker, with only the CPU baseline and the vendor\n"
               "library beside them, then judges every milestone; quizzes come from the progress\n"
               "store (--data DIR), which is only read: grading creates and changes nothing there.\n"
               "That store is the learner's, so it is read as untrusted (a copy, bounded in size and\n"
               "time; a store with a view, a trigger or anything cudalab does not make is refused\n"
               "and its quizzes not passed), and quiz points are marked self-reported in every\n"
               "report: --quizzes ignore lists them worth 0 points.\n"
               "Writes report.json, results.json (Gradescope), junit.xml and grades.csv, each bound\n"
               "to the learner, the assignment (--assignment ID), the graded sources' SHA-256, the\n"
               "time and this machine.  With --key FILE (or CUDALAB_GRADE_KEY holding the key) each\n"
               "report is signed, and --assignment is required; 'cudalab verify' checks them.\n"
               "The learner's code runs in a sandbox (--sandbox): by default bubblewrap, with every\n"
               "namespace unshared, no terminal, read-only binds of what it must read and a private\n"
               "scratch folder removed afterwards; the key never reaches it, and the CPU baselines\n"
               "are measured apart from it.  Each report says which sandbox graded it.\n"
               "Exits 0 whenever grading happened, whatever the score; 2 for usage errors; 3 when it\n"
               "could not (no CUDA device, the worker would not start): then the reports still say\n"
               "so, with a score of 0 and the reason, and results.json is written whatever --format\n"
               "asked for, so that an autograder always finds it.",
    .opts = grade_opts_table,
    .run = cmd_grade,
};

/* Parses "json,junit" into a's kinds. */
static int parse_formats(cli_ctx *c, const char *list, grade_args *a)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    a->nkinds = 0;
    for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", ")) {
        report_kind k;
        if (!report_kind_from_name(tok, &k))
            return cli_usage_error(c, "grade: unknown format '%s' (known: json, gradescope, "
                                      "junit, csv)",
                                   tok);
        bool seen = false;
        for (size_t i = 0; i < a->nkinds; i++)
            seen |= a->kinds[i] == k;
        if (!seen)
            a->kinds[a->nkinds++] = k;
    }
    if (a->nkinds == 0)
        return cli_usage_error(c, "grade: --format needs at least one format");
    return EXIT_OK;
}

static int grade_option(cli_ctx *c, void *ud, int key, const char *v)
{
    grade_args *a = ud;
    cl_err e = {{0}};
    switch (key) {
    case OPT_LAB:
        if (a->nonly == MAX_ONLY)
            return cli_usage_error(c, "grade: at most %d --lab", MAX_ONLY);
        a->only[a->nonly++] = v;
        return EXIT_OK;
    case OPT_OUT:
        a->out = v;
        return EXIT_OK;
    case OPT_FORMAT:
        return parse_formats(c, v, a);
    case OPT_SEED:
        if (!cli_args_seed(v, &a->seed))
            return cli_usage_error(c, "grade: --seed needs " CLI_ARGS_SEED_RANGE);
        return EXIT_OK;
    case OPT_KEY:
        a->key_file = v;
        return EXIT_OK;
    case OPT_ASSIGNMENT:
        if (!grade_assignment_check(v, &e))
            return cli_usage_error(c, "grade: --assignment: %s", e.msg);
        a->assignment = v;
        return EXIT_OK;
    case OPT_LEARNER:
        a->learner = v;
        return EXIT_OK;
    case OPT_QUIZZES:
        if (!grade_quizzes_from_name(v, &a->quizzes))
            return cli_usage_error(c, "grade: --quizzes takes count or ignore, not '%s'", v);
        return EXIT_OK;
    case OPT_BUDGET:
        if (!cli_args_seconds(v, &a->budget_s))
            return cli_usage_error(c, "grade: --budget needs " CLI_ARGS_SECONDS_RANGE);
        return EXIT_OK;
    case OPT_CONFINE:
    case OPT_NO_CONFINE:
    case OPT_SANDBOX: {
        grade_sandbox want = key == OPT_CONFINE      ? GRADE_SANDBOX_NAMESPACES
                             : key == OPT_NO_CONFINE ? GRADE_SANDBOX_NONE
                                                     : GRADE_SANDBOX_NAMESPACES;
        if (key == OPT_SANDBOX && !grade_sandbox_from_name(v, &want))
            return cli_usage_error(c, "grade: --sandbox: unknown level '%s' (known: %s)", v,
                                   GRADE_SANDBOX_NAMES);
        if (a->sandbox_given && want != a->sandbox)
            return cli_usage_error(c, "grade: --sandbox=%s and --sandbox=%s both given: choose "
                                      "one (--confine is namespaces, --no-confine none)",
                                   grade_sandbox_name(a->sandbox), grade_sandbox_name(want));
        a->sandbox = want;
        a->sandbox_given = true;
        return EXIT_OK;
    }
    default:
        return EXIT_USAGE;
    }
}

static void progress_line(void *ud, const char *line)
{
    char shown[1024];
    (void)ud;
    fprintf(stderr, "cudalab grade: %s\n", escape_line(shown, sizeof shown, line));
}

/* The summary on stdout, every text a learner controls made safe for the
 * terminal. */
static void print_summary(const grade_report *r, const char *out, const grade_args *a,
                          bool signed_)
{
    char t1[GRADE_WHY_MAX], t2[GRADE_WHY_MAX], t3[GRADE_WHY_MAX];
    if (r->error[0])
        printf("%s: not graded, score 0: %s\n", escape_line(t1, sizeof t1, r->learner),
               escape_line(t2, sizeof t2, r->error));
    else
        printf("%s: %g of %g points (%s, seed %llu, %.1f s, sandbox: %s)\n",
               escape_line(t1, sizeof t1, r->learner), r->score, r->max_score,
               escape_line(t2, sizeof t2, r->dev.name), (unsigned long long)r->seed, r->seconds,
               r->sandbox);
    for (size_t i = 0; i < r->nlabs; i++) {
        const grade_lab *gl = &r->labs[i];
        printf("  %-12s %g of %g", escape_line(t1, sizeof t1, gl->id), gl->score, gl->max_score);
        if (gl->note[0])
            printf("  (%s)", escape_line(t1, sizeof t1, gl->note));
        putchar('\n');
        for (size_t k = 0; k < gl->nms; k++) {
            const grade_milestone *g = &gl->ms[k];
            printf("    [%s] %s%s%s%s\n", g->passed ? "x" : " ",
                   escape_line(t2, sizeof t2, g->text), g->value[0] ? ": " : "",
                   escape_line(t3, sizeof t3, g->value),
                   !g->quiz ? "" : g->not_counted ? " (quiz, self-reported, not counted)"
                                                  : " (quiz, self-reported)");
        }
    }
    printf("reports%s in %s:", signed_ ? " (signed)" : "", escape_line(t1, sizeof t1, out));
    for (size_t i = 0; i < a->nkinds; i++)
        printf(" %s", report_file_name(a->kinds[i]));
    putchar('\n');
}

/* Opens the learner's progress store, as untrusted input, to read the
 * quizzes; *note says why there is none (n bytes): a store refused fails
 * no grading, its quizzes are not passed. */
static store *open_quizzes(char *note, size_t n)
{
    store *st = NULL;
    cl_err e = {{0}};
    char data[CL_PATH_MAX] = "", shown[CL_ERR_MAX];
    if (!store_open_untrusted(NULL, &st, &e)) {
        fprintf(stderr, "cudalab: the progress store was refused, its quizzes are not passed: "
                        "%s\n",
                escape_line(shown, sizeof shown, e.msg));
        snprintf(note, n, "the progress store was refused: %s", e.msg);
    } else if (!st) {
        paths_data_dir(data, sizeof data, &e);
        snprintf(note, n, "no quiz answers recorded (no progress store in %s)", data);
    }
    return st;
}

/* Grades into rep; the exit code, rep marked not graded when grading could
 * not happen. */
static int run_grading(cli_ctx *c, const grade_args *a, grade_report *rep)
{
    lab_set set = {0};
    lab_diags diags = {0};
    char quiz_note[CL_ERR_MAX + 128] = "";
    cl_err e = {{0}};
    grade_opts o = {
        .learner = a->learner,
        .assignment = a->assignment,
        .seed = a->seed,
        .budget_s = a->budget_s,
        .time_limit_s = c->time_limit_s,
        .only = a->only,
        .nonly = a->nonly,
        .progress = progress_line,
        .quiz_note = quiz_note,
        .quizzes = a->quizzes,
        .sandbox = a->sandbox,
        .key_path = a->key_file,
        .out_dir = a->out,
    };
    int rc = EXIT_OK;
    if (!cli_load_labs(c, &set, &diags)) {
        grade_report_start(rep, &o, &e);
        grade_report_not_graded(rep, c->home_error[0] ? c->home_error
                                                      : "the labs could not be loaded");
        rc = EXIT_ENV;
    } else {
        store *st = open_quizzes(quiz_note, sizeof quiz_note);
        grade_status gs = grade_run(&set, &o, st, rep, &e);
        store_close(st);
        if (gs == GRADE_UNKNOWN_LAB) {
            rc = cli_usage_error(c, "grade: %s", e.msg);
        } else if (gs != GRADE_OK) {
            fprintf(stderr, "cudalab: %s\n", e.msg);
            grade_report_not_graded(rep, e.msg);
            rc = EXIT_ENV;
        }
    }
    lab_set_free(&set);
    lab_diags_free(&diags);
    return rc;
}

/* An autograder always finds results.json, even when grading could not
 * happen and --format did not ask for it: it says why, with a score of 0. */
static void with_gradescope(grade_args *a)
{
    for (size_t i = 0; i < a->nkinds; i++)
        if (a->kinds[i] == REPORT_GRADESCOPE)
            return;
    a->kinds[a->nkinds++] = REPORT_GRADESCOPE;
}

int cmd_grade(cli_ctx *ctx, int argc, char **argv)
{
    static grade_args a;
    memset(&a, 0, sizeof a);
    int first = 0;
    int rc = cli_opts_parse(ctx, &cmd_grade_spec, argc, argv, grade_option, &a, &first);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    if (first < argc)
        return cli_usage_error(ctx, "grade: unexpected argument '%s' (the workspace is given with "
                                  "--workspace DIR)",
                               argv[first]);
    if (a.nkinds == 0)
        for (int k = 0; k < REPORT_NKINDS; k++)
            a.kinds[a.nkinds++] = (report_kind)k;
    if (!a.out)
        a.out = "cudalab-grade";

    char *key = NULL;
    size_t keylen = 0;
    cl_err e = {{0}};
    if (!sign_key_load(a.key_file, &key, &keylen, &e))
        return cli_usage_error(ctx, "grade: %s", e.msg);
    if (key && !a.assignment) {
        memset(key, 0, keylen);
        free(key);
        return cli_usage_error(ctx, "grade: --assignment ID is required when the reports are "
                                  "signed (--key or %s): it binds each report to one "
                                  "assignment",
                               SIGN_KEY_ENV);
    }
    /* the report folder first: an hour of grading must not end in a folder
     * that cannot be written */
    if (!paths_mkdir_p(a.out, &e) || access(a.out, W_OK) != 0) {
        if (!e.msg[0])
            err_set(&e, "%s cannot be written: %s", a.out, strerror(errno));
        fprintf(stderr, "cudalab: grade: the report folder: %s (nothing was graded)\n", e.msg);
        if (key) {
            memset(key, 0, keylen);
            free(key);
        }
        return EXIT_ENV;
    }
    static grade_report rep;
    rc = run_grading(ctx, &a, &rep);
    if (rep.error[0])
        with_gradescope(&a);
    if (rc != EXIT_USAGE) {
        if (!report_write(&rep, a.out, a.kinds, a.nkinds, key, keylen, &e)) {
            fprintf(stderr, "cudalab: %s\n", e.msg);
            rc = EXIT_ENV;
        } else {
            print_summary(&rep, a.out, &a, keylen > 0);
        }
    }
    if (key) {
        memset(key, 0, keylen);
        free(key);
    }
    grade_report_free(&rep);
    return rc;
}

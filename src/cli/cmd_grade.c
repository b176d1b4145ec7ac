/* cmd_grade.c - `cudalab grade`: grade a workspace headless and write the
 * reports; `cudalab verify REPORT...`: check their signatures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_grade.h"
#include "cli/cli_labs.h"
#include "cli/cli_opts.h"
#include "cli/cli_record.h"
#include "grade/report.h"
#include "grade/sign.h"

#define MAX_ONLY 32

enum { OPT_LAB = CLI_LONG_ONLY, OPT_OUT, OPT_FORMAT, OPT_SEED, OPT_KEY, OPT_LEARNER, OPT_BUDGET };

typedef struct grade_args {
    const char *only[MAX_ONLY];
    size_t nonly;
    const char *out;
    report_kind kinds[REPORT_NKINDS];
    size_t nkinds;
    uint64_t seed;
    const char *key_file;
    const char *learner;
    double budget_s;
} grade_args;

static const cli_opt grade_opts_table[] = {
    {"lab", OPT_LAB, "ID", "grade this lab only (repeatable; default: every lab with an exercise)",
     "a lab id"},
    {"out", OPT_OUT, "DIR", "where the reports go (default ./cudalab-grade)", "a folder"},
    {"format", OPT_FORMAT, "LIST",
     "which reports: json, gradescope, junit, csv, comma-separated (default: all)",
     "a list of formats: json,gradescope,junit,csv"},
    {"seed", OPT_SEED, "S", "the inputs' random seed (default: a fresh one each time)",
     "a number"},
    {"key", OPT_KEY, "FILE", "sign the reports with the instructor's key in FILE",
     "a key file"},
    {"learner", OPT_LEARNER, "NAME", "the learner's name in the reports (default: the owner "
                                     "of the workspace)",
     "a name"},
    {"budget", OPT_BUDGET, "SEC", "GPU time to spend timing each row (default 0.25)",
     "a positive number of seconds"},
    {NULL, 0, NULL, NULL, NULL},
};

const cli_command cmd_grade_spec = {
    "grade", "",
    "grade a learner's workspace: re-measure their kernels and write signed reports",
    "Recompiles each lab's starter.cu and starter.lua from the workspace (--workspace DIR)\n"
    "and measures them afresh in the GPU worker, with only the CPU baseline and the vendor\n"
    "library beside them, then judges every milestone; quizzes come from the progress\n"
    "store (--data DIR).  Writes report.json, results.json (Gradescope), junit.xml and\n"
    "grades.csv.  With --key FILE (or CUDALAB_GRADE_KEY holding the key) each report is\n"
    "signed; 'cudalab verify' checks them.  Exits 0 whenever grading happened, whatever\n"
    "the score; 3 when it could not (no CUDA device); 2 for usage errors.",
    grade_opts_table, cmd_grade,
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
    case OPT_LEARNER:
        a->learner = v;
        return EXIT_OK;
    case OPT_BUDGET:
        if (!cli_args_seconds(v, &a->budget_s))
            return cli_usage_error(c, "grade: --budget needs a positive number of seconds");
        return EXIT_OK;
    default:
        return EXIT_USAGE;
    }
}

static void progress_line(void *ud, const char *line)
{
    (void)ud;
    fprintf(stderr, "cudalab grade: %s\n", line);
}

static void print_summary(const grade_report *r, const char *out, const grade_args *a,
                          bool signed_)
{
    printf("%s: %g of %g points (%s, seed %llu, %.1f s)\n", r->learner, r->score, r->max_score,
           r->dev.name, (unsigned long long)r->seed, r->seconds);
    for (size_t i = 0; i < r->nlabs; i++) {
        const grade_lab *gl = &r->labs[i];
        printf("  %-12s %g of %g", gl->id, gl->score, gl->max_score);
        if (gl->note[0])
            printf("  (%s)", gl->note);
        putchar('\n');
        for (size_t k = 0; k < gl->nms; k++) {
            const grade_milestone *g = &gl->ms[k];
            printf("    [%s] %s%s%s\n", g->passed ? "x" : " ", g->text, g->value[0] ? ": " : "",
                   g->value);
        }
    }
    printf("reports%s in %s:", signed_ ? " (signed)" : "", out);
    for (size_t i = 0; i < a->nkinds; i++)
        printf(" %s", report_file_name(a->kinds[i]));
    putchar('\n');
}

int cmd_grade(cli_ctx *c, int argc, char **argv)
{
    static grade_args a;
    memset(&a, 0, sizeof a);
    int first = 0;
    int rc = cli_opts_parse(c, &cmd_grade_spec, argc, argv, grade_option, &a, &first);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    if (first < argc)
        return cli_usage_error(c, "grade: unexpected argument '%s' (the workspace is given with "
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
    if (!sign_key_load(a.key_file, &key, &keylen, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        return EXIT_USAGE;
    }
    lab_set set = {0};
    lab_diags diags = {0};
    static grade_report rep;
    store *st = NULL;
    rc = EXIT_ENV;
    if (!cli_load_labs(c, &set, &diags))
        goto done;
    st = cli_store_open();
    grade_opts o = {
        .learner = a.learner,
        .seed = a.seed,
        .budget_s = a.budget_s,
        .time_limit_s = c->time_limit_s,
        .only = a.only,
        .nonly = a.nonly,
        .progress = progress_line,
    };
    grade_status gs = grade_run(&set, &o, st, &rep, &e);
    if (gs == GRADE_NO_DEVICE) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        goto done;
    }
    if (gs == GRADE_FAILED) {
        bool usage = strncmp(e.msg, "no lab called", 13) == 0;
        if (usage)
            rc = cli_usage_error(c, "grade: %s", e.msg);
        else
            fprintf(stderr, "cudalab: %s\n", e.msg);
        goto done;
    }
    if (!report_write(&rep, a.out, a.kinds, a.nkinds, key, keylen, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        goto done;
    }
    print_summary(&rep, a.out, &a, keylen > 0);
    rc = EXIT_OK;
done:
    if (key) {
        memset(key, 0, keylen);
        free(key);
    }
    grade_report_free(&rep);
    store_close(st);
    lab_set_free(&set);
    lab_diags_free(&diags);
    return rc;
}

/* ---- verify ------------------------------------------------------------------------ */

static const cli_opt verify_opts[] = {
    {"key", OPT_KEY, "FILE", "the instructor's key (default: CUDALAB_GRADE_KEY's text)",
     "a key file"},
    {NULL, 0, NULL, NULL, NULL},
};

const cli_command cmd_verify_spec = {
    "verify", "REPORT...", "check the signatures of grade reports: valid or tampered, per file",
    "Exits 0 when every report is signed and unchanged, 1 otherwise.", verify_opts, cmd_verify,
};

static int verify_option(cli_ctx *c, void *ud, int key, const char *v)
{
    (void)c;
    if (key == OPT_KEY)
        *(const char **)ud = v;
    return EXIT_OK;
}

int cmd_verify(cli_ctx *c, int argc, char **argv)
{
    const char *key_file = NULL;
    int first = 0;
    int rc = cli_opts_parse(c, &cmd_verify_spec, argc, argv, verify_option, &key_file, &first);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    if (first >= argc)
        return cli_usage_error(c, "verify: which reports? (cudalab verify report.json ...)");
    char *key = NULL;
    size_t keylen = 0;
    cl_err e = {{0}};
    if (!sign_key_load(key_file, &key, &keylen, &e))
        return cli_usage_error(c, "verify: %s", e.msg);
    if (!key)
        return cli_usage_error(c, "verify: needs the instructor's key: --key FILE, or "
                                  "CUDALAB_GRADE_KEY holding it");
    rc = EXIT_OK;
    for (int i = first; i < argc; i++) {
        char why[512];
        sign_verdict v = sign_verify_file(argv[i], key, keylen, why, sizeof why);
        printf("%s: %s (%s)\n", argv[i], sign_verdict_name(v), why);
        if (v != SIGN_VALID)
            rc = EXIT_FAIL;
    }
    memset(key, 0, keylen);
    free(key);
    return rc;
}

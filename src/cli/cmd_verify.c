/* cmd_verify.c - `cudalab verify REPORT...`: check grade reports'
 * signatures, each file exactly as cudalab wrote it (grade/sign.h). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_grade.h"
#include "cli/cli_opts.h"
#include "cli/cli_rows.h"
#include "core/atomicfile.h"
#include "core/escape.h"
#include "core/jsondoc.h"
#include "grade/report.h"
#include "grade/sign.h"

enum { OPT_KEY = CLI_LONG_ONLY };

static const cli_opt verify_opts[] = {
    {.name = "key", .key = OPT_KEY, .arg = "FILE",
     .help = "the instructor's key (default: CUDALAB_GRADE_KEY's text)",
     .need = "a key file"},
    {.name = "json", .key = 'j',
     .help = "print one JSON document: {\"reports\": [{\"file\", \"verdict\", \"why\", and for a "
             "valid one \"learner\", \"assignment\", \"created\"}...]}"},
    {.name = NULL},
};

const cli_command cmd_verify_spec = {
    .name = "verify",
    .operands = "REPORT...",
    .summary = "check the signatures of grade reports: valid or tampered, per file",
    .details = "Each file (report.json, results.json, junit.xml, or grades.csv with grades.csv.sig\n"
               "beside it) must be exactly what cudalab wrote, byte for byte, and its signature must\n"
               "hold under the key: a byte added before or after the report, a key written twice or\n"
               "a second signature makes it 'tampered'.  For a valid report it says whose it is, for\n"
               "which assignment and when it was graded.  Exits 0 when every report is signed and\n"
               "unchanged, 1 otherwise.",
    .opts = verify_opts,
    .run = cmd_verify,
};

typedef struct verify_args {
    const char *key_file;
    bool json;
} verify_args;

static int verify_option(cli_ctx *c, void *ud, int key, const char *v)
{
    verify_args *a = ud;
    (void)c;
    if (key == OPT_KEY)
        a->key_file = v;
    else if (key == 'j')
        a->json = true;
    return EXIT_OK;
}

/* Checks the report at file, read once: its verdict, and for a valid one
 * whose it is, for which assignment and when it was graded; printed, or
 * added to all (--json). */
static sign_verdict verify_one(const char *file, const void *key, size_t keylen, cJSON *all)
{
    char why[512], path[CL_PATH_MAX], shown[sizeof why];
    size_t len = 0;
    cl_err e = {{0}};
    report_binding b;
    char *text = file_read_all(file, REPORT_READ_MAX, &len, &e);
    sign_verdict v = SIGN_UNREADABLE;
    if (text)
        v = sign_verify_text(file, text, len, key, keylen, why, sizeof why);
    else
        snprintf(why, sizeof why, "%s", e.msg);
    bool bound = v == SIGN_VALID && report_binding_read(file, text, len, &b);
    free(text);
    if (all) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "file", file);
        cJSON_AddStringToObject(o, "verdict", sign_verdict_name(v));
        cJSON_AddStringToObject(o, "why", why);
        if (bound) {
            cJSON_AddStringToObject(o, "learner", b.learner);
            cJSON_AddStringToObject(o, "assignment", b.assignment);
            cJSON_AddStringToObject(o, "created", b.created);
        }
        cJSON_AddItemToArray(all, o);
        return v;
    }
    printf("%s: %s (%s)\n", escape_line(path, sizeof path, file), sign_verdict_name(v),
           escape_line(shown, sizeof shown, why));
    if (bound) {
        char learner[sizeof b.learner], assignment[sizeof b.assignment];
        printf("  learner %s, assignment %s, graded %s\n",
               escape_line(learner, sizeof learner, b.learner),
               b.assignment[0] ? escape_line(assignment, sizeof assignment, b.assignment)
                               : "(none)",
               escape_line(shown, sizeof shown, b.created));
    }
    return v;
}

/* Whether argv[i] is a detached signature (grades.csv.sig) of a report
 * also named among argv[first..argc), which is checked with it: then it is
 * not checked on its own (a folder's glob names both). */
static bool signature_of_named(char **argv, int first, int argc, int i)
{
    size_t n = strlen(argv[i]);
    if (n <= 4 || strcmp(argv[i] + n - 4, ".sig") != 0)
        return false;
    for (int j = first; j < argc; j++)
        if (j != i && strlen(argv[j]) == n - 4 && strncmp(argv[j], argv[i], n - 4) == 0)
            return true;
    return false;
}

int cmd_verify(cli_ctx *ctx, int argc, char **argv)
{
    verify_args a = {NULL, false};
    int first = 0;
    int rc = cli_opts_parse(ctx, &cmd_verify_spec, argc, argv, verify_option, &a, &first);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    if (first >= argc)
        return cli_usage_error(ctx, "verify: which reports? (cudalab verify report.json ...)");
    char *key = NULL;
    size_t keylen = 0;
    cl_err e = {{0}};
    if (!sign_key_load(a.key_file, &key, &keylen, &e))
        return cli_usage_error(ctx, "verify: %s", e.msg);
    if (!key)
        return cli_usage_error(ctx, "verify: needs the instructor's key: --key FILE, or "
                                  "CUDALAB_GRADE_KEY holding it");
    rc = EXIT_OK;
    cJSON *doc = a.json ? cJSON_CreateObject() : NULL;
    cJSON *all = doc ? cJSON_AddArrayToObject(doc, "reports") : NULL;
    for (int i = first; i < argc; i++)
        if (!signature_of_named(argv, first, argc, i) &&
            verify_one(argv[i], key, keylen, all) != SIGN_VALID)
            rc = EXIT_FAIL;
    if (doc) {
        /* names come from the reports: text, whatever they hold */
        jsondoc_clean_strings(doc, ESCAPE_WS_LINES);
        cli_print_json(doc);
    }
    memset(key, 0, keylen);
    free(key);
    return rc;
}

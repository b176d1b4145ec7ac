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
#include "core/escape.h"
#include "grade/sign.h"

enum { OPT_KEY = CLI_LONG_ONLY };

static const cli_opt verify_opts[] = {
    {.name = "key", .key = OPT_KEY, .arg = "FILE",
     .help = "the instructor's key (default: CUDALAB_GRADE_KEY's text)",
     .need = "a key file"},
    {.name = "json", .key = 'j',
     .help = "print one JSON document: {\"reports\": [{\"file\", \"verdict\", \"why\"}...]}"},
    {.name = NULL},
};

const cli_command cmd_verify_spec = {
    .name = "verify",
    .operands = "REPORT...",
    .summary = "check the signatures of grade reports: valid or tampered, per file",
    .details = "Each file (report.json, results.json, junit.xml, or grades.csv with grades.csv.sig\n"
               "beside it) must be exactly what cudalab wrote, byte for byte, and its signature must\n"
               "hold under the key: a byte added before or after the report, a key written twice or\n"
               "a second signature makes it 'tampered'.  Exits 0 when every report is signed and\n"
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
    for (int i = first; i < argc; i++) {
        char why[512], path[CL_PATH_MAX], shown[sizeof why];
        sign_verdict v = sign_verify_file(argv[i], key, keylen, why, sizeof why);
        if (all) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "file", argv[i]);
            cJSON_AddStringToObject(o, "verdict", sign_verdict_name(v));
            cJSON_AddStringToObject(o, "why", why);
            cJSON_AddItemToArray(all, o);
        } else {
            printf("%s: %s (%s)\n", escape_line(path, sizeof path, argv[i]),
                   sign_verdict_name(v), escape_line(shown, sizeof shown, why));
        }
        if (v != SIGN_VALID)
            rc = EXIT_FAIL;
    }
    if (doc)
        cli_print_json(doc);
    memset(key, 0, keylen);
    free(key);
    return rc;
}

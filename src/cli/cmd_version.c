/* cmd_version.c - `cudalab version` (and `cudalab --version`).
 *
 * CUDALAB_COMMIT is given to this file alone (CMakeLists.txt reads it from
 * git when configuring), so a new commit rebuilds one file. */
#include <cjson/cJSON.h>

#include "cli/cli_commands.h"
#include "cli/cli_rows.h"

#ifndef CUDALAB_COMMIT
#define CUDALAB_COMMIT "unknown"
#endif

void cli_version_print(FILE *out)
{
    fprintf(out, "cudalab %s\n", CUDALAB_VERSION);
    fprintf(out, "commit        %s\n", CUDALAB_COMMIT);
    fprintf(out, "CUDA runtime  %d.%d (built against)\n", CUDALAB_CUDART_VERSION / 1000,
            (CUDALAB_CUDART_VERSION % 1000) / 10);
    fprintf(out, "kernels for   sm %s\n", CUDALAB_CUDA_ARCHS);
}

static const cli_opt version_opts[] = {
    {.name = "json", .key = 'j', .help = "print one JSON document instead of text"},
    {.name = NULL},
};

const cli_command cmd_version_spec = {
    .name = "version",
    .operands = "",
    .summary = "the version, the commit it was built from and the CUDA runtime",
    .details = "'cudalab doctor' says which driver and device this machine has.",
    .opts = version_opts,
    .run = cmd_version,
};

/* {"version", "commit", "cuda_runtime", "archs"} */
static void print_json(void)
{
    cJSON *o = cJSON_CreateObject();
    char rt[32];
    snprintf(rt, sizeof rt, "%d.%d", CUDALAB_CUDART_VERSION / 1000,
             (CUDALAB_CUDART_VERSION % 1000) / 10);
    if (o && cJSON_AddStringToObject(o, "version", CUDALAB_VERSION) &&
        cJSON_AddStringToObject(o, "commit", CUDALAB_COMMIT) &&
        cJSON_AddStringToObject(o, "cuda_runtime", rt) &&
        cJSON_AddStringToObject(o, "archs", CUDALAB_CUDA_ARCHS)) {
        cli_print_json(o);
        return;
    }
    cJSON_Delete(o);
    fprintf(stderr, "cudalab: out of memory\n");
}

int cmd_version(cli_ctx *ctx, int argc, char **argv)
{
    int first = 0;
    bool json = false;
    int rc = cli_opts_parse(ctx, &cmd_version_spec, argc, argv, cli_opts_set_flag, &json, &first);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    if (first < argc)
        return cli_usage_error(ctx, "version: unexpected argument '%s'", argv[first]);
    if (json)
        print_json();
    else
        cli_version_print(stdout);
    return EXIT_OK;
}

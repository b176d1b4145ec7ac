/* cmd_version.c - `cudalab version` (and `cudalab --version`).
 *
 * CUDALAB_COMMIT is given to this file alone (CMakeLists.txt reads it from
 * git when configuring), so a new commit rebuilds one file. */
#include "cli/cli_commands.h"

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

const cli_command cmd_version_spec = {
    "version", "", "the version, the commit it was built from and the CUDA runtime",
    "'cudalab doctor' says which driver and device this machine has.", NULL, cmd_version,
};

int cmd_version(cli_ctx *c, int argc, char **argv)
{
    int first = 0;
    int rc = cli_opts_parse(c, &cmd_version_spec, argc, argv, NULL, NULL, &first);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    if (first < argc)
        return cli_usage_error(c, "version: unexpected argument '%s'", argv[first]);
    cli_version_print(stdout);
    return EXIT_OK;
}

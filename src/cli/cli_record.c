#include "cli/cli_record.h"

#include <stdio.h>

#include "supervise/diagnose.h"

store *cli_store_open(void)
{
    store *s = NULL;
    char notice[1024];
    cl_err e = {{0}};
    if (!store_open(NULL, &s, notice, sizeof notice, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        return NULL;
    }
    if (notice[0])
        fprintf(stderr, "cudalab: %s\n", notice);
    return s;
}

const char *cli_diag_cause(const run_result *result)
{
    if (result->status == RS_CORRECT)
        return "";
    diag_input in;
    diagnosis d;
    diag_input_init(&in);
    diag_input_from_result(&in, result);
    diagnose(&in, &d);
    return diag_cause_name(d.cause);
}

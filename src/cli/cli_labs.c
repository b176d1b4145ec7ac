#include "cli/cli_labs.h"

#include <stdio.h>

bool cli_load_labs(const cli_ctx *c, lab_set *set, lab_diags *diags)
{
    cl_err e;
    if (!lab_set_load(set, c->lab_dirs, c->nlab_dirs, c->home, diags, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        return false;
    }
    return true;
}

void cli_print_diags(const lab_diags *d, FILE *f)
{
    for (size_t i = 0; i < d->n; i++) {
        const lab_diag *g = &d->v[i];
        if (g->line > 0)
            fprintf(f, "%s:%d: %s\n", g->file, g->line, g->msg);
        else
            fprintf(f, "%s: %s\n", g->file, g->msg);
    }
}

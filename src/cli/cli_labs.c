#include "cli/cli_labs.h"

#include <stdio.h>
#include <string.h>

#include "result/record.h"

bool cli_load_labs(const cli_ctx *c, lab_set *set, lab_diags *diags)
{
    cl_err e;
    if (c->home_error[0]) {
        fprintf(stderr, "cudalab: %s\n", c->home_error);
        return false;
    }
    if (!lab_set_load(set, c->lab_dirs, c->nlab_dirs, c->home, diags, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        return false;
    }
    if (diags->n) {
        fprintf(stderr, "cudalab: %zu problem%s in lab files (those labs are left out; see "
                        "'cudalab check'):\n",
                diags->n, diags->n == 1 ? "" : "s");
        cli_print_diags(diags, stderr);
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

int cli_prepare_workspace(const lab *l, const lab_exercise *x, workspace_files *f)
{
    cl_err e = {{0}};
    if (!workspace_prepare(NULL, l, x, f, &e)) {
        fprintf(stderr, "cudalab: cannot prepare your exercise files: %s\n", e.msg);
        return EXIT_ENV;
    }
    if (f->kernel_created || f->launcher_created)
        fprintf(stderr, "cudalab: copied the lab's starter files into %s\n", f->dir);
    if (strlen(f->kernel) >= RUN_PATH_MAX || strlen(f->launcher) >= RUN_PATH_MAX) {
        fprintf(stderr, "cudalab: the workspace path %s is too long\n", f->dir);
        return EXIT_ENV;
    }
    return EXIT_OK;
}

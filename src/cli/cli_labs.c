#include "cli/cli_labs.h"

#include <stdio.h>
#include <string.h>

#include "core/escape.h"
#include "result/record.h"

bool cli_load_labs(const cli_ctx *ctx, lab_set *set, lab_diags *diags)
{
    cl_err e;
    if (ctx->home_error[0]) {
        fprintf(stderr, "cudalab: %s\n", ctx->home_error);
        return false;
    }
    if (!lab_set_load(set, ctx->lab_dirs, ctx->nlab_dirs, ctx->home, diags, &e)) {
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

void cli_print_diags(const lab_diags *diags, FILE *out)
{
    /* a message may carry a lab's own text (a Lua error, a judge's words):
     * its control characters are shown, never sent to the terminal */
    char file[sizeof diags->v[0].file * 3], msg[sizeof diags->v[0].msg * 3];
    for (size_t i = 0; i < diags->n; i++) {
        const lab_diag *g = &diags->v[i];
        const char *kind = g->warning ? "warning: " : "";
        escape_line(file, sizeof file, g->file);
        escape_line(msg, sizeof msg, g->msg);
        if (g->line > 0)
            fprintf(out, "%s:%d: %s%s\n", file, g->line, kind, msg);
        else
            fprintf(out, "%s: %s%s\n", file, kind, msg);
    }
}

int cli_prepare_workspace(const lab *the_lab, const lab_exercise *exercise, workspace_files *files)
{
    cl_err e = {{0}};
    if (!workspace_prepare(NULL, the_lab, exercise, files, &e)) {
        fprintf(stderr, "cudalab: cannot prepare your exercise files: %s\n", e.msg);
        return EXIT_ENV;
    }
    if (files->kernel_created || files->launcher_created)
        fprintf(stderr, "cudalab: copied the lab's starter files into %s\n", files->dir);
    if (strlen(files->kernel) >= RUN_PATH_MAX || strlen(files->launcher) >= RUN_PATH_MAX) {
        fprintf(stderr, "cudalab: the workspace path %s is too long\n", files->dir);
        return EXIT_ENV;
    }
    return EXIT_OK;
}

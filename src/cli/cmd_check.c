/* cmd_check.c - `cudalab check [PATH...]`: validate lab files.
 *
 * A PATH may be a lab.lua file, a lab folder, or a folder of lab folders.
 * Loading a lab checks it against what cudalab can run as well (each
 * variant's kernel a shipped kernel of the lab's problem, sizes the
 * problem reads: lab/labcheck.h), so what check reports is what stops a
 * lab everywhere else.  Then every kernel file of the lab's folder (rungs,
 * reference kernels, starters) is compiled and its launcher loaded, as a
 * run does, without a GPU (cli_ctx.kernel_check), and each problem the
 * lab declares has its Lua reference and judges called at its smallest
 * size (lab/probprobe.h).  Warnings (advice) are printed and stop
 * nothing. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "cli/cli_labs.h"
#include "cli/cli_rows.h"
#include "core/escape.h"
#include "lab/milestone_probe.h"
#include "lab/probdecl.h"
#include "lab/probprobe.h"

/* Compiles one kernel file of l's folder with its launcher (none: a
 * kernel file alone, the multigpu lab's exercise); a failure becomes a
 * problem at line, as "<what>: <why>". */
static void check_pair(const cli_ctx *c, const lab *l, const char *kernel, const char *launcher,
                       int line, const char *what, lab_diags *d)
{
    char k[CL_PATH_MAX], lf[CL_PATH_MAX], msg[CL_ERR_MAX];
    if (!kernel || !paths_join(k, sizeof k, l->dir, kernel) || !paths_is_file(k))
        return;   /* a missing file is the lab loader's to report */
    if (launcher && (!paths_join(lf, sizeof lf, l->dir, launcher) || !paths_is_file(lf)))
        return;
    if (!c->kernel_check(k, launcher ? lf : NULL, l->dir, msg, sizeof msg))
        lab_diags_add(d, l->path, line, "%s: %s", what, msg);
}

/* Every kernel of a loaded lab's folder compiled as a run compiles it,
 * without a GPU: its rungs, its reference kernels, its exercises' starters
 * (the pipeline's starters have launchers of their own kind). */
static void check_kernels(const cli_ctx *c, const lab *l, lab_diags *d)
{
    if (!c->kernel_check || !l)
        return;
    char what[256];
    for (size_t i = 0; i < l->nvariants; i++) {
        snprintf(what, sizeof what, "variant '%s'", l->variants[i].id);
        check_pair(c, l, l->variants[i].file, l->variants[i].launcher, l->variants[i].line, what,
                   d);
    }
    for (size_t i = 0; i < l->ndecls; i++) {
        const problem_decl *p = &l->decls[i];
        if (p->ref != REF_KERNEL || strcmp(p->dir, l->dir) != 0)
            continue;
        snprintf(what, sizeof what, "problem %s: its reference kernel", p->name);
        check_pair(c, l, p->ref_file, p->ref_launcher, p->line, what, d);
    }
    for (size_t i = 0; i < l->nexercises; i++) {
        const lab_exercise *x = &l->exercises[i];
        if ((x->problem && strcmp(x->problem, "pipeline") == 0) || x->python)
            continue;
        if (x->id[0])
            snprintf(what, sizeof what, "exercise '%s': its starter", x->id);
        else
            snprintf(what, sizeof what, "exercise: its starter");
        check_pair(c, l, x->kernel, x->launcher, x->line, what, d);
    }
}

/* Everything `check` adds to loading lab l: its kernels compiled, its
 * milestone checks called on made-up rows, its declared problems' Lua
 * references and judges called on inputs made as a run makes them (last:
 * what they leave in the lab's Lua state runs nothing after them). */
static void check_lab(const cli_ctx *c, lab *l, lab_diags *d)
{
    check_kernels(c, l, d);
    lab_probe_milestones(l, d);
    lab_probe_problems(l, d);
}

/* Checks one PATH; returns the number of lab files looked at. */
static size_t check_path(const cli_ctx *c, const char *path, lab_diags *d)
{
    char file[CL_PATH_MAX];
    if (paths_is_dir(path)) {
        paths_join(file, sizeof file, path, "lab.lua");
        if (!paths_is_file(file)) {
            lab_set set = {0};
            cl_err e;
            const char *dirs[1] = {path};
            size_t before = d->n, n = 0;
            if (!lab_set_load(&set, dirs, 1, c->home, d, &e)) {
                lab_diags_add(d, path, 0, "%s", e.msg);
                return 0;
            }
            n = set.n + (d->n - before);
            for (size_t i = 0; i < set.n; i++)
                check_lab(c, set.v[i], d);
            lab_set_free(&set);
            if (n == 0)
                lab_diags_add(d, path, 0, "no lab found here (expected lab.lua or <id>/lab.lua)");
            return n;
        }
    } else if (paths_is_file(path)) {
        snprintf(file, sizeof file, "%s", path);
    } else {
        lab_diags_add(d, path, 0, "no such file or folder");
        return 0;
    }
    lab *l = lab_load(file, c->home, d);
    if (l)
        check_lab(c, l, d);
    lab_free(l);
    return 1;
}

static const cli_opt check_opts[] = {
    {.name = "json", .key = 'j',
     .help = "print one JSON document: {\"labs\", \"problems\": [{\"file\", "
             "\"line\", \"message\", \"warning\"}...]}"},
    {.name = NULL},
};

/* {"labs": N, "problems": [{"file", "line", "message", "warning"}...]}:
 * a warning (advice) stops nothing. */
static void print_json(const lab_diags *d, size_t nlabs)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *arr = o ? cJSON_AddArrayToObject(o, "problems") : NULL;
    if (!arr) {
        cJSON_Delete(o);
        fprintf(stderr, "cudalab: out of memory\n");
        return;
    }
    cJSON_AddNumberToObject(o, "labs", (double)nlabs);
    for (size_t i = 0; i < d->n; i++) {
        cJSON *p = cJSON_CreateObject();
        char *file = escape_dup(d->v[i].file, ESCAPE_WS_KEEP);
        char *msg = escape_dup(d->v[i].msg, ESCAPE_WS_KEEP);   /* valid UTF-8, for JSON */
        cJSON_AddStringToObject(p, "file", file ? file : "");
        cJSON_AddNumberToObject(p, "line", d->v[i].line);
        cJSON_AddStringToObject(p, "message", msg ? msg : "");
        free(file);
        free(msg);
        cJSON_AddBoolToObject(p, "warning", d->v[i].warning);
        cJSON_AddItemToArray(arr, p);
    }
    cli_print_json(o);
}

const cli_command cmd_check_spec = {
    .name = "check",
    .operands = "[PATH...]",
    .summary = "validate lab files; prints each problem as file:line: message",
    .details = "A PATH may be a lab.lua file, a lab folder, or a folder of lab folders; without one,\n"
               "every lab found is checked.  Exits 0 when all are well, 1 when a problem was found\n"
               "(a warning is advice: it does not count).",
    .opts = check_opts,
    .run = cmd_check,
};

int cmd_check(cli_ctx *ctx, int argc, char **argv)
{
    lab_diags diags = {0};
    size_t nlabs = 0;
    int first = 0;
    bool json = false;
    int rc = cli_opts_parse(ctx, &cmd_check_spec, argc, argv, cli_opts_set_flag, &json, &first);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    if (ctx->home_error[0]) {
        fprintf(stderr, "cudalab: %s\n", ctx->home_error);
        return EXIT_ENV;
    }
    if (first == argc) {
        lab_set set = {0};
        cl_err e;
        if (!lab_set_load(&set, ctx->lab_dirs, ctx->nlab_dirs, ctx->home, &diags, &e)) {
            fprintf(stderr, "cudalab: %s\n", e.msg);
            lab_set_free(&set);
            lab_diags_free(&diags);
            return EXIT_ENV;
        }
        nlabs = set.n + diags.n;
        for (size_t i = 0; i < set.n; i++)
            check_lab(ctx, set.v[i], &diags);
        lab_set_free(&set);
    } else {
        for (int i = first; i < argc; i++)
            nlabs += check_path(ctx, argv[i], &diags);
    }
    size_t nprob = lab_diags_errors(&diags), nwarn = diags.n - nprob;
    if (json) {
        print_json(&diags, nlabs);
        lab_diags_free(&diags);
        return nprob ? EXIT_FAIL : EXIT_OK;
    }
    cli_print_diags(&diags, stdout);
    lab_diags_free(&diags);
    char warned[64] = "";
    if (nwarn)
        snprintf(warned, sizeof warned, " (%zu warning%s)", nwarn, nwarn == 1 ? "" : "s");
    if (nprob) {
        printf("%zu problem%s found%s\n", nprob, nprob == 1 ? "" : "s", warned);
        return EXIT_FAIL;
    }
    printf("%zu lab%s ok%s\n", nlabs, nlabs == 1 ? "" : "s", warned);
    return EXIT_OK;
}

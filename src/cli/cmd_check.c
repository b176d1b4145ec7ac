/* cmd_check.c - `cudalab check [PATH...]`: validate lab files.
 *
 * A PATH may be a lab.lua file, a lab folder, or a folder of lab folders.
 * Loading a lab checks it against what cudalab can run as well (each
 * variant's kernel a shipped kernel of the lab's problem, sizes the
 * problem reads: lab/labcheck.h), so what check reports is what stops a
 * lab everywhere else. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "cli/cli_labs.h"

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
    lab_free(lab_load(file, c->home, d));
    return 1;
}

static const cli_opt check_opts[] = {{NULL, 0, NULL, NULL, NULL}};

const cli_command cmd_check_spec = {
    "check", "[PATH...]", "validate lab files; prints each problem as file:line: message",
    "A PATH may be a lab.lua file, a lab folder, or a folder of lab folders; without one,\n"
    "every lab found is checked.  Exits 0 when all are well, 1 when a problem was found.",
    check_opts, cmd_check,
};

int cmd_check(cli_ctx *c, int argc, char **argv)
{
    lab_diags diags = {0};
    size_t nlabs = 0;
    int first = 0;
    int rc = cli_opts_parse(c, &cmd_check_spec, argc, argv, NULL, NULL, &first);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    if (c->home_error[0]) {
        fprintf(stderr, "cudalab: %s\n", c->home_error);
        return EXIT_ENV;
    }
    if (first == argc) {
        lab_set set = {0};
        cl_err e;
        if (!lab_set_load(&set, c->lab_dirs, c->nlab_dirs, c->home, &diags, &e)) {
            fprintf(stderr, "cudalab: %s\n", e.msg);
            lab_set_free(&set);
            lab_diags_free(&diags);
            return EXIT_ENV;
        }
        nlabs = set.n + diags.n;
        lab_set_free(&set);
    } else {
        for (int i = first; i < argc; i++)
            nlabs += check_path(c, argv[i], &diags);
    }
    cli_print_diags(&diags, stdout);
    size_t nprob = diags.n;
    lab_diags_free(&diags);
    if (nprob) {
        printf("%zu problem%s found\n", nprob, nprob == 1 ? "" : "s");
        return EXIT_FAIL;
    }
    printf("%zu lab%s ok\n", nlabs, nlabs == 1 ? "" : "s");
    return EXIT_OK;
}

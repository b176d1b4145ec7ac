/* cmd_check.c - `cudalab check [PATH...]`: validate lab files.
 *
 * A PATH may be a lab.lua file, a lab folder, or a folder of lab folders.
 * Beyond what the loader checks, each variant's kernel must be a shipped
 * kernel of the lab's problem. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "cli/cli_labs.h"
#include "catalog/experiments_list.h"
#include "catalog/pipeline_files.h"
#include "catalog/problem_spec.h"
#include "kernel_names.h"

static const char *const known_libraries[] = {"cub", "cublas", "copy"};

static bool in_list(const char *s, const char *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, v[i]) == 0)
            return true;
    return false;
}

/* Each variant's kernel is a shipped kernel of problem (the pipeline's
 * variants are its steps). */
static void check_kernels(const lab *l, const lab_variant *vs, size_t n, const char *problem,
                          lab_diags *d)
{
    for (size_t i = 0; i < n; i++) {
        const lab_variant *v = &vs[i];
        if (problem && strcmp(problem, PIPELINE_PROBLEM) == 0) {
            if (!pipeline_variant_known(v->id))
                lab_diags_add(d, l->path, v->line, "variant '%s': the pipeline has no step of "
                              "that name", v->id);
            continue;
        }
        if (!v->kernel)
            continue;
        const char *solves = kernels_problem_of(v->kernel);
        if (!solves)
            lab_diags_add(d, l->path, v->line, "variant '%s': no shipped kernel named '%s'", v->id,
                          v->kernel);
        else if (problem && strcmp(solves, problem) != 0)
            lab_diags_add(d, l->path, v->line,
                          "variant '%s': kernel '%s' solves '%s', but %s problem is '%s'",
                          v->id, v->kernel, solves, vs == l->variants ? "the lab's" : "its exercise's",
                          problem);
    }
}

/* Each size reads as a size of problem. */
static void check_sizes(const lab *l, char *const *sizes, size_t n, const char *problem,
                        lab_diags *d)
{
    const problem_spec *ops = problem ? problem_spec_find(problem) : NULL;
    for (size_t i = 0; ops && i < n; i++) {
        problem_dims dims;
        cl_err e;
        if (!problem_parse_size(ops, sizes[i], &dims, &e))
            lab_diags_add(d, l->path, 0, "lab '%s': size '%s': %s", l->id, sizes[i], e.msg);
    }
}

/* Cross-checks a loaded lab against the engine: problem, library, kernels,
 * and the same for each of its exercises. */
static void check_against_engine(const lab *l, lab_diags *d)
{
    bool experiments = l->problem && experiments_problem(l->problem);
    if (l->problem && !experiments && !problem_spec_find(l->problem))
        lab_diags_add(d, l->path, 0, "lab '%s': unknown problem '%s' (known: reduce_sum, sgemm, "
                      "embedding, pipeline, saxpy, histogram, managed, profiling, basics)", l->id,
                      l->problem);
    if (!experiments)
        check_sizes(l, l->sizes, l->nsizes, l->problem, d);
    if (l->library && !in_list(l->library, known_libraries, 3))
        lab_diags_add(d, l->path, 0, "lab '%s': unknown library '%s' (known: cub, cublas, copy)",
                      l->id, l->library);
    for (size_t i = 0; experiments && i < l->nvariants; i++) {
        const char *of = experiments_problem_of(l->variants[i].id);
        if (!of || strcmp(of, l->problem) != 0)
            lab_diags_add(d, l->path, l->variants[i].line,
                          "variant '%s': no experiment of that name", l->variants[i].id);
    }
    if (!experiments)
        check_kernels(l, l->variants, l->nvariants, l->problem, d);
    for (size_t k = 0; k < l->nexercises; k++) {
        const lab_exercise *x = &l->exercises[k];
        if (!x->id[0] && !experiments)
            continue;   /* the lab's own: its sizes and rungs are the lab's, checked above */
        check_sizes(l, x->sizes, x->nsizes, x->problem, d);
        check_kernels(l, x->variants, x->nvariants, x->problem, d);
    }
}

static size_t check_set(const lab_set *set, lab_diags *d)
{
    for (size_t i = 0; i < set->n; i++)
        check_against_engine(set->v[i], d);
    return set->n;
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
            n = check_set(&set, d) + (d->n - before);
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
    if (l) {
        check_against_engine(l, d);
        lab_free(l);
    }
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
        if (!cli_load_labs(c, &set, &diags)) {
            lab_diags_free(&diags);
            return EXIT_ENV;
        }
        nlabs = check_set(&set, &diags) + diags.n;
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

#include "lab/labcheck.h"

#include <stdbool.h>
#include <string.h>

#include "catalog/experiments_list.h"
#include "catalog/problem_spec.h"
#include "kernel_names.h"
#include "lab/labsource.h"

static const char *const known_libraries[] = {"cub", "cublas", "copy"};

static bool in_list(const char *s, const char *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, v[i]) == 0)
            return true;
    return false;
}

static void check_sizes(const lab *l, const problem_spec *ops, lab_diags *d)
{
    for (size_t i = 0; ops && i < l->nsizes; i++) {
        problem_dims dims;
        cl_err e;
        if (problem_parse_size(ops, l->sizes[i], &dims, &e))
            continue;
        int line = lab_source_size_line(l->path, l->line, l->sizes[i]);
        lab_diags_add(d, l->path, line ? line : l->line, "lab '%s': size '%s': %s", l->id,
                      l->sizes[i], e.msg);
    }
}

static void check_variant(const lab *l, const lab_variant *v, bool experiments, lab_diags *d)
{
    if (experiments) {
        if (!experiments_known(v->id))
            lab_diags_add(d, l->path, v->line, "variant '%s': no experiment of that name", v->id);
        return;
    }
    if (!v->kernel)
        return;
    const char *solves = kernels_problem_of(v->kernel);
    if (!solves)
        lab_diags_add(d, l->path, v->line, "variant '%s': no shipped kernel named '%s'", v->id,
                      v->kernel);
    else if (l->problem && strcmp(solves, l->problem) != 0)
        lab_diags_add(d, l->path, v->line,
                      "variant '%s': kernel '%s' solves '%s', but the lab's problem is '%s'",
                      v->id, v->kernel, solves, l->problem);
}

void lab_check_engine(const lab *l, lab_diags *d)
{
    bool experiments = l->problem && strcmp(l->problem, EXPERIMENTS_PROBLEM) == 0;
    /* a profiling lab's sizes are its exercise's (lab/labmodel.h) */
    const char *sized = experiments ? l->exercise.problem : l->problem;
    const problem_spec *ops = sized ? problem_spec_find(sized) : NULL;
    if (l->problem && !ops && !experiments)
        lab_diags_add(d, l->path, l->line,
                      "lab '%s': unknown problem '%s' (known: reduce_sum, sgemm, embedding, "
                      "pipeline, profiling)",
                      l->id, l->problem);
    check_sizes(l, ops, d);
    if (l->library && !in_list(l->library, known_libraries, 3))
        lab_diags_add(d, l->path, l->line, "lab '%s': unknown library '%s' (known: cub, cublas, copy)",
                      l->id, l->library);
    for (size_t i = 0; i < l->nvariants; i++)
        check_variant(l, &l->variants[i], experiments, d);
}

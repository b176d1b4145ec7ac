#include "lab/labcheck.h"

#include <stdbool.h>
#include <string.h>

#include "catalog/experiments_list.h"
#include "catalog/pipeline_files.h"
#include "catalog/problem_spec.h"
#include "kernel_names.h"
#include "lab/labproblem.h"
#include "lab/probdecl.h"
#include "lab/labsource.h"

static const char *const known_libraries[] = {"cub", "cublas", "copy", "cublas_bf16"};

static bool in_list(const char *s, const char *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, v[i]) == 0)
            return true;
    return false;
}

/* A declared problem's input fills at dims, as the engine will evaluate
 * them (lab/probdecl.h): each one that cannot be drawn is reported at the
 * size's line. */
static void check_fills(const lab *l, const problem_decl *decl, const problem_dims *dims,
                        const char *size, lab_diags *d)
{
    for (int a = 0; decl && a < decl->nargs; a++) {
        double p[3];
        cl_err e;
        if (!decl->args[a].buffer || decl->args[a].output ||
            probdecl_fill_params(decl, a, dims, p, &e))
            continue;
        int line = lab_source_size_line(l->path, l->line, size);
        lab_diags_add(d, l->path, line ? line : l->line, "lab '%s': size '%s': %s", l->id, size,
                      e.msg);
    }
}

/* Each size reads as a size of problem, and a declared problem's fills hold
 * there; a bad one is reported at the line the size is written on. */
static void check_sizes(const lab *l, char *const *sizes, size_t n, const char *problem,
                        lab_diags *d)
{
    const problem_spec *ops = lab_problem_spec(l, problem);
    const problem_decl *decl = lab_problem_decl(l, problem);
    for (size_t i = 0; ops && i < n; i++) {
        problem_dims dims;
        cl_err e;
        if (problem_parse_size(ops, sizes[i], &dims, &e)) {
            check_fills(l, decl, &dims, sizes[i], d);
            continue;
        }
        int line = lab_source_size_line(l->path, l->line, sizes[i]);
        lab_diags_add(d, l->path, line ? line : l->line, "lab '%s': size '%s': %s", l->id,
                      sizes[i], e.msg);
    }
}

/* Each variant's kernel is a shipped kernel of problem (the pipeline's
 * variants are its steps). */
static void check_kernels(const lab *l, const lab_variant *vs, size_t n, const char *problem,
                          lab_diags *d)
{
    if (lab_problem_decl(l, problem))
        return;   /* a declared problem's rungs: lab_check_decls */
    const problem_spec *spec = problem ? problem_spec_find(problem) : NULL;
    const char *runs = spec ? problem_kernels_of(spec) : problem;
    for (size_t i = 0; i < n; i++) {
        const lab_variant *v = &vs[i];
        if (problem && strcmp(problem, PIPELINE_PROBLEM) == 0) {
            if (!pipeline_variant_known(v->id))
                lab_diags_add(d, l->path, v->line,
                              "variant '%s': the pipeline has no step of that name", v->id);
            continue;
        }
        if (!v->kernel)
            continue;
        const char *solves = kernels_problem_of(v->kernel);
        const char *inputs = kernels_inputs_of(v->kernel);
        if (!solves)
            lab_diags_add(d, l->path, v->line, "variant '%s': no shipped kernel named '%s'", v->id,
                          v->kernel);
        else if (runs && strcmp(solves, runs) != 0)
            lab_diags_add(d, l->path, v->line,
                          "variant '%s': kernel '%s' solves '%s', but %s problem is '%s'", v->id,
                          v->kernel, solves, vs == l->variants ? "the lab's" : "its exercise's",
                          problem);
        else if (spec && spec->precision && !(inputs && strcmp(inputs, spec->precision) == 0))
            lab_diags_add(d, l->path, v->line,
                          "variant '%s': kernel '%s' multiplies FP32 inputs, but problem '%s' "
                          "gives its kernels %s copies",
                          v->id, v->kernel, problem, spec->precision);
    }
}

void lab_check_engine(lab *model, lab_diags *diags)
{
    bool experiments = model->problem && experiments_problem(model->problem);
    lab_check_decls(model, diags);
    if (model->problem && !experiments && !lab_problem_spec(model, model->problem))
        lab_diags_add(diags, model->path, model->line,
                      "lab '%s': unknown problem '%s' (known: reduce_sum, sgemm, gemm_bf16, embedding, "
                      "pipeline, saxpy, histogram, managed, profiling, basics, multigpu)",
                      model->id, model->problem);
    if (!experiments)
        check_sizes(model, model->sizes, model->nsizes, model->problem, diags);
    if (model->library && !lab_problem_decl(model, model->problem)
        && !in_list(model->library, known_libraries, 4))
        lab_diags_add(diags, model->path, model->line,
                      "lab '%s': unknown library '%s' (known: cub, cublas, cublas_bf16, copy)",
                      model->id, model->library);
    for (size_t i = 0; experiments && i < model->nvariants; i++) {
        const char *of = experiments_problem_of(model->variants[i].id);
        if (!of || strcmp(of, model->problem) != 0)
            lab_diags_add(diags, model->path, model->variants[i].line,
                          "variant '%s': no experiment of that name", model->variants[i].id);
    }
    if (!experiments)
        check_kernels(model, model->variants, model->nvariants, model->problem, diags);
    for (size_t k = 0; k < model->nexercises; k++) {
        const lab_exercise *x = &model->exercises[k];
        if (!x->id[0] && !experiments)
            continue;   /* the lab's own: its sizes and rungs are the lab's, checked above */
        check_sizes(model, x->sizes, x->nsizes, x->problem, diags);
        check_kernels(model, x->variants, x->nvariants, x->problem, diags);
    }
}

/* labproblem.h - the problems a lab declares, in the lab model: copying
 * them from the checked Lua table, and the checks that need the catalog
 * (builtins and their roles, shipped kernels) or the lab folder (rung and
 * reference files). */
#ifndef CUDALAB_LAB_LABPROBLEM_H
#define CUDALAB_LAB_LABPROBLEM_H

#include "catalog/problem_spec.h"
#include "lab/labmodel.h"

struct lua_State;
struct run_request;

/* Copies field "decls" of the checked lab table at index table into
 * model->decls; out-of-memory and malformed entries become diagnostics. */
void lab_copy_decls(struct lua_State *L, int table, lab *model, lab_diags *diags);

/* Fills req's problem, library and lab_file for exercise of model (NULL or
 * the lab's own exercise: the lab's own rows): lab_file names model's file
 * when the problem is one model declares. */
void lab_request_problem(const lab *model, const lab_exercise *exercise, struct run_request *req);

/* In a lab's sandbox, after the lab library (private at index priv): runs
 * each lua/problems/<name>.lua beside dsl (lua/lab.lua) and hands its
 * problem to the library, so that labs may name it.  false with the
 * problems in diags when one of them is broken. */
bool lab_load_shipped_problems(struct lab_state *sandbox, int priv, const char *dsl,
                               lab_diags *diags);
/* A lab holding only the shipped problem name (its decls), for the worker
 * when a request names one without a lab file; NULL with diags when there is
 * no such problem or it does not load. */
lab *lab_load_problem(const char *name, const char *home, lab_diags *diags);

/* Whether the reference of what exercise computes (NULL or the lab's own:
 * the lab's problem) may run at dims: false + err when it is a Lua
 * function and dims's buffers are more than it may take, with the largest
 * size that fits (probdecl_ref_cap_check).  true for any other problem. */
bool lab_reference_takes(const lab *model, const lab_exercise *exercise, const problem_dims *dims,
                         cl_err *err);

/* Checks each declaration of model against the builtins of the catalog, and
 * each rung of a declared problem against the lab folder: one diagnostic a
 * problem, at its line.  A library "builtin" becomes the builtin's own
 * ("cub"), so requests name the row. */
void lab_check_decls(lab *model, lab_diags *diags);

#endif

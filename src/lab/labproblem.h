/* labproblem.h - the problems a lab declares, in the lab model: copying
 * them from the checked Lua table, and the checks that need the catalog
 * (builtins and their roles, shipped kernels) or the lab folder (rung and
 * reference files). */
#ifndef CUDALAB_LAB_LABPROBLEM_H
#define CUDALAB_LAB_LABPROBLEM_H

#include "lab/labmodel.h"

struct lua_State;
struct run_request;

/* Copies field "decls" of the checked lab table at t into l->decls;
 * out-of-memory and malformed entries become diagnostics. */
void lab_copy_decls(struct lua_State *L, int t, lab *l, lab_diags *d);

/* Fills req's problem, library and lab_file for exercise x of l (NULL or
 * the lab's own exercise: the lab's own rows): lab_file names l's file when
 * the problem is one l declares. */
void lab_request_problem(const lab *l, const lab_exercise *x, struct run_request *req);

/* Checks each declaration of l against the builtins of the catalog, and
 * each rung of a declared problem against the lab folder: one diagnostic a
 * problem, at its line. */
void lab_check_decls(const lab *l, lab_diags *d);

#endif

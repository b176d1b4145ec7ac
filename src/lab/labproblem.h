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

/* In a lab's state, after the lab library (private at index priv): runs
 * each lua/problems/<name>.lua beside dsl (lua/lab.lua) and hands its
 * problem to the library, so that labs may name it.  false with the
 * problems in d when one of them is broken. */
bool lab_load_shipped_problems(struct lab_state *s, int priv, const char *dsl, lab_diags *d);
/* A lab holding only the shipped problem name (its decls), for the worker
 * when a request names one without a lab file; NULL with d when there is
 * no such problem or it does not load. */
lab *lab_load_problem(const char *name, const char *home, lab_diags *d);

/* Checks each declaration of l against the builtins of the catalog, and
 * each rung of a declared problem against the lab folder: one diagnostic a
 * problem, at its line.  A library "builtin" becomes the builtin's own
 * ("cub"), so requests name the row. */
void lab_check_decls(lab *l, lab_diags *d);

#endif

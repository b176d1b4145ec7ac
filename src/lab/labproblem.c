/* labproblem.c - the problems a lab declares, in the lab model
 * (lab/labproblem.h, lab/labmodel.h). */
#include "lab/labproblem.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog/builtin.h"
#include "catalog/problem_spec.h"
#include "core/fsguard.h"
#include "core/paths.h"
#include "kernel_names.h"
#include "lab/probdecl.h"
#include "result/record.h"

void lab_copy_decls(lua_State *L, int t, lab *l, lab_diags *d)
{
    if (lua_getfield(L, t, "decls") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    int list = lua_gettop(L);
    size_t n = (size_t)lua_rawlen(L, list);
    l->decls = n ? calloc(n, sizeof *l->decls) : NULL;
    if (n && !l->decls) {
        lab_diags_add(d, l->path, l->line, "out of memory");
        lua_pop(L, 1);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        cl_err e = {{0}};
        lua_rawgeti(L, list, (lua_Integer)i + 1);
        if (probdecl_copy(L, -1, l, &l->decls[l->ndecls], &e))
            l->ndecls++;
        else
            lab_diags_add(d, l->path, l->line, "%s", e.msg);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

const problem_decl *lab_problem_decl(const lab *l, const char *name)
{
    for (size_t i = 0; l && name && i < l->ndecls; i++)
        if (strcmp(l->decls[i].name, name) == 0)
            return &l->decls[i];
    return NULL;
}

const problem_spec *lab_problem_spec(const lab *l, const char *name)
{
    const problem_decl *d = lab_problem_decl(l, name);
    return d ? &d->spec : name ? problem_spec_find(name) : NULL;
}

const problem_spec *lab_exercise_spec(const lab *l, const lab_exercise *x)
{
    const char *name = x && x->problem ? x->problem : l->problem;
    const problem_decl *d = lab_problem_decl(l, name);
    return d ? &d->spec : problem_spec_of_exercise(name);
}

const lab_variant *lab_variant_find(const lab *l, const char *id)
{
    for (size_t i = 0; l && id && i < l->nvariants; i++)
        if (strcmp(l->variants[i].id, id) == 0)
            return &l->variants[i];
    for (size_t k = 0; l && id && k < l->nexercises; k++)
        for (size_t i = 0; i < l->exercises[k].nvariants; i++)
            if (strcmp(l->exercises[k].variants[i].id, id) == 0)
                return &l->exercises[k].variants[i];
    return NULL;
}

void lab_request_problem(const lab *l, const lab_exercise *x, run_request *req)
{
    bool listed = x && x->id[0];
    const char *problem = listed ? x->problem : l->problem;
    const char *library = listed ? x->library : l->library;
    snprintf(req->problem, sizeof req->problem, "%s", problem ? problem : "");
    snprintf(req->library, sizeof req->library, "%s", library ? library : "");
    if (lab_problem_decl(l, problem))
        snprintf(req->lab_file, sizeof req->lab_file, "%s", l->path);
    else
        req->lab_file[0] = '\0';
}

/* ---- checks ------------------------------------------------------------------------- */

/* name, a file of the lab folder, is a regular file inside it. */
static void check_file(const lab *l, int line, const char *what, const char *name, lab_diags *d)
{
    char path[CL_PATH_MAX], real[CL_PATH_MAX];
    cl_err e = {{0}};
    struct stat st;
    if (!paths_join(path, sizeof path, l->dir, name))
        lab_diags_add(d, l->path, line, "%s: the path of '%s' is too long", what, name);
    else if (lstat(path, &st) != 0)
        lab_diags_add(d, l->path, line, "%s: file '%s' does not exist in the lab folder", what,
                      name);
    else if (!fsguard_resolve(path, l->dir, real, sizeof real, &e))
        lab_diags_add(d, l->path, line, "%s: %s", what, e.msg);
}

/* The args playing the builtin's roles have the kind and type it needs. */
static void check_roles(const lab *l, const problem_decl *p, lab_diags *d)
{
    const builtin_desc *b = builtin_find(p->builtin);
    if (!b) {
        lab_diags_add(d, l->path, p->line, "problem %s: unknown builtin '%s' (known: %s)",
                      p->name, p->builtin, builtin_names());
        return;
    }
    for (int i = 0; i < b->nroles; i++) {
        const builtin_role *r = &b->roles[i];
        int a = probdecl_role(p, r->name);
        if (a < 0) {
            lab_diags_add(d, l->path, p->line, "problem %s: builtin '%s' needs an arg for its "
                          "role '%s' (a %s %s%s%s)", p->name, b->name, r->name, r->type,
                          r->buffer ? "buffer" : "scalar", r->shape ? " of length " : "",
                          r->shape ? r->shape : "");
            continue;
        }
        const decl_arg *g = &p->args[a];
        bool type_ok = r->buffer ? strcmp(decl_type_name(g->type), r->type) == 0
                                 : decl_type_integral(g->type) == (strcmp(r->type, "i64") == 0);
        if (g->buffer != r->buffer || !type_ok || (r->buffer && g->output != r->output))
            lab_diags_add(d, l->path, g->line ? g->line : p->line,
                          "problem %s: arg '%s' plays the builtin's role '%s', which is %s %s "
                          "%s%s",
                          p->name, g->name, r->name, r->buffer ? "a" : "a scalar", r->type,
                          r->buffer ? (r->output ? "output buffer" : "input buffer") : "",
                          r->buffer && r->shape ? " (its length is that role's too)" : "");
    }
    for (int i = 0; i < p->nroles; i++) {
        bool known = false;
        for (int k = 0; k < b->nroles; k++)
            known |= strcmp(b->roles[k].name, p->roles[i].role) == 0;
        if (!known)
            lab_diags_add(d, l->path, p->line, "problem %s: builtin '%s' has no role '%s'",
                          p->name, b->name, p->roles[i].role);
    }
    if (p->cpu && !b->cpu)
        lab_diags_add(d, l->path, p->line, "problem %s: builtin '%s' has no CPU baseline", p->name,
                      b->name);
    if (strcmp(p->library, "builtin") == 0 && !b->library)
        lab_diags_add(d, l->path, p->line, "problem %s: builtin '%s' has no library row (use "
                      "\"copy\" or one of the lab's rungs)", p->name, b->name);
}

/* The rungs of a declared problem: files of the lab folder, or shipped
 * kernels of its builtin's family. */
static void check_rungs(const lab *l, const problem_decl *p, const lab_variant *vs, size_t n,
                        lab_diags *d)
{
    const builtin_desc *b = builtin_find(p->builtin);
    for (size_t i = 0; i < n; i++) {
        const lab_variant *v = &vs[i];
        char what[96];
        snprintf(what, sizeof what, "variant '%s'", v->id);
        if (v->file) {
            check_file(l, v->line, what, v->file, d);
            check_file(l, v->line, what, v->launcher, d);
            continue;
        }
        const char *solves = v->kernel ? kernels_problem_of(v->kernel) : NULL;
        if (v->kernel && (!b || !b->kernels || !solves || strcmp(solves, b->kernels) != 0))
            lab_diags_add(d, l->path, v->line,
                          "variant '%s': '%s' is not one of cudalab's kernels for builtin '%s'%s",
                          v->id, v->kernel, p->builtin, b && b->kernels ? "" : " (it has none)");
    }
}

void lab_check_decls(const lab *l, lab_diags *d)
{
    for (size_t i = 0; i < l->ndecls; i++) {
        const problem_decl *p = &l->decls[i];
        if (p->builtin[0])
            check_roles(l, p, d);
        if (p->ref == REF_KERNEL) {
            char what[96];
            snprintf(what, sizeof what, "problem %s: reference", p->name);
            check_file(l, p->line, what, p->ref_file, d);
            check_file(l, p->line, what, p->ref_launcher, d);
        }
        if (l->problem && strcmp(l->problem, p->name) == 0)
            check_rungs(l, p, l->variants, l->nvariants, d);
        for (size_t k = 0; k < l->nexercises; k++) {
            const lab_exercise *x = &l->exercises[k];
            if (x->id[0] && x->problem && strcmp(x->problem, p->name) == 0)
                check_rungs(l, p, x->variants, x->nvariants, d);
        }
    }
}

/* labproblem.c - the problems a lab declares, in the lab model
 * (lab/labproblem.h, lab/labmodel.h). */
#include "lab/labproblem.h"

#include <dirent.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog/builtin.h"
#include "catalog/problem_spec.h"
#include "lab/labsource.h"
#include "core/fsguard.h"
#include "core/paths.h"
#include "kernel_names.h"
#include "lab/probdecl.h"
#include "lab/sandbox.h"
#include "result/record.h"

void lab_copy_decls(lua_State *L, int table, lab *model, lab_diags *diags)
{
    if (lua_getfield(L, table, "decls") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    int list = lua_gettop(L);
    size_t n = (size_t)lua_rawlen(L, list);
    model->decls = n ? calloc(n, sizeof *model->decls) : NULL;
    if (n && !model->decls) {
        lab_diags_add(diags, model->path, model->line, "out of memory");
        lua_pop(L, 1);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        cl_err e = {{0}};
        lua_rawgeti(L, list, (lua_Integer)i + 1);
        if (probdecl_copy(L, -1, model, &model->decls[model->ndecls], &e))
            model->ndecls++;
        else
            lab_diags_add(diags, model->path, model->line, "%s", e.msg);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

const problem_decl *lab_problem_decl(const lab *model, const char *name)
{
    for (size_t i = 0; model && name && i < model->ndecls; i++)
        if (strcmp(model->decls[i].name, name) == 0)
            return &model->decls[i];
    return NULL;
}

const problem_spec *lab_problem_spec(const lab *model, const char *name)
{
    const problem_decl *d = lab_problem_decl(model, name);
    return d ? &d->spec : name ? problem_spec_find(name) : NULL;
}

const problem_spec *lab_exercise_spec(const lab *model, const lab_exercise *exercise)
{
    const char *name = exercise && exercise->problem ? exercise->problem : model->problem;
    const problem_decl *d = lab_problem_decl(model, name);
    return d ? &d->spec : problem_spec_of_exercise(name);
}

const lab_variant *lab_variant_find(const lab *model, const char *id)
{
    for (size_t i = 0; model && id && i < model->nvariants; i++)
        if (strcmp(model->variants[i].id, id) == 0)
            return &model->variants[i];
    for (size_t k = 0; model && id && k < model->nexercises; k++)
        for (size_t i = 0; i < model->exercises[k].nvariants; i++)
            if (strcmp(model->exercises[k].variants[i].id, id) == 0)
                return &model->exercises[k].variants[i];
    return NULL;
}

void lab_request_problem(const lab *model, const lab_exercise *exercise, run_request *req)
{
    bool listed = exercise && exercise->id[0];
    const char *problem = listed ? exercise->problem : model->problem;
    const char *library = listed ? exercise->library : model->library;
    snprintf(req->problem, sizeof req->problem, "%s", problem ? problem : "");
    snprintf(req->library, sizeof req->library, "%s", library ? library : "");
    if (lab_problem_decl(model, problem))
        snprintf(req->lab_file, sizeof req->lab_file, "%s", model->path);
    else
        req->lab_file[0] = '\0';
}

/* ---- shipped problems (lua/problems/) -------------------------------------------- */

#define SHIPPED_MAX 32

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the .lua files of dir, sorted (at most SHIPPED_MAX; caller frees each). */
static size_t shipped_names(const char *dir, char **names)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    if (!d)
        return 0;
    for (struct dirent *de; (de = readdir(d)) != NULL && n < SHIPPED_MAX;) {
        size_t len = strlen(de->d_name);
        if (len > 4 && len < 64 && strcmp(de->d_name + len - 4, ".lua") == 0 &&
            (names[n] = strndup(de->d_name, len - 4)) != NULL)
            n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    return n;
}

bool lab_load_shipped_problems(lab_state *sandbox, int priv, const char *dsl, lab_diags *diags)
{
    lua_State *L = sandbox_lua(sandbox);
    char lua_dir[CL_PATH_MAX], dir[CL_PATH_MAX], *names[SHIPPED_MAX];
    if (!paths_dir_name(dsl, lua_dir, sizeof lua_dir) ||
        !paths_join(dir, sizeof dir, lua_dir, "problems"))
        return true;
    size_t n = shipped_names(dir, names);
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        char path[CL_PATH_MAX];
        cl_err e = {{0}};
        int top = lua_gettop(L);
        if (!paths_join(path, sizeof path, dir, names[i]) || strlen(path) + 5 > sizeof path) {
            ok = false;
        } else {
            strcat(path, ".lua");
            lua_getfield(L, priv, "shipped");
            if (!sandbox_dofile(sandbox, path, 1, &e)) {
                lab_diags_add(diags, path, 0, "%s", e.msg);
                ok = false;
            } else {
                lua_pushstring(L, names[i]);
                if (!sandbox_pcall(sandbox, 2, 0, &e)) {
                    lab_diags_add(diags, path, 0, "%s", e.msg);
                    ok = false;
                }
            }
        }
        lua_settop(L, top);
        free(names[i]);
    }
    return ok;
}

typedef struct problem_ctx {
    const char *name, *dsl;
    lab *l;
    lab_diags *d;
} problem_ctx;

/* In the sandbox: the lab library, the shipped problems, then the one
 * called c->name into c->l. */
static int load_problem_main(lua_State *L)
{
    problem_ctx *c = lua_touserdata(L, 1);
    lab_state *s = c->l->ls;
    cl_err e = {{0}};
    if (!sandbox_dofile_trusted(s, c->dsl, 2, &e)) {       /* ctx api private */
        lab_diags_add(c->d, c->dsl, 0, "%s", e.msg);
        return 0;
    }
    lua_pushvalue(L, 2);
    if (!sandbox_expose(s, &e)) {
        lab_diags_add(c->d, c->dsl, 0, "%s", e.msg);
        return 0;
    }
    if (!lab_load_shipped_problems(s, 3, c->dsl, c->d))
        return 0;
    lua_getfield(L, 3, "finish_problem");
    lua_pushstring(L, c->name);
    if (!sandbox_pcall(s, 1, 2, &e)) {                      /* ... result problems */
        lab_diags_add(c->d, c->dsl, 0, "%s", e.msg);
        return 0;
    }
    for (lua_Integer i = 1; lua_type(L, -1) == LUA_TTABLE && i <= (lua_Integer)lua_rawlen(L, -1); i++) {
        lua_rawgeti(L, -1, i);
        lua_getfield(L, -1, "file");
        lua_getfield(L, -2, "line");
        lua_getfield(L, -3, "msg");
        lab_diags_add(c->d, lua_tostring(L, -3) ? lua_tostring(L, -3) : c->name,
                      (int)lua_tointeger(L, -2), "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "");
        lua_pop(L, 4);
    }
    if (lua_type(L, -2) == LUA_TTABLE)
        lab_copy_decls(L, lua_absindex(L, -2), c->l, c->d);
    return 0;
}

lab *lab_load_problem(const char *name, const char *home, lab_diags *diags)
{
    char dsl[CL_PATH_MAX], dir[CL_PATH_MAX], path[CL_PATH_MAX];
    cl_err e = {{0}};
    if (!paths_join(dsl, sizeof dsl, home, "lua/lab.lua") ||
        !paths_join(dir, sizeof dir, home, "lua/problems") ||
        snprintf(path, sizeof path, "%s/%s.lua", dir, name) >= (int)sizeof path ||
        !paths_is_file(path)) {
        char *names[SHIPPED_MAX], list[512] = "";
        size_t n = shipped_names(dir, names), at = 0;
        for (size_t i = 0; i < n; i++) {
            int w = snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", names[i]);
            at = w > 0 && (size_t)w < sizeof list - at ? at + (size_t)w : at;
            free(names[i]);
        }
        lab_diags_add(diags, name, 0, "unknown problem '%s' (cudalab knows sgemm, gemm_bf16, "
                      "pipeline, managed and those of lua/problems/: %s)", name, list);
        return NULL;
    }
    lab *l = calloc(1, sizeof *l);
    if (!l || !(l->path = strdup(path)) || !(l->dir = strdup(dir)) ||
        !(l->id = strdup(name)) || !(l->ls = sandbox_new(0, 0, &e))) {
        lab_diags_add(diags, path, 0, "%s", e.msg[0] ? e.msg : "out of memory");
        lab_free(l);
        return NULL;
    }
    size_t before = diags->n;
    problem_ctx c = {.name = name, .dsl = dsl, .l = l, .d = diags};
    lua_State *L = sandbox_lua(l->ls);
    lua_pushcfunction(L, load_problem_main);
    lua_pushlightuserdata(L, &c);
    if (!sandbox_pcall(l->ls, 1, 0, &e))
        lab_diags_add(diags, path, 0, "%s", e.msg);
    lua_settop(L, 0);
    if (diags->n != before || l->ndecls == 0) {
        if (diags->n == before)
            lab_diags_add(diags, path, 0, "the problem could not be loaded");
        lab_free(l);
        return NULL;
    }
    return l;
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
        if (v->python) {
            check_file(l, v->line, what, v->python, d);
            continue;
        }
        if (v->file) {
            check_file(l, v->line, what, v->file, d);
            check_file(l, v->line, what, v->launcher, d);
            continue;
        }
        const char *solves = v->kernel ? kernels_problem_of(v->kernel) : NULL;
        if (v->kernel && !solves)
            lab_diags_add(d, l->path, v->line, "variant '%s': no shipped kernel named '%s'", v->id,
                          v->kernel);
        else if (v->kernel && (!b || !b->kernels || strcmp(solves, b->kernels) != 0))
            lab_diags_add(d, l->path, v->line,
                          "variant '%s': kernel '%s' solves '%s', not the builtin '%s' of problem "
                          "%s%s",
                          v->id, v->kernel, solves, p->builtin, p->name,
                          b && b->kernels ? "" : " (which has no shipped kernels)");
    }
}

/* The library of a row set of declared problem p (the lab's own rows, or
 * exercise x's): "builtin" becomes the builtin's library; anything but
 * that, "copy" or one of the rungs is a diagnostic. */
static void resolve_library(const lab *l, const problem_decl *p, char **library,
                            const lab_variant *vs, size_t n, int line, lab_diags *d)
{
    if (!*library || !(*library)[0])
        return;
    const builtin_desc *b = builtin_find(p->builtin);
    if (strcmp(*library, "builtin") == 0 && b && b->library) {
        char *lib = strdup(b->library);
        if (lib) {
            free(*library);
            *library = lib;
        }
        return;
    }
    if (strcmp(*library, "copy") == 0 || (b && b->library && strcmp(*library, b->library) == 0))
        return;
    char ids[256] = "";
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(vs[i].id, *library) == 0)
            return;
        int w = snprintf(ids + at, sizeof ids - at, "%s%s", at ? ", " : "", vs[i].id);
        at = w > 0 && (size_t)w < sizeof ids - at ? at + (size_t)w : at;
    }
    int at_line = lab_source_field_line(l->path, line, "library", *library);
    lab_diags_add(d, l->path, at_line > 0 ? at_line : line,
                  "problem %s: library '%s' is neither \"builtin\"%s%s, \"copy\" nor one of "
                  "the rungs%s%s%s",
                  p->name, *library, b && b->library ? " (" : "", b && b->library ? b->library : "",
                  at ? " (" : "", ids, at ? ")" : "");
}

bool lab_reference_takes(const lab *model, const lab_exercise *exercise, const problem_dims *dims,
                         cl_err *err)
{
    const lab_exercise *x = exercise && exercise->id[0] ? exercise : NULL;
    const problem_decl *decl = lab_problem_decl(model, x ? x->problem : model->problem);
    return !decl || probdecl_ref_cap_check(decl, dims, x ? x->sizes : model->sizes,
                                           x ? x->nsizes : model->nsizes, err);
}

void lab_check_decls(lab *model, lab_diags *diags)
{
    const problem_decl *own = lab_problem_decl(model, model->problem);
    if (own)
        resolve_library(model, own, &model->library, model->variants, model->nvariants, model->line,
                        diags);
    for (size_t k = 0; k < model->nexercises; k++) {
        lab_exercise *x = &model->exercises[k];
        const problem_decl *xp = x->id[0] ? lab_problem_decl(model, x->problem) : NULL;
        if (xp)
            resolve_library(model, xp, &x->library, x->variants, x->nvariants, x->line, diags);
    }

    for (size_t i = 0; i < model->ndecls; i++) {
        const problem_decl *p = &model->decls[i];
        if (p->builtin[0])
            check_roles(model, p, diags);
        if (p->ref == REF_KERNEL) {
            char what[96];
            snprintf(what, sizeof what, "problem %s: reference", p->name);
            check_file(model, p->line, what, p->ref_file, diags);
            check_file(model, p->line, what, p->ref_launcher, diags);
        }
        if (model->problem && strcmp(model->problem, p->name) == 0)
            check_rungs(model, p, model->variants, model->nvariants, diags);
        for (size_t k = 0; k < model->nexercises; k++) {
            const lab_exercise *x = &model->exercises[k];
            if (x->id[0] && x->problem && strcmp(x->problem, p->name) == 0)
                check_rungs(model, p, x->variants, x->nvariants, diags);
        }
    }
}

/* labload.c - loading a lab file (lab/labmodel.h): running it through the
 * DSL in lua/lab.lua and copying what C needs into the lab model. */
#include "lab/labmodel.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/paths.h"
#include "lab/labcheck.h"
#include "lab/labproblem.h"
#include "lab/labsource.h"
#include "lab/probdecl.h"
#include "lab/sandbox.h"
#include "result/record.h"

typedef struct load_ctx {
    const char *path;      /* the lab file */
    const char *dsl;       /* <home>/lua/lab.lua */
    const char *folder;    /* expected id, or NULL */
    lab *l;
    lab_diags *d;
    size_t ndiags0;        /* diagnostics present before this lab */
    bool done;             /* reached the end with a lab */
} load_ctx;

/* Adds msg ("file:line: text", "file: text" or plain text) as one
 * diagnostic, splitting off the file and line when present. */
static void diag_from_msg(lab_diags *d, const char *deffile, const char *msg)
{
    for (const char *p = msg; (p = strchr(p, ':')) != NULL; p++) {
        const char *q = p + 1;
        int line = 0;
        while (*q >= '0' && *q <= '9' && line < 100000000)
            line = line * 10 + (*q++ - '0');
        if (q > p + 1 && *q == ':') {
            size_t flen = (size_t)(p - msg);
            char file[512];
            snprintf(file, sizeof file, "%.*s", (int)(flen < sizeof file ? flen : sizeof file - 1), msg);
            q++;
            while (*q == ' ')
                q++;
            lab_diags_add(d, file, line, "%s", q);
            return;
        }
    }
    size_t dl = strlen(deffile);
    if (strncmp(msg, deffile, dl) == 0 && msg[dl] == ':' && msg[dl + 1] == ' ')
        msg += dl + 2;
    lab_diags_add(d, deffile, 0, "%s", msg);
}

/* Adds each { file, line, msg } of the list at idx as a diagnostic. */
static void add_problems(lua_State *L, int idx, load_ctx *c)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE)
        return;
    lua_Integer n = luaL_len(L, idx);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, idx, i);
        lua_getfield(L, -1, "file");
        lua_getfield(L, -2, "line");
        lua_getfield(L, -3, "msg");
        const char *file = lua_tostring(L, -3);
        const char *msg = lua_tostring(L, -1);
        lab_diags_add(c->d, file ? file : c->path, (int)lua_tointeger(L, -2), "%s",
                      msg ? msg : "(problem without a message)");
        lua_pop(L, 4);
    }
}

/* A copy of a lab's string, cleaned (core/escape.h): a control byte (ESC,
 * BEL, an OSC sequence) or a byte that is not UTF-8 becomes a visible
 * character, so no text of a lab reaches a terminal or a JSON document as
 * anything but text.  Tabs and line breaks stay (lessons are Markdown). */
static char *dup_or_raise(lua_State *L, const char *s)
{
    char *p = escape_dup(s, ESCAPE_WS_LINES);
    if (!p)
        sandbox_raise(L, "out of memory");
    return p;
}

/* strdup of string field k of the table at t, or NULL when absent. */
static char *str_field(lua_State *L, int t, const char *k)
{
    char *r = NULL;
    if (lua_getfield(L, t, k) == LUA_TSTRING)
        r = dup_or_raise(L, lua_tostring(L, -1));
    lua_pop(L, 1);
    return r;
}

static double num_field(lua_State *L, int t, const char *k, double def)
{
    lua_getfield(L, t, k);
    int isnum = 0;
    lua_Number v = lua_tonumberx(L, -1, &isnum);
    lua_pop(L, 1);
    return isnum ? (double)v : def;
}

static lua_Integer int_field(lua_State *L, int t, const char *k, lua_Integer def)
{
    lua_getfield(L, t, k);
    int isnum = 0;
    lua_Integer v = lua_tointegerx(L, -1, &isnum);
    lua_pop(L, 1);
    return isnum ? v : def;
}

/* Pushes list field k of the table at t (an empty table when absent) and
 * returns its length. */
static size_t list_field(lua_State *L, int t, const char *k)
{
    if (lua_getfield(L, t, k) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
    }
    return (size_t)lua_rawlen(L, -1);
}

static void *calloc_or_raise(lua_State *L, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        sandbox_raise(L, "out of memory");
    return p;
}

static char **str_list(lua_State *L, int list, size_t n)
{
    char **v = calloc_or_raise(L, n, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        if (lua_rawgeti(L, list, (lua_Integer)i + 1) == LUA_TSTRING) {
            char *p = escape_dup(lua_tostring(L, -1), ESCAPE_WS_LINES);
            if (!p) {
                for (size_t j = 0; j < i; j++)
                    free(v[j]);
                free(v);
                sandbox_raise(L, "out of memory");
            }
            v[i] = p;
        }
        lua_pop(L, 1);
    }
    return v;
}

static void copy_steps(lua_State *L, int t, lab *l)
{
    size_t n = list_field(L, t, "steps");
    int list = lua_gettop(L);
    l->steps = calloc_or_raise(L, n, sizeof *l->steps);
    l->nsteps = n;
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, list, (lua_Integer)i + 1);
        int it = lua_gettop(L);
        l->steps[i].title = str_field(L, it, "title");
        l->steps[i].body = str_field(L, it, "body");
        l->steps[i].line = (int)int_field(L, it, "line", 0);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* The variants listed in field "variants" of the table at t. */
static void copy_variants(lua_State *L, int t, lab_variant **out, size_t *nout)
{
    size_t n = list_field(L, t, "variants");
    int list = lua_gettop(L);
    *out = calloc_or_raise(L, n, sizeof **out);
    *nout = n;
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, list, (lua_Integer)i + 1);
        int it = lua_gettop(L);
        lab_variant *v = &(*out)[i];
        v->id = str_field(L, it, "id");
        v->title = str_field(L, it, "title");
        v->kernel = str_field(L, it, "kernel");
        v->file = str_field(L, it, "source");
        v->launcher = str_field(L, it, "launcher");
        v->python = str_field(L, it, "python");
        v->why = str_field(L, it, "why");
        v->line = (int)int_field(L, it, "line", 0);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static void copy_milestones(lua_State *L, int t, lab *l)
{
    size_t n = list_field(L, t, "milestones");
    int list = lua_gettop(L);
    l->milestones = calloc_or_raise(L, n, sizeof *l->milestones);
    for (size_t i = 0; i < n; i++)
        l->milestones[i].check_ref = LUA_NOREF;
    l->nmilestones = n;
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, list, (lua_Integer)i + 1);
        int it = lua_gettop(L);
        lab_milestone *m = &l->milestones[i];
        m->id = str_field(L, it, "id");
        m->text = str_field(L, it, "text");
        m->quiz = str_field(L, it, "quiz");
        m->target = str_field(L, it, "target");
        m->size = str_field(L, it, "size");
        m->exercise = str_field(L, it, "exercise");
        m->points = num_field(L, it, "points", 1.0);
        m->line = (int)int_field(L, it, "line", 0);
        size_t nn = list_field(L, it, "needs");
        m->needs = str_list(L, lua_gettop(L), nn);
        m->nneeds = nn;
        lua_pop(L, 1);
        if (lua_getfield(L, it, "check") == LUA_TFUNCTION)
            m->check_ref = luaL_ref(L, LUA_REGISTRYINDEX);
        else
            lua_pop(L, 1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static void copy_quizzes(lua_State *L, int t, lab *l)
{
    size_t n = list_field(L, t, "quizzes");
    int list = lua_gettop(L);
    l->quizzes = calloc_or_raise(L, n, sizeof *l->quizzes);
    l->nquizzes = n;
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, list, (lua_Integer)i + 1);
        int it = lua_gettop(L);
        lab_quiz *q = &l->quizzes[i];
        q->id = str_field(L, it, "id");
        q->question = str_field(L, it, "question");
        q->line = (int)int_field(L, it, "line", 0);
        size_t nc = list_field(L, it, "choices");
        int cl = lua_gettop(L);
        q->choices = calloc_or_raise(L, nc, sizeof *q->choices);
        q->nchoices = nc;
        for (size_t c = 0; c < nc; c++) {
            lua_rawgeti(L, cl, (lua_Integer)c + 1);
            int ct = lua_gettop(L);
            q->choices[c].text = str_field(L, ct, "text");
            q->choices[c].feedback = str_field(L, ct, "feedback");
            lua_getfield(L, ct, "correct");
            q->choices[c].correct = lua_toboolean(L, -1);
            lua_pop(L, 2);
        }
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
}

/* Copies one exercise (the table on top) and checks that its files exist. */
static void copy_exercise(lua_State *L, lab_exercise *x, load_ctx *c)
{
    int t = lua_gettop(L);
    lab *l = c->l;
    x->id = str_field(L, t, "id");
    if (!x->id)
        x->id = dup_or_raise(L, "");
    x->title = str_field(L, t, "title");
    x->kernel = str_field(L, t, "kernel");
    x->launcher = str_field(L, t, "launcher");
    char *py = str_field(L, t, "python");
    if (py) {
        /* a Python exercise: its .py takes the kernel's place, with no launcher */
        free(x->kernel);
        free(x->launcher);
        x->kernel = py;
        x->launcher = NULL;
        x->python = true;
    }
    x->problem = str_field(L, t, "problem");
    x->library = str_field(L, t, "library");
    x->line = (int)int_field(L, t, "line", 0);
    size_t ns = list_field(L, t, "sizes");
    x->sizes = str_list(L, lua_gettop(L), ns);
    x->nsizes = ns;
    lua_pop(L, 1);
    size_t nh = list_field(L, t, "hints");
    x->hints = str_list(L, lua_gettop(L), nh);
    x->nhints = nh;
    lua_pop(L, 1);
    copy_variants(L, t, &x->variants, &x->nvariants);
    const char *files[2] = {x->kernel, x->launcher};
    for (int i = 0; i < 2; i++) {
        char p[CL_PATH_MAX];
        if (!files[i])
            continue;
        if (!paths_join(p, sizeof p, l->dir, files[i]) || !paths_is_file(p))
            lab_diags_add(c->d, c->path, x->line, "%s%s%s: file '%s' not found in %s",
                          x->id[0] ? "exercise '" : "exercise", x->id, x->id[0] ? "'" : "",
                          files[i], l->dir);
    }
}

static void copy_exercises(lua_State *L, int t, load_ctx *c)
{
    lab *l = c->l;
    size_t n = list_field(L, t, "exercises");
    int list = lua_gettop(L);
    l->exercises = calloc_or_raise(L, n, sizeof *l->exercises);
    l->nexercises = n;
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, list, (lua_Integer)i + 1);
        copy_exercise(L, &l->exercises[i], c);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static void copy_lab(lua_State *L, int t, load_ctx *c)
{
    lab *l = c->l;
    l->id = str_field(L, t, "id");
    l->title = str_field(L, t, "title");
    l->summary = str_field(L, t, "summary");
    l->order = (int)int_field(L, t, "order", 100);
    l->line = (int)int_field(L, t, "line", 0);
    l->problem = str_field(L, t, "problem");
    l->library = str_field(L, t, "library");
    lua_getfield(L, t, "time_limit");
    l->time_limit_s = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : 120.0;
    lua_pop(L, 1);
    size_t ns = list_field(L, t, "sizes");
    l->sizes = str_list(L, lua_gettop(L), ns);
    l->nsizes = ns;
    lua_pop(L, 1);
    copy_steps(L, t, l);
    copy_variants(L, t, &l->variants, &l->nvariants);
    copy_milestones(L, t, l);
    copy_quizzes(L, t, l);
    copy_exercises(L, t, c);
    lab_copy_decls(L, t, l, c->d);
    if (!l->id || !l->title)
        lab_diags_add(c->d, c->path, 0, "the lab has no id or title");
}

/* opts.size_line(label, from) for the lab library: the line of the lab
 * file (upvalue 1) that holds size entry label, or nil. */
static int size_line(lua_State *L)
{
    const char *label = luaL_checkstring(L, 1);
    int line = lab_source_size_line(lua_tostring(L, lua_upvalueindex(1)), (int)luaL_optinteger(L, 2, 1),
                                    label);
    if (line > 0)
        lua_pushinteger(L, line);
    else
        lua_pushnil(L);
    return 1;
}

/* opts.quoted_line(text, from [, file [, key]]): the line of the lab file
 * (upvalue 1) at or after from that holds text as a quoted string (with key:
 * preferably as `key = "text"`), or nil. */
static int quoted_line(lua_State *L)
{
    const char *text = luaL_checkstring(L, 1);
    const char *file = luaL_optstring(L, 3, lua_tostring(L, lua_upvalueindex(1)));
    const char *key = luaL_optstring(L, 4, NULL);
    int from = (int)luaL_optinteger(L, 2, 1);
    int line = key ? lab_source_field_line(file, from, key, text)
                   : lab_source_quoted_line(file, from, text);
    if (line > 0)
        lua_pushinteger(L, line);
    else
        lua_pushnil(L);
    return 1;
}

/* Runs inside the sandbox: (ctx) -> nothing.  Loads the DSL, runs the lab
 * file, checks it and copies it into ctx->l; every problem becomes a
 * diagnostic. */
static int load_main(lua_State *L)
{
    load_ctx *c = lua_touserdata(L, 1);
    lab_state *s = c->l->ls;
    cl_err e;
    luaL_checkstack(L, 16, "loading a lab");
    if (!sandbox_dofile_trusted(s, c->dsl, 2, &e)) {      /* ctx api private */
        diag_from_msg(c->d, c->dsl, e.msg);
        return 0;
    }
    if (lua_type(L, 2) != LUA_TTABLE || lua_type(L, 3) != LUA_TTABLE) {
        lab_diags_add(c->d, c->dsl, 0, "the lab library must return two tables");
        return 0;
    }
    lua_pushvalue(L, 2);
    if (!sandbox_expose(s, &e)) {
        diag_from_msg(c->d, c->dsl, e.msg);
        return 0;
    }
    if (!lab_load_shipped_problems(s, 3, c->dsl, c->d))
        return 0;
    if (!sandbox_dofile(s, c->path, 1, &e)) {             /* ctx api private */
        diag_from_msg(c->d, c->path, e.msg);
        lua_getfield(L, 3, "problems");
        if (lua_type(L, -1) == LUA_TFUNCTION && sandbox_pcall(s, 0, 1, &e))
            add_problems(L, -1, c);
        return 0;
    }                                                     /* ctx api private ret */
    lua_getfield(L, 3, "finish");
    lua_pushvalue(L, 4);
    lua_createtable(L, 0, 4);
    lua_pushstring(L, c->path);
    lua_setfield(L, -2, "path");
    if (c->folder) {
        lua_pushstring(L, c->folder);
        lua_setfield(L, -2, "folder");
    }
    lua_pushinteger(L, RUN_MAX_SIZES);
    lua_setfield(L, -2, "max_sizes");
    lua_pushinteger(L, RUN_MAX_VARIANTS);
    lua_setfield(L, -2, "max_variants");
    lua_pushstring(L, c->path);
    lua_pushcclosure(L, size_line, 1);
    lua_setfield(L, -2, "size_line");
    lua_pushstring(L, c->path);
    lua_pushcclosure(L, quoted_line, 1);
    lua_setfield(L, -2, "quoted_line");
    if (!sandbox_pcall(s, 2, 2, &e)) {                    /* ... lab problems */
        diag_from_msg(c->d, c->dsl, e.msg);
        return 0;
    }
    add_problems(L, -1, c);
    if (lua_type(L, -2) != LUA_TTABLE)
        return 0;
    copy_lab(L, lua_absindex(L, -2), c);
    c->done = true;
    return 0;
}

/* dir of path (strdup) and, when the file is called lab.lua, the name of
 * that folder (pointing into *dir). */
static bool split_path(const char *path, char **dir, const char **folder)
{
    const char *slash = strrchr(path, '/');
    *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
    if (!*dir)
        return false;
    *folder = NULL;
    if (strcmp(slash ? slash + 1 : path, "lab.lua") == 0) {
        char *fs = strrchr(*dir, '/');
        *folder = fs ? fs + 1 : *dir;
        if (strcmp(*folder, ".") == 0 || strcmp(*folder, "..") == 0 || !**folder)
            *folder = NULL;
    }
    return true;
}

lab *lab_load(const char *path, const char *home, lab_diags *diags)
{
    cl_err e;
    char homebuf[CL_PATH_MAX], dsl[CL_PATH_MAX];
    if (!home) {
        if (!paths_home(homebuf, sizeof homebuf, &e)) {
            lab_diags_add(diags, path, 0, "%s", e.msg);
            return NULL;
        }
        home = homebuf;
    }
    if (!paths_join(dsl, sizeof dsl, home, "lua/lab.lua")) {
        lab_diags_add(diags, path, 0, "the path of the lab library is too long");
        return NULL;
    }
    if (!paths_is_file(path)) {
        lab_diags_add(diags, path, 0, "no such lab file");
        return NULL;
    }
    lab *l = calloc(1, sizeof *l);
    const char *folder = NULL;
    if (!l || !(l->path = strdup(path)) || !split_path(path, &l->dir, &folder)) {
        lab_diags_add(diags, path, 0, "out of memory");
        lab_free(l);
        return NULL;
    }
    l->ls = sandbox_new(0, 0, &e);
    if (!l->ls) {
        lab_diags_add(diags, path, 0, "%s", e.msg);
        lab_free(l);
        return NULL;
    }
    load_ctx c = {.path = path, .dsl = dsl, .folder = folder, .l = l, .d = diags,
                  .ndiags0 = diags->n};
    lua_State *L = sandbox_lua(l->ls);
    lua_pushcfunction(L, load_main);
    lua_pushlightuserdata(L, &c);
    if (!sandbox_pcall(l->ls, 1, 0, &e) && diags->n == c.ndiags0)
        diag_from_msg(diags, path, e.msg);
    lua_settop(L, 0);
    if (c.done && diags->n == c.ndiags0)
        lab_check_engine(l, diags);
    if (!c.done || diags->n != c.ndiags0) {
        if (diags->n == c.ndiags0)
            lab_diags_add(diags, path, 0, "the lab could not be loaded");
        lab_free(l);
        return NULL;
    }
    return l;
}

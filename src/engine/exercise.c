#include "engine/exercise.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "core/strfmt.h"
#include "gpu/cudacheck.h"
#include "lab/sandbox.h"
#include "luagpu/luagpu.h"

#define TRACE_MAX 2048

struct exercise {
    exercise_stage stage;
    char msg[CL_ERR_MAX];
    char launcher_dir[CL_PATH_MAX];   /* the launcher's folder with its '/' */
    char launcher_name[256];          /* its base name */
    nvrtc_output prog;
    cudaLibrary_t lib;
    bool have_lib;
    cudaKernel_t *kern;               /* one a kernel of prog, in its order */
    lab_state *s;
    int ref_fn, ref_gpu, ref_k, ref_args;
    cudaStream_t stream;              /* the launches' default stream, once set */
    bool stream_set;
    char trace[TRACE_MAX];
};

/* ---- messages --------------------------------------------------------- */

/* Removes every occurrence of dir (a folder with its trailing '/') from s. */
static void strip_dir(char *s, const char *dir)
{
    size_t dl = strlen(dir);
    if (dl == 0)
        return;
    char *p;
    while ((p = strstr(s, dir)) != NULL)
        memmove(p, p + dl, strlen(p + dl) + 1);
}

static void set_stage(exercise *x, exercise_stage st, const char *msg)
{
    x->stage = st;
    snprintf(x->msg, sizeof x->msg, "%s", msg);
    strip_dir(x->msg, x->launcher_dir);
}

/* The launcher's error in e, with its folder removed, its traceback kept. */
static bool launcher_error(exercise *x, cl_err *e)
{
    strip_dir(e->msg, x->launcher_dir);
    snprintf(x->trace, sizeof x->trace, "%s", sandbox_traceback(x->s));
    strip_dir(x->trace, x->launcher_dir);
    return false;
}

/* ---- the k table -------------------------------------------------------- */

/* __index of k for a name the kernel file does not define. */
static int k_missing(lua_State *L)
{
    const exercise *x = lua_touserdata(L, lua_upvalueindex(1));
    if (lua_type(L, 2) != LUA_TSTRING)
        return 0;
    char why[1024];
    nvrtc_kernel_missing(&x->prog, lua_tostring(L, 2), why, sizeof why);
    return luaL_error(L, "%s", why);
}

/* (exercise) -> k: a table of the file's kernels by name. */
static int build_k(lua_State *L)
{
    const exercise *x = lua_touserdata(L, 1);
    lua_createtable(L, 0, (int)x->prog.nkernels);
    for (size_t i = 0; i < x->prog.nkernels; i++) {
        const nvrtc_kernel *k = &x->prog.kernels[i];
        if (k->mangled)
            continue;
        luagpu_push_kernel(L, k->name, x->kern ? (const void *)x->kern[i] : NULL, k->params);
        lua_setfield(L, -2, k->name);
    }
    lua_createtable(L, 0, 1);
    lua_pushlightuserdata(L, (void *)x);
    lua_pushcclosure(L, k_missing, 1);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    return 1;
}

/* () -> gpu: the gpu table. */
static int open_gpu(lua_State *L)
{
    luagpu_open(L);
    luagpu_set_own_only(L, true);
    return 1;
}

/* (value) -> its registry reference */
static int ref_value(lua_State *L)
{
    lua_settop(L, 1);
    lua_pushinteger(L, luaL_ref(L, LUA_REGISTRYINDEX));
    return 1;
}

/* Keeps the value on top of the stack in the registry (popped); LUA_NOREF
 * with e when Lua is out of memory. */
static int keep(lab_state *s, cl_err *e)
{
    lua_State *L = sandbox_lua(s);
    lua_pushcfunction(L, ref_value);
    lua_insert(L, -2);
    if (!sandbox_pcall(s, 1, 1, e))
        return LUA_NOREF;
    int ref = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return ref;
}

/* (stream as a light userdata) -> () */
static int set_stream(lua_State *L)
{
    luagpu_set_stream(L, lua_touserdata(L, 1));
    return 0;
}

/* The gpu table as a global and a registry reference, k, then the launcher
 * file's function. */
static void load_launcher(exercise *x, const exercise_opts *o, int budget_ms)
{
    cl_err e = {{0}};
    x->s = sandbox_new(0, budget_ms, &e);
    if (!x->s) {
        set_stage(x, EXERCISE_LAUNCHER, e.msg);
        return;
    }
    lua_State *L = sandbox_lua(x->s);
    lua_pushcfunction(L, open_gpu);
    if (!sandbox_pcall(x->s, 0, 1, &e) || !sandbox_freeze(x->s, &e)) {
        set_stage(x, EXERCISE_LAUNCHER, e.msg);
        return;
    }
    lua_pushvalue(L, -1);
    if ((x->ref_gpu = keep(x->s, &e)) == LUA_NOREF) {
        lua_pop(L, 1);
        set_stage(x, EXERCISE_LAUNCHER, e.msg);
        return;
    }
    if (!sandbox_set_global(x->s, "gpu", &e)) {
        set_stage(x, EXERCISE_LAUNCHER, e.msg);
        return;
    }
    lua_pushcfunction(L, build_k);
    lua_pushlightuserdata(L, x);
    if (!sandbox_pcall(x->s, 1, 1, &e)) {
        set_stage(x, EXERCISE_LAUNCHER, e.msg);
        return;
    }
    if ((x->ref_k = keep(x->s, &e)) == LUA_NOREF) {
        set_stage(x, EXERCISE_LAUNCHER, e.msg);
        return;
    }

    if (!sandbox_dofile(x->s, o->launcher, 1, &e)) {
        launcher_error(x, &e);
        set_stage(x, EXERCISE_LAUNCHER, e.msg);
        return;
    }
    if (lua_type(L, -1) != LUA_TFUNCTION) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "%s: the file must end with 'return function(gpu, k, args) ... end' (it "
                 "returned %s)",
                 x->launcher_name, luaL_typename(L, -1));
        lua_pop(L, 1);
        set_stage(x, EXERCISE_LAUNCHER, msg);
        return;
    }
    if ((x->ref_fn = keep(x->s, &e)) == LUA_NOREF)
        set_stage(x, EXERCISE_LAUNCHER, e.msg);
}

/* cudaLibraryLoadData and one cudaLibraryGetKernel a kernel. */
static bool load_program(exercise *x, cl_err *e)
{
    if (x->prog.nkernels > 0) {
        x->kern = calloc(x->prog.nkernels, sizeof *x->kern);
        if (!x->kern)
            return err_set(e, "out of memory");
    }
    CUDA_CHECK(e, cudaLibraryLoadData(&x->lib, x->prog.cubin, NULL, NULL, 0, NULL, NULL, 0));
    x->have_lib = true;
    for (size_t i = 0; i < x->prog.nkernels; i++)
        CUDA_CHECK(e, cudaLibraryGetKernel(&x->kern[i], x->lib, x->prog.kernels[i].name));
    return true;
}

exercise *exercise_open(const exercise_opts *opts, cl_err *err)
{
    exercise *x = calloc(1, sizeof *x);
    if (!x) {
        err_set(err, "out of memory");
        return NULL;
    }
    x->ref_fn = x->ref_gpu = x->ref_k = x->ref_args = LUA_NOREF;
    const char *launcher = opts->launcher ? opts->launcher : "";
    const char *slash = strrchr(launcher, '/');
    size_t rl = opts->root ? strlen(opts->root) : 0;
    if (rl && strncmp(launcher, opts->root, rl) == 0 && launcher[rl] == '/') {
        /* a file of a lab folder: its messages name it from the folder */
        snprintf(x->launcher_name, sizeof x->launcher_name, "%s", launcher + rl + 1);
        snprintf(x->launcher_dir, sizeof x->launcher_dir, "%.*s", (int)rl + 1, launcher);
    } else {
        snprintf(x->launcher_name, sizeof x->launcher_name, "%s", slash ? slash + 1 : launcher);
        if (slash)
            snprintf(x->launcher_dir, sizeof x->launcher_dir, "%.*s",
                     (int)(slash - launcher + 1), launcher);
    }

    cl_err ce = {{0}};
    if (!opts->kernel || !opts->kernel[0]) {
        set_stage(x, EXERCISE_COMPILE, "no kernel file was given");
        return x;
    }
    nvrtc_opts no = {.arch = opts->arch, .no_cache = opts->no_cache, .root = opts->root};
    if (!nvrtc_compile_opts(opts->kernel, &no, &x->prog, &ce)) {
        set_stage(x, EXERCISE_COMPILE, ce.msg);
        return x;
    }
    if (!launcher[0]) {
        set_stage(x, EXERCISE_LAUNCHER, "no launcher file was given");
        return x;
    }
    if (opts->device) {
        cudacheck_reset();
        if (!load_program(x, &ce)) {
            cudaGetLastError();
            char msg[CL_ERR_MAX];
            snprintf(msg, sizeof msg, "the GPU cannot load your compiled kernel: %s", ce.msg);
            set_stage(x, EXERCISE_LOAD, msg);
            return x;
        }
    }
    x->stage = EXERCISE_READY;
    load_launcher(x, opts, opts->budget_ms > 0 ? opts->budget_ms : EXERCISE_BUDGET_MS);
    if (x->stage == EXERCISE_READY && !opts->device)
        set_stage(x, EXERCISE_NO_DEVICE,
                  opts->no_device && opts->no_device[0] ? opts->no_device : "no CUDA device found");
    return x;
}

bool exercise_launcher_parses(const char *path, const char *root, char *msg, size_t cap)
{
    cl_err e = {{0}};
    lab_state *s = sandbox_new(0, 0, &e);
    bool ok = s && sandbox_parsefile(s, path, &e);
    sandbox_free(s);
    if (ok)
        return true;
    size_t rl = root ? strlen(root) : 0;
    const char *text = e.msg;
    if (rl && strncmp(text, root, rl) == 0 && text[rl] == '/')
        text += rl + 1;
    snprintf(msg, cap, "%s", text);
    return false;
}

void exercise_close(exercise *ex)
{
    if (!ex)
        return;
    sandbox_free(ex->s);
    if (ex->have_lib && cudaLibraryUnload(ex->lib) != cudaSuccess)
        cudaGetLastError();
    free(ex->kern);
    nvrtc_output_free(&ex->prog);
    free(ex);
}

exercise_stage exercise_status(const exercise *ex, const char **msg)
{
    if (msg)
        *msg = ex->stage == EXERCISE_READY ? "" : ex->msg;
    return ex->stage;
}

const nvrtc_output *exercise_program(const exercise *ex)
{
    return &ex->prog;
}

void exercise_why(const exercise *ex, const char *root, char *out, size_t out_size)
{
    const nvrtc_diag *first = ex->stage == EXERCISE_COMPILE ? nvrtc_first_error(&ex->prog) : NULL;
    snprintf(out, out_size, "%s", ex->stage == EXERCISE_READY ? "" : ex->msg);
    if (!first)
        return;
    char head[NVRTC_TEXT_MAX + NVRTC_FILE_MAX + 64];
    nvrtc_diag_headline(first, head, sizeof head);
    size_t rl = root ? strlen(root) : 0;
    const char *rel = first->file, *base = paths_base_name(first->file);
    if (rl && strncmp(rel, root, rl) == 0 && rel[rl] == '/')
        rel += rl + 1;
    if (rel != first->file && strncmp(head, base, strlen(base)) == 0)
        snprintf(out, out_size, "%s%s", rel, head + strlen(base));
    int errors = 0;
    for (size_t i = 0; i < ex->prog.ndiags; i++)
        errors += ex->prog.diags[i].severity == NVRTC_SEV_ERROR;
    size_t len = strlen(out);
    if (errors > 1 && len < out_size)
        strfmt_append(out, out_size, len, " (and %d more error%s)", errors - 1,
                      errors > 2 ? "s" : "");
}

size_t exercise_diagnostics(const exercise *ex, size_t max, char *buf, size_t buf_size)
{
    size_t len = 0;
    if (buf_size)
        buf[0] = '\0';
    for (size_t i = 0; i < ex->prog.ndiags && i < max && len + 1 < buf_size; i++) {
        int w = nvrtc_diag_format(&ex->prog.diags[i], buf + len, buf_size - len);
        if (w < 0)
            break;
        len += (size_t)w < buf_size - len ? (size_t)w : buf_size - len - 1;
    }
    return len;
}

/* ---- running ------------------------------------------------------------ */

/* (exercise, problem_data, label) -> args */
static int build_args(lua_State *L)
{
    const problem_data *p = lua_touserdata(L, 2);
    const char *label = lua_touserdata(L, 3);
    problem_arg a[PROBLEM_MAX_ARGS];
    int n = problem_args(p, a);
    lua_createtable(L, 0, n + 1);
    for (int i = 0; i < n; i++) {
        luagpu_dtype dt = a[i].typed ? (luagpu_dtype)a[i].dtype
                          : a[i].i32   ? LUAGPU_I32
                          : a[i].bf16  ? LUAGPU_BF16
                                       : LUAGPU_F32;
        if (a[i].host)
            luagpu_push_borrowed_host(L, a[i].host, a[i].count, dt);
        else if (a[i].buf && a[i].managed)
            luagpu_push_borrowed_managed(L, a[i].buf->ptr, a[i].count, dt);
        else if (a[i].buf)
            luagpu_push_borrowed(L, a[i].buf->ptr, a[i].count, dt);
        else if (a[i].is_number)
            lua_pushnumber(L, (lua_Number)a[i].number);
        else
            lua_pushinteger(L, (lua_Integer)a[i].value);
        lua_setfield(L, -2, a[i].name);
    }
    lua_pushstring(L, label ? label : "");
    lua_setfield(L, -2, "size");
    return 1;
}

bool exercise_begin_size(exercise *ex, const problem_data *data, const char *label, cl_err *err)
{
    if (ex->stage != EXERCISE_READY)
        return err_set(err, "%s", ex->msg);
    exercise_end_size(ex);
    lua_State *L = sandbox_lua(ex->s);
    lua_pushcfunction(L, build_args);
    lua_pushlightuserdata(L, ex);
    lua_pushlightuserdata(L, (void *)data);
    lua_pushlightuserdata(L, (void *)(label ? label : ""));
    if (!sandbox_pcall(ex->s, 3, 1, err))
        return launcher_error(ex, err);
    ex->ref_args = keep(ex->s, err);
    return ex->ref_args != LUA_NOREF;
}

/* (label) -> (): sets args.size on the table on top. */
static int set_size(lua_State *L)
{
    lua_pushstring(L, lua_touserdata(L, 1));
    lua_setfield(L, 2, "size");
    return 0;
}

bool exercise_begin_table(exercise *ex, exercise_args_fn push, void *ud, const char *label,
                          cl_err *err)
{
    if (ex->stage != EXERCISE_READY)
        return err_set(err, "%s", ex->msg);
    exercise_end_size(ex);
    lua_State *L = sandbox_lua(ex->s);
    lua_pushcfunction(L, push);
    lua_pushlightuserdata(L, ud);
    if (!sandbox_pcall(ex->s, 1, 1, err))
        return launcher_error(ex, err);
    if (lua_type(L, -1) != LUA_TTABLE) {
        lua_pop(L, 1);
        return err_set(err, "the launcher's arguments could not be built");
    }
    lua_pushcfunction(L, set_size);
    lua_pushlightuserdata(L, (void *)(label ? label : ""));
    lua_pushvalue(L, -3);
    if (!sandbox_pcall(ex->s, 2, 0, err)) {
        lua_pop(L, 1);
        return launcher_error(ex, err);
    }
    ex->ref_args = keep(ex->s, err);
    return ex->ref_args != LUA_NOREF;
}

/* (args, key, value) -> () */
static int set_arg(lua_State *L)
{
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 0;
}

bool exercise_set_arg(exercise *ex, const char *key, const char *value, cl_err *err)
{
    if (ex->ref_args == LUA_NOREF)
        return err_set(err, "the launcher has no arguments yet");
    lua_State *L = sandbox_lua(ex->s);
    if (!lua_checkstack(L, 4))
        return err_set(err, "Lua stack overflow");
    lua_pushcfunction(L, set_arg);
    lua_rawgeti(L, LUA_REGISTRYINDEX, ex->ref_args);
    lua_pushstring(L, key);
    lua_pushstring(L, value);
    return sandbox_pcall(ex->s, 3, 0, err);
}

bool exercise_call(void *ud, cudaStream_t stream, cl_err *err)
{
    exercise *x = ud;
    if (x->stage != EXERCISE_READY)
        return err_set(err, "%s", x->msg);
    if (x->ref_args == LUA_NOREF)
        return err_set(err, "the launcher was called without its arguments");
    lua_State *L = sandbox_lua(x->s);
    if (!lua_checkstack(L, 8))
        return err_set(err, "Lua stack overflow");
    if (!x->stream_set || x->stream != stream) {
        lua_pushcfunction(L, set_stream);
        lua_pushlightuserdata(L, (void *)stream);
        if (!sandbox_pcall(x->s, 1, 0, err))
            return false;
        x->stream = stream;
        x->stream_set = true;
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, x->ref_fn);
    lua_rawgeti(L, LUA_REGISTRYINDEX, x->ref_gpu);
    lua_rawgeti(L, LUA_REGISTRYINDEX, x->ref_k);
    lua_rawgeti(L, LUA_REGISTRYINDEX, x->ref_args);
    long long before = luagpu_own_launches(L);
    if (!luagpu_fork_streams(L, (void *)stream, err)) {
        lua_pop(L, 4);
        return false;
    }
    if (!sandbox_pcall(x->s, 3, 0, err))
        return launcher_error(x, err);
    if (luagpu_own_launches(L) == before)
        return err_set(err,
                       "%s launched none of your kernels: a row counts only when your own "
                       "kernel computes it",
                       x->launcher_name);
    /* work left on streams of its own ends inside the timed region too */
    return luagpu_join_streams(L, (void *)stream, err);
}

/* (exercise) -> (): drops the args and the borrowed Buffers. */
static int end_size(lua_State *L)
{
    exercise *x = lua_touserdata(L, 1);
    if (x->ref_args != LUA_NOREF) {
        luaL_unref(L, LUA_REGISTRYINDEX, x->ref_args);
        x->ref_args = LUA_NOREF;
    }
    luagpu_release_borrowed(L);
    return 0;
}

void exercise_end_size(exercise *ex)
{
    if (!ex->s)
        return;
    lua_State *L = sandbox_lua(ex->s);
    cl_err e = {{0}};
    lua_pushcfunction(L, end_size);
    lua_pushlightuserdata(L, ex);
    if (!sandbox_pcall(ex->s, 1, 0, &e))
        ex->ref_args = LUA_NOREF;
}

const char *exercise_output(const exercise *ex)
{
    return ex->s ? sandbox_output(ex->s) : "";
}

void exercise_clear_output(exercise *ex)
{
    if (ex->s)
        sandbox_clear_output(ex->s);
}

const char *exercise_traceback(const exercise *ex)
{
    return ex->trace;
}

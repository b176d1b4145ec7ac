#define _GNU_SOURCE
#include "gpu/nvrtc.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvrtc.h>

#include "core/clock.h"
#include "core/atomicfile.h"
#include "core/fsguard.h"
#include "core/landlock.h"
#include "core/paths.h"
#include "gpu/nvrtc_includes.h"
#include "gpu/nvrtc_internal.h"

#define MAX_OPTS 12

/* ---- compiling -------------------------------------------------------------- */

#define NVRTC_TRY(call, what)                                                       \
    do {                                                                            \
        nvrtcResult nvrtc_st_ = (call);                                             \
        if (nvrtc_st_ != NVRTC_SUCCESS) {                                           \
            err_set(e, "NVRTC: %s failed: %s", what, nvrtcGetErrorString(nvrtc_st_)); \
            goto cleanup;                                                           \
        }                                                                           \
    } while (0)

bool nvrtc_version_text(char *buf, size_t buf_size, cl_err *err)
{
    int major = 0, minor = 0;
    nvrtcResult st = nvrtcVersion(&major, &minor);
    if (st != NVRTC_SUCCESS)
        return err_set(err, "NVRTC: nvrtcVersion failed: %s", nvrtcGetErrorString(st));
    snprintf(buf, buf_size, "%d.%d", major, minor);
    return true;
}

/* "sm_90" -> 90 (with an optional 'a' or 'f' suffix); -1 when malformed. */
static int arch_number(const char *arch)
{
    if (!starts_with(arch, "sm_"))
        return -1;
    const char *p = arch + 3;
    if (!isdigit((unsigned char)*p))
        return -1;
    char *end;
    long v = strtol(p, &end, 10);
    if ((*end == 'a' || *end == 'f') && end[1] == '\0')
        end++;
    if (*end || v <= 0 || v > 10000)
        return -1;
    return (int)v;
}

static bool check_arch(const char *arch, cl_err *e)
{
    int num = arch_number(arch);
    if (num < 0)
        return err_set(e, "'%s' is not a real GPU architecture: use the form sm_90", arch);
    int count = 0;
    nvrtcResult st = nvrtcGetNumSupportedArchs(&count);
    if (st != NVRTC_SUCCESS)
        return err_set(e, "NVRTC: nvrtcGetNumSupportedArchs failed: %s",
                       nvrtcGetErrorString(st));
    if (count <= 0 || count > 4096)
        return true;
    int *archs = malloc((size_t)count * sizeof *archs);
    if (!archs)
        return err_set(e, "out of memory");
    st = nvrtcGetSupportedArchs(archs);
    if (st != NVRTC_SUCCESS) {
        free(archs);
        return err_set(e, "NVRTC: nvrtcGetSupportedArchs failed: %s", nvrtcGetErrorString(st));
    }
    bool found = false;
    for (int i = 0; i < count; i++)
        if (archs[i] == num)
            found = true;
    char list[512] = "";
    size_t used = 0;
    for (int i = 0; i < count && !found && used + 16 < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%ssm_%d", i ? " " : "",
                                 archs[i]);
    free(archs);
    char ver[32] = "?";
    if (!found) {
        nvrtc_version_text(ver, sizeof ver, NULL);
        return err_set(e, "this NVRTC (%s) cannot compile for %s; it supports %s", ver, arch,
                       list);
    }
    return true;
}

static bool dir_has(const char *dir, const char *file)
{
    char p[CL_PATH_MAX];
    return paths_join(p, sizeof p, dir, file) && paths_is_file(p);
}

/* The toolkit's include folder: beside the loaded libnvrtc first, then
 * $CUDA_HOME, $CUDA_PATH and /usr/local/cuda.  false when none is found. */
static bool toolkit_include(char *out, size_t n)
{
    Dl_info info;
    if (dladdr((void *)nvrtcVersion, &info) && info.dli_fname) {
        char real[PATH_MAX];
        if (realpath(info.dli_fname, real)) {
            char *dir = dirname(real);
            char inc[CL_PATH_MAX];
            snprintf(inc, sizeof inc, "%s/../include", dir);
            char rinc[PATH_MAX];
            if (realpath(inc, rinc) && dir_has(rinc, "cuda_runtime.h")) {
                snprintf(out, n, "%s", rinc);
                return true;
            }
        }
    }
    const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        if (!roots[i] || !roots[i][0])
            continue;
        char inc[CL_PATH_MAX];
        snprintf(inc, sizeof inc, "%s/include", roots[i]);
        if (dir_has(inc, "cuda_runtime.h")) {
            snprintf(out, n, "%s", inc);
            return true;
        }
    }
    return false;
}

typedef struct compile_opts {
    char arch_opt[32];
    char inc_src[CL_PATH_MAX + 8];
    char inc_cuda[CL_PATH_MAX + 8];
    char inc_cccl[CL_PATH_MAX + 16];
    char inc_shim[CL_PATH_MAX + 32];
    const char *v[MAX_OPTS];
    int n;
} compile_opts;

/* The shipped include folders, in search order: the toolkit's headers, its
 * CCCL headers, then <cstdio>, <cassert>, ... as nvcc finds them (assets/). */
static void trusted_dirs(nvrtc_includes *inc)
{
    inc->ntrusted = 0;
    char dir[CL_PATH_MAX];
    if (toolkit_include(dir, sizeof dir)) {
        snprintf(inc->trusted[inc->ntrusted++], CL_PATH_MAX, "%s", dir);
        char cccl[CL_PATH_MAX];
        if (paths_join(cccl, sizeof cccl, dir, "cccl") && paths_is_dir(cccl))
            snprintf(inc->trusted[inc->ntrusted++], CL_PATH_MAX, "%s", cccl);
    }
    char home[CL_PATH_MAX], shim[CL_PATH_MAX];
    cl_err ignored = {{0}};
    if (paths_home(home, sizeof home, &ignored) &&
        paths_join(shim, sizeof shim, home, "assets/nvrtc-include") && paths_is_dir(shim)) {
        char real[PATH_MAX];
        snprintf(inc->trusted[inc->ntrusted++], CL_PATH_MAX, "%s",
                 realpath(shim, real) ? real : shim);
    }
}

static void build_opts(compile_opts *o, const char *arch, const char *src_dir,
                       const nvrtc_includes *inc, bool verbose)
{
    o->n = 0;
    snprintf(o->arch_opt, sizeof o->arch_opt, "-arch=%s", arch);
    o->v[o->n++] = o->arch_opt;
    o->v[o->n++] = "-std=c++17";
    o->v[o->n++] = "-lineinfo";
    if (verbose)
        o->v[o->n++] = "--ptxas-options=-v";
    snprintf(o->inc_src, sizeof o->inc_src, "-I%s", src_dir);
    o->v[o->n++] = o->inc_src;
    char *slots[NVRTC_TRUSTED_MAX] = {o->inc_cuda, o->inc_cccl, o->inc_shim, NULL};
    size_t sizes[NVRTC_TRUSTED_MAX] = {sizeof o->inc_cuda, sizeof o->inc_cccl,
                                       sizeof o->inc_shim, 0};
    for (size_t k = 0; k < inc->ntrusted && slots[k]; k++) {
        snprintf(slots[k], sizes[k], "-I%s", inc->trusted[k]);
        o->v[o->n++] = slots[k];
    }
}

/* Runs NVRTC on text; fills cubin, log and kernels, or sets compile_error. */
static bool run_nvrtc(const char *text, const compile_opts *co, nvrtc_output *out, cl_err *e)
{
    nvrtcProgram prog = NULL;
    bool ok = false;
    char *ptx = NULL;
    double t0 = clock_now_ms();
    NVRTC_TRY(nvrtcCreateProgram(&prog, text, out->path, 0, NULL, NULL), "nvrtcCreateProgram");
    nvrtcResult st = nvrtcCompileProgram(prog, co->n, co->v);
    out->compile_ms = clock_now_ms() - t0;
    size_t log_size = 0;
    NVRTC_TRY(nvrtcGetProgramLogSize(prog, &log_size), "nvrtcGetProgramLogSize");
    out->log = malloc(log_size + 1);
    if (!out->log) {
        err_set(e, "out of memory for the compiler log");
        goto cleanup;
    }
    out->log[0] = '\0';
    if (log_size > 0)
        NVRTC_TRY(nvrtcGetProgramLog(prog, out->log), "nvrtcGetProgramLog");
    out->log[log_size] = '\0';
    if (st == NVRTC_ERROR_COMPILATION) {
        out->compile_error = true;
        ok = true;
        goto cleanup;
    }
    if (st != NVRTC_SUCCESS) {
        err_set(e, "NVRTC: nvrtcCompileProgram failed: %s%s%s", nvrtcGetErrorString(st),
                out->log[0] ? ": " : "", out->log);
        goto cleanup;
    }
    size_t cubin_size = 0;
    NVRTC_TRY(nvrtcGetCUBINSize(prog, &cubin_size), "nvrtcGetCUBINSize");
    if (cubin_size == 0) {
        err_set(e, "NVRTC produced no CUBIN for %s", out->arch);
        goto cleanup;
    }
    out->cubin = malloc(cubin_size);
    if (!out->cubin) {
        err_set(e, "out of memory for the compiled program");
        goto cleanup;
    }
    NVRTC_TRY(nvrtcGetCUBIN(prog, out->cubin), "nvrtcGetCUBIN");
    out->cubin_size = cubin_size;
    size_t ptx_size = 0;
    NVRTC_TRY(nvrtcGetPTXSize(prog, &ptx_size), "nvrtcGetPTXSize");
    ptx = malloc(ptx_size + 1);
    if (!ptx) {
        err_set(e, "out of memory for the PTX");
        goto cleanup;
    }
    NVRTC_TRY(nvrtcGetPTX(prog, ptx), "nvrtcGetPTX");
    ptx[ptx_size] = '\0';
    if (!nvrtc_parse_ptx(ptx, &out->kernels, &out->nkernels)) {
        err_set(e, "out of memory listing the kernels");
        goto cleanup;
    }
    ok = true;
cleanup:
    free(ptx);
    if (prog) {
        nvrtcResult dst = nvrtcDestroyProgram(&prog);
        if (dst != NVRTC_SUCCESS && ok) {
            err_set(e, "NVRTC: nvrtcDestroyProgram failed: %s", nvrtcGetErrorString(dst));
            ok = false;
        }
    }
    return ok;
}

/* ---- a compile confined to what it may read ---------------------------------- */

typedef struct compile_job {
    const char *text;
    const compile_opts *co;
    const nvrtc_includes *inc;
    nvrtc_output *out;
    cl_err *e;
    bool ok;
} compile_job;

/* libnvrtc-builtins, which NVRTC opens on its first compile, loaded before
 * the compiling thread is confined. */
static void preload_builtins(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return;
    char name[64];
    snprintf(name, sizeof name, "libnvrtc-builtins.so.%d.%d", major, minor);
    (void)dlopen(name, RTLD_NOW | RTLD_GLOBAL);
}

/* The compiling thread: it may read the kernel's folder, the shipped include
 * folders and the libraries NVRTC loads, and nothing else. */
static void *compile_thread(void *arg)
{
    compile_job *j = arg;
    const char *paths[NVRTC_TRUSTED_MAX + 8];
    size_t n = 0;
    paths[n++] = j->inc->root;
    for (size_t k = 0; k < j->inc->ntrusted; k++)
        paths[n++] = j->inc->trusted[k];
    char libdir[PATH_MAX] = "";
    Dl_info info;
    if (dladdr((void *)nvrtcVersion, &info) && info.dli_fname && realpath(info.dli_fname, libdir))
        paths_dir_name(libdir, libdir, sizeof libdir);
    paths[n++] = libdir;
    static const char *const system[] = {"/etc/ld.so.cache", "/lib", "/lib64", "/usr/lib",
                                         "/usr/lib64"};
    for (size_t k = 0; k < sizeof system / sizeof system[0]; k++)
        paths[n++] = system[k];
    (void)landlock_confine_reads(paths, n, NULL, 0);
    j->ok = run_nvrtc(j->text, j->co, j->out, j->e);
    return NULL;
}

/* run_nvrtc in a thread of its own, confined where the kernel offers
 * Landlock (core/landlock.h). */
static bool run_confined(const char *text, const compile_opts *co, const nvrtc_includes *inc,
                         nvrtc_output *out, cl_err *e)
{
    preload_builtins();
    compile_job j = {.text = text, .co = co, .inc = inc, .out = out, .e = e};
    pthread_attr_t attr;
    pthread_t th;
    if (pthread_attr_init(&attr) != 0)
        return err_set(e, "cannot start the compiler's thread");
    pthread_attr_setstacksize(&attr, (size_t)64 << 20);
    int rc = pthread_create(&th, &attr, compile_thread, &j);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        return err_set(e, "cannot start the compiler's thread: %s", strerror(rc));
    pthread_join(th, NULL);
    return j.ok;
}

/* ---- the steps of a compile ---------------------------------------------------- */

bool nvrtc_compile(const char *path, const char *arch, nvrtc_output *out, cl_err *err)
{
    nvrtc_opts o = {.arch = arch};
    return nvrtc_compile_opts(path, &o, out, err);
}

/* The cache key: NVRTC's version, the path, the options, the source and
 * every local header it includes. */
static bool cache_key(strbuf *key, const char *real, const compile_opts *co, const char *text,
                      size_t len, const nvrtc_includes *inc, cl_err *e)
{
    char ver[32];
    if (!nvrtc_version_text(ver, sizeof ver, e))
        return false;
    strbuf_str(key, "cudalab nvrtc cache 3\nnvrtc ");
    strbuf_str(key, ver);
    strbuf_str(key, "\npath ");
    strbuf_str(key, real);
    for (int i = 0; i < co->n; i++) {
        strbuf_str(key, "\nopt ");
        strbuf_str(key, co->v[i]);
    }
    strbuf_str(key, "\nsource\n");
    nvrtc_add_u64(key, len);
    strbuf_add(key, text, len);
    nvrtc_cache_key_add_includes(key, inc);
    if (key->failed)
        return err_set(e, "out of memory");
    return true;
}

/* Diagnostics from out->log, quoting lines of the source and its local
 * headers only. */
static bool parse_diags(nvrtc_output *out, const char *text, const nvrtc_includes *inc,
                        cl_err *e)
{
    if (!nvrtc_parse_log_in(out->log, out->path, text, inc, &out->diags, &out->ndiags))
        return err_set(e, "out of memory reading the compiler log");
    return true;
}

/* A refused include as the program's one compile error. */
static bool refused(nvrtc_output *out, const nvrtc_diag *d, cl_err *e)
{
    if (d->line == 0 && !d->file[0])
        return err_set(e, "%s", d->message);
    out->compile_error = true;
    out->diags = malloc(sizeof *out->diags);
    if (!out->diags)
        return err_set(e, "out of memory");
    out->diags[0] = *d;
    out->ndiags = 1;
    out->log = malloc(1);
    if (out->log)
        out->log[0] = '\0';
    char head[NVRTC_TEXT_MAX + NVRTC_FILE_MAX + 64];
    nvrtc_diag_headline(d, head, sizeof head);
    return err_set(e, "%s", head);
}

/* Compiles text (not cached) into out, recompiling without ptxas -v when
 * that hides ptxas's own error; e holds the first error's headline. */
static bool compile_text(const char *text, const char *arch, const char *src_dir,
                         const nvrtc_includes *inc, nvrtc_output *out, cl_err *e)
{
    compile_opts co;
    build_opts(&co, arch, src_dir, inc, true);
    if (!run_confined(text, &co, inc, out, e) || !parse_diags(out, text, inc, e))
        return false;
    if (out->compile_error && !nvrtc_first_error(out)) {
        /* With ptxas -v, NVRTC drops ptxas's own error line (too much shared
         * data, ...): compile once more without it to have the reason. */
        compile_opts quiet;
        build_opts(&quiet, arch, src_dir, inc, false);
        free(out->log);
        free(out->diags);
        out->log = NULL;
        out->diags = NULL;
        out->ndiags = 0;
        out->compile_error = false;
        double first_ms = out->compile_ms;
        if (!run_confined(text, &quiet, inc, out, e))
            return false;
        out->compile_ms += first_ms;
        if (!parse_diags(out, text, inc, e))
            return false;
    }
    if (out->compile_error) {
        const nvrtc_diag *d = nvrtc_first_error(out);
        if (d) {
            char head[NVRTC_TEXT_MAX + NVRTC_FILE_MAX + 64];
            nvrtc_diag_headline(d, head, sizeof head);
            return err_set(e, "%s", head);
        }
        return err_set(e, "%s did not compile: %s", paths_base_name(out->path),
                       out->log[0] ? out->log : "NVRTC gave no reason");
    }
    nvrtc_parse_usage(out->log, out->kernels, out->nkernels);
    return true;
}

/* Fills inc's folders for the file at path: root (o->root, else the file's
 * own folder) and the shipped include folders; real receives the file's
 * real path, which must lie inside root. */
static bool kernel_folders(const char *path, const nvrtc_opts *o, nvrtc_includes *inc,
                           char *real, size_t n, cl_err *e)
{
    char dir[CL_PATH_MAX], root[PATH_MAX];
    if (!o->root && !paths_dir_name(path, dir, sizeof dir))
        return err_set(e, "%s: the path is too long", path);
    if (!realpath(o->root ? o->root : dir, root))
        return err_set(e, "cannot open the folder of %s: %s", path, strerror(errno));
    snprintf(inc->root, sizeof inc->root, "%s", root);
    trusted_dirs(inc);
    return fsguard_resolve(path, inc->root, real, n, e);
}

bool nvrtc_compile_opts(const char *path, const nvrtc_opts *opts, nvrtc_output *out, cl_err *err)
{
    static const nvrtc_opts defaults = {0};
    if (!opts)
        opts = &defaults;
    memset(out, 0, sizeof *out);
    const char *arch = opts->arch && opts->arch[0] ? opts->arch : NVRTC_DEFAULT_ARCH;
    snprintf(out->arch, sizeof out->arch, "%s", arch);
    bool ok = false;
    char *text = NULL;
    strbuf key = STRBUF_INIT;
    char cache_path[CL_PATH_MAX] = "";
    nvrtc_includes *inc = calloc(1, sizeof *inc);
    if (!inc)
        return err_set(err, "out of memory");

    char real[PATH_MAX];
    if (!kernel_folders(path, opts, inc, real, sizeof real, err) || !check_arch(arch, err))
        goto cleanup;
    snprintf(out->path, sizeof out->path, "%s", real);
    size_t len = 0;
    if (!(text = file_read_all(real, NVRTC_SOURCE_MAX, &len, err)))
        goto cleanup;
    if (strlen(text) != len) {
        err_set(err, "%s is not a text file (it holds a NUL byte)", path);
        goto cleanup;
    }
    nvrtc_diag refusal;
    if (!nvrtc_includes_check(real, text, inc, &refusal)) {
        refused(out, &refusal, err);
        goto cleanup;
    }
    char src_dir[CL_PATH_MAX];
    paths_dir_name(real, src_dir, sizeof src_dir);
    if (!opts->no_cache) {
        compile_opts co;
        build_opts(&co, arch, src_dir, inc, true);
        if (!cache_key(&key, real, &co, text, len, inc, err))
            goto cleanup;
        if (nvrtc_cache_file(opts, &key, cache_path, sizeof cache_path, NULL) &&
            nvrtc_cache_load(cache_path, &key, out)) {
            out->cache_hit = true;
            nvrtc_parse_usage(out->log, out->kernels, out->nkernels);
            ok = parse_diags(out, text, inc, err);
            goto cleanup;
        }
    }
    if (!compile_text(text, arch, src_dir, inc, out, err))
        goto cleanup;
    if (cache_path[0])
        nvrtc_cache_store(cache_path, &key, out);
    ok = true;
cleanup:
    free(text);
    free(inc);
    strbuf_free(&key);
    return ok;
}

void nvrtc_output_free(nvrtc_output *out)
{
    if (!out)
        return;
    free(out->cubin);
    free(out->log);
    free(out->diags);
    free(out->kernels);
    out->cubin = NULL;
    out->log = NULL;
    out->diags = NULL;
    out->kernels = NULL;
    out->cubin_size = out->ndiags = out->nkernels = 0;
}

/* NVRTC: the log parser on recorded logs, real compiles of the starters, the
 * reference solutions and broken kernels for sm_90 (no GPU needed), kernel
 * listing, the cache, and the messages for bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "gpu/nvrtc.h"
#include "support.h"

#define LOG_MAIN_REDUCTION "/home/learner/cudalab-workspace/reduction/starter.cu"
#define LOG_MAIN_MATMUL "/home/learner/cudalab-workspace/matmul/starter.cu"

static char g_data_home[CL_PATH_MAX];   /* XDG_DATA_HOME for the whole run */

/* Parses logs/<name>.log as if compiled from main_path with logs/<name>.cu. */
static void parse_recorded(const char *name, const char *main_path, nvrtc_diag **d, size_t *n)
{
    char log_path[CL_PATH_MAX], src_path[CL_PATH_MAX];
    ts_data_path(log_path, sizeof log_path, "gpu/logs/%s.log", name);
    ts_data_path(src_path, sizeof src_path, "gpu/logs/%s.cu", name);
    char *log = ts_read(log_path);
    char *src = ts_read(src_path);
    assert_non_null(log);
    assert_non_null(src);
    assert_true(nvrtc_parse_log(log, main_path, src, d, n));
    free(log);
    free(src);
}

/* ---- the parser on recorded logs ------------------------------------------- */

static void test_log_undefined_and_missing_semicolon(void **state)
{
    (void)state;
    nvrtc_diag *d = NULL;
    size_t n = 0;
    parse_recorded("undefined", LOG_MAIN_REDUCTION, &d, &n);
    assert_int_equal(n, 2);
    assert_string_equal(d[0].file, LOG_MAIN_REDUCTION);
    assert_int_equal(d[0].line, 4);
    assert_int_equal(d[0].col, 23);
    assert_int_equal(d[0].severity, NVRTC_SEV_ERROR);
    assert_string_equal(d[0].message, "identifier \"blockDim_x\" is undefined");
    assert_string_equal(d[0].source, "\tint i = blockIdx.x * blockDim_x + threadIdx.x;");
    assert_int_equal(d[1].line, 6);
    assert_int_equal(d[1].col, 5);
    assert_string_equal(d[1].message, "expected a \";\"");
    assert_string_equal(d[1].source, "    int unused = 3;");

    char buf[2048];
    nvrtc_diag_format(&d[0], buf, sizeof buf);
    assert_string_equal(buf,
                        "starter.cu:4:23: error: identifier \"blockDim_x\" is undefined\n"
                        "\tint i = blockIdx.x * blockDim_x + threadIdx.x;\n"
                        "\t                     ^\n");
    nvrtc_diag_headline(&d[1], buf, sizeof buf);
    assert_string_equal(buf, "starter.cu:6:5: error: expected a \";\"");
    free(d);
}

static void test_log_warning_and_ptxas_error(void **state)
{
    (void)state;
    nvrtc_diag *d = NULL;
    size_t n = 0;
    parse_recorded("shared", LOG_MAIN_MATMUL, &d, &n);
    assert_int_equal(n, 2);
    assert_int_equal(d[0].severity, NVRTC_SEV_WARNING);
    assert_int_equal(d[0].line, 5);
    assert_int_equal(d[0].col, 9);
    assert_string_equal(d[0].message, "variable \"unused\" was declared but never referenced");
    assert_int_equal(d[1].severity, NVRTC_SEV_ERROR);
    assert_string_equal(d[1].file, LOG_MAIN_MATMUL);
    assert_int_equal(d[1].line, 3);            /* the kernel's definition: void big_tile(...) */
    assert_int_equal(d[1].col, 0);
    assert_true(ts_contains(d[1].message, "ptxas: Entry function 'big_tile' uses too much shared data"));
    assert_string_equal(d[1].source, "void big_tile(float *x)");
    char buf[1024];
    nvrtc_diag_headline(&d[1], buf, sizeof buf);
    assert_true(ts_contains(buf, "starter.cu:3: error: ptxas: Entry function 'big_tile'"));
    nvrtc_diag_format(&d[1], buf, sizeof buf);
    assert_true(ts_contains(buf, "\nvoid big_tile(float *x)\n"));
    assert_null(strchr(buf, '^'));
    free(d);
}

static void test_log_template_and_parenthesised_path(void **state)
{
    (void)state;
    nvrtc_diag *d = NULL;
    size_t n = 0;
    parse_recorded("template", "/home/learner/my (copy)/starter.cu", &d, &n);
    assert_int_equal(n, 1);
    assert_string_equal(d[0].file, "/home/learner/my (copy)/starter.cu");
    assert_int_equal(d[0].line, 2);
    assert_int_equal(d[0].col, 56);
    assert_true(ts_contains(d[0].message, "expression must have class type but it has type \"float\""));
    assert_true(ts_contains(d[0].message, "detected during instantiation of"));
    assert_true(ts_contains(d[0].message, "at line 4"));
    free(d);
}

static void test_log_catastrophic_include(void **state)
{
    (void)state;
    nvrtc_diag *d = NULL;
    size_t n = 0;
    parse_recorded("include", "starter.cu", &d, &n);
    assert_int_equal(n, 1);
    assert_int_equal(d[0].severity, NVRTC_SEV_ERROR);
    assert_int_equal(d[0].line, 1);
    assert_int_equal(d[0].col, 23);
    assert_string_equal(d[0].message, "cannot open source file \"helpers.cuh\"");
    /* starter.cu is not on disk here: the echoed line stands in. */
    assert_string_equal(d[0].source, "#include \"helpers.cuh\"");
    free(d);
}

static void test_log_empty_and_tool_lines(void **state)
{
    (void)state;
    nvrtc_diag *d = NULL;
    size_t n = 7;
    assert_true(nvrtc_parse_log("", "a.cu", NULL, &d, &n));
    assert_int_equal(n, 0);
    assert_null(d);
    assert_true(nvrtc_parse_log(NULL, "a.cu", NULL, &d, &n));
    assert_int_equal(n, 0);
    const char *log = "nvrtc: error: invalid value for --gpu-architecture (-arch)\n"
                      "ptxas info    : 0 bytes gmem\n"
                      "Remark: The warnings can be suppressed\n"
                      "1 error detected in the compilation of \"a.cu\".\n";
    assert_true(nvrtc_parse_log(log, "a.cu", NULL, &d, &n));
    assert_int_equal(n, 1);
    assert_string_equal(d[0].message, "invalid value for --gpu-architecture (-arch)");
    assert_int_equal(d[0].line, 0);
    char buf[256];
    nvrtc_diag_headline(&d[0], buf, sizeof buf);
    assert_string_equal(buf, "error: invalid value for --gpu-architecture (-arch)");
    free(d);
}

static void test_usage_from_ptxas_lines(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    ts_data_path(path, sizeof path, "gpu/logs/usage.log");
    char *log = ts_read(path);
    assert_non_null(log);
    nvrtc_kernel k[2];
    memset(k, 0, sizeof k);
    snprintf(k[0].name, sizeof k[0].name, "reduce_sum");
    snprintf(k[1].name, sizeof k[1].name, "other");
    k[0].registers = k[1].registers = -1;
    k[0].shared_bytes = k[1].shared_bytes = -1;
    nvrtc_parse_usage(log, k, 2);
    assert_int_equal(k[0].registers, 12);
    assert_int_equal(k[0].barriers, 1);
    assert_int_equal(k[0].shared_bytes, 0);
    assert_int_equal(k[0].stack_bytes, 0);
    assert_int_equal(k[0].spill_stores, 0);
    assert_int_equal(k[0].spill_loads, 0);
    assert_int_equal(k[1].registers, -1);
    free(log);
}

static void test_ptx_entries(void **state)
{
    (void)state;
    const char *ptx =
        "//\n// .entry not_this_one(\n//\n.version 9.0\n.target sm_90\n"
        "\t// .globl\treduce_sum\n"
        ".visible .entry reduce_sum(\n"
        "\t.param .u64 .ptr .global .align 4 reduce_sum_param_0,\n"
        "\t.param .u64 reduce_sum_param_1,\n"
        "\t.param .u32 reduce_sum_param_2\n)\n{\n\tret;\n}\n"
        ".visible .entry _Z4tinyv()\n{\n\tret;\n}\n"
        ".visible .entry _Z5mixedfdsc7Payload(\n"
        "\t.param .f32 p0, .param .f64 p1, .param .u16 p2, .param .u8 p3,\n"
        "\t.param .align 8 .b8 p4[16]\n)\n{\n}\n";
    nvrtc_kernel *k = NULL;
    size_t n = 0;
    assert_true(nvrtc_parse_ptx(ptx, &k, &n));
    assert_int_equal(n, 3);
    assert_string_equal(k[0].name, "reduce_sum");
    assert_string_equal(k[0].base, "reduce_sum");
    assert_false(k[0].mangled);
    assert_string_equal(k[0].params, "xxi");
    assert_int_equal(k[0].nparams, 3);
    assert_string_equal(k[1].name, "_Z4tinyv");
    assert_string_equal(k[1].base, "tiny");
    assert_true(k[1].mangled);
    assert_int_equal(k[1].nparams, 0);
    assert_string_equal(k[2].base, "mixed");
    assert_string_equal(k[2].params, "fdhcb");
    free(k);
}

/* ---- real compiles ---------------------------------------------------------- */

typedef struct tmp_env {
    char dir[CL_PATH_MAX];
} tmp_env;

static int setup_tmp(void **state)
{
    tmp_env *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    assert_true(ts_tmpdir(t->dir, sizeof t->dir, "ex"));
    *state = t;
    return 0;
}

static int teardown_tmp(void **state)
{
    tmp_env *t = *state;
    ts_rm_rf(t->dir);
    free(t);
    return 0;
}

static void compile_ok(const char *path, const char *cache_dir, nvrtc_output *out)
{
    nvrtc_opts o = {.arch = "sm_90", .cache_dir = cache_dir, .no_cache = cache_dir == NULL};
    cl_err e = {{0}};
    bool ok = nvrtc_compile_opts(path, &o, out, &e);
    if (!ok)
        print_error("compiling %s: %s\n", path, e.msg);
    assert_true(ok);
    assert_false(out->compile_error);
    assert_non_null(out->cubin);
    assert_true(out->cubin_size > 64);
    assert_memory_equal(out->cubin, "\177ELF", 4);
    assert_null(nvrtc_first_error(out));
    assert_string_equal(out->arch, "sm_90");
}

static void expect_kernel(const nvrtc_output *out, const char *name, const char *params)
{
    const nvrtc_kernel *k = nvrtc_find_kernel(out, name);
    if (!k)
        print_error("no kernel %s in %s\n", name, out->path);
    assert_non_null(k);
    assert_false(k->mangled);
    assert_string_equal(k->params, params);
    assert_true(k->registers > 0);
    assert_true(k->shared_bytes >= 0);
    assert_int_equal(k->spill_stores, 0);
}

static void test_compile_starters(void **state)
{
    (void)state;
    static const struct {
        const char *rel, *kernel, *params;
    } starters[] = {
        {"labs/reduction/starter.cu", "reduce_sum", "xxi"},
        {"labs/matmul/starter.cu", "sgemm", "iiixxx"},
        {"labs/embedding/starter.cu", "embedding", "xxxiii"},
        /* the matmul lab's tensor-core exercise */
        {"labs/matmul/wmma_starter.cu", "gemm_bf16", "iiixxx"},
    };
    for (size_t i = 0; i < sizeof starters / sizeof starters[0]; i++) {
        char path[CL_PATH_MAX];
        ts_home_path(path, sizeof path, "%s", starters[i].rel);
        nvrtc_output out;
        compile_ok(path, NULL, &out);
        assert_int_equal(out.nkernels, 1);
        expect_kernel(&out, starters[i].kernel, starters[i].params);
        assert_int_equal(out.ndiags, 0);
        nvrtc_output_free(&out);
    }
}

static void test_compile_solutions(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    nvrtc_output out;

    ts_data_path(path, sizeof path, "features/exercises/solutions/reduction/solution.cu");
    compile_ok(path, NULL, &out);
    assert_int_equal(out.nkernels, 2);
    expect_kernel(&out, "reduce_partials", "xxi");
    expect_kernel(&out, "reduce_final", "xxi");
    nvrtc_output_free(&out);

    ts_data_path(path, sizeof path, "features/exercises/solutions/matmul/solution.cu");
    compile_ok(path, NULL, &out);
    expect_kernel(&out, "sgemm", "iiixxx");
    assert_true(nvrtc_find_kernel(&out, "sgemm")->shared_bytes >= 8192);
    nvrtc_output_free(&out);

    ts_data_path(path, sizeof path, "features/exercises/solutions/embedding/solution.cu");
    compile_ok(path, NULL, &out);
    expect_kernel(&out, "embedding_vec4", "xxxiii");
    expect_kernel(&out, "embedding_scalar", "xxxiii");
    nvrtc_output_free(&out);
}

static void test_compile_error_line_and_column(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    ts_data_path(path, sizeof path, "features/exercises/broken/compile_error/starter.cu");
    nvrtc_output out;
    cl_err e = {{0}};
    nvrtc_opts o = {.arch = "sm_90", .no_cache = true};
    assert_false(nvrtc_compile_opts(path, &o, &out, &e));
    assert_true(out.compile_error);
    assert_null(out.cubin);
    assert_string_equal(e.msg,
                        "starter.cu:12:41: error: identifier \"blockDim_x\" is undefined");
    const nvrtc_diag *d = nvrtc_first_error(&out);
    assert_non_null(d);
    assert_true(ts_contains(d->file, "broken/compile_error/starter.cu"));
    assert_int_equal(d->file[0], '/');
    assert_string_equal(d->source, "    const unsigned int i = blockIdx.x * blockDim_x + tid;");
    char buf[1024];
    nvrtc_diag_format(d, buf, sizeof buf);
    assert_true(ts_contains(buf, "\n                                        ^\n"));
    nvrtc_output_free(&out);
}

/* On a Hopper GPU the learner's kernel is compiled for sm_90a, which opens
 * wgmma's instructions to inline PTX; plain sm_90 refuses them. */
static void test_compile_for_sm90a_opens_wgmma(void **state)
{
    tmp_env *t = *state;
    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/wgmma.cu", t->dir);
    assert_true(ts_write(path, "extern \"C\" __global__ void fence_only(float *out)\n"
                               "{\n"
                               "    asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\");\n"
                               "    out[threadIdx.x] = 1.0f;\n"
                               "}\n"));
    nvrtc_output out;
    cl_err e = {{0}};
    nvrtc_opts a = {.arch = "sm_90a", .no_cache = true};
    bool ok = nvrtc_compile_opts(path, &a, &out, &e);
    if (!ok)
        print_error("sm_90a: %s\n", e.msg);
    assert_true(ok);
    assert_string_equal(out.arch, "sm_90a");
    assert_non_null(nvrtc_find_kernel(&out, "fence_only"));
    nvrtc_output_free(&out);
    nvrtc_opts plain = {.arch = "sm_90", .no_cache = true};
    assert_false(nvrtc_compile_opts(path, &plain, &out, &e));
    nvrtc_output_free(&out);
}

static void test_compile_too_much_shared_gives_the_reason(void **state)
{
    tmp_env *t = *state;
    char src[CL_PATH_MAX], path[CL_PATH_MAX];
    ts_data_path(src, sizeof src, "gpu/logs/shared.cu");
    snprintf(path, sizeof path, "%s/starter.cu", t->dir);
    char *text = ts_read(src);
    assert_non_null(text);
    assert_true(ts_write(path, text));
    free(text);
    nvrtc_output out;
    cl_err e = {{0}};
    assert_false(nvrtc_compile(path, "sm_90", &out, &e));
    assert_true(out.compile_error);
    const nvrtc_diag *d = nvrtc_first_error(&out);
    assert_non_null(d);
    assert_true(ts_contains(d->message, "too much shared data"));
    assert_int_equal(d->line, 3);
    assert_true(ts_contains(e.msg, "starter.cu:3: error: ptxas: Entry function 'big_tile'"));
    nvrtc_output_free(&out);
}

static void test_cache_hit_and_invalidation(void **state)
{
    tmp_env *t = *state;
    char cache[CL_PATH_MAX], path[CL_PATH_MAX], header[CL_PATH_MAX];
    snprintf(cache, sizeof cache, "%s/cache", t->dir);
    snprintf(path, sizeof path, "%s/starter.cu", t->dir);
    snprintf(header, sizeof header, "%s/scale.cuh", t->dir);
    assert_true(ts_write(header, "#define SCALE 2.0f\n"));
    assert_true(ts_write(path, "#include \"scale.cuh\"\n"
                               "extern \"C\" __global__ void scale(float *x, int n)\n"
                               "{\n"
                               "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                               "    if (i < n) x[i] *= SCALE;\n"
                               "}\n"));
    nvrtc_output a, b, c, d;
    compile_ok(path, cache, &a);
    assert_false(a.cache_hit);
    assert_true(a.compile_ms > 0.0);
    compile_ok(path, cache, &b);
    assert_true(b.cache_hit);
    assert_true(b.compile_ms == 0.0);
    assert_int_equal(a.cubin_size, b.cubin_size);
    assert_memory_equal(a.cubin, b.cubin, a.cubin_size);
    assert_int_equal(b.nkernels, 1);
    assert_string_equal(b.kernels[0].name, "scale");
    assert_string_equal(b.kernels[0].params, "xi");
    assert_int_equal(b.kernels[0].registers, a.kernels[0].registers);
    assert_string_equal(b.path, a.path);

    /* A change in the included header is a miss. */
    assert_true(ts_write(header, "#define SCALE 3.0f\n"));
    compile_ok(path, cache, &c);
    assert_false(c.cache_hit);
    /* And a different architecture is a miss too. */
    nvrtc_opts o = {.arch = "sm_80", .cache_dir = cache};
    cl_err e = {{0}};
    assert_true(nvrtc_compile_opts(path, &o, &d, &e));
    assert_false(d.cache_hit);
    assert_string_equal(d.arch, "sm_80");
    nvrtc_output_free(&a);
    nvrtc_output_free(&b);
    nvrtc_output_free(&c);
    nvrtc_output_free(&d);
}

static void test_cache_in_the_cache_folder(void **state)
{
    tmp_env *t = *state;
    char data[CL_PATH_MAX], path[CL_PATH_MAX], cache[CL_PATH_MAX], xcache[CL_PATH_MAX];
    snprintf(data, sizeof data, "%s/xdg", t->dir);
    snprintf(xcache, sizeof xcache, "%s/xdg-cache", t->dir);
    assert_int_equal(ts_data_home(data), 0);
    assert_int_equal(setenv("XDG_CACHE_HOME", xcache, 1), 0);
    ts_home_path(path, sizeof path, "labs/embedding/starter.cu");
    nvrtc_output a, b;
    cl_err e = {{0}};
    assert_true(nvrtc_compile(path, NULL, &a, &e));
    assert_string_equal(a.arch, NVRTC_DEFAULT_ARCH);
    assert_false(a.cache_hit);
    assert_true(nvrtc_compile(path, NULL, &b, &e));
    assert_true(b.cache_hit);
    snprintf(cache, sizeof cache, "%s/cudalab/nvrtc-cache", xcache);
    assert_true(paths_is_dir(cache));
    snprintf(cache, sizeof cache, "%s/cudalab/nvrtc-cache", data);
    assert_false(paths_is_dir(cache));   /* never in the data folder */
    nvrtc_output_free(&a);
    nvrtc_output_free(&b);
    assert_int_equal(ts_data_home(g_data_home), 0);
}

static void test_mangled_kernel_is_explained(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    ts_data_path(path, sizeof path, "features/exercises/broken/missing_extern_c/starter.cu");
    nvrtc_output out;
    compile_ok(path, NULL, &out);
    assert_null(nvrtc_find_kernel(&out, "reduce_sum"));
    assert_int_equal(out.nkernels, 1);
    assert_string_equal(out.kernels[0].name, "_Z10reduce_sumPKfPfi");
    assert_string_equal(out.kernels[0].base, "reduce_sum");
    char msg[512];
    nvrtc_kernel_missing(&out, "reduce_sum", msg, sizeof msg);
    assert_true(ts_contains(msg, "starter.cu defines reduce_sum"));
    assert_true(ts_contains(msg, "_Z10reduce_sumPKfPfi"));
    assert_true(ts_contains(msg, "extern \"C\" __global__"));
    nvrtc_kernel_missing(&out, "reduce", msg, sizeof msg);
    assert_true(ts_contains(msg, "has no kernel named reduce; it defines: reduce_sum"));
    nvrtc_output_free(&out);
}

static void test_toolkit_headers_are_found(void **state)
{
    tmp_env *t = *state;
    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/starter.cu", t->dir);
    assert_true(ts_write(path, "#include <cuda_fp16.h>\n"
                               "#include <cooperative_groups.h>\n"
                               "namespace cg = cooperative_groups;\n"
                               "extern \"C\" __global__ void half_copy(const float *in, __half *out, int n)\n"
                               "{\n"
                               "    cg::thread_block block = cg::this_thread_block();\n"
                               "    int i = blockIdx.x * blockDim.x + block.thread_rank();\n"
                               "    if (i < n) out[i] = __float2half(in[i]);\n"
                               "}\n"));
    nvrtc_output out;
    compile_ok(path, NULL, &out);
    expect_kernel(&out, "half_copy", "xxi");
    nvrtc_output_free(&out);
}

/* The standard headers a CUDA programmer includes in device code resolve
 * as under nvcc (assets/nvrtc-include), each on its own and all together,
 * C names too, with their names in std:: and the globals they declare. */
static void test_standard_headers_are_found(void **state)
{
    tmp_env *t = *state;
    static const char *const headers[] = {
        "cstdio", "cassert", "cstdint", "cstddef", "cmath", "cfloat", "climits",
        "type_traits", "utility", "limits", "cstdlib", "cstring", "stdio.h", "assert.h",
        "stdint.h", "stddef.h", "math.h", "float.h", "limits.h", "stdlib.h", "string.h",
        "cuda/std/cstdint", "cuda/std/type_traits", "cuda/std/utility", "cuda/std/array",
        "cuda/std/limits", "cuda/std/cmath",
    };
    char path[CL_PATH_MAX], text[1024];
    snprintf(path, sizeof path, "%s/starter.cu", t->dir);
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
        snprintf(text, sizeof text,
                 "#include <%s>\n"
                 "extern \"C\" __global__ void one(float *x) { x[0] = 1.0f; }\n",
                 headers[i]);
        assert_true(ts_write(path, text));
        nvrtc_output out;
        cl_err e = {{0}};
        if (!nvrtc_compile(path, NULL, &out, &e))
            fail_msg("<%s>: %s", headers[i], e.msg);
        if (out.compile_error)
            fail_msg("<%s> does not compile:\n%s", headers[i], out.log);
        nvrtc_output_free(&out);
    }
    assert_true(ts_write(
        path, "#include <cstdio>\n#include <cassert>\n#include <cstdint>\n#include <cstddef>\n"
              "#include <cmath>\n#include <cfloat>\n#include <climits>\n#include <type_traits>\n"
              "#include <utility>\n#include <limits>\n"
              "struct pair_t { int a; float b; };\n"
              "template <typename T> __device__ T twice(T v)\n"
              "{\n"
              "    static_assert(std::is_floating_point<T>::value, \"floats only\");\n"
              "    return v + v;\n"
              "}\n"
              "extern \"C\" __global__ void uses(float *x, std::uint32_t n, const int *v)\n"
              "{\n"
              "    assert(n > 0);\n"
              "    int a = v[0], b = v[1];\n"
              "    std::swap(a, b);\n"
              "    std::size_t off = offsetof(pair_t, b);\n"
              "    if (threadIdx.x == 0) printf(\"n=%u off=%d\\n\", n, (int)off);\n"
              "    std::printf(\"%d\\n\", a);\n"
              "    float m = std::numeric_limits<float>::max() < FLT_MAX ? 0.0f : 1.0f;\n"
              "    x[0] = twice(std::sqrt(2.0f)) + m + (float)M_PI + (float)INT_MAX * FLT_EPSILON +\n"
              "           (std::isnan(x[1]) ? 1.0f : 0.0f) + (float)std::abs(-a) + (float)DBL_MAX * 0.0f;\n"
              "}\n"));
    nvrtc_output out;
    compile_ok(path, NULL, &out);
    expect_kernel(&out, "uses", "xix");
    nvrtc_output_free(&out);
}

static void test_bad_input(void **state)
{
    tmp_env *t = *state;
    nvrtc_output out;
    cl_err e = {{0}};
    char path[CL_PATH_MAX];
    ts_home_path(path, sizeof path, "labs/reduction/starter.cu");

    assert_false(nvrtc_compile(path, "compute_90", &out, &e));
    assert_false(out.compile_error);
    assert_true(ts_contains(e.msg, "not a real GPU architecture"));
    nvrtc_output_free(&out);

    assert_false(nvrtc_compile(path, "sm_12", &out, &e));
    assert_true(ts_contains(e.msg, "cannot compile for sm_12"));
    assert_true(ts_contains(e.msg, "sm_90"));
    nvrtc_output_free(&out);

    char missing[CL_PATH_MAX];
    snprintf(missing, sizeof missing, "%s/nothing.cu", t->dir);
    assert_false(nvrtc_compile(missing, NULL, &out, &e));
    assert_true(ts_contains(e.msg, "cannot open"));
    assert_true(ts_contains(e.msg, "nothing.cu"));
    nvrtc_output_free(&out);

    char version[32];
    assert_true(nvrtc_version_text(version, sizeof version, &e));
    assert_non_null(strchr(version, '.'));
}

static void test_broken_corpus_compiles_as_labelled(void **state)
{
    (void)state;
    char list[CL_PATH_MAX];
    ts_data_path(list, sizeof list, "features/exercises/broken/cases.txt");
    char *text = ts_read(list);
    assert_non_null(text);
    int cases = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || !line[0])
            continue;
        char name[64], problem[32], size[32], cause[32];
        assert_int_equal(sscanf(line, "%63s %31s %31s %31s", name, problem, size, cause), 4);
        char path[CL_PATH_MAX];
        ts_data_path(path, sizeof path, "features/exercises/broken/%s/starter.cu", name);
        /* The label in the files agrees with the list. */
        char expect[64], lua_path[CL_PATH_MAX];
        snprintf(expect, sizeof expect, "Expected diagnosis: %s", cause);
        ts_data_path(lua_path, sizeof lua_path, "features/exercises/broken/%s/starter.lua", name);
        char *cu = ts_read(path), *lua = ts_read(lua_path);
        assert_non_null(cu);
        assert_non_null(lua);
        if (!strstr(cu, expect) && !strstr(lua, expect))
            fail_msg("%s: neither file says \"%s\"", name, expect);
        free(cu);
        free(lua);

        nvrtc_output out;
        cl_err e = {{0}};
        nvrtc_opts o = {.arch = "sm_90", .no_cache = true};
        bool ok = nvrtc_compile_opts(path, &o, &out, &e);
        if (strcmp(cause, "compile") == 0) {
            assert_false(ok);
            assert_true(out.compile_error);
        } else {
            if (!ok)
                fail_msg("%s does not compile: %s", name, e.msg);
            assert_true(out.nkernels >= 1);
        }
        nvrtc_output_free(&out);
        cases++;
    }
    assert_int_equal(cases, 24);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_log_undefined_and_missing_semicolon),
        cmocka_unit_test(test_log_warning_and_ptxas_error),
        cmocka_unit_test(test_log_template_and_parenthesised_path),
        cmocka_unit_test(test_log_catastrophic_include),
        cmocka_unit_test(test_log_empty_and_tool_lines),
        cmocka_unit_test(test_usage_from_ptxas_lines),
        cmocka_unit_test(test_ptx_entries),
        cmocka_unit_test(test_compile_starters),
        cmocka_unit_test(test_compile_solutions),
        cmocka_unit_test(test_compile_error_line_and_column),
        cmocka_unit_test_setup_teardown(test_compile_for_sm90a_opens_wgmma, setup_tmp,
                                        teardown_tmp),
        cmocka_unit_test_setup_teardown(test_compile_too_much_shared_gives_the_reason, setup_tmp,
                                        teardown_tmp),
        cmocka_unit_test_setup_teardown(test_cache_hit_and_invalidation, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(test_cache_in_the_cache_folder, setup_tmp, teardown_tmp),
        cmocka_unit_test(test_mangled_kernel_is_explained),
        cmocka_unit_test_setup_teardown(test_toolkit_headers_are_found, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(test_standard_headers_are_found, setup_tmp, teardown_tmp),
        cmocka_unit_test_setup_teardown(test_bad_input, setup_tmp, teardown_tmp),
        cmocka_unit_test(test_broken_corpus_compiles_as_labelled),
    };
    if (!ts_tmpdir(g_data_home, sizeof g_data_home, "ex"))
        return 1;
    if (ts_data_home(g_data_home) != 0)
        return 1;
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    ts_rm_rf(g_data_home);
    return failed;
}

/* The multigpu lab's exercise without a GPU: the starter compiles with
 * NVRTC as a rank compiles it; the argument the rank fills in C has the
 * layout of struct ring_args in <cudalab_ring.h> (a kernel that
 * static_asserts each offset compiles, and one that asserts a wrong one
 * does not); a broken learner file is reported at its file:line, by the
 * rank's check and by `cudalab check`; and the milestones judge the
 * learner's rows against NCCL's at 256 MiB and at every size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/nvrtc.h"
#include "lab/labmodel.h"
#include "lab/milestone.h"
#include "mgpu/ring_args.h"
#include "mgpu/ringcheck.h"
#include "support.h"

/* The folder at path, made when missing. */
static void make_dir(const char *path)
{
    static ts_output o;
    ts_shell(&o, true, "mkdir -p '%s'", path);
    if (o.status != 0)
        fail_msg("mkdir %s: %s", path, o.out);
    ts_output_free(&o);
}

static void starter_path(char *out, size_t n)
{
    ts_home_path(out, n, "labs/multigpu/starter.cu");
}

static void test_starter_compiles(void **state)
{
    (void)state;
    char path[CL_PATH_MAX], dir[CL_PATH_MAX], msg[1024];
    starter_path(path, sizeof path);
    ts_home_path(dir, sizeof dir, "labs/multigpu");
    if (!mgpu_ring_check(path, dir, msg, sizeof msg))
        fail_msg("the starter does not compile: %s", msg);
    printf("starter.cu compiles with NVRTC for " NVRTC_DEFAULT_ARCH "\n");
    /* the GPU test's fast answer, written against the same interface */
    ts_data_path(path, sizeof path, "features/multigpu/ring_solution.cu");
    ts_data_path(dir, sizeof dir, "features/multigpu");
    if (!mgpu_ring_check(path, dir, msg, sizeof msg))
        fail_msg("ring_solution.cu does not compile: %s", msg);
    printf("ring_solution.cu compiles with NVRTC for " NVRTC_DEFAULT_ARCH "\n");
}

/* A kernel file that static_asserts ring_args' layout as C has it (one
 * offset off by delta), compiled; the first error, or "".  NVRTC has no
 * __builtin_offsetof; its front end's __INTADDR__ gives the offset as a
 * constant. */
static void compile_layout(int delta, char *err, size_t n)
{
    static const struct { const char *name; size_t off; } f[] = {
#define F(x) {#x, offsetof(ring_args, x)}
        F(rank), F(nranks), F(left), F(right), F(count), F(epoch), F(reserved), F(send),
        F(recv), F(scratch), F(flags), F(left_flags), F(right_flags), F(send_of), F(recv_of),
        F(scratch_of), F(flags_of),
#undef F
    };
    char text[4096], path[CL_PATH_MAX];
    size_t len = (size_t)snprintf(text, sizeof text,
                                  "#include <cudalab_ring.h>\n"
                                  "static_assert(sizeof(ring_args) == %zu, \"size\");\n"
                                  "static_assert(RING_MAX_RANKS == %d && RING_MAX_BLOCKS == %d && "
                                  "RING_FLAG_WORDS == %d, \"limits\");\n",
                                  sizeof(ring_args), RING_MAX_RANKS, RING_MAX_BLOCKS,
                                  RING_FLAG_WORDS);
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "static_assert(__INTADDR__(&((ring_args *)0)->%s) == %zu, "
                                "\"%s moved\");\n",
                                f[i].name, f[i].off + (i == 4 ? (size_t)delta : 0), f[i].name);
    snprintf(text + len, sizeof text - len,
             "extern \"C\" __global__ void " RING_KERNEL "(const ring_args a) {}\n");
    snprintf(path, sizeof path, "%s/layout/layout.cu", ts_tmp);
    char dir[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/layout", ts_tmp);
    make_dir(dir);
    assert_true(ts_write(path, text));
    nvrtc_output out;
    cl_err e = {{0}};
    nvrtc_opts o = {.no_cache = true};
    err[0] = '\0';
    if (!nvrtc_compile_opts(path, &o, &out, &e))
        snprintf(err, n, "%s", e.msg);
    nvrtc_output_free(&out);
}

static void test_layout(void **state)
{
    (void)state;
    char err[CL_ERR_MAX];
    compile_layout(0, err, sizeof err);
    if (err[0])
        fail_msg("<cudalab_ring.h> and mgpu/ring_args.h disagree: %s", err);
    compile_layout(8, err, sizeof err);
    if (!strstr(err, "count moved"))
        fail_msg("a wrong offset was not caught: '%s'", err);
    printf("ring_args: %zu bytes, the same layout in C and in <cudalab_ring.h>\n",
           sizeof(ring_args));
}

/* The starter with line `at` (1-based) replaced by text, in a folder of
 * its own; its path in out. */
static void broken_copy(const char *tag, int at, const char *text, char *out, size_t n)
{
    char src[CL_PATH_MAX], dir[CL_PATH_MAX];
    starter_path(src, sizeof src);
    char *orig = ts_read(src);
    assert_non_null(orig);
    snprintf(dir, sizeof dir, "%s/%s", ts_tmp, tag);
    make_dir(dir);
    snprintf(out, n, "%s/starter.cu", dir);
    size_t cap = strlen(orig) + strlen(text) + 2, len = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    int line = 1;
    for (const char *p = orig; *p;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p + 1) : strlen(p);
        if (line == at)
            len += (size_t)snprintf(t + len, cap - len, "%s\n", text);
        else {
            memcpy(t + len, p, l);
            len += l;
        }
        p += l;
        line++;
    }
    t[len] = '\0';
    assert_true(ts_write(out, t));
    free(t);
    free(orig);
}

/* The line of the starter that holds needle (1-based). */
static int line_of(const char *needle)
{
    char src[CL_PATH_MAX];
    starter_path(src, sizeof src);
    char *text = ts_read(src);
    assert_non_null(text);
    const char *at = strstr(text, needle);
    assert_non_null(at);
    int line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    free(text);
    return line;
}

static void test_broken_files(void **state)
{
    (void)state;
    char path[CL_PATH_MAX], msg[1024], want[64];
    int at = line_of("const int n = a.nranks");
    broken_copy("syntax", at, "    const int n = a.nranks nblocks = gridDim.x;", path, sizeof path);
    assert_false(mgpu_ring_check(path, NULL, msg, sizeof msg));
    snprintf(want, sizeof want, "starter.cu:%d:", at);
    if (!ts_starts_with(msg, want) || !strstr(msg, "error"))
        fail_msg("expected %s...: %s", want, msg);
    printf("a syntax error: %s\n", msg);

    at = line_of("extern \"C\" __global__ void ring_allreduce");
    broken_copy("mangled", at, "__global__ void ring_allreduce(const ring_args a)", path,
                sizeof path);
    assert_false(mgpu_ring_check(path, NULL, msg, sizeof msg));
    if (!strstr(msg, "extern \"C\""))
        fail_msg("%s", msg);
    printf("no extern \"C\": %s\n", msg);

    broken_copy("params", at, "extern \"C\" __global__ void ring_allreduce(const ring_args a, int x)",
                path, sizeof path);
    assert_false(mgpu_ring_check(path, NULL, msg, sizeof msg));
    if (!strstr(msg, "takes 2 parameters"))
        fail_msg("%s", msg);
    printf("two parameters: %s\n", msg);

    /* a file outside its folder cannot be included */
    at = line_of("#include <cudalab_ring.h>");
    broken_copy("escape", at, "#include \"../../etc/passwd\"", path, sizeof path);
    assert_false(mgpu_ring_check(path, NULL, msg, sizeof msg));
    snprintf(want, sizeof want, "starter.cu:%d:", at);
    if (!ts_starts_with(msg, want))
        fail_msg("%s", msg);
    printf("an include outside the folder: %s\n", msg);
}

/* `cudalab check` on a copy of the lab whose starter is broken names the
 * file and line. */
static void test_check_broken_lab(void **state)
{
    (void)state;
    static ts_output o;
    char dir[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/labs/multigpu", ts_tmp);
    make_dir(dir);
    ts_shell(&o, true, "cp '%s/labs/multigpu/lab.lua' '%s/'", getenv("CUDALAB_HOME"), dir);
    assert_int_equal(o.status, 0);
    char path[CL_PATH_MAX], src[CL_PATH_MAX];
    int at = line_of("const int n = a.nranks");
    broken_copy("labs/multigpu", at, "    int n = ;", src, sizeof src);
    snprintf(path, sizeof path, "%s/starter.cu", dir);
    assert_string_equal(src, path);
    ts_shell(&o, true, "'%s' check '%s'", ts_exe(), dir);
    char want[64];
    snprintf(want, sizeof want, "exercise: its starter: starter.cu:%d:", at);
    if (o.status == 0 || !ts_contains(o.out, want))
        fail_msg("exit %d:\n%s", o.status, o.out);
    printf("%s", o.out);
    ts_output_free(&o);
}

/* A learner's row and NCCL's at size, of times mine and nccl. */
static void two_rows(run_result *rs, const char *size, double mine, double nccl, bool right)
{
    for (int i = 0; i < 2; i++) {
        run_result_init(&rs[i]);
        snprintf(rs[i].size, sizeof rs[i].size, "%s", size);
        rs[i].status = RS_CORRECT;
        rs[i].samples = 10;
    }
    snprintf(rs[0].variant, sizeof rs[0].variant, "exercise");
    rs[0].kind = RK_EXERCISE;
    rs[0].median_ms = mine;
    rs[0].status = right ? RS_CORRECT : RS_WRONG;
    snprintf(rs[1].variant, sizeof rs[1].variant, "ar_nccl");
    rs[1].kind = RK_LIBRARY;
    rs[1].median_ms = nccl;
}

static size_t milestone_index(const lab *l, const char *id)
{
    for (size_t i = 0; i < l->nmilestones; i++)
        if (strcmp(l->milestones[i].id, id) == 0)
            return i;
    fail_msg("no milestone %s", id);
    return 0;
}

static ms_state judge(lab *l, const char *id, const run_result *rs, size_t n, ms_eval *ev)
{
    assert_true(lab_milestone_eval_judged(l, milestone_index(l, id), rs, n, ev));
    return ev->state;
}

static void test_milestones(void **state)
{
    (void)state;
    lab *l = ts_lab_shipped("multigpu");
    assert_non_null(l);
    static const char *const sizes[] = {"8 B", "64 B", "512 B", "4 KiB", "32 KiB", "256 KiB",
                                        "2 MiB", "16 MiB", "64 MiB", "256 MiB", "1 GiB"};
    run_result rs[22];
    ms_eval ev;
    for (int k = 0; k < 11; k++)
        two_rows(&rs[2 * k], sizes[k], 2.0, 1.0, true);
    /* at 256 MiB: half NCCL's speed reaches 0.5, not 0.8 */
    assert_int_equal(judge(l, "ring_half", rs, 22, &ev), MS_REACHED);
    assert_int_equal(judge(l, "ring_near", rs, 22, &ev), MS_MISSED);
    printf("0.5x of NCCL at 256 MiB: ring_near shows '%s'\n", ev.shown);
    rs[18].median_ms = 1.2;   /* 256 MiB: 1/1.2 = 0.83 of NCCL */
    assert_string_equal(rs[18].size, "256 MiB");
    assert_int_equal(judge(l, "ring_near", rs, 22, &ev), MS_REACHED);
    /* NCCL could not run: pending, not missed */
    rs[19].status = RS_ERROR;
    assert_int_equal(judge(l, "ring_near", rs, 22, &ev), MS_PENDING);
    rs[19].status = RS_CORRECT;

    assert_int_equal(judge(l, "ring_correct", rs, 22, &ev), MS_REACHED);
    rs[6].status = RS_WRONG;   /* 4 KiB */
    assert_int_equal(judge(l, "ring_correct", rs, 22, &ev), MS_MISSED);
    if (!strstr(ev.shown, "at 4 KiB"))
        fail_msg("%s", ev.shown);
    printf("wrong at 4 KiB: ring_correct shows '%s'\n", ev.shown);
    rs[6].status = RS_CORRECT;
    assert_int_equal(judge(l, "ring_correct", rs, 20, &ev), MS_PENDING);   /* no 1 GiB row */
    lab_free(l);
}

int main(void)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_starter_compiles), cmocka_unit_test(test_layout),
        cmocka_unit_test(test_broken_files),     cmocka_unit_test(test_check_broken_lab),
        cmocka_unit_test(test_milestones),
    };
    return cmocka_run_group_tests(tests, ts_tmp_setup, ts_tmp_teardown);
}

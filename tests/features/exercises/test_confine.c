/* Learner code reaches no file but its own folder and the shipped headers:
 * a planted secret (a grading key beside the workspace) is never read,
 * whatever trick a kernel uses to include it; refusals name the file and
 * line; the compiling thread is confined by Landlock where the kernel has
 * it; the worker's environment never holds the key; a FIFO or a link as the
 * learner's file is refused at once.  No GPU needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fsguard.h"
#include "core/landlock.h"
#include "core/paths.h"
#include "core/spawn.h"
#include "gpu/nvrtc.h"
#include "supervise/supervisor.h"
#include "support.h"

#define SECRET "SECRET-7f3a9c-do-not-leak"

static char g_top[CL_PATH_MAX];      /* the test's folder */
static char g_key[CL_PATH_MAX];      /* <top>/instructor/grade.key, holding SECRET */
static char g_ws[CL_PATH_MAX];       /* <top>/ws/reduction: the learner's folder */

static int setup(void **state)
{
    (void)state;
    if (!ts_tmpdir(g_top, sizeof g_top, "confine"))
        return -1;
    char dir[CL_PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/instructor", g_top);
    snprintf(g_key, sizeof g_key, "%s/instructor/grade.key", g_top);
    snprintf(g_ws, sizeof g_ws, "%s/ws/reduction", g_top);
    char data[CL_PATH_MAX + 32];
    snprintf(data, sizeof data, "%s/data", g_top);
    cl_err e;
    if (!paths_mkdir_p(dir, &e) || !paths_mkdir_p(g_ws, &e) || !paths_mkdir_p(data, &e))
        return -1;
    ts_data_home(data);
    setenv("XDG_CACHE_HOME", data, 1);
    FILE *f = fopen(g_key, "w");
    if (!f)
        return -1;
    fprintf(f, "%s\n", SECRET);
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ts_rm_rf(g_top);
    return 0;
}

/* Writes the learner's starter.cu (after formatting, with @KEY@ replaced by
 * the key's path) and compiles it. */
static bool compile_text(const char *text, nvrtc_output *out, cl_err *e)
{
    char path[CL_PATH_MAX + 16], body[8192];
    size_t n = 0;
    for (const char *p = text; *p && n + CL_PATH_MAX < sizeof body; p++) {
        if (strncmp(p, "@KEY@", 5) == 0) {
            n += (size_t)snprintf(body + n, sizeof body - n, "%s", g_key);
            p += 4;
        } else if (strncmp(p, "@TOP@", 5) == 0) {
            n += (size_t)snprintf(body + n, sizeof body - n, "%s", g_top);
            p += 4;
        } else {
            body[n++] = *p;
        }
    }
    body[n] = '\0';
    snprintf(path, sizeof path, "%s/starter.cu", g_ws);
    unlink(path);
    assert_true(ts_write(path, body));
    nvrtc_opts o = {.arch = "sm_90", .no_cache = true};
    return nvrtc_compile_opts(path, &o, out, e);
}

/* Nothing about the compile holds the secret: the error, the log, every
 * diagnostic and its quoted source line. */
static void assert_no_secret(const nvrtc_output *out, const cl_err *e)
{
    assert_null(strstr(e->msg, SECRET));
    assert_true(!out->log || !strstr(out->log, SECRET));
    for (size_t i = 0; i < out->ndiags; i++) {
        assert_null(strstr(out->diags[i].message, SECRET));
        assert_null(strstr(out->diags[i].source, SECRET));
    }
}

/* The kernel is refused before NVRTC runs: a compile error at line, whose
 * message holds want. */
static void expect_refused(const char *text, int line, const char *want)
{
    nvrtc_output out;
    cl_err e = {{0}};
    bool ok = compile_text(text, &out, &e);
    if (ok || !out.compile_error || out.ndiags == 0)
        fprintf(stderr, "expected a refusal (%s) for:\n%s\ngot ok=%d: %s\n", want, text, ok,
                e.msg);
    assert_false(ok);
    assert_true(out.compile_error);
    assert_int_equal(out.ndiags, 1);
    assert_int_equal(out.diags[0].line, line);
    assert_true(ts_contains(out.diags[0].file, "starter.cu") ||
                ts_contains(out.diags[0].file, ".h"));
    assert_true(ts_contains(out.diags[0].message, want));
    assert_true(ts_contains(e.msg, want));
    assert_no_secret(&out, &e);
    nvrtc_output_free(&out);
}

static void test_absolute_and_dotdot(void **state)
{
    (void)state;
    expect_refused("__device__ int leak =\n#include \"@KEY@\"\n;\n", 2, "absolute paths");
    expect_refused("#include <@KEY@>\n", 1, "absolute paths");
    expect_refused("// the key\n#include \"../../instructor/grade.key\"\n", 2, "'..'");
    expect_refused("#include <../../../instructor/grade.key>\n", 1, "'..'");
    expect_refused("#include \"sub/../../../instructor/grade.key\"\n", 1, "'..'");
}

static void test_refused_directives(void **state)
{
    (void)state;
    expect_refused("#include_next <grade.key>\n", 1, "#include_next is not allowed");
    expect_refused("#import \"x.h\"\n", 1, "#import is not allowed");
    expect_refused("#embed \"@KEY@\"\n", 1, "#embed is not allowed");
    expect_refused("#if __has_include(\"@KEY@\")\n#endif\n", 1, "absolute paths");
    expect_refused("#if __has_include_next(<x.h>)\n#endif\n", 1, "__has_include_next");
    expect_refused("#define HAS __has_include\n#if HAS(\"@KEY@\")\n#endif\n", 1,
                   "__has_include must name its file directly");
    /* refused even where the preprocessor would skip it */
    expect_refused("#if 0\n#include \"@KEY@\"\n#endif\n", 2, "absolute paths");
}

static void test_macros_that_build_a_path(void **state)
{
    (void)state;
    expect_refused("#define P \"@KEY@\"\n#include P\n", 2, "built by a macro");
    expect_refused("#define S(x) #x\n#define T(x) S(x)\n#include T(@KEY@)\n", 3,
                   "built by a macro");
    expect_refused("#define I <grade.key>\n#  include I\n", 2, "built by a macro");
}

static void test_spellings_of_include(void **state)
{
    (void)state;
    /* a line splice inside the directive's name, and inside the path */
    expect_refused("int a;\n#inc\\\nlude \"@KEY@\"\n", 2, "absolute paths");
    expect_refused("# \\\n include \"@KEY@\"\n", 1, "absolute paths");
    /* a backslash followed by spaces */
    expect_refused("int a; \\  \n#include \"@KEY@\"\n", 1, "backslash followed by spaces");
    /* digraph, comments around the name, a universal character name */
    expect_refused("%:include \"@KEY@\"\n", 1, "absolute paths");
    expect_refused("#/* x */include/* y */\"@KEY@\"\n", 1, "absolute paths");
    expect_refused("/* a\n comment */ #include \"@KEY@\"\n", 2, "absolute paths");
    expect_refused("#incl\\u0075de \"@KEY@\"\n", 1, "absolute paths");
    /* after literals that could hide a line from a careless reader */
    expect_refused("const char *s = R\"x(\n)\"\n)x\";\n#include \"@KEY@\"\n", 4,
                   "absolute paths");
    expect_refused("float f = 1.R\"(\n#include \"@KEY@\"\n", 2, "absolute paths");
    expect_refused("int n = 1'000'000;\n#include \"@KEY@\"\n", 2, "absolute paths");
    expect_refused("char c = '\"';\n#include \"@KEY@\"\n", 2, "absolute paths");
    expect_refused("const char *s = \"unterminated\n#include \"@KEY@\"\n", 2, "absolute paths");
}

static void test_links_and_local_headers(void **state)
{
    (void)state;
    char link[CL_PATH_MAX + 16], hdr[CL_PATH_MAX + 16], sub[CL_PATH_MAX + 16];
    snprintf(link, sizeof link, "%s/key.h", g_ws);
    unlink(link);
    assert_int_equal(symlink(g_key, link), 0);
    expect_refused("#include \"key.h\"\n", 1, "outside the kernel's folder");
    expect_refused("#include <key.h>\n", 1, "outside the kernel's folder");
    unlink(link);

    /* a folder link, and a header of the learner's that includes the key */
    snprintf(sub, sizeof sub, "%s/inst", g_ws);
    unlink(sub);
    char dir[CL_PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/instructor", g_top);
    assert_int_equal(symlink(dir, sub), 0);
    expect_refused("#include \"inst/grade.key\"\n", 1, "outside the kernel's folder");
    unlink(sub);
    snprintf(hdr, sizeof hdr, "%s/local.h", g_ws);
    assert_true(ts_write(hdr, "#pragma once\n\n#include \"@KEY@\"\n"));
    nvrtc_output out;
    cl_err e = {{0}};
    assert_false(compile_text("#include \"local.h\"\n", &out, &e));
    assert_true(out.compile_error);
    assert_true(ts_contains(out.diags[0].file, "local.h"));
    assert_int_equal(out.diags[0].line, 3);
    assert_no_secret(&out, &e);
    nvrtc_output_free(&out);

    /* a header of the learner's that is fine compiles */
    assert_true(ts_write(hdr, "#pragma once\n#define SCALE 2.0f\n"));
    assert_true(compile_text("#include \"local.h\"\nextern \"C\" __global__ void k(float *p) "
                             "{ p[0] = SCALE; }\n",
                             &out, &e));
    nvrtc_output_free(&out);
    unlink(hdr);
}

/* #line can name any file: a diagnostic on the next line must not quote it. */
static void test_line_directive_reads_nothing(void **state)
{
    (void)state;
    nvrtc_output out;
    cl_err e = {{0}};
    assert_false(compile_text("#line 1 \"@KEY@\"\nint x = undefined_name;\n", &out, &e));
    assert_true(out.compile_error);
    assert_true(out.ndiags >= 1);
    assert_no_secret(&out, &e);
    nvrtc_output_free(&out);
}

/* The learner's file itself: a link to the key, a FIFO. */
static void test_the_file_itself(void **state)
{
    (void)state;
    char path[CL_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/starter.cu", g_ws);
    unlink(path);
    assert_int_equal(symlink(g_key, path), 0);
    nvrtc_output out;
    cl_err e = {{0}};
    nvrtc_opts o = {.arch = "sm_90", .no_cache = true};
    assert_false(nvrtc_compile_opts(path, &o, &out, &e));
    assert_true(ts_contains(e.msg, "outside its folder"));
    assert_null(strstr(e.msg, SECRET));
    nvrtc_output_free(&out);
    char *text = fsguard_read(path, NULL, 1 << 20, NULL, &e);
    assert_null(text);
    unlink(path);

    assert_int_equal(mkfifo(path, 0600), 0);
    assert_false(nvrtc_compile_opts(path, &o, &out, &e));   /* at once, not blocked */
    assert_true(ts_contains(e.msg, "not a regular file"));
    nvrtc_output_free(&out);
    unlink(path);
}

/* Landlock, where the kernel offers it: a confined thread cannot read the
 * key, though the file is readable to the process. */
static void *confined_read(void *arg)
{
    int *result = arg;
    char ws[CL_PATH_MAX];
    snprintf(ws, sizeof ws, "%s", g_ws);
    const char *paths[] = {ws};
    if (landlock_confine_reads(paths, 1, NULL, 0) != LANDLOCK_APPLIED) {
        *result = -2;
        return NULL;
    }
    int fd = open(g_key, O_RDONLY);
    *result = fd >= 0 ? 1 : errno == EACCES ? 0 : -1;
    if (fd >= 0)
        close(fd);
    return NULL;
}

static void test_landlock(void **state)
{
    (void)state;
    if (landlock_abi() <= 0) {
        printf("this kernel offers no Landlock: only cudalab's own include checks apply\n");
        return;
    }
    int result = 5;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, confined_read, &result), 0);
    pthread_join(th, NULL);
    assert_int_equal(result, 0);
    int fd = open(g_key, O_RDONLY);   /* this thread is not confined */
    assert_true(fd >= 0);
    close(fd);
}

/* The grading worker (`cudalab worker --confine --read WS`) opens no file
 * outside the folders it was given: asked to compile the key as a
 * kernel, it cannot read it, and nothing it says holds the key. */
typedef struct confined_rec {
    char text[16384];
    size_t len;
    int results;
} confined_rec;

static void rec_text(confined_rec *r, const char *what)
{
    int n = snprintf(r->text + r->len, sizeof r->text - r->len, "%s\n", what);
    if (n > 0 && r->len + (size_t)n < sizeof r->text)
        r->len += (size_t)n;
}

static void confined_result(void *ud, const run_result *r)
{
    ((confined_rec *)ud)->results++;
    rec_text(ud, r->message);
}

static void confined_log(void *ud, int level, const char *msg)
{
    (void)level;
    rec_text(ud, msg);
}

static void confined_fault(void *ud, const run_fault *f)
{
    rec_text(ud, f->message);
}

static void test_confined_worker(void **state)
{
    (void)state;
    if (landlock_abi() <= 0) {
        printf("this kernel offers no Landlock: the grading worker runs unconfined\n");
        return;
    }
    char launcher[CL_PATH_MAX + 16];
    snprintf(launcher, sizeof launcher, "%s/starter.lua", g_ws);
    assert_true(ts_write(launcher, "return function(gpu, k, args) end\n"));
    const char *argv[] = {ts_exe(), "worker", "--confine", "--read", g_ws, NULL};
    static confined_rec r;
    memset(&r, 0, sizeof r);
    supervisor_callbacks cb = {.on_result = confined_result, .on_log = confined_log,
                               .on_fault = confined_fault};
    supervisor_opts o = {.argv = argv, .time_limit_s = 60, .cb = &cb, .ud = &r};
    cl_err e = {{0}};
    supervisor *s = supervisor_new(&o, &e);
    assert_non_null(s);
    run_request req;
    memset(&req, 0, sizeof req);
    req.run = 1;
    snprintf(req.lab, sizeof req.lab, "reduction");
    snprintf(req.problem, sizeof req.problem, "reduce_sum");
    snprintf(req.sizes[0], sizeof req.sizes[0], "1024");
    req.nsizes = 1;
    snprintf(req.exercise_kernel, sizeof req.exercise_kernel, "%s", g_key);
    snprintf(req.exercise_launcher, sizeof req.exercise_launcher, "%s", launcher);
    assert_true(supervisor_submit(s, &req, 60, &e));
    assert_true(supervisor_wait(s, req.run));
    supervisor_free(s);
    printf("the confined worker said:\n%s", r.text);
    assert_true(r.results > 0);
    assert_null(strstr(r.text, SECRET));
    assert_true(ts_contains(r.text, "Permission denied"));
}

/* The grading key never reaches a child's environment. */
static void test_children_never_see_the_key(void **state)
{
    (void)state;
    setenv("CUDALAB_GRADE_KEY", SECRET, 1);
    setenv("CUDALAB_GRADE_OTHER", SECRET, 1);
    static const char *const set[] = {"CUDALAB_GRADE_KEY=" SECRET, "X_CONFINE=1", NULL};
    const char *const argv[] = {"/usr/bin/env", NULL};
    spawn_opts so = {.argv = argv, .out = SPAWN_PIPE, .env = set};
    spawn_child c;
    cl_err e;
    assert_true(spawn_start(&so, &c, &e));
    char buf[65536];
    size_t n = 0;
    for (;;) {
        ssize_t k = spawn_read(c.out, buf + n, sizeof buf - n - 1);
        if (k < 0)
            break;
        if (k == 0) {
            usleep(1000);
            continue;
        }
        n += (size_t)k;
    }
    buf[n] = '\0';
    spawn_wait(c.pid, true, NULL);
    spawn_close(&c);
    assert_null(strstr(buf, SECRET));
    assert_true(ts_contains(buf, "X_CONFINE=1"));
    assert_true(ts_contains(buf, "PATH="));
    unsetenv("CUDALAB_GRADE_KEY");
    unsetenv("CUDALAB_GRADE_OTHER");
}

/* Through the real command line: a learner's run that tries the key shows a
 * refusal, and nothing the run printed or stored holds the secret. */
static void test_run_through_cudalab(void **state)
{
    (void)state;
    char path[CL_PATH_MAX + 16], lua[CL_PATH_MAX + 16], home[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/starter.cu", g_ws);
    snprintf(lua, sizeof lua, "%s/starter.lua", g_ws);
    ts_home_path(home, sizeof home, "labs/reduction/starter.lua");
    char *launcher = ts_read(home);
    assert_non_null(launcher);
    assert_true(ts_write(lua, launcher));
    free(launcher);
    char body[CL_PATH_MAX + 128];
    snprintf(body, sizeof body, "__device__ int leak =\n#include \"%s\"\n;\n", g_key);
    unlink(path);
    assert_true(ts_write(path, body));
    ts_output o = {0};
    setenv("CUDALAB_GRADE_KEY", SECRET, 1);
    int rc = ts_shell(&o, false,
                      "'%s' --workspace '%s/ws' --data '%s/data' run reduction --exercise "
                      "--size 2^10 --no-cpu --json",
                      ts_exe(), g_top, g_top);
    unsetenv("CUDALAB_GRADE_KEY");
    assert_int_not_equal(rc, 0);
    assert_true(ts_contains(o.out, "absolute paths are not allowed"));
    assert_null(strstr(o.out, SECRET));
    assert_null(strstr(o.err, SECRET));
    ts_output_free(&o);
    assert_int_equal(ts_shell(&o, true, "grep -rl '%s' '%s/data' '%s/ws' || true", SECRET, g_top,
                              g_top),
                     0);
    assert_string_equal(o.out, "");
    ts_output_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_absolute_and_dotdot),
        cmocka_unit_test(test_refused_directives),
        cmocka_unit_test(test_macros_that_build_a_path),
        cmocka_unit_test(test_spellings_of_include),
        cmocka_unit_test(test_links_and_local_headers),
        cmocka_unit_test(test_line_directive_reads_nothing),
        cmocka_unit_test(test_the_file_itself),
        cmocka_unit_test(test_landlock),
        cmocka_unit_test(test_confined_worker),
        cmocka_unit_test(test_children_never_see_the_key),
        cmocka_unit_test(test_run_through_cudalab),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

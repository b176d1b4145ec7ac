/* `cudalab run LAB --exercise` and `--sanitize` end to end without a GPU:
 * the starters are copied into the workspace, the exercise row appears
 * beside the shipped rung and says no device was found; --sanitize runs the
 * stand-in tool (found on PATH as compute-sanitizer) around the real
 * worker and prints the findings of its recorded log, as text and JSON; a
 * bad tool name is a usage error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/paths.h"
#include "support.h"

static char g_labs[CL_PATH_MAX];
static char g_ws[CL_PATH_MAX];

/* Runs `cudalab --labs LABS --workspace WS args` with stdout and stderr
 * together in o->out; returns the exit status. */
static int cudalab(ts_output *o, const char *args)
{
    return ts_shell(o, true, "'%s' --labs '%s' --workspace '%s' %s", ts_exe(), g_labs, g_ws,
                    args);
}

/* A lab "exlab": the shipped reduction lab with its starters as the exercise. */
static void make_lab(void)
{
    snprintf(g_labs, sizeof g_labs, "%s/labs", ts_tmp);
    char dir[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/exlab", g_labs);
    assert_int_equal(mkdir(g_labs, 0755), 0);
    assert_int_equal(mkdir(dir, 0755), 0);
    static const char *const files[] = {"starter.cu", "starter.lua"};
    for (size_t i = 0; i < 2; i++) {
        char from[CL_PATH_MAX], to[CL_PATH_MAX];
        ts_home_path(from, sizeof from, "labs/reduction/%s", files[i]);
        char *text = ts_read(from);
        assert_non_null(text);
        snprintf(to, sizeof to, "%s/%s", dir, files[i]);
        assert_true(ts_write(to, text));
        free(text);
    }
    char from[CL_PATH_MAX];
    ts_home_path(from, sizeof from, "labs/reduction/lab.lua");
    char *text = ts_read(from);
    assert_non_null(text);
    const char *id = strstr(text, "id = \"reduction\",");
    if (!id)
        fail_msg("labs/reduction/lab.lua no longer has the line id = \"reduction\",");
    size_t n = strlen(text) + 256;
    char *edited = malloc(n);
    assert_non_null(edited);
    snprintf(edited, n, "%.*sid = \"exlab\",\n  exercise = { kernel = \"starter.cu\", launcher = "
                     "\"starter.lua\" },%s",
             (int)(id - text), text, id + strlen("id = \"reduction\","));
    char to[CL_PATH_MAX];
    snprintf(to, sizeof to, "%s/lab.lua", dir);
    assert_true(ts_write(to, edited));
    free(edited);
    free(text);
}

static void test_run_exercise(void **state)
{
    (void)state;
    ts_output o = {0};
    int rc = cudalab(&o, "run exlab --exercise --no-cpu --size 2^20 --variant sequential");
    print_message("%s", o.out);
    assert_int_equal(rc, 3);
    assert_true(ts_contains(o.out, "copied the lab's starter files into"));
    assert_true(ts_contains(o.out, "\nsequential "));
    assert_true(ts_contains(o.out, "\nexercise "));
    assert_true(ts_contains(o.out, "no CUDA device found"));   /* stderr joined */
    assert_true(strstr(o.out, "\nsequential ") < strstr(o.out, "\nexercise "));
    char kernel[CL_PATH_MAX];
    snprintf(kernel, sizeof kernel, "%s/exlab/starter.cu", g_ws);
    struct stat sb;
    assert_int_equal(stat(kernel, &sb), 0);

    rc = cudalab(&o, "run exlab --sanitize helgrind");
    assert_int_equal(rc, 2);
    assert_true(ts_contains(o.out, "--sanitize needs a tool: memcheck, racecheck, synccheck or "
                                   "initcheck"));
    ts_output_free(&o);
}

static void test_run_sanitize(void **state)
{
    (void)state;
    char bin[CL_PATH_MAX], link[CL_PATH_MAX], tool[CL_PATH_MAX], log[CL_PATH_MAX];
    char args[CL_PATH_MAX];
    snprintf(bin, sizeof bin, "%s/bin", ts_tmp);
    assert_int_equal(mkdir(bin, 0755), 0);
    snprintf(link, sizeof link, "%s/compute-sanitizer", bin);
    ts_data_path(tool, sizeof tool, "features/exercises/sanitizer/fake-compute-sanitizer");
    assert_int_equal(symlink(tool, link), 0);
    ts_data_path(log, sizeof log, "features/exercises/sanitizer/memcheck_oob.log");
    snprintf(args, sizeof args, "%s/args.txt", ts_tmp);
    setenv("FAKE_SANITIZER_LOG", log, 1);
    setenv("FAKE_SANITIZER_ARGS", args, 1);
    const char *old = getenv("PATH");
    char path[2 * CL_PATH_MAX];
    snprintf(path, sizeof path, "%s:%s", bin, old ? old : "/usr/bin:/bin");
    setenv("PATH", path, 1);

    ts_output o = {0};
    int rc = cudalab(&o, "run exlab --sanitize memcheck");
    print_message("%s", o.out);
    assert_int_equal(rc, 3);
    assert_true(
        ts_contains(o.out, "compute-sanitizer memcheck: your kernel for lab exlab at size 2^20"));
    assert_true(ts_contains(o.out, "memcheck found 2 problems:"));
    assert_true(ts_contains(o.out, "  1. invalid read of 4 bytes in global memory in reduce_sum at "
                                   "starter.cu:14"));
    assert_true(ts_contains(o.out, "the tool counted 3 errors"));
    char *noted = ts_read(args);
    assert_non_null(noted);
    assert_true(ts_contains(noted, "--tool memcheck"));
    free(noted);

    rc = cudalab(&o, "run exlab --sanitize racecheck --size 1000 --json");
    assert_int_equal(rc, 3);
    cJSON *root = cJSON_Parse(o.out);
    if (!root)
        fail_msg("not JSON:\n%s", o.out);
    const cJSON *san = cJSON_GetObjectItem(root, "sanitizer");
    assert_non_null(san);
    assert_string_equal(cJSON_GetObjectItem(san, "size")->valuestring, "1000");
    const cJSON *fs = cJSON_GetObjectItem(san, "findings");
    assert_int_equal(cJSON_GetArraySize(fs), 2);
    const cJSON *f0 = cJSON_GetArrayItem(fs, 0);
    assert_string_equal(cJSON_GetObjectItem(f0, "kind")->valuestring, "invalid read");
    assert_int_equal(cJSON_GetObjectItem(f0, "line")->valueint, 14);
    assert_string_equal(cJSON_GetObjectItem(f0, "address")->valuestring, "0x7f3a5e000fa0");
    const cJSON *results = cJSON_GetObjectItem(root, "results");
    assert_int_equal(cJSON_GetArraySize(results), 1);
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetArrayItem(results, 0), "variant")->valuestring, "exercise");
    cJSON_Delete(root);

    /* synccheck: its findings with what they mean */
    ts_data_path(log, sizeof log, "features/exercises/sanitizer/synccheck_divergent.log");
    setenv("FAKE_SANITIZER_LOG", log, 1);
    rc = cudalab(&o, "run exlab --sanitize synccheck");
    print_message("%s", o.out);
    assert_int_equal(rc, 3);
    assert_true(ts_contains(o.out, "compute-sanitizer synccheck: your kernel for lab exlab"));
    assert_true(ts_contains(o.out, "synccheck found 3 problems:"));
    assert_true(ts_contains(o.out, "  2. barrier error in reduce_sum at starter.cu:30, thread "
                                   "(192,0,0) of block (390,0,0): not every thread of the block "
                                   "reached this barrier"));
    noted = ts_read(args);
    assert_non_null(noted);
    assert_true(ts_contains(noted, "--tool synccheck"));
    free(noted);
    ts_output_free(&o);
    setenv("PATH", old ? old : "/usr/bin:/bin", 1);
}

/* A lab "twoex" of two listed exercises (no exercise of its own): one
 * solves the lab's sum, the other a matrix product at its own size, beside
 * its own rung and cuBLAS. */
static void make_two_exercise_lab(void)
{
    char dir[CL_PATH_MAX], from[CL_PATH_MAX], to[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/twoex", g_labs);
    assert_int_equal(mkdir(dir, 0755), 0);
    static const char *const copies[][2] = {
        {"labs/reduction/starter.cu", "again.cu"}, {"labs/reduction/starter.lua", "again.lua"},
        {"labs/matmul/starter.cu", "mm.cu"},       {"labs/matmul/starter.lua", "mm.lua"},
    };
    for (size_t i = 0; i < 4; i++) {
        ts_home_path(from, sizeof from, "%s", copies[i][0]);
        char *text = ts_read(from);
        assert_non_null(text);
        snprintf(to, sizeof to, "%s/%s", dir, copies[i][1]);
        assert_true(ts_write(to, text));
        free(text);
    }
    snprintf(to, sizeof to, "%s/lab.lua", dir);
    assert_true(ts_write(to,
        "return lab {\n"
        "  id = \"twoex\", title = \"Two exercises\", problem = \"reduce_sum\",\n"
        "  sizes = { \"2^20\" }, steps = { step \"One\" [[ text ]] },\n"
        "  exercises = {\n"
        "    exercise { id = \"again\", kernel = \"again.cu\", launcher = \"again.lua\" },\n"
        "    exercise { id = \"mm\", problem = \"sgemm\", sizes = { \"64\" }, library = \"cublas\",\n"
        "               kernel = \"mm.cu\", launcher = \"mm.lua\",\n"
        "               variants = { variant { id = \"naive\", title = \"Naive\", kernel = \"sgemm_naive\" } } },\n"
        "  },\n"
        "}\n"));
}

/* --exercise=ID names one of a lab's exercises: its problem at its sizes,
 * its own rung and library, its files in a folder of their own; every row
 * says which exercise it belongs to. */
static void test_run_listed_exercise(void **state)
{
    (void)state;
    make_two_exercise_lab();
    ts_output o = {0};
    int rc = cudalab(&o, "run twoex --exercise");
    assert_int_equal(rc, 2);
    assert_true(ts_contains(o.out, "lab 'twoex' has several exercises: name one with "
                                   "--exercise=ID (again, mm)"));
    rc = cudalab(&o, "run twoex mm");
    assert_int_equal(rc, 2);
    assert_true(ts_contains(o.out, "unexpected argument 'mm' (name an exercise with --exercise=mm)"));
    rc = cudalab(&o, "run twoex --exercise=zz");
    assert_int_equal(rc, 2);
    assert_true(ts_contains(o.out, "lab 'twoex' has no exercise 'zz' (it has again, mm)"));
    rc = cudalab(&o, "run --help");
    assert_true(ts_contains(o.out, "--exercise[=ID]"));

    rc = cudalab(&o, "run twoex --exercise=mm --no-cpu --json");
    assert_int_equal(rc, 3);
    const char *brace = strchr(o.out, '{');
    cJSON *root = brace ? cJSON_Parse(brace) : NULL;
    if (!root)
        fail_msg("not JSON:\n%s", o.out);
    const cJSON *results = cJSON_GetObjectItem(root, "results");
    assert_int_equal(cJSON_GetArraySize(results), 3);
    char seen[128] = "";
    for (int i = 0; i < 3; i++) {
        const cJSON *r = cJSON_GetArrayItem(results, i);
        strncat(seen, cJSON_GetObjectItem(r, "variant")->valuestring, 32);
        strcat(seen, " ");
        assert_string_equal(cJSON_GetObjectItem(r, "size")->valuestring, "64");
        assert_string_equal(cJSON_GetObjectItem(r, "exercise")->valuestring, "mm");
    }
    assert_string_equal(seen, "naive exercise cublas ");   /* the library row ends the size */
    cJSON_Delete(root);
    char kernel[CL_PATH_MAX];
    struct stat sb;
    snprintf(kernel, sizeof kernel, "%s/twoex/mm/mm.cu", g_ws);
    assert_int_equal(stat(kernel, &sb), 0);
    ts_output_free(&o);
}

static int setup(void **state)
{
    if (ts_tmp_setup(state) != 0)
        return -1;
    setenv("XDG_CONFIG_HOME", ts_tmp, 1);
    snprintf(g_ws, sizeof g_ws, "%s/ws", ts_tmp);
    make_lab();
    return 0;
}

int main(void)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_exercise),
        cmocka_unit_test(test_run_sanitize),
        cmocka_unit_test(test_run_listed_exercise),
    };
    return cmocka_run_group_tests(tests, setup, ts_tmp_teardown);
}

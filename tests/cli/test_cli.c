/* Command-line tests: run the real binary and check output and exit codes.
 * Without a GPU, `doctor` and `run` must say so and exit 3; with one, 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* Runs "$CUDALAB_EXE <args>" into r, stdout and stderr captured apart. */
static void run(ts_output *r, const char *args)
{
    ts_shell(r, false, "'%s' %s", ts_exe(), args);
}

/* `cudalab <args>` is a usage error (exit 2) that says text on stderr (any
 * text when NULL). */
static void expect_usage(const char *args, const char *text)
{
    ts_output r = {0};
    run(&r, args);
    if (r.status != 2)
        fail_msg("cudalab %s: exit %d, expected 2\nstderr:\n%s", args, r.status, r.err);
    if (text)
        assert_true(ts_contains(r.err, text));
    ts_output_free(&r);
}

static void test_help_version_usage(void **state)
{
    (void)state;
    ts_output r = {0};
    run(&r, "--help");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: cudalab"));
    assert_non_null(strstr(r.out, "exit codes"));

    run(&r, "--version");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "cudalab "));
    ts_output_free(&r);

    static const struct {
        const char *args, *text;
    } usage[] = {
        {"--bogus", "unknown option '--bogus'"},
        {"frobnicate", "unknown command 'frobnicate'"},
        {"--labs", "--labs needs a folder"},
        {"run reduction --seed=x", "run: --seed needs a whole number"},
        {"run reduction --no-cpu=1", "run: --no-cpu takes no value"},
        {"run reduction --size", "run: --size needs a size"},
        {"list --jsn", NULL},
        {"run nosuchlab", "no lab called 'nosuchlab'"},
        {"run reduction --variant nope", "no variant 'nope'"},
    };
    for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++)
        expect_usage(usage[i].args, usage[i].text);

    /* Every command takes --opt=VALUE as well as --opt VALUE, and has its
     * own --help. */
    run(&r, "run reduction --seed=5 --size=2^10 --variant=sequential --no-cpu --json");
    assert_int_equal(r.status, 3);
    assert_true(ts_contains(r.out, "\"variant\":\t\"sequential\""));
    assert_null(strstr(r.out, "\"variant\":\t\"interleaved\""));
    assert_true(ts_contains(r.out, "\"size\":\t\"2^10\""));
    ts_output_free(&r);
    static const char *const cmds[] = {"list", "check", "doctor", "run", "profile", "report"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char args[64], want[64];
        snprintf(args, sizeof args, "%s --help", cmds[i]);
        snprintf(want, sizeof want, "usage: cudalab %s", cmds[i]);
        run(&r, args);
        assert_int_equal(r.status, 0);
        assert_true(ts_contains(r.out, want));
        assert_true(ts_contains(r.out, "--labs DIR"));
        ts_output_free(&r);
    }
}

static void test_list_text_and_json(void **state)
{
    (void)state;
    ts_output r = {0};
    run(&r, "list");
    assert_int_equal(r.status, 0);
    const char *ids[] = {"reduction", "matmul", "embedding", "profiling"};
    for (size_t i = 0; i < 4; i++)
        assert_non_null(strstr(r.out, ids[i]));
    ts_output_free(&r);

    run(&r, "list --json");
    assert_int_equal(r.status, 0);
    cJSON *root = cJSON_Parse(r.out);
    assert_non_null(root);
    cJSON *labs = cJSON_GetObjectItemCaseSensitive(root, "labs");
    assert_true(cJSON_IsArray(labs));
    assert_true(cJSON_GetArraySize(labs) >= 4);
    int found = 0;
    cJSON *l;
    cJSON_ArrayForEach(l, labs) {
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l, "id"));
        assert_non_null(id);
        assert_non_null(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l, "title")));
        assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(l, "order")));
        assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(l, "steps")));
        assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(l, "variants")));
        assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(l, "milestones")));
        for (size_t i = 0; i < 4; i++)
            if (strcmp(id, ids[i]) == 0)
                found++;
        if (strcmp(id, "reduction") == 0) {
            assert_true(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(l, "variants")) >= 6);
            assert_true(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(l, "milestones")) >= 1);
        }
    }
    assert_int_equal(found, 4);
    cJSON_Delete(root);
    ts_output_free(&r);
}

static void test_extra_labs_folder(void **state)
{
    (void)state;
    char dir[CL_PATH_MAX], args[CL_PATH_MAX + 64];
    ts_data_path(dir, sizeof dir, "cli/labs/extra");
    snprintf(args, sizeof args, "--labs '%s' list --json", dir);
    ts_output r = {0};
    run(&r, args);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"extra_lab\""));
    assert_non_null(strstr(r.out, "\"reduction\""));
    ts_output_free(&r);
}

static void test_check(void **state)
{
    (void)state;
    ts_output r = {0};
    run(&r, "check");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "ok"));
    ts_output_free(&r);

    char path[CL_PATH_MAX], args[CL_PATH_MAX + 64];
    ts_data_path(path, sizeof path, "cli/labs/extra/extra_lab/lab.lua");
    snprintf(args, sizeof args, "check '%s'", path);
    run(&r, args);
    assert_int_equal(r.status, 0);
    ts_output_free(&r);

    /* A variant naming a kernel that does not exist: file:line: message. */
    ts_data_path(path, sizeof path, "cli/labs/bad");
    snprintf(args, sizeof args, "check '%s'", path);
    run(&r, args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "badkernel/lab.lua:9: variant 'ghost': no shipped kernel named "
                                  "'reduce_does_not_exist'"));
    assert_non_null(strstr(r.out, "lab 'badsize': size 'twelve'"));
    /* A milestone check that misspells a row's field fails on made-up rows,
     * at the milestone's line, naming the check's line and the field; the
     * sound check beside it says nothing. */
    assert_non_null(strstr(r.out, "checktypo/lab.lua:9: milestone 'fast': its check fails on a "
                                  "correct row of every kind at 2^10: line 13: a row has no "
                                  "field 'pct_peek' (did you mean 'pct_peak'?)"));
    assert_null(strstr(r.out, "milestone 'fine'"));
    ts_output_free(&r);

    /* Fills that cannot be drawn at a size: found by check, at the size's
     * line, with the arg's line in the lab file */
    ts_data_path(path, sizeof path, "cli/labs/badfills");
    snprintf(args, sizeof args, "check '%s'", path);
    run(&r, args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "badfill/lab.lua:17: lab 'badfill': size '2^10': "));
    assert_non_null(strstr(r.out, "badfill/lab.lua:9: arg 'x': uniform needs lo < hi, got 1 and 0"));
    assert_non_null(strstr(r.out, "lab 'badfill': size '2^20+1': "));
    assert_non_null(strstr(r.out, "badfill/lab.lua:10: arg 'w' has 1048577 elements at this size: "
                                  "a fill function makes at most 2^20"));
    assert_non_null(strstr(r.out, "3 problems found"));
    ts_output_free(&r);

    /* A declared problem's Lua reference and judges are called without a
     * GPU at the smallest size and a larger one: a reference that raises, one that leaves
     * an element unwritten, a judge that rejects the exact answer, an
     * "exact" output whose reference its type cannot hold; each at
     * the line of the lab file, and check fails */
    ts_data_path(path, sizeof path, "lab/fixtures/probe");
    snprintf(args, sizeof args, "check '%s'", path);
    run(&r, args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "refraise/lab.lua:13: problem 'refraise': reference: attempt "
                                  "to index a nil value (field 'w') (size 2^10"));
    assert_non_null(strstr(r.out, "refunwritten/lab.lua:11: problem 'refunwritten': reference: "
                                  "left y[1023] unwritten"));
    assert_non_null(strstr(r.out, "judgereject/lab.lua:10: problem 'judgereject': judge of 'y': "
                                  "it rejects the reference's own answer, rounded to f32"));
    assert_null(strstr(r.out, "good/lab.lua"));
    /* a judge's words are the lab's: their control characters are shown
     * (ESC as U+241B), never sent to the terminal */
    assert_non_null(strstr(r.out, "ctljudge/lab.lua:10: problem 'ctljudge': judge of 'y': "));
    assert_non_null(strstr(r.out, "no \xE2\x90\x9B]0;pwned"));
    assert_null(strchr(r.out, '\033'));
    assert_non_null(strstr(r.out, "exactthird/lab.lua:9: problem 'exactthird': output 'y': it is "
                                  "judged \"exact\""));
    /* a tolerance no kernel writing the type could meet; a reference that
     * fails only at the larger size probed */
    assert_non_null(strstr(r.out, "tolthird/lab.lua:10: problem 'tolthird': output 'y': its rule "
                                  "{ rel = 1e-09 } rejects"));
    assert_non_null(strstr(r.out, "tolhalf/lab.lua:9: problem 'tolhalf': output 'y': its rule "
                                  "{ abs = 0.1 } rejects"));
    assert_non_null(strstr(r.out, "refbig/lab.lua:14: problem 'refbig': reference: "));
    assert_non_null(strstr(r.out, "14 problems found"));
    ts_output_free(&r);
    /* the sound one alone passes */
    ts_data_path(path, sizeof path, "lab/fixtures/probe/good");
    snprintf(args, sizeof args, "check '%s'", path);
    run(&r, args);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "1 lab ok"));
    ts_output_free(&r);
    /* advice stops nothing: a copy bar beside a one-element output warns,
     * and the lab passes; in JSON the warning says it is one */
    ts_data_path(path, sizeof path, "lab/fixtures/probeadvice");
    snprintf(args, sizeof args, "check '%s'", path);
    run(&r, args);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "copysum/lab.lua:18: warning: problem 'copysum': library "
                                  "\"copy\": "));
    assert_non_null(strstr(r.out, "1 lab ok (1 warning)"));
    ts_output_free(&r);
    snprintf(args, sizeof args, "check --json '%s'", path);
    run(&r, args);
    assert_int_equal(r.status, 0);
    assert_true(ts_contains(r.out, "\"warning\":\ttrue"));
    ts_output_free(&r);

    run(&r, "check /nonexistent/lab.lua");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "/nonexistent/lab.lua: no such file or folder"));
    ts_output_free(&r);

    /* The lab's kernels are compiled, without a GPU: a rung that does not
     * compile (and whose launcher does not parse either), a reference
     * kernel that does not, a launcher that does not load; each at the line
     * of what names it, the file from the lab's. */
    char dir[CL_PATH_MAX];
    assert_true(ts_tmpdir(dir, sizeof dir, "check-kernels"));
    ts_data_path(path, sizeof path, "lab/fixtures/declared/rowsum");
    ts_output o = {0};
    assert_int_equal(ts_shell(&o, true, "cp -r '%s' '%s/rowsum' && cd '%s/rowsum' && "
                                        "echo 'garbage here' >> ref/rowsum.cu && "
                                        "echo 'return = 1' > rungs/bad.lua && "
                                        "sed -i 's|launcher = \"rungs/thread.lua\", why = "
                                        "\"a bug|launcher = \"rungs/bad.lua\", why = \"a bug|' "
                                        "lab.lua && "
                                        "echo 'local x = = 2' > rungs/broken.lua && "
                                        "sed -i 's|launcher = \"rungs/thread.lua\", why = "
                                        "\"a typo|launcher = \"rungs/broken.lua\", why = \"a typo|' "
                                        "lab.lua",
                                        path, dir, dir),
                     0);
    ts_output_free(&o);
    snprintf(args, sizeof args, "check '%s/rowsum'", dir);
    run(&r, args);
    printf("%s", r.out);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "rowsum/lab.lua:38: variant 'broken': rungs/broken.cu:5:5: "
                                  "error: expected a \";\""));
    /* its launcher, not loaded for want of a program, is parsed all the same */
    assert_non_null(strstr(r.out, "; and rungs/broken.lua:1: unexpected symbol near '='"));
    assert_non_null(strstr(r.out, "problem rowsum: its reference kernel: ref/rowsum.cu:13:1: "
                                  "error:"));
    assert_non_null(strstr(r.out, "variant 'wrong': rungs/bad.lua:1:"));
    assert_non_null(strstr(r.out, "3 problems found"));
    ts_output_free(&r);
    ts_rm_rf(dir);
}

/* Returns whether doctor found a device, after checking its JSON. */
static bool doctor_device_present(void)
{
    ts_output r = {0};
    run(&r, "doctor --json");
    cJSON *root = cJSON_Parse(r.out);
    assert_non_null(root);
    cJSON *dev = cJSON_GetObjectItemCaseSensitive(root, "device");
    assert_non_null(dev);
    bool present = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(dev, "present"));
    assert_int_equal(r.status, present ? 0 : 3);
    if (!present) {
        const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dev, "reason"));
        assert_non_null(why);
        assert_non_null(strstr(why, "no CUDA device found"));
    }
    cJSON *tk = cJSON_GetObjectItemCaseSensitive(root, "toolkit");
    assert_non_null(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tk, "cuda_runtime")));
    assert_non_null(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tk, "nvrtc")));
    cJSON *term = cJSON_GetObjectItemCaseSensitive(root, "terminal");
    assert_true(cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(term, "utf8")));
    cJSON *folders = cJSON_GetObjectItemCaseSensitive(root, "folders");
    assert_non_null(cJSON_GetObjectItemCaseSensitive(folders, "workspace"));
    assert_non_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "tools"), "ncu"));
    /* the multigpu lab's probe answered, with as many GPUs as the device says */
    cJSON *mg = cJSON_GetObjectItemCaseSensitive(root, "multigpu");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(mg, "probed")));
    const cJSON *gpus = cJSON_GetObjectItemCaseSensitive(mg, "gpus");
    assert_true(cJSON_IsNumber(gpus) && (present ? gpus->valuedouble >= 1 : gpus->valuedouble == 0));
    assert_true(cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(mg, "nccl")));
    cJSON_Delete(root);
    ts_output_free(&r);
    return present;
}

static void test_doctor(void **state)
{
    (void)state;
    bool present = doctor_device_present();
    ts_output r = {0};
    run(&r, "doctor");
    assert_int_equal(r.status, present ? 0 : 3);
    assert_non_null(strstr(r.out, "CUDA toolkit"));
    assert_non_null(strstr(r.out, "NVRTC"));
    assert_non_null(strstr(r.out, "compute-sanitizer"));
    if (!present)
        assert_non_null(strstr(r.out, "no CUDA device found"));
    assert_non_null(strstr(r.out, "Multi-GPU"));
    ts_output_free(&r);
    /* without NCCL (narrowed by the test switch), the line says what to install */
    ts_output n = {0};
    ts_shell(&n, false, "CUDALAB_MGPU_NO_NCCL=1 '%s' doctor", ts_exe());
    assert_non_null(strstr(n.out, "Multi-GPU"));
    assert_non_null(strstr(n.out, "nvidia-nccl-cu13"));
    ts_output_free(&n);
}

static void test_run(void **state)
{
    (void)state;
    bool present = doctor_device_present();
    ts_output r = {0};
    run(&r, "run reduction --size 2^12 --variant sequential --json");
    assert_int_equal(r.status, present ? 0 : 3);
    cJSON *root = cJSON_Parse(r.out);
    assert_non_null(root);
    cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "results");
    assert_true(cJSON_IsArray(rows));
    int cpu_ok = 0, gpu_rows = 0;
    cJSON *row;
    cJSON_ArrayForEach(row, rows) {
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "kind"));
        const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "status"));
        assert_non_null(kind);
        assert_non_null(status);
        if (strcmp(kind, "cpu") == 0 || strcmp(kind, "cpu_mt") == 0) {
            assert_string_equal(status, "correct");
            cpu_ok++;
        } else {
            gpu_rows++;
            if (!present) {
                assert_string_equal(status, "no_device");
                const char *msg =
                    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "message"));
                assert_non_null(msg);
                assert_non_null(strstr(msg, "no CUDA device found"));
            } else {
                assert_string_equal(status, "correct");
            }
        }
    }
    assert_int_equal(cpu_ok, 2);
    assert_true(gpu_rows >= 2); /* the variant and the library */
    cJSON_Delete(root);
    ts_output_free(&r);

    run(&r, "run reduction --size 2^12 --variant sequential");
    assert_int_equal(r.status, present ? 0 : 3);
    assert_non_null(strstr(r.out, "variant"));
    if (!present)   /* a message: standard error */
        assert_non_null(strstr(r.err, "no CUDA device found"));
    ts_output_free(&r);

    /* A malformed size is a usage error, named once, in the lab's own syntax. */
    run(&r, "run reduction --size banana --no-cpu --json");
    assert_int_equal(r.status, 2);
    assert_true(ts_contains(r.err, "--size 'banana' is not a size of lab 'reduction'"));
    assert_null(strstr(strstr(r.err, "banana") + 1, "banana' is not a size"));
    run(&r, "run matmul --size 3x");
    assert_int_equal(r.status, 2);
    assert_true(ts_contains(r.err, "MxNxK"));
    run(&r, "run profiling --size 10x");
    assert_int_equal(r.status, 2);
    run(&r, "report profiling --size abc");
    assert_int_equal(r.status, 2);
    assert_true(ts_contains(r.err, "ROWS: a number of table rows"));
    static const char *const seeds[] = {"-5", "99999999999999999999999", "0", "x"};
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        char args[96];
        snprintf(args, sizeof args, "run reduction --seed %s", seeds[i]);
        run(&r, args);
        assert_int_equal(r.status, 2);
        assert_true(ts_contains(r.err, "from 1 to 18446744073709551615"));
    }
    static const char *const limits[] = {"nan", "inf", "0.01", "-3"};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        char args[96];
        snprintf(args, sizeof args, "--time-limit %s run reduction", limits[i]);
        run(&r, args);
        assert_int_equal(r.status, 2);
        assert_true(ts_contains(r.err, "--time-limit needs a number of seconds from 1"));
    }
    /* The baselines are rows a user can name. */
    run(&r, "run reduction --size 2^12 --variant cpu --json");
    assert_true(ts_contains(r.out, "\"variant\":\t\"cpu\""));
    assert_null(strstr(r.out, "\"variant\":\t\"cub\""));
    assert_null(strstr(r.out, "\"variant\":\t\"sequential\""));
    run(&r, "run reduction --size 2^12 --variant cub --json");
    assert_true(ts_contains(r.out, "\"variant\":\t\"cub\""));
    assert_null(strstr(r.out, "\"variant\":\t\"cpu\""));
    /* No "GPU rows cannot run here" without CPU rows. */
    run(&r, "run reduction --size 2^12 --no-cpu");
    assert_null(strstr(r.out, "the CPU baselines still do"));
    ts_output_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_version_usage),
        cmocka_unit_test(test_list_text_and_json),
        cmocka_unit_test(test_extra_labs_folder),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_doctor),
        cmocka_unit_test(test_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

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
#include <sys/wait.h>
#include <unistd.h>

typedef struct cmd_out {
    int status;
    char *out;   /* stdout */
    char *err;   /* stderr */
} cmd_out;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return strdup("");
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 >= cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* Runs "$CUDALAB_EXE <args>" with stdout and stderr captured separately. */
static cmd_out run(const char *args)
{
    const char *exe = getenv("CUDALAB_EXE");
    assert_non_null(exe);
    char out_path[] = "/tmp/cudalab-cli-out-XXXXXX";
    char err_path[] = "/tmp/cudalab-cli-err-XXXXXX";
    int fo = mkstemp(out_path), fe = mkstemp(err_path);
    assert_true(fo >= 0 && fe >= 0);
    close(fo);
    close(fe);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>'%s' </dev/null", exe, args, out_path, err_path);
    int st = system(cmd);
    cmd_out r = {.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1};
    r.out = slurp(out_path);
    r.err = slurp(err_path);
    unlink(out_path);
    unlink(err_path);
    return r;
}

static void out_free(cmd_out *r)
{
    free(r->out);
    free(r->err);
}

static const char *data_dir(void)
{
    const char *d = getenv("CUDALAB_TEST_DATA");
    assert_non_null(d);
    return d;
}

static void test_help_version_usage(void **state)
{
    (void)state;
    cmd_out r = run("--help");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: cudalab"));
    assert_non_null(strstr(r.out, "exit codes"));
    out_free(&r);

    r = run("--version");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "cudalab "));
    out_free(&r);

    r = run("--bogus");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "unknown option '--bogus'"));
    out_free(&r);

    r = run("frobnicate");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "unknown command 'frobnicate'"));
    out_free(&r);

    r = run("--labs");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--labs needs a folder"));
    out_free(&r);

    r = run("list --jsn");
    assert_int_equal(r.status, 2);
    out_free(&r);
}

static void test_list_text_and_json(void **state)
{
    (void)state;
    cmd_out r = run("list");
    assert_int_equal(r.status, 0);
    const char *ids[] = {"reduction", "matmul", "embedding", "profiling"};
    for (size_t i = 0; i < 4; i++)
        assert_non_null(strstr(r.out, ids[i]));
    out_free(&r);

    r = run("list --json");
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
    out_free(&r);
}

static void test_extra_labs_folder(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args, "--labs '%s/cli/labs/extra' list --json", data_dir());
    cmd_out r = run(args);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"extra_lab\""));
    assert_non_null(strstr(r.out, "\"reduction\""));
    out_free(&r);
}

static void test_check(void **state)
{
    (void)state;
    cmd_out r = run("check");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "ok"));
    out_free(&r);

    char args[1024];
    snprintf(args, sizeof args, "check '%s/cli/labs/extra/extra_lab/lab.lua'", data_dir());
    r = run(args);
    assert_int_equal(r.status, 0);
    out_free(&r);

    /* A variant naming a kernel that does not exist: file:line: message. */
    snprintf(args, sizeof args, "check '%s/cli/labs/bad'", data_dir());
    r = run(args);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "badkernel/lab.lua:9: variant 'ghost': no shipped kernel named "
                                  "'reduce_does_not_exist'"));
    assert_non_null(strstr(r.out, "lab 'badsize': size 'twelve'"));
    out_free(&r);

    r = run("check /nonexistent/lab.lua");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "/nonexistent/lab.lua: no such file or folder"));
    out_free(&r);
}

/* Returns whether doctor found a device, after checking its JSON. */
static bool doctor_device_present(void)
{
    cmd_out r = run("doctor --json");
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
    cJSON_Delete(root);
    out_free(&r);
    return present;
}

static void test_doctor(void **state)
{
    (void)state;
    bool present = doctor_device_present();
    cmd_out r = run("doctor");
    assert_int_equal(r.status, present ? 0 : 3);
    assert_non_null(strstr(r.out, "CUDA toolkit"));
    assert_non_null(strstr(r.out, "NVRTC"));
    assert_non_null(strstr(r.out, "compute-sanitizer"));
    if (!present)
        assert_non_null(strstr(r.out, "no CUDA device found"));
    out_free(&r);
}

static void test_run(void **state)
{
    (void)state;
    bool present = doctor_device_present();
    cmd_out r = run("run reduction --size 2^12 --variant sequential --json");
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
                assert_string_equal(status, "error");
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
    out_free(&r);

    r = run("run reduction --size 2^12 --variant sequential");
    assert_int_equal(r.status, present ? 0 : 3);
    assert_non_null(strstr(r.out, "variant"));
    if (!present)
        assert_non_null(strstr(r.out, "no CUDA device found"));
    out_free(&r);

    r = run("run nosuchlab");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "no lab called 'nosuchlab'"));
    out_free(&r);

    r = run("run reduction --variant nope");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "no variant 'nope'"));
    out_free(&r);

    r = run("run reduction --size banana --no-cpu --json");
    assert_true(r.status == 1 || r.status == 3);
    assert_non_null(strstr(r.out, "banana"));
    out_free(&r);
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

/* The worker's side of a Python row's python3 child (engine/pybridge.h),
 * without a GPU: python3 runs cudalab_bridge.py over a stand-in for CuPy
 * (tests/features/python/fake/, reached through a wrapper that CUDALAB_PYTHON names).
 * A row opens, runs and is timed; what it prints comes back; an exception
 * is "file:line: Error: message"; a row that never returns is stopped at
 * the time limit and a new child starts; a child that exits is reported
 * with its status.  Skips (exit 77) without python3. */
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

#include "core/clock.h"
#include "engine/pybridge.h"
#include "lab/pyenv.h"
#include "support.h"

/* The open request of the bridge test's rows: fake handles 1, 2, 3. */
static cJSON *open_request(const char *file, const char *shown)
{
    char text[4096 + 1024], h[3][129];
    for (int i = 0; i < 3; i++) {
        snprintf(h[i], sizeof h[i], "%02x", i + 1);
        for (int k = 1; k < 64; k++)
            memcpy(h[i] + 2 * k, "00", 3);
    }
    snprintf(text, sizeof text,
             "{\"cmd\":\"open\",\"file\":\"%s\",\"name\":\"%s\",\"device\":0,\"pci\":\"\","
             "\"size\":\"1000\",\"args\":["
             "{\"name\":\"x\",\"kind\":\"buffer\",\"dtype\":\"f32\",\"count\":1000,\"handle\":\"%s\"},"
             "{\"name\":\"y\",\"kind\":\"buffer\",\"dtype\":\"f32\",\"count\":1000,\"handle\":\"%s\"},"
             "{\"name\":\"z\",\"kind\":\"buffer\",\"dtype\":\"f32\",\"count\":1000,\"handle\":\"%s\"},"
             "{\"name\":\"a\",\"kind\":\"scalar\",\"value\":1.5},"
             "{\"name\":\"n\",\"kind\":\"scalar\",\"value\":1000}]}",
             file, shown, h[0], h[1], h[2]);
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    return j;
}

static pyrow *open_row(const char *name)
{
    char path[CL_PATH_MAX], shown[64], msg[512];
    ts_data_path(path, sizeof path, "features/python/rows/%s", name);
    snprintf(shown, sizeof shown, "rungs/%s", name);
    pyrow *py = engine_python_open(path, shown, msg, sizeof msg);
    if (!py)
        fail_msg("engine_python_open %s: %s", name, msg);
    if (!pybridge_start(py, msg, sizeof msg))
        fail_msg("pybridge_start: %s", msg);
    if (!pybridge_call(py, open_request(path, shown), 60, NULL, msg, sizeof msg))
        fail_msg("open %s: %s", name, msg);
    return py;
}

static void test_run_and_time(void **state)
{
    (void)state;
    char msg[512], out[4096];
    pyrow *py = open_row("axpy.py");
    assert_true(pybridge_call(py, pybridge_command("run"), 30, NULL, msg, sizeof msg));
    cJSON *t = cJSON_Parse("{\"cmd\":\"time\",\"budget_ms\":20,\"min\":10,\"max\":300,"
                           "\"spread\":0.005,\"warmup_ms\":2,\"batch\":32,\"wall_factor\":4,"
                           "\"flush_bytes\":0}");
    cJSON *rep = NULL;
    assert_true(pybridge_call(py, t, 30, &rep, msg, sizeof msg));
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rep, "times"));
    assert_true(n >= 10 && n <= 300);
    cJSON_Delete(rep);
    assert_true(pybridge_take_output(py, out, sizeof out));
    assert_true(ts_contains(out, "axpy ran at 1000"));
    assert_false(pybridge_take_output(py, out, sizeof out));
    assert_true(pybridge_call(py, pybridge_command("release"), 30, NULL, msg, sizeof msg));
    assert_false(pybridge_call(py, pybridge_command("run"), 30, NULL, msg, sizeof msg));
    assert_true(ts_contains(msg, "send open first"));
    assert_true(pybridge_live(py));
    engine_python_close(py);
}

static void test_exception(void **state)
{
    (void)state;
    char msg[512];
    pyrow *py = open_row("raises.py");
    assert_false(pybridge_call(py, pybridge_command("run"), 30, NULL, msg, sizeof msg));
    assert_string_equal(msg, "rungs/raises.py:7: ValueError: the row failed on purpose at n = 1000");
    assert_true(pybridge_live(py));
    engine_python_close(py);
}

static void test_hang_and_restart(void **state)
{
    (void)state;
    char msg[512];
    pyrow *py = open_row("hangs.py");
    double t0 = clock_now_s();
    assert_false(pybridge_call(py, pybridge_command("run"), 2.0, NULL, msg, sizeof msg));
    assert_true(clock_now_s() - t0 < 10.0);
    assert_true(ts_contains(msg, "rungs/hangs.py: no answer within 2 s: python3 stopped"));
    assert_false(pybridge_live(py));
    /* a fresh child for the next size */
    assert_true(pybridge_start(py, msg, sizeof msg));
    assert_true(pybridge_live(py));
    engine_python_close(py);
}

static void test_child_exits(void **state)
{
    (void)state;
    char msg[512], out[1024];
    pyrow *py = open_row("dies.py");
    assert_false(pybridge_call(py, pybridge_command("run"), 30, NULL, msg, sizeof msg));
    assert_true(ts_contains(msg, "rungs/dies.py: python3 ended (exit status 5) without answering"));
    assert_false(pybridge_live(py));
    assert_true(pybridge_take_output(py, out, sizeof out));
    assert_true(ts_contains(out, "leaving now"));
    engine_python_close(py);
}

int main(void)
{
    char python[CL_PATH_MAX], why[256], fake[CL_PATH_MAX], dir[CL_PATH_MAX];
    unsetenv(PYENV_VAR);
    if (!pyenv_find(python, sizeof python, why, sizeof why)) {
        printf("SKIP: %s\n", why);
        return 77;
    }
    /* the wrapper drops -I, which would ignore PYTHONPATH, and adds the stand-in */
    if (!ts_tmpdir(dir, sizeof dir, "pybridge"))
        return 1;
    ts_data_path(fake, sizeof fake, "features/python/fake");
    char wrapper[CL_PATH_MAX + 32], text[3 * CL_PATH_MAX];
    snprintf(wrapper, sizeof wrapper, "%s/python3-fake", dir);
    snprintf(text, sizeof text, "#!/bin/sh\nshift\nPYTHONPATH='%s' exec '%s' \"$@\"\n", fake,
             python);
    if (!ts_write(wrapper, text) || chmod(wrapper, 0755) != 0)
        return 1;
    setenv(PYENV_VAR, wrapper, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_and_time), cmocka_unit_test(test_exception),
        cmocka_unit_test(test_hang_and_restart), cmocka_unit_test(test_child_exits)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    ts_rm_rf(dir);
    return rc;
}

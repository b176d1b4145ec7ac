/* Watch: a save (in place, or write-then-rename) in the watched folder is
 * noticed once after the debounce; other folders and editor temporaries are
 * not; the descriptor wakes a poll() loop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/watch.h"
#include "support.h"

#define DEBOUNCE_MS 80

typedef struct fixture {
    char root[CL_PATH_MAX];
    char lab[CL_PATH_MAX];      /* watched */
    char other[CL_PATH_MAX];    /* not watched */
    watch *w;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    if (!ts_tmpdir(f->root, sizeof f->root, "ex")) {
        free(f);
        return -1;
    }
    snprintf(f->lab, sizeof f->lab, "%s/reduction", f->root);
    snprintf(f->other, sizeof f->other, "%s/matmul", f->root);
    cl_err e = {{0}};
    if (!paths_mkdir_p(f->lab, &e) || !paths_mkdir_p(f->other, &e))
        return -1;
    f->w = watch_new(DEBOUNCE_MS, &e);
    if (!f->w || !watch_add(f->w, f->lab, &e)) {
        print_error("%s\n", e.msg);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    watch_free(f->w);
    ts_rm_rf(f->root);
    free(f);
    return 0;
}

static void path_in(char *out, size_t n, const char *dir, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

static void test_in_place_save_is_noticed(void **state)
{
    fixture *f = *state;
    char p[CL_PATH_MAX];
    path_in(p, sizeof p, f->lab, "starter.cu");
    double t0 = clock_now_ms();
    assert_true(ts_write(p, "extern \"C\" __global__ void k() {}\n"));
    watch_change ch[4];
    cl_err e = {{0}};
    int n = watch_wait(f->w, 3000, ch, 4, &e);
    assert_int_equal(n, 1);
    assert_string_equal(ch[0].path, p);
    assert_true(clock_now_ms() - t0 >= DEBOUNCE_MS - 5);
    assert_int_equal(watch_poll(f->w, ch, 4, &e), 0);
    assert_int_equal(watch_pending_ms(f->w), -1);
}

static void test_write_then_rename_is_noticed(void **state)
{
    fixture *f = *state;
    char tmp[CL_PATH_MAX], p[CL_PATH_MAX];
    path_in(tmp, sizeof tmp, f->lab, "starter.lua.tmp.4242");
    path_in(p, sizeof p, f->lab, "starter.lua");
    assert_true(ts_write(tmp, "return function() end\n"));
    assert_int_equal(rename(tmp, p), 0);
    watch_change ch[4];
    cl_err e = {{0}};
    int n = watch_wait(f->w, 3000, ch, 4, &e);
    assert_int_equal(n, 1);
    assert_string_equal(ch[0].path, p);
}

static void test_other_folders_and_editor_files_are_ignored(void **state)
{
    fixture *f = *state;
    char p[CL_PATH_MAX];
    path_in(p, sizeof p, f->other, "starter.cu");
    assert_true(ts_write(p, "elsewhere\n"));
    path_in(p, sizeof p, f->lab, ".starter.cu.swp");
    assert_true(ts_write(p, "vim swap\n"));
    path_in(p, sizeof p, f->lab, "starter.cu~");
    assert_true(ts_write(p, "backup\n"));
    path_in(p, sizeof p, f->lab, "4913");
    assert_true(ts_write(p, ""));
    watch_change ch[4];
    cl_err e = {{0}};
    assert_int_equal(watch_wait(f->w, 3 * DEBOUNCE_MS + 100, ch, 4, &e), 0);
}

static void test_burst_is_one_change(void **state)
{
    fixture *f = *state;
    char p[CL_PATH_MAX], q[CL_PATH_MAX];
    path_in(p, sizeof p, f->lab, "starter.cu");
    path_in(q, sizeof q, f->lab, "starter.lua");
    for (int i = 0; i < 5; i++)
        assert_true(ts_write(p, i % 2 ? "a\n" : "b\n"));
    assert_true(ts_write(q, "lua\n"));
    watch_change ch[4];
    cl_err e = {{0}};
    int n = watch_wait(f->w, 3000, ch, 4, &e);
    if (n == 1)
        n += watch_wait(f->w, 3000, ch + 1, 3, &e);
    assert_int_equal(n, 2);
    assert_string_equal(ch[0].path, p);      /* oldest first */
    assert_string_equal(ch[1].path, q);
    assert_int_equal(watch_wait(f->w, 2 * DEBOUNCE_MS, ch, 4, &e), 0);
}

static void test_fd_wakes_poll_loop(void **state)
{
    fixture *f = *state;
    int fd = watch_fd(f->w);
    assert_true(fd >= 0);
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    assert_int_equal(poll(&pfd, 1, 0), 0);          /* quiet folder: nothing to read */

    char p[CL_PATH_MAX];
    path_in(p, sizeof p, f->lab, "starter.cu");
    assert_true(ts_write(p, "saved\n"));
    watch_change ch[4];
    cl_err e = {{0}};
    int got = 0;
    double t0 = clock_now_ms();
    while (got == 0 && clock_now_ms() - t0 < 3000) {
        pfd.revents = 0;
        int r = poll(&pfd, 1, 1000);                 /* no timeout of our own needed */
        assert_true(r >= 0);
        got = watch_poll(f->w, ch, 4, &e);
        assert_true(got >= 0);
    }
    assert_int_equal(got, 1);
    assert_string_equal(ch[0].path, p);
    pfd.revents = 0;
    assert_int_equal(poll(&pfd, 1, 0), 0);          /* drained */
}

/* Every exercise folder is followed, however many the labs have: a save in
 * the fortieth folder is noticed like one in the first. */
static void test_many_folders(void **state)
{
    fixture *f = *state;
    char dir[CL_PATH_MAX + 32], p[CL_PATH_MAX + 64];
    cl_err e = {{0}};
    for (int i = 0; i < 40; i++) {
        snprintf(dir, sizeof dir, "%s/lab%02d", f->root, i);
        assert_true(paths_mkdir_p(dir, &e));
        if (!watch_add(f->w, dir, &e))
            fail_msg("%s", e.msg);
    }
    snprintf(p, sizeof p, "%s/lab39/starter.cu", f->root);
    assert_true(ts_write(p, "// saved\n"));
    watch_change ch[4];
    assert_int_equal(watch_wait(f->w, 3000, ch, 4, &e), 1);
    assert_string_equal(ch[0].path, p);
}

static void test_remove_and_errors(void **state)
{
    fixture *f = *state;
    cl_err e = {{0}};
    assert_false(watch_remove(f->w, f->other, &e));
    assert_non_null(strstr(e.msg, "not being watched"));
    char missing[CL_PATH_MAX];
    path_in(missing, sizeof missing, f->root, "nope");
    assert_false(watch_add(f->w, missing, &e));
    assert_non_null(strstr(e.msg, "nope"));
    assert_true(watch_remove(f->w, f->lab, &e));
    char p[CL_PATH_MAX];
    path_in(p, sizeof p, f->lab, "starter.cu");
    assert_true(ts_write(p, "unwatched now\n"));
    watch_change ch[2];
    assert_int_equal(watch_wait(f->w, 2 * DEBOUNCE_MS + 50, ch, 2, &e), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_in_place_save_is_noticed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_then_rename_is_noticed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_folders_and_editor_files_are_ignored, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_burst_is_one_change, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fd_wakes_poll_loop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remove_and_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_folders, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

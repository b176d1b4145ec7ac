/* Unit tests for core/spawn: programs and forked functions with pipes,
 * the extra descriptor, the environment, process groups, killing and
 * reaping, and writing to a reader that is gone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/spawn.h"
#include "core/strbuf.h"

/* Everything fd gives until its end (it is non-blocking). */
static char *read_all(int fd)
{
    strbuf b = STRBUF_INIT;
    char buf[4096];
    for (;;) {
        ssize_t n = spawn_read(fd, buf, sizeof buf);
        if (n > 0) {
            strbuf_add(&b, buf, (size_t)n);
        } else if (n == 0) {
            struct pollfd p = {.fd = fd, .events = POLLIN};
            poll(&p, 1, 5000);
        } else {
            break;
        }
    }
    return strbuf_take(&b);
}

static void test_program_with_pipes(void **state)
{
    (void)state;
    /* stdin to stdout, stderr beside it, the environment, and fd 3 */
    const char *argv[] = {"/bin/sh", "-c",
                          "cat; echo \"err $SPAWN_TEST\" >&2; echo extra >&3; exit 3", NULL};
    const char *env[] = {"SPAWN_TEST=set", NULL};
    spawn_opts o = {.argv = argv, .in = SPAWN_PIPE, .out = SPAWN_PIPE, .err = SPAWN_TO_OUT,
                    .extra_fd = 3, .own_group = true, .env = env};
    spawn_child c;
    cl_err e;
    assert_true(spawn_start(&o, &c, &e));
    assert_true(c.pid > 0 && c.in >= 0 && c.out >= 0 && c.extra >= 0);
    assert_int_equal(c.err, -1);
    assert_int_equal(getpgid(c.pid), c.pid);   /* a group of its own */
    assert_true(spawn_write_all(c.in, "hello\n", 6));
    close(c.in);
    c.in = -1;
    char *out = read_all(c.out);
    char *extra = read_all(c.extra);
    assert_string_equal(out, "hello\nerr set\n");
    assert_string_equal(extra, "extra\n");
    free(out);
    free(extra);
    int status = 0;
    assert_int_equal(spawn_wait(c.pid, true, &status), c.pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
    spawn_close(&c);
    assert_int_equal(c.out, -1);
}

static void test_program_missing(void **state)
{
    (void)state;
    const char *argv[] = {"/nonexistent/tool", NULL};
    spawn_opts o = {.argv = argv, .out = SPAWN_PIPE, .what = "the tool"};
    spawn_child c;
    cl_err e;
    assert_false(spawn_start(&o, &c, &e));
    assert_int_equal(c.pid, 0);
    assert_int_equal(c.out, -1);
    assert_string_equal(e.msg, "cannot start the tool: No such file or directory");
}

static int child_work(void *ud, int fd)
{
    char line[64];
    /* stdout is /dev/null: what it prints goes nowhere */
    printf("not seen\n");
    fflush(stdout);
    snprintf(line, sizeof line, "%s fd %d group %d", (const char *)ud, fd,
             getpgrp() == getpid());
    return spawn_write_all(fd, line, strlen(line)) ? 5 : 1;
}

static void test_forked_function(void **state)
{
    (void)state;
    static char hi[] = "hi";
    spawn_opts o = {.fn = child_work, .ud = hi, .extra_fd = 3, .own_group = true};
    spawn_child c;
    cl_err e;
    assert_true(spawn_start(&o, &c, &e));
    assert_int_equal(c.in, -1);
    assert_int_equal(c.out, -1);
    char *got = read_all(c.extra);
    assert_string_equal(got, "hi fd 3 group 1");
    free(got);
    int status = 0;
    assert_int_equal(spawn_wait(c.pid, true, &status), c.pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 5);
    spawn_close(&c);
}

static void test_kill_and_wait(void **state)
{
    (void)state;
    const char *argv[] = {"/bin/sh", "-c", "sleep 30 & sleep 30", NULL};
    spawn_opts o = {.argv = argv, .own_group = true};
    spawn_child c;
    cl_err e;
    assert_true(spawn_start(&o, &c, &e));
    assert_int_equal(spawn_wait(c.pid, false, NULL), 0);   /* still running */
    assert_false(spawn_exited(c.pid));
    int pidfd = spawn_pidfd(c.pid);
    spawn_kill(c.pid, true);
    for (int i = 0; i < 500 && !spawn_exited(c.pid); i++)
        usleep(2000);
    assert_true(spawn_exited(c.pid));
    if (pidfd >= 0) {
        struct pollfd p = {.fd = pidfd, .events = POLLIN};
        assert_int_equal(poll(&p, 1, 0), 1);
        close(pidfd);
    }
    int status = 0;
    assert_int_equal(spawn_wait(c.pid, true, &status), c.pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    assert_int_equal(spawn_wait(c.pid, false, NULL), -1);   /* nothing left to reap */
}

static void test_write_to_a_reader_gone(void **state)
{
    (void)state;
    const char *argv[] = {"/bin/true", NULL};
    spawn_opts o = {.argv = argv, .in = SPAWN_PIPE};
    spawn_child c;
    cl_err e;
    assert_true(spawn_start(&o, &c, &e));
    spawn_wait(c.pid, true, NULL);
    /* no SIGPIPE: the write says the reader is gone */
    assert_int_equal(spawn_write(c.in, "x", 1), -1);
    assert_false(spawn_write_all(c.in, "x", 1));
    sigset_t pending;
    sigpending(&pending);
    assert_false(sigismember(&pending, SIGPIPE));
    spawn_close(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_program_with_pipes),
        cmocka_unit_test(test_program_missing),
        cmocka_unit_test(test_forked_function),
        cmocka_unit_test(test_kill_and_wait),
        cmocka_unit_test(test_write_to_a_reader_gone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_nonet.c - core/nonet.h: after nonet_apply a process opens no
 * network socket of any family (TCP, UDP, IPv6, raw packets), nor io_uring,
 * while local sockets keep working; a child it forks is held the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/nonet.h"

/* What socket(family, type) gives: 0 when it opened, else its errno. */
static int try_socket(int family, int type)
{
    int fd = socket(family, type, 0);
    if (fd < 0)
        return errno;
    close(fd);
    return 0;
}

/* The checks, run in a forked child after the filter; its exit status is
 * the number of the first check that failed (0: all held). */
static int held(void)
{
    if (try_socket(AF_INET, SOCK_STREAM) != EACCES)
        return 1;
    if (try_socket(AF_INET, SOCK_DGRAM) != EACCES)
        return 2;
    if (try_socket(AF_INET6, SOCK_STREAM) != EACCES)
        return 3;
    if (try_socket(AF_PACKET, SOCK_RAW) != EACCES)
        return 4;
    if (try_socket(AF_UNIX, SOCK_STREAM) != 0)
        return 5;
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0)
        return 6;
    close(pair[0]);
    close(pair[1]);
    if (socketpair(AF_INET, SOCK_STREAM, 0, pair) == 0 || errno != EACCES)
        return 7;
#ifdef SYS_io_uring_setup
    if (syscall(SYS_io_uring_setup, 1, NULL) != -1 || errno != EPERM)
        return 8;
#endif
    pid_t grandchild = fork();
    if (grandchild == 0)
        _exit(try_socket(AF_INET, SOCK_STREAM) == EACCES ? 0 : 1);
    int st = 0;
    if (grandchild < 0 || waitpid(grandchild, &st, 0) != grandchild || !WIFEXITED(st) ||
        WEXITSTATUS(st) != 0)
        return 9;
    return 0;
}

static void test_network_closed(void **state)
{
    (void)state;
    assert_int_equal(try_socket(AF_INET, SOCK_STREAM), 0);   /* open before */
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        char why[256] = "";
        if (!nonet_apply(why, sizeof why)) {
            fprintf(stderr, "SKIP: %s\n", why);
            _exit(77);
        }
        _exit(held());
    }
    int st = 0;
    assert_int_equal(waitpid(child, &st, 0), child);
    assert_true(WIFEXITED(st));
    if (WEXITSTATUS(st) == 77)
        skip();
    if (WEXITSTATUS(st) != 0)
        fail_msg("check %d failed after nonet_apply", WEXITSTATUS(st));
    assert_int_equal(try_socket(AF_INET, SOCK_STREAM), 0);   /* the parent is untouched */
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_network_closed)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The real `cudalab worker` under the supervisor: hello, one small run,
 * clean shutdown.  Without a GPU the worker still answers (the device is
 * reported absent, GPU rows as errors).  Skipped (77) when the binary is not
 * built or does not dispatch `worker` yet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervise/supervisor.h"

static const char *exe;

typedef struct rec {
    int hellos, results, faults, dones;
    run_fault fault;
    char logs[2048];
} rec;

static void on_hello(void *ud, const device_info *d)
{
    (void)d;
    ((rec *)ud)->hellos++;
}

static void on_result(void *ud, const run_result *r)
{
    (void)r;
    ((rec *)ud)->results++;
}

static void on_log(void *ud, int level, const char *msg)
{
    rec *r = ud;
    size_t len = strlen(r->logs);
    snprintf(r->logs + len, sizeof r->logs - len, "[%d] %s\n", level, msg);
}

static void on_fault(void *ud, const run_fault *f)
{
    rec *r = ud;
    r->faults++;
    r->fault = *f;
}

static void on_done(void *ud, int run)
{
    (void)run;
    ((rec *)ud)->dones++;
}

/* Runs `exe worker` by hand with no input: a worker that is wired in says
 * hello on stdout and exits when its input ends. */
static bool dispatches_worker(char *first_line, size_t n)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' worker </dev/null 2>/dev/null", exe);
    FILE *p = popen(cmd, "r");
    if (!p)
        return false;
    first_line[0] = '\0';
    if (!fgets(first_line, (int)n, p))
        first_line[0] = '\0';
    char sink[4096];
    while (fread(sink, 1, sizeof sink, p) > 0)
        ;
    pclose(p);
    return strncmp(first_line, "{\"type\":\"hello\"", 15) == 0;
}

static void test_real_worker(void **state)
{
    (void)state;
    rec r;
    memset(&r, 0, sizeof r);
    supervisor_callbacks cb = {on_hello, NULL, on_result, on_log, on_fault, on_done};
    const char *argv[] = {exe, "worker", NULL};
    supervisor_opts o = {argv, 60, &cb, &r};
    cl_err e = {{0}};
    supervisor *s = supervisor_new(&o, &e);
    assert_non_null(s);

    device_info dev;
    if (!supervisor_hello(s, 30000, &dev, &e))
        fail_msg("hello: %s", e.msg);
    assert_int_equal(r.hellos, 1);
    if (dev.present)
        printf("device: %s (sm_%d%d, %d SMs)\n", dev.name, dev.cc_major, dev.cc_minor, dev.sm_count);
    else
        printf("device: none (%s)\n", dev.reason);
    assert_true(dev.present || strstr(dev.reason, "no CUDA device found") != NULL);

    run_request req;
    memset(&req, 0, sizeof req);
    snprintf(req.lab, sizeof req.lab, "reduction");
    snprintf(req.problem, sizeof req.problem, "reduce_sum");
    req.nsizes = 1;
    snprintf(req.sizes[0], sizeof req.sizes[0], "4096");
    req.seed = 42;
    req.budget_s = 0.05;
    req.cpu = true;
    assert_true(supervisor_submit(s, &req, 60, &e));
    assert_true(supervisor_wait(s, req.run));
    if (r.faults)
        fail_msg("the run faulted (%s): %s\nlogs:\n%s", r.fault.cause, r.fault.message, r.logs);
    assert_int_equal(r.dones, 1);
    printf("%d result rows\n", r.results);

    supervisor_free(s);
    errno = 0;
    assert_true(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
}

int main(void)
{
    exe = getenv("CUDALAB_EXE");
    if (!exe || access(exe, X_OK) != 0) {
        printf("SKIP: the cudalab binary is not built (%s)\n", exe ? exe : "CUDALAB_EXE unset");
        return 77;
    }
    char line[256];
    if (!dispatches_worker(line, sizeof line)) {
        printf("SKIP: '%s worker' does not speak the protocol yet (first line: %.80s)\n", exe, line);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_worker),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The supervisor and the real worker on a GPU: a correct run, a kernel that
 * writes far out of bounds (the worker reports a CUDA fault and exits; the
 * parent passes the fault on and restarts it), then a correct run again.
 *
 * Then a kernel that never finishes: the time limit kills the worker stuck
 * on the GPU, and a fresh one runs correctly.
 *
 * This program is its own worker: started with "worker" it adds the
 * deliberately faulting kernels (kernels/faults.cu) and the endless one
 * (hang_kernel.cu) to the engine and runs worker_main.  Exits 77 when the
 * worker finds no CUDA device. */
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

#include "core/clock.h"
#include "kernels.h"
#include "support.h"
#include "gpu/kernreg.h"
#include "supervise/supervisor.h"
#include "worker/worker.h"

/* kernels/faults.cu */
const shipped_kernel *faults_table(size_t *n);
/* tests/worker/hang_kernel.cu */
const shipped_kernel *test_hang_table(size_t *n);

typedef struct rec {
    int hellos, results, faults, dones;
    run_result last;      /* the last result of the variant row */
    run_fault fault;
    char logs[4096];
} rec;

static supervisor *sup;
static rec events;

static void on_hello(void *ud, const device_info *d)
{
    (void)d;
    ((rec *)ud)->hellos++;
}

static void on_result(void *ud, const run_result *r)
{
    rec *x = ud;
    x->results++;
    if (r->kind == RK_KERNEL)
        x->last = *r;
}

static void on_log(void *ud, int level, const char *msg)
{
    rec *x = ud;
    size_t len = strlen(x->logs);
    snprintf(x->logs + len, sizeof x->logs - len, "[%d] %s\n", level, msg);
}

static void on_fault(void *ud, const run_fault *f)
{
    rec *x = ud;
    x->faults++;
    x->fault = *f;
}

static void on_done(void *ud, int run)
{
    (void)run;
    ((rec *)ud)->dones++;
}

static void run_one(const char *id, const char *kernel, double limit_s)
{
    run_request req;
    memset(&req, 0, sizeof req);
    snprintf(req.lab, sizeof req.lab, "reduction");
    snprintf(req.problem, sizeof req.problem, "reduce_sum");
    req.nvariants = 1;
    snprintf(req.variants[0].id, sizeof req.variants[0].id, "%s", id);
    snprintf(req.variants[0].kernel, sizeof req.variants[0].kernel, "%s", kernel);
    req.nsizes = 1;
    snprintf(req.sizes[0], sizeof req.sizes[0], "1048576");
    req.budget_s = 0.1;
    cl_err e = {{0}};
    memset(&events.last, 0, sizeof events.last);
    if (!supervisor_submit(sup, &req, limit_s, &e))
        fail_msg("submit: %s", e.msg);
    assert_true(supervisor_wait(sup, req.run));
}

static void test_fault_and_recovery(void **state)
{
    (void)state;
    run_one("warp", "reduce_warp_shuffle", 60);
    if (events.faults)
        fail_msg("fault: %s\n%s", events.fault.message, events.logs);
    assert_int_equal(events.last.status, RS_CORRECT);
    assert_true(events.last.median_ms > 0);

    run_one("oob", "fault_oob_write", 60);
    assert_int_equal(events.faults, 1);
    assert_string_equal(events.fault.cause, "cuda");
    assert_string_equal(events.fault.variant, "oob");
    assert_true(events.fault.message[0] != '\0');
    printf("fault passed on: %s\n", events.fault.message);
    assert_int_equal(supervisor_fd(sup), -1);

    run_one("warp", "reduce_warp_shuffle", 60);
    assert_int_equal(events.faults, 1);
    assert_int_equal(events.last.status, RS_CORRECT);
    assert_int_equal(events.hellos, 2);
    assert_int_equal(events.dones, 3);
}

static void test_endless_kernel_times_out(void **state)
{
    (void)state;
    int faults = events.faults, hellos = events.hellos;
    double t0 = clock_now_s();
    run_one("endless", "test_hang_forever", 3);
    double took = clock_now_s() - t0;
    printf("timed out after %.2f s: %s\n", took, events.fault.message);
    assert_int_equal(events.faults, faults + 1);
    assert_string_equal(events.fault.cause, "timeout");
    assert_true(took >= 2.9 && took < 6);

    t0 = clock_now_s();
    run_one("warp", "reduce_warp_shuffle", 60);
    printf("the next run, in a fresh worker, took %.2f s\n", clock_now_s() - t0);
    assert_int_equal(events.faults, faults + 1);
    assert_int_equal(events.last.status, RS_CORRECT);
    assert_int_equal(events.hellos, hellos + 1);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "worker") == 0) {
        size_t n = 0, nh = 0;
        const shipped_kernel *k = faults_table(&n);
        const shipped_kernel *h = test_hang_table(&nh);
        if (!kernreg_add(k, n) || !kernreg_add(h, nh))
            return 1;
        return worker_main(argc - 1, argv + 1);
    }

    supervisor_callbacks cb = {on_hello, NULL, on_result, on_log, on_fault, on_done};
    supervisor_opts o = {NULL, 60, &cb, &events};   /* NULL: this program, "worker" */
    cl_err e = {{0}};
    sup = supervisor_new(&o, &e);
    if (!sup) {
        fprintf(stderr, "supervisor_new: %s\n", e.msg);
        return 1;
    }
    device_info dev;
    if (!supervisor_hello(sup, 60000, &dev, &e)) {
        fprintf(stderr, "the worker did not start: %s\n", e.msg);
        supervisor_free(sup);
        return 1;
    }
    if (!dev.present) {
        printf("SKIP: %s\n", dev.reason[0] ? dev.reason : "no CUDA device found");
        supervisor_free(sup);
        return 77;
    }
    printf("device: %s\n", dev.name);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fault_and_recovery),
        cmocka_unit_test(test_endless_kernel_times_out),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    supervisor_free(sup);
    errno = 0;
    if (!(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD)) {
        fprintf(stderr, "an unreaped child remains\n");
        return 1;
    }
    return rc;
}

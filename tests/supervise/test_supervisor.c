/* Tests for src/supervise/supervisor.c against fake workers: shell scripts in
 * tests/supervise/fake/ that speak the protocol on fd 3 and hang, crash, exit,
 * flood or send garbage on request. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "support.h"
#include "supervise/supervisor.h"

static char script[1024];

typedef struct rec {
    int hellos, progress, results, faults, dones, logs;
    int printed;               /* logs of printed lines */
    char first_printed[256];
    device_info dev;
    run_result result;
    run_fault fault;
    int done_run;
    char log[1024];
    char warning[1024];        /* the last log of level 1 or 2 */
    long worker_pid, sleeper_pid;
    supervisor *resubmit;      /* when set, on_done submits one more run */
    int resubmitted;
} rec;

static void on_hello(void *ud, const device_info *d)
{
    rec *r = ud;
    r->hellos++;
    r->dev = *d;
}

static void on_progress(void *ud, const run_progress *p)
{
    rec *r = ud;
    (void)p;
    r->progress++;
}

static void on_result(void *ud, const run_result *res)
{
    rec *r = ud;
    r->results++;
    r->result = *res;
}

static void on_log(void *ud, int level, const char *msg)
{
    rec *r = ud;
    r->logs++;
    snprintf(r->log, sizeof r->log, "%s", msg);
    if (strncmp(msg, "printed: ", 9) == 0 && r->printed++ == 0)
        snprintf(r->first_printed, sizeof r->first_printed, "%s", msg);
    if (level > 0)
        snprintf(r->warning, sizeof r->warning, "%s", msg);
    sscanf(msg, "pid %ld", &r->worker_pid);
    sscanf(msg, "sleeper %ld", &r->sleeper_pid);
}

static void on_fault(void *ud, const run_fault *f)
{
    rec *r = ud;
    r->faults++;
    r->fault = *f;
}

static void on_done(void *ud, int run)
{
    rec *r = ud;
    r->dones++;
    r->done_run = run;
    if (r->resubmit && !r->resubmitted) {
        run_request req;
        memset(&req, 0, sizeof req);
        r->resubmitted = 1;
        assert_true(supervisor_submit(r->resubmit, &req, 0, NULL));
    }
}

static const supervisor_callbacks callbacks = {on_hello, on_progress, on_result, on_log, on_fault, on_done};

static int count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

/* Waits up to 5 s for a process to be gone or a zombie. */
static bool process_gone(long pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    for (int i = 0; i < 500; i++) {
        FILE *f = fopen(path, "r");
        if (!f)
            return true;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *p = strrchr(buf, ')');
        if (p && (p[2] == 'Z' || p[2] == 'X'))
            return true;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return false;
}

typedef struct fixture {
    rec r;
    supervisor *s;
    int fds_before;
} fixture;

/* Starts a supervisor over the fake worker with the given arguments. */
static supervisor *make(fixture *fx, double limit_s, const char *a1, const char *a2)
{
    const char *argv[] = {"/bin/sh", script, a1, a2, NULL};
    supervisor_opts o = {argv, limit_s, &callbacks, &fx->r};
    cl_err e = {{0}};
    fx->s = supervisor_new(&o, &e);
    if (!fx->s)
        fail_msg("supervisor_new: %s", e.msg);
    return fx->s;
}

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    fx->fds_before = count_fds();
    *state = fx;
    return 0;
}

/* Frees the supervisor and checks that nothing leaked: descriptors and
 * child processes. */
static int teardown(void **state)
{
    fixture *fx = *state;
    supervisor_free(fx->s);
    int fds = count_fds();
    if (fds != fx->fds_before) {
        fprintf(stderr, "descriptor leak: %d before, %d after\n", fx->fds_before, fds);
        free(fx);
        return -1;
    }
    errno = 0;
    pid_t z = waitpid(-1, NULL, WNOHANG);
    free(fx);
    if (!(z == -1 && errno == ECHILD)) {
        fprintf(stderr, "an unreaped child remains (waitpid: %d)\n", (int)z);
        return -1;
    }
    return 0;
}

static run_request request(const char *lab)
{
    run_request req;
    memset(&req, 0, sizeof req);
    snprintf(req.lab, sizeof req.lab, "%s", lab);
    snprintf(req.problem, sizeof req.problem, "reduce_sum");
    req.nvariants = 1;
    snprintf(req.variants[0].id, sizeof req.variants[0].id, "v1");
    snprintf(req.variants[0].kernel, sizeof req.variants[0].kernel, "reduce_v1");
    req.nsizes = 1;
    snprintf(req.sizes[0], sizeof req.sizes[0], "1K");
    req.seed = UINT64_MAX - 3;
    req.cpu = true;
    return req;
}

/* Submits one run and waits for it; returns its id. */
static int run_one(fixture *fx, double limit_s)
{
    run_request req = request("demo");
    cl_err e = {{0}};
    if (!supervisor_submit(fx->s, &req, limit_s, &e))
        fail_msg("submit: %s", e.msg);
    assert_true(req.run > 0);
    assert_true(supervisor_busy(fx->s));
    assert_true(supervisor_fd(fx->s) >= 0);
    assert_true(supervisor_wait(fx->s, req.run));
    assert_false(supervisor_busy(fx->s));
    assert_int_equal(fx->r.done_run, req.run);
    return req.run;
}

static void expect_fault(const fixture *fx, const char *cause, const char *words)
{
    assert_string_equal(fx->r.fault.cause, cause);
    if (words && !strstr(fx->r.fault.message, words))
        fail_msg("fault message '%s' lacks '%s'", fx->r.fault.message, words);
}

static void test_normal_worker(void **state)
{
    fixture *fx = *state;
    supervisor *s = make(fx, 5, "normal", NULL);
    assert_int_equal(supervisor_fd(s), -1);
    assert_false(supervisor_busy(s));

    device_info dev;
    cl_err e = {{0}};
    if (!supervisor_hello(s, 5000, &dev, &e))
        fail_msg("hello: %s", e.msg);
    assert_false(dev.present);
    assert_string_equal(dev.reason, "no CUDA device found: fake worker");
    assert_int_equal(fx->r.hellos, 1);

    int run = run_one(fx, 0);
    assert_int_equal(fx->r.faults, 0);
    assert_int_equal(fx->r.progress, 1);
    assert_int_equal(fx->r.results, 1);
    assert_int_equal(fx->r.result.run, run);
    assert_int_equal(fx->r.result.status, RS_CORRECT);
    assert_true(fx->r.result.gbps == -1.0);
    assert_true(fx->r.result.seed == UINT64_MAX);

    /* the request arrived whole: the worker saw as many bytes as were sent */
    run_request req = request("demo");
    proto_msg m;
    memset(&m, 0, sizeof m);
    m.type = MSG_RUN;
    m.u.run = req;
    m.u.run.run = run;
    char *line = proto_encode(&m);
    char expect[64];
    snprintf(expect, sizeof expect, "request of %zu bytes", strlen(line) - 1);
    free(line);
    assert_string_equal(fx->r.result.message, expect);

    /* the same worker serves the next run; its output is kept apart */
    long pid = fx->r.worker_pid;
    int run2 = run_one(fx, 0);
    assert_int_equal(run2, run + 1);
    assert_int_equal(fx->r.hellos, 1);
    assert_int_equal(fx->r.worker_pid, pid);
    assert_int_equal(fx->r.results, 2);
    char out[256];
    supervisor_output(s, out, sizeof out);
    assert_non_null(strstr(out, "device printf from run 2"));

    /* hello again is answered from what the worker said */
    assert_true(supervisor_hello(s, 0, &dev, &e));
    assert_int_equal(fx->r.hellos, 1);
}

static void test_busy_rejects_second_submit(void **state)
{
    fixture *fx = *state;
    supervisor *s = make(fx, 5, "hang", NULL);
    run_request a = request("a"), b = request("b");
    cl_err e = {{0}};
    assert_true(supervisor_submit(s, &a, 0, &e));
    assert_false(supervisor_submit(s, &b, 0, &e));
    assert_non_null(strstr(e.msg, "busy"));
    /* waiting on a run that is not in flight returns at once */
    assert_true(supervisor_wait(s, a.run + 100));
}

/* A time limit says what was running when it struck. */
static void test_timeout_names_what_ran(void **state)
{
    fixture *fx = *state;
    make(fx, 0, "1=hangex", "2=hangcpu");
    run_one(fx, 1.0);
    expect_fault(fx, "timeout", "your kernel at size 2^28 was still running after 1 s, while timing");
    assert_non_null(strstr(fx->r.fault.message, "loop forever"));
    assert_string_equal(fx->r.fault.variant, "exercise");
    run_one(fx, 1.0);
    expect_fault(fx, "timeout", "the CPU baseline (cpu_mt) at size 2^28 was still running after 1 s");
    assert_null(strstr(fx->r.fault.message, "loop forever"));
    assert_non_null(strstr(fx->r.fault.message, "--time-limit"));
}

static void test_hang_times_out_and_restarts(void **state)
{
    fixture *fx = *state;
    supervisor *s = make(fx, 0, "1=hang", NULL);
    double t0 = clock_now_s();
    run_one(fx, 1.0);
    double took = clock_now_s() - t0;
    assert_int_equal(fx->r.faults, 1);
    expect_fault(fx, "timeout", "longer than 1 s before any row started");
    assert_true(took >= 0.95 && took < 4.0);
    assert_int_equal(supervisor_fd(s), -1);

    /* the worker and the process it started are gone */
    assert_true(fx->r.worker_pid > 0 && fx->r.sleeper_pid > 0);
    assert_true(process_gone(fx->r.worker_pid));
    assert_true(process_gone(fx->r.sleeper_pid));

    long old_pid = fx->r.worker_pid;
    run_one(fx, 1.0);
    assert_int_equal(fx->r.faults, 1);
    assert_int_equal(fx->r.results, 1);
    assert_int_equal(fx->r.hellos, 2);
    assert_true(fx->r.worker_pid != old_pid);
}

static void test_segv_repeated(void **state)
{
    fixture *fx = *state;
    make(fx, 5, "segv", NULL);
    for (int i = 1; i <= 3; i++) {
        run_one(fx, 0);
        assert_int_equal(fx->r.faults, i);
        assert_int_equal(fx->r.dones, i);
        expect_fault(fx, "signal", "SIGSEGV");
        assert_string_equal(fx->r.fault.variant, "");
    }
    assert_int_equal(fx->r.hellos, 3);
    assert_int_equal(fx->r.results, 0);
}

static void test_exit_status_and_output(void **state)
{
    fixture *fx = *state;
    make(fx, 5, "exit7", NULL);
    int run = run_one(fx, 0);
    assert_int_equal(fx->r.fault.run, run);
    expect_fault(fx, "exit", "status 7");
    char want[64];
    snprintf(want, sizeof want, "the worker printed: fake worker: giving up on run %d", run);
    expect_fault(fx, "exit", want);

    /* hello starts a fresh worker after a fault */
    device_info dev;
    assert_true(supervisor_hello(fx->s, 5000, &dev, NULL));
    assert_int_equal(fx->r.hellos, 2);
    assert_true(supervisor_fd(fx->s) >= 0);
}

static void test_clean_exit_mid_run(void **state)
{
    fixture *fx = *state;
    make(fx, 5, "exit0", NULL);
    run_one(fx, 0);
    expect_fault(fx, "exit", "status 0");
}

static void test_flood_stays_bounded(void **state)
{
    fixture *fx = *state;
    supervisor *s = make(fx, 20, "flood", NULL);
    double t0 = clock_now_s();
    run_one(fx, 0);
    assert_true(clock_now_s() - t0 < 15);
    assert_int_equal(fx->r.faults, 0);
    assert_int_equal(fx->r.results, 1);
    char *out = malloc(1 << 20);
    assert_non_null(out);
    size_t n = supervisor_output(s, out, 1 << 20);
    assert_true(n > 8192 && n <= 16 * 1024);
    assert_non_null(strstr(out, "end of flood\ndevice printf from run 1"));
    assert_non_null(strchr(out, 'y'));
    free(out);
}

/* A million printed lines: the first hundred reach the log, the rest are
 * counted in one warning at the end of the run, and the run finishes. */
static void test_printed_lines_bounded(void **state)
{
    fixture *fx = *state;
    make(fx, 30, "1=lines", NULL);
    double t0 = clock_now_s();
    run_one(fx, 0);
    assert_true(clock_now_s() - t0 < 20);
    assert_int_equal(fx->r.faults, 0);
    assert_int_equal(fx->r.results, 1);
    assert_int_equal(fx->r.printed, 100);
    assert_string_equal(fx->r.first_printed, "printed: thread 1");
    /* 1000000 lines and the worker's own line, less the 100 shown */
    if (!strstr(fx->r.warning, "999901 more printed lines not shown"))
        fail_msg("warning: %s", fx->r.warning);
    /* the next run starts counting afresh */
    fx->r.printed = 0;
    fx->r.warning[0] = '\0';
    run_one(fx, 0);
    assert_int_equal(fx->r.printed, 1);
    assert_string_equal(fx->r.first_printed, "printed: device printf from run 2");
    assert_string_equal(fx->r.warning, "");
}

static void test_long_protocol_line(void **state)
{
    fixture *fx = *state;
    make(fx, 10, "1=longline", NULL);
    double t0 = clock_now_s();
    run_one(fx, 0);
    assert_true(clock_now_s() - t0 < 5);
    expect_fault(fx, "protocol", "longer than");
    run_one(fx, 0);
    assert_int_equal(fx->r.results, 1);
    assert_int_equal(fx->r.faults, 1);
}

static void test_garbage_and_requests_from_worker(void **state)
{
    fixture *fx = *state;
    make(fx, 10, "1=garbage", "2=reply");
    run_one(fx, 0);
    expect_fault(fx, "protocol", "not a JSON message");
    run_one(fx, 0);
    expect_fault(fx, "protocol", "request");
    run_one(fx, 0);
    assert_int_equal(fx->r.faults, 2);
    assert_int_equal(fx->r.results, 1);
}

static void test_cuda_fault_passed_through(void **state)
{
    fixture *fx = *state;
    make(fx, 5, "1=cuda", NULL);
    int run = run_one(fx, 0);
    assert_int_equal(fx->r.faults, 1);
    assert_int_equal(fx->r.dones, 1);
    assert_int_equal(fx->r.fault.run, run);
    assert_string_equal(fx->r.fault.variant, "v1");
    expect_fault(fx, "cuda", "an illegal memory access was encountered");
    run_one(fx, 0);
    assert_int_equal(fx->r.faults, 1);
    assert_int_equal(fx->r.results, 1);
    assert_int_equal(fx->r.hellos, 2);
}

static void test_cancel(void **state)
{
    fixture *fx = *state;
    supervisor *s = make(fx, 30, "1=hang", NULL);
    run_request req = request("demo");
    assert_true(supervisor_submit(s, &req, 0, NULL));
    double t0 = clock_now_s();
    while (fx->r.sleeper_pid == 0 && clock_now_s() - t0 < 5)
        assert_true(supervisor_pump(s, 100));
    assert_true(fx->r.sleeper_pid > 0);
    supervisor_cancel(s);
    assert_false(supervisor_busy(s));
    assert_int_equal(supervisor_fd(s), -1);
    assert_int_equal(fx->r.faults, 1);
    assert_int_equal(fx->r.dones, 1);
    assert_int_equal(fx->r.done_run, req.run);
    expect_fault(fx, "cancelled", NULL);
    assert_true(process_gone(fx->r.sleeper_pid));
    supervisor_cancel(s);   /* nothing running: harmless */
    assert_int_equal(fx->r.faults, 1);
    run_one(fx, 0);
    assert_int_equal(fx->r.results, 1);
}

/* The restart story end to end: every way of failing, one after another,
 * each followed by a fresh worker. */
static void test_restart_after_every_fault(void **state)
{
    fixture *fx = *state;
    const char *argv[] = {"/bin/sh", script, "1=segv", "2=garbage", "3=hang", "4=exit7",
                          "5=longline", "6=cuda", "7=exit0", NULL};
    supervisor_opts o = {argv, 0.8, &callbacks, &fx->r};
    fx->s = supervisor_new(&o, NULL);
    assert_non_null(fx->s);
    const char *causes[] = {"signal", "protocol", "timeout", "exit", "protocol", "cuda", "exit"};
    for (int i = 0; i < 7; i++) {
        run_one(fx, 0);
        assert_int_equal(fx->r.faults, i + 1);
        expect_fault(fx, causes[i], NULL);
    }
    run_one(fx, 0);
    assert_int_equal(fx->r.faults, 7);
    assert_int_equal(fx->r.results, 1);
    assert_int_equal(fx->r.dones, 8);
    assert_int_equal(fx->r.hellos, 8);
}

/* The TUI's way: poll() the supervisor's descriptor, then pump(0). */
static void test_event_loop_use(void **state)
{
    fixture *fx = *state;
    supervisor *s = make(fx, 0, "2=hang", NULL);
    for (int k = 0; k < 2; k++) {
        run_request req = request("demo");
        assert_true(supervisor_submit(s, &req, 0.5, NULL));
        double t0 = clock_now_s();
        int wakeups = 0;
        while (supervisor_busy(s) && clock_now_s() - t0 < 5) {
            struct pollfd p = {supervisor_fd(s), POLLIN, 0};
            int n = poll(&p, 1, 2000);
            assert_true(n >= 0);
            wakeups++;
            assert_true(supervisor_pump(s, 0));
        }
        assert_false(supervisor_busy(s));
        assert_true(wakeups < 1000);   /* woken by events, not spinning */
    }
    assert_int_equal(fx->r.results, 1);
    assert_int_equal(fx->r.faults, 1);
    expect_fault(fx, "timeout", "0.5 s");
}

/* A worker that stopped reading its input: writing the request fails with
 * EPIPE, which must not kill the parent with SIGPIPE; the run times out. */
static void test_deaf_worker(void **state)
{
    fixture *fx = *state;
    supervisor *s = make(fx, 0.5, "deaf", NULL);
    for (int i = 1; i <= 2; i++) {
        assert_true(supervisor_hello(s, 5000, NULL, NULL));
        run_one(fx, 0);
        assert_int_equal(fx->r.faults, i);
        expect_fault(fx, "timeout", NULL);
    }
    sigset_t pending;
    sigpending(&pending);
    assert_false(sigismember(&pending, SIGPIPE));
}

static void test_no_hello(void **state)
{
    fixture *fx = *state;
    supervisor *s = make(fx, 5, "nohello", NULL);
    device_info dev;
    cl_err e = {{0}};
    assert_false(supervisor_hello(s, 5000, &dev, &e));
    if (!strstr(e.msg, "status 5") || !strstr(e.msg, "cannot load the device library"))
        fail_msg("hello error: %s", e.msg);
    assert_int_equal(supervisor_fd(s), -1);
    run_one(fx, 0);
    expect_fault(fx, "exit", "cannot load the device library");
}

static void test_bad_command(void **state)
{
    fixture *fx = *state;
    const char *argv[] = {"/nonexistent/cudalab", "worker", NULL};
    supervisor_opts o = {argv, 1, &callbacks, &fx->r};
    fx->s = supervisor_new(&o, NULL);
    assert_non_null(fx->s);
    run_request req = request("demo");
    cl_err e = {{0}};
    assert_false(supervisor_submit(fx->s, &req, 0, &e));
    assert_non_null(strstr(e.msg, "cannot start the worker"));
    assert_false(supervisor_busy(fx->s));
    assert_false(supervisor_hello(fx->s, 100, NULL, &e));
    assert_true(supervisor_pump(fx->s, 10));
}

/* A worker that died while idle is noticed at the next submit: the run goes
 * to a fresh worker instead of failing. */
static void test_idle_death_is_replaced(void **state)
{
    fixture *fx = *state;
    char mark[] = "/tmp/cudalab-fake-XXXXXX";
    int fd = mkstemp(mark);
    assert_true(fd >= 0);
    close(fd);
    unlink(mark);
    char arg[64];
    snprintf(arg, sizeof arg, "crashidle=%s", mark);
    supervisor *s = make(fx, 5, "normal", arg);
    assert_true(supervisor_hello(s, 5000, NULL, NULL));
    while (fx->r.worker_pid == 0)
        assert_true(supervisor_pump(s, 100));
    assert_true(process_gone(fx->r.worker_pid));   /* exited, not yet reaped */
    run_one(fx, 0);
    unlink(mark);
    assert_int_equal(fx->r.faults, 0);
    assert_int_equal(fx->r.results, 1);
    assert_int_equal(fx->r.hellos, 2);
    if (!strstr(fx->r.warning, "status 9"))
        fail_msg("no warning about the idle worker's exit: '%s'", fx->r.warning);
}

/* A run submitted from on_done is served, even by a fresh worker. */
static void test_submit_from_callback(void **state)
{
    fixture *fx = *state;
    supervisor *s = make(fx, 5, "1=exit7", NULL);
    fx->r.resubmit = s;
    run_request req = request("demo");
    assert_true(supervisor_submit(s, &req, 0, NULL));
    assert_true(supervisor_wait(s, req.run));
    assert_int_equal(fx->r.resubmitted, 1);
    expect_fault(fx, "exit", "status 7");
    assert_true(supervisor_busy(s));
    assert_true(supervisor_wait(s, 2));
    assert_int_equal(fx->r.dones, 2);
    assert_int_equal(fx->r.results, 1);
}

/* Grading's command, cudalab's own worker confined to a folder: a run of
 * the multigpu lab still goes to the coordinator (`worker --group`), whose
 * row on a machine with no visible GPU says so, rather than to the
 * confined worker, which knows no such problem. */
static void test_given_worker_switches_to_group(void **state)
{
    fixture *fx = *state;
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const char *argv[] = {ts_exe(), "worker", "--confine", "--read", "/tmp", NULL};
    supervisor_opts o = {argv, 120, &callbacks, &fx->r};
    cl_err e = {{0}};
    fx->s = supervisor_new(&o, &e);
    if (!fx->s)
        fail_msg("supervisor_new: %s", e.msg);
    run_request req;
    memset(&req, 0, sizeof req);
    snprintf(req.lab, sizeof req.lab, "multigpu");
    snprintf(req.problem, sizeof req.problem, "multigpu");
    req.nvariants = 1;
    snprintf(req.variants[0].id, sizeof req.variants[0].id, "ar_ring");
    req.seed = 7;
    if (!supervisor_submit(fx->s, &req, 120, &e))
        fail_msg("submit: %s", e.msg);
    assert_true(supervisor_wait(fx->s, req.run));
    unsetenv("CUDA_VISIBLE_DEVICES");
    if (fx->r.faults)
        fail_msg("fault: %s", fx->r.fault.message);
    assert_true(fx->r.results > 0);
    assert_string_equal(fx->r.result.variant, "ar_ring");
    if (fx->r.result.status != RS_NO_DEVICE)
        fail_msg("status %d: %s", (int)fx->r.result.status, fx->r.result.message);
    printf("ar_ring through the given worker: %s\n", fx->r.result.message);
}

int main(void)
{
    const char *data = getenv("CUDALAB_TEST_DATA");
    snprintf(script, sizeof script, "%s/supervise/fake/fake_worker.sh", data ? data : "tests");
    if (access(script, R_OK) != 0) {
        fprintf(stderr, "cannot read %s (set CUDALAB_TEST_DATA to the tests folder)\n", script);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_normal_worker, setup, teardown),
        cmocka_unit_test_setup_teardown(test_busy_rejects_second_submit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hang_times_out_and_restarts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_segv_repeated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exit_status_and_output, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clean_exit_mid_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flood_stays_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_names_what_ran, setup, teardown),
        cmocka_unit_test_setup_teardown(test_printed_lines_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_protocol_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_garbage_and_requests_from_worker, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cuda_fault_passed_through, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_after_every_fault, setup, teardown),
        cmocka_unit_test_setup_teardown(test_event_loop_use, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deaf_worker, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_hello, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_command, setup, teardown),
        cmocka_unit_test_setup_teardown(test_idle_death_is_replaced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_submit_from_callback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_given_worker_switches_to_group, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

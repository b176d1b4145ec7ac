/* Tests of src/group/: the coordinator of a multigpu run.
 *
 * Started as `<this binary> worker --probe` or `worker --rank R --ranks
 * N` (the coordinator starts its own executable), the binary is a fake
 * probe or rank: no CUDA, the ranks' protocol only, its behaviour chosen
 * by FAKE_MODE.  The tests then run the real coordinator (group_run) and
 * check the merged rows, that what ranks exchange reaches every rank in
 * order, that each rank saw NCCL_NVLS_ENABLE=0, and that a rank killed,
 * failing or hung ends the group with a fault naming its GPU and leaves
 * no process behind.  A request with the learner's kernel gets its row
 * ("exercise") among the all-reduces of each size, against NCCL's.  The
 * rows of a machine with no GPU or one GPU are checked on group_runnable
 * directly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "group/group.h"
#include "proto/protocol.h"
#include "proto/rankmsg.h"

/* ---- the fake probe and ranks ----------------------------------------------- */

static rankmsg fm;

static void fake_send(const rankmsg *m)
{
    char *t = rankmsg_encode(m);
    if (t && write(PROTO_FD, t, strlen(t)) < 0)
        _exit(9);
    free(t);
}

/* One line from stdin (the coordinator), into a static buffer. */
static char *fake_line(void)
{
    static char buf[PROTO_LINE_MAX + 1];
    size_t n = 0;
    while (n < PROTO_LINE_MAX) {
        ssize_t got = read(STDIN_FILENO, buf + n, 1);
        if (got <= 0)
            _exit(8);
        if (buf[n] == '\n')
            break;
        n++;
    }
    buf[n] = '\0';
    return buf;
}

static void fake_fail(const char *why)
{
    memset(&fm, 0, sizeof fm);
    fm.type = RMSG_FAIL;
    snprintf(fm.text, sizeof fm.text, "%s", why);
    fake_send(&fm);
    _exit(1);
}

/* An exchange: sends rank's part (its number), checks everyone's. */
static void fake_exchange(int rank, int n, const char *tag)
{
    memset(&fm, 0, sizeof fm);
    fm.type = RMSG_GATHER;
    snprintf(fm.tag, sizeof fm.tag, "%s", tag);
    fm.blob.len = 1;
    fm.blob.data[0] = (unsigned char)rank;
    fake_send(&fm);
    cl_err e;
    if (!rankmsg_decode(fake_line(), &fm, &e) || fm.type != RMSG_ALL || strcmp(fm.tag, tag) != 0
        || fm.nall != n)
        fake_fail("the exchange's answer was not everyone's parts");
    for (int k = 0; k < n; k++)
        if (fm.all[k].len != 1 || fm.all[k].data[0] != k)
            fake_fail("the parts came back out of order");
}

static void fake_row(const char *variant, const char *size, int of, double ms, bool right)
{
    memset(&fm, 0, sizeof fm);
    fm.type = RMSG_ROW;
    fm.of = of;
    run_result_init(&fm.u.row);
    snprintf(fm.u.row.variant, sizeof fm.u.row.variant, "%s", variant);
    snprintf(fm.u.row.label, sizeof fm.u.row.label, "%s", variant);
    snprintf(fm.u.row.size, sizeof fm.u.row.size, "%s", size);
    fm.u.row.status = right ? RS_CORRECT : RS_WRONG;
    fm.u.row.median_ms = ms;
    fm.u.row.samples = 10;
    fm.u.row.gbps = 1.0 / ms;
    snprintf(fm.u.row.message, sizeof fm.u.row.message, "%s", right ? "fine" : "wrong: 1 differs");
    fake_send(&fm);
}

/* Every rank's row of a measurement that could not run, in the same words. */
static void fake_error(const char *variant, const char *size, int of, const char *why)
{
    memset(&fm, 0, sizeof fm);
    fm.type = RMSG_ROW;
    fm.of = of;
    run_result_init(&fm.u.row);
    snprintf(fm.u.row.variant, sizeof fm.u.row.variant, "%s", variant);
    snprintf(fm.u.row.size, sizeof fm.u.row.size, "%s", size);
    fm.u.row.status = RS_ERROR;
    snprintf(fm.u.row.message, sizeof fm.u.row.message, "%s", why);
    fake_send(&fm);
}

static int fake_rank(int rank, int n)
{
    proto_msg req;
    cl_err e;
    if (!proto_decode(fake_line(), &req, &e) || req.type != MSG_RUN)
        fake_fail("no request first");
    const char *nvls = getenv("NCCL_NVLS_ENABLE");
    if (!nvls || strcmp(nvls, "0") != 0)
        fake_fail("NCCL_NVLS_ENABLE is not 0");
    const char *mode = getenv("FAKE_MODE");
    mode = mode ? mode : "ok";
    fake_exchange(rank, n, "x1");
    if (rank == 1 && strcmp(mode, "die") == 0)
        raise(SIGKILL);
    if (rank == 1 && strcmp(mode, "hang") == 0)
        for (;;)
            pause();
    if (rank == 1 && strcmp(mode, "fail") == 0)
        fake_fail("fake: an illegal memory access was encountered");
    fake_exchange(rank, n, "x2");
    if (rank == 0)
        fake_row("peer_0to1", "256 MiB", 1, 0.7, true);
    fake_row("ar_ring", "8 B", n, 1.0 + rank, !(rank == 1 && strcmp(mode, "wrong") == 0));
    if (strcmp(mode, "nonccl") == 0)
        fake_error("ar_nccl", "8 B", n, "NCCL not found: install it");
    else
        fake_row("ar_nccl", "8 B", n, 2.0, true);
    /* as the real ranks do: the learner's rows after all of the lab's */
    if (req.u.run.exercise_kernel[0]) {
        fake_exchange(rank, n, "x3");   /* in step, as collectives keep the real ones */
        fake_row("ar_ring", "16 B", n, 1.0, true);
        fake_row("ar_nccl", "16 B", n, 8.0, true);
        fake_exchange(rank, n, "x4");
        fake_row("exercise", "8 B", n, 4.0, true);
        fake_row("exercise", "16 B", n, 2.0, true);
        fake_row("exercise", "32 B", n, 2.0, true);
    }
    return 0;
}

static int fake_main(int argc, char **argv)
{
    int rank = -1, n = -1;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--probe") == 0) {
            memset(&fm, 0, sizeof fm);
            fm.type = RMSG_PROBE;
            fm.u.probe.dev.present = true;
            snprintf(fm.u.probe.dev.name, sizeof fm.u.probe.dev.name, "Fake GPU");
            fm.u.probe.ndevices = 2;
            fm.u.probe.nccl = true;
            fake_send(&fm);
            return 0;
        }
        if (strcmp(argv[i], "--rank") == 0 && i + 1 < argc)
            rank = atoi(argv[++i]);
        else if (strcmp(argv[i], "--ranks") == 0 && i + 1 < argc)
            n = atoi(argv[++i]);
    }
    return rank >= 0 && n > 0 ? fake_rank(rank, n) : 2;
}

/* ---- the coordinator against them ---------------------------------------------- */

static run_result rows[16];
static int nrows;
static char logs[4096];

static void on_result(void *ud, const run_result *r)
{
    (void)ud;
    if (nrows < 16)
        rows[nrows++] = *r;
}

static void on_log(void *ud, int level, const char *msg)
{
    (void)ud;
    size_t len = strlen(logs);
    snprintf(logs + len, sizeof logs - len, "[%d] %s\n", level, msg);
}

static bool run_group_ex(const char *mode, bool exercise, run_fault *fault)
{
    static run_request req;
    memset(&req, 0, sizeof req);
    if (exercise)
        snprintf(req.exercise_kernel, sizeof req.exercise_kernel, "/nowhere/starter.cu");
    snprintf(req.problem, sizeof req.problem, "multigpu");
    const char *v[] = {"peer", "ar_ring", "ar_nccl"};
    for (int i = 0; i < 3; i++)
        snprintf(req.variants[req.nvariants++].id, RUN_ID_MAX, "%s", v[i]);
    setenv("FAKE_MODE", mode, 1);
    setenv(GROUP_STALL_ENV, "2", 1);
    unsetenv("NCCL_NVLS_ENABLE");
    nrows = 0;
    logs[0] = '\0';
    memset(fault, 0, sizeof *fault);
    const group_sink sink = {NULL, on_result, on_log, NULL};
    bool ok = group_run(&req, &sink, fault);
    /* every rank (and the probe) was reaped: no child is left */
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
    return ok;
}

static bool run_group(const char *mode, run_fault *fault)
{
    return run_group_ex(mode, false, fault);
}

static void test_merged_rows(void **state)
{
    (void)state;
    run_fault f;
    if (!run_group("ok", &f))
        fail_msg("fault (%s): %s\nlog:\n%s", f.cause, f.message, logs);
    assert_int_equal(nrows, 3);
    assert_string_equal(rows[0].variant, "peer_0to1");
    assert_string_equal(rows[1].variant, "ar_ring");
    assert_string_equal(rows[2].variant, "ar_nccl");
    assert_int_equal(rows[1].status, RS_CORRECT);
    /* the slowest rank's time, against NCCL's at the same size */
    if (rows[1].median_ms != 2.0)
        fail_msg("median %g: %s", rows[1].median_ms, rows[1].message);
    assert_true(strstr(rows[1].message, "slowest GPU, 1") != NULL);
    assert_true(rows[1].speedup_lib == 1.0);
    assert_true(rows[2].speedup_lib == 0.0);
}

/* The learner's rows come after all of the lab's, each with its speed
 * against NCCL's at its own size ("x lib"); none at a size NCCL has no
 * row for. */
static void test_learner_row(void **state)
{
    (void)state;
    run_fault f;
    if (!run_group_ex("ok", true, &f))
        fail_msg("fault (%s): %s\nlog:\n%s", f.cause, f.message, logs);
    assert_int_equal(nrows, 8);
    static const char *const want[][2] = {
        {"peer_0to1", "256 MiB"}, {"ar_ring", "8 B"},  {"ar_nccl", "8 B"},   {"ar_ring", "16 B"},
        {"ar_nccl", "16 B"},      {"exercise", "8 B"}, {"exercise", "16 B"}, {"exercise", "32 B"}};
    for (int i = 0; i < 8; i++) {
        assert_string_equal(rows[i].variant, want[i][0]);
        assert_string_equal(rows[i].size, want[i][1]);
    }
    for (int i = 5; i < 8; i++)
        assert_int_equal(rows[i].status, RS_CORRECT);
    if (rows[5].speedup_lib != 0.5 || rows[6].speedup_lib != 4.0 || rows[7].speedup_lib != 0.0)
        fail_msg("speedup_lib %g %g %g", rows[5].speedup_lib, rows[6].speedup_lib,
                 rows[7].speedup_lib);
    assert_true(rows[3].speedup_lib == 8.0);
}

static void test_one_rank_wrong(void **state)
{
    (void)state;
    run_fault f;
    assert_true(run_group("wrong", &f));
    assert_int_equal(rows[1].status, RS_WRONG);
    assert_string_equal(rows[1].message, "GPU 1: wrong: 1 differs");
    assert_true(rows[1].speedup_lib == 0.0);
}

static void test_every_rank_same_error(void **state)
{
    (void)state;
    run_fault f;
    assert_true(run_group("nonccl", &f));
    assert_int_equal(rows[2].status, RS_ERROR);
    assert_string_equal(rows[2].message, "NCCL not found: install it");
    assert_true(rows[1].speedup_lib == 0.0);
}

static void test_rank_killed(void **state)
{
    (void)state;
    run_fault f;
    assert_false(run_group("die", &f));
    assert_string_equal(f.cause, "signal");
    if (!strstr(f.message, "GPU 1 (rank 1) was killed by signal 9 (SIGKILL)")
        || !strstr(f.message, "the group of 2 was stopped"))
        fail_msg("%s", f.message);
}

static void test_rank_fails(void **state)
{
    (void)state;
    run_fault f;
    assert_false(run_group("fail", &f));
    assert_string_equal(f.cause, "rank");
    if (!strstr(f.message, "GPU 1 (rank 1) failed: fake: an illegal memory access"))
        fail_msg("%s", f.message);
}

static void test_rank_hangs(void **state)
{
    (void)state;
    run_fault f;
    assert_false(run_group("hang", &f));
    assert_string_equal(f.cause, "timeout");
    if (!strstr(f.message, "GPU 1 (rank 1) stopped answering")
        || !strstr(f.message, "while the others waited for it"))
        fail_msg("%s", f.message);
}

/* ---- machines that cannot run the lab ------------------------------------------------ */

static void test_not_runnable(void **state)
{
    (void)state;
    static rank_probe p;
    static run_request req;
    run_result out[8];
    size_t n = 0;
    memset(&p, 0, sizeof p);
    memset(&req, 0, sizeof req);
    snprintf(p.dev.reason, sizeof p.dev.reason, "no CUDA device found: none here");
    snprintf(p.nccl_why, sizeof p.nccl_why, "NCCL not found: install the nvidia-nccl-cu13 wheel");
    assert_false(group_runnable(&p, &req, out, 8, &n));
    assert_int_equal(n, 7);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(out[i].status, RS_NO_DEVICE);
        assert_true(strstr(out[i].message, "no CUDA device found") == out[i].message);
    }
    /* the rows that need NCCL also say why it is missing */
    static const char *const ids[] = {"peer", "ar_naive", "ar_ring", "ar_nccl", "dp_1gpu",
                                      "dp_serial", "dp_overlap"};
    static const bool nccl[] = {false, false, false, true, false, true, true};
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(out[i].variant, ids[i]);
        assert_true((strstr(out[i].message, "nvidia-nccl-cu13") != NULL) == nccl[i]);
    }

    p.dev.present = true;
    p.ndevices = 1;
    p.nccl = true;
    snprintf(p.dev.name, sizeof p.dev.name, "NVIDIA H100 80GB HBM3");
    snprintf(req.variants[req.nvariants++].id, RUN_ID_MAX, "ar_ring");
    assert_false(group_runnable(&p, &req, out, 8, &n));
    assert_int_equal(n, 1);
    assert_string_equal(out[0].variant, "ar_ring");
    assert_string_equal(out[0].message, "one GPU found (NVIDIA H100 80GB HBM3): the multigpu lab "
                                        "needs two or more GPUs in this machine");

    /* the learner's kernel gets a row of its own at each of the eleven
     * sizes its milestones judge, each saying why */
    snprintf(req.exercise_kernel, sizeof req.exercise_kernel, "/ws/multigpu/starter.cu");
    run_result many[16];
    assert_false(group_runnable(&p, &req, many, 16, &n));
    assert_int_equal(n, 12);
    assert_string_equal(many[1].size, "8 B");
    assert_string_equal(many[10].size, "256 MiB");
    assert_string_equal(many[11].size, "1 GiB");
    memcpy(&out[1], &many[10], sizeof out[1]);
    assert_string_equal(out[1].variant, "exercise");
    assert_string_equal(out[1].label, "your kernel");
    assert_int_equal(out[1].kind, RK_EXERCISE);
    assert_int_equal(out[1].status, RS_NO_DEVICE);
    if (!strstr(out[1].message, "needs two or more GPUs")
        || !strstr(out[1].message, "milestones against NCCL need the ar_nccl row"))
        fail_msg("%s", out[1].message);
    req.exercise_kernel[0] = '\0';

    p.ndevices = 2;
    assert_true(group_runnable(&p, &req, out, 8, &n));
    assert_int_equal(n, 0);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "worker") == 0)
        return fake_main(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_runnable), cmocka_unit_test(test_merged_rows),
        cmocka_unit_test(test_learner_row),
        cmocka_unit_test(test_one_rank_wrong), cmocka_unit_test(test_every_rank_same_error),
        cmocka_unit_test(test_rank_killed),
        cmocka_unit_test(test_rank_fails),   cmocka_unit_test(test_rank_hangs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

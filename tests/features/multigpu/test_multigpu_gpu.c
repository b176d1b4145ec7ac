/* The multigpu lab on a machine with two or more GPUs (skips, exit 77,
 * with fewer): every row correct (the peer copies, and the naive, ring
 * and NCCL all-reduces at every size, each checked by every rank against
 * the double-precision sum of all ranks' inputs; the data-parallel step on
 * one GPU and on all of them, serial and overlapped, each checked against
 * the CPU's gradient of every rank's batch), printed as a record of what
 * was measured, with the step's figures side by side; the lab narrowed to
 * one GPU says why it cannot run;
 * and a rank killed in the middle of a run ends the group with a message
 * naming its GPU, and leaves no process of the run behind.  The exercise:
 * the starter's row is correct at every size beside NCCL's; a fast answer
 * written against the learner's interface alone (ring_solution.cu) is
 * correct and has every milestone judged, its speed against NCCL printed;
 * a learner kernel that forgets its own input is reported wrong, and so is
 * one that replays an earlier answer while timed; one that waits for
 * a flag nobody sets, or faults, ends the group with a message naming the
 * GPU and leaves no process behind. */
#define _GNU_SOURCE   /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#include "support.h"

static const char *field(const cJSON *row, const char *key)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(row, key));
    return s ? s : "";
}

static double num(const cJSON *row, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(row, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1.0;
}

static void test_every_row_correct(void **state)
{
    (void)state;
    static ts_output o;
    ts_shell(&o, false, "'%s' run multigpu --json", ts_exe());
    cJSON *doc = cJSON_Parse(o.out);
    if (!doc)
        fail_msg("not JSON (exit %d):\n%s\n%s", o.status, o.out, o.err);
    const cJSON *res = cJSON_GetObjectItem(doc, "results"), *row;
    int n = 0, wrong = 0, ring = 0, naive = 0, nccl = 0, peer = 0;
    const cJSON *dp[3] = {NULL, NULL, NULL};
    static const char *const dp_ids[3] = {"dp_1gpu", "dp_serial", "dp_overlap"};
    printf("%-12s %-16s %12s %10s %8s %8s  %s\n", "row", "size", "median ms", "GB/s", "TFLOP/s",
           "x NCCL", "status: message");
    cJSON_ArrayForEach(row, res) {
        const char *v = field(row, "variant"), *st = field(row, "status");
        printf("%-12s %-16s %12.4f %10.1f %8.1f %8.2f  %s: %s\n", v, field(row, "size"),
               num(row, "median_ms"), num(row, "gbps"), num(row, "tflops"),
               num(row, "speedup_lib"), st, field(row, "message"));
        n++;
        wrong += strcmp(st, "correct") != 0;
        ring += strcmp(v, "ar_ring") == 0;
        naive += strcmp(v, "ar_naive") == 0;
        nccl += strcmp(v, "ar_nccl") == 0;
        peer += strncmp(v, "peer_", 5) == 0;
        for (int k = 0; k < 3; k++)
            if (strcmp(v, dp_ids[k]) == 0) {
                assert_null(dp[k]);
                dp[k] = row;
            }
    }
    fprintf(stderr, "%s", o.err);
    assert_int_equal(ring, 11);
    assert_int_equal(naive, 11);
    assert_int_equal(nccl, 11);
    assert_true(peer >= 2);
    for (int k = 0; k < 3; k++)
        if (!dp[k])
            fail_msg("no %s row", dp_ids[k]);
    /* the step's figures side by side: the "overlapped faster than serial" */
    double one = num(dp[0], "median_ms"), serial = num(dp[1], "median_ms"),
           overlap = num(dp[2], "median_ms");
    printf("\ndata-parallel step (%s): 1 GPU %.3f ms, serial %.3f ms, overlapped %.3f ms; "
           "overlapped/serial speed %.3fx (%s); weak scaling serial %.1f%%, overlapped %.1f%%\n",
           field(dp[2], "size"), one, serial, overlap, serial / overlap,
           overlap < serial ? "overlapped faster" : "overlapped NOT faster",
           100.0 * one / serial, 100.0 * one / overlap);
    for (int k = 0; k < 3; k++)
        if (strcmp(field(dp[k], "status"), "correct") == 0) {
            assert_true(ts_contains(field(dp[k], "message"), "samples/s"));
            assert_true(num(dp[k], "tflops") > 0.0);
        }
    if (strcmp(field(dp[2], "status"), "correct") == 0)
        assert_true(ts_contains(field(dp[2], "message"), "dp_serial's"));
    if (wrong)
        fail_msg("%d of %d rows are not correct (exit %d)", wrong, n, o.status);
    assert_int_equal(o.status, 0);
    cJSON_Delete(doc);
    ts_output_free(&o);
}

static void test_one_gpu(void **state)
{
    (void)state;
    static ts_output o;
    ts_shell(&o, true, "CUDALAB_MGPU_GPUS=1 '%s' run multigpu --variant ar_ring", ts_exe());
    if (!strstr(o.out, "one GPU found") || !strstr(o.out, "needs two or more GPUs"))
        fail_msg("%s", o.out);
    ts_output_free(&o);
}

/* The processes whose environment holds mark (and, with arg, whose
 * command line holds the alen bytes of arg), into pids; their count. */
static int marked(const char *mark, const char *arg, size_t alen, pid_t *pids, int max)
{
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL && n < max) {
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid <= 0)
            continue;
        char path[64], buf[16384];
        snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        bool has = memmem(buf, len, mark, strlen(mark)) != NULL;
        snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
        f = fopen(path, "rb");
        len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f)
            fclose(f);
        if (has && (!arg || memmem(buf, len, arg, alen)))
            pids[n++] = pid;
    }
    if (d)
        closedir(d);
    return n;
}

static void nap(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static void test_killed_rank(void **state)
{
    (void)state;
    char mark[64], out[CL_PATH_MAX + 16];
    snprintf(mark, sizeof mark, "mgpu%d", (int)getpid());
    snprintf(out, sizeof out, "%s/killed.txt", ts_tmp);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        /* cudalab itself, no shell between: its own exit status comes back;
         * stdin from /dev/null, as under a terminal it is never closed */
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int in = open("/dev/null", O_RDONLY);
        if (fd < 0 || in < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(fd, STDOUT_FILENO) < 0 ||
            dup2(fd, STDERR_FILENO) < 0)
            _exit(126);
        setenv("CUDALAB_TEST_MARK", mark, 1);
        execl(ts_exe(), "cudalab", "run", "multigpu", "--variant", "ar_ring", (char *)NULL);
        _exit(127);
    }
    snprintf(mark, sizeof mark, "CUDALAB_TEST_MARK=mgpu%d", (int)getpid());
    static const char rank_one[] = "--rank\0" "1";   /* with its NUL: "--rank" "1" */
    pid_t rank1[4];
    int found = 0;
    for (int i = 0; i < 600 && found == 0; i++, nap(0.1))
        found = marked(mark, rank_one, sizeof rank_one, rank1, 4);
    assert_int_equal(found, 1);
    /* into the collectives: the whole ring sweep takes only a few seconds
     * from here, so the kill comes once the first rows are out (at the
     * latest after a second), long before the largest sizes are done */
    for (int i = 0; i < 10; i++, nap(0.1)) {
        char *sofar = ts_read(out);
        bool started = sofar && ts_contains(sofar, "256 KiB");
        free(sofar);
        if (started)
            break;
    }
    printf("killing rank 1 (pid %d)\n", (int)rank1[0]);
    kill(rank1[0], SIGKILL);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    char *text = ts_read(out);
    assert_non_null(text);
    printf("%s", text);
    if (WIFSIGNALED(status))
        fail_msg("cudalab itself was killed by signal %d", WTERMSIG(status));
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 0)
        fail_msg("cudalab ended with wait status 0x%x (exit %d), not a failure, and printed the "
                 "above", status, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    assert_true(ts_contains(text, "GPU 1 (rank 1) was killed by signal 9 (SIGKILL)"));
    assert_true(ts_contains(text, "the group of"));
    pid_t left[16];
    int nleft = 0;
    for (int i = 0; i < 50 && (nleft = marked(mark, NULL, 0, left, 16)) > 0; i++)
        nap(0.1);
    if (nleft)
        fail_msg("%d process(es) of the run are left, the first pid %d", nleft, (int)left[0]);
    free(text);
}

/* ---- the exercise ------------------------------------------------------------ */

/* A workspace whose multigpu kernel is the starter with from replaced by
 * to (none: the starter itself); its folder into ws. */
static void workspace_with(const char *tag, const char *from, const char *to, char *ws, size_t n)
{
    char src[CL_PATH_MAX], dst[CL_PATH_MAX];
    static ts_output o;
    snprintf(ws, n, "%s/ws-%s", ts_tmp, tag);
    ts_shell(&o, true, "mkdir -p '%s/multigpu'", ws);
    assert_int_equal(o.status, 0);
    ts_output_free(&o);
    ts_home_path(src, sizeof src, "labs/multigpu/starter.cu");
    char *text = ts_read(src);
    assert_non_null(text);
    char *at = from ? strstr(text, from) : NULL;
    if (from)
        assert_non_null(at);
    size_t len = strlen(text) + (to ? strlen(to) : 0) + 1;
    char *out = malloc(len);
    assert_non_null(out);
    if (at)
        snprintf(out, len, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    else
        snprintf(out, len, "%s", text);
    snprintf(dst, sizeof dst, "%s/multigpu/starter.cu", ws);
    assert_true(ts_write(dst, out));
    free(out);
    free(text);
}

/* `cudalab run multigpu --exercise --variant exercise` on workspace ws:
 * its rows printed, the learner's counted by status. */
static cJSON *run_exercise(ts_output *o, const char *ws, int *mine, int *correct)
{
    ts_shell(o, false, "'%s' run multigpu --exercise --variant exercise --workspace '%s' --json",
             ts_exe(), ws);
    cJSON *doc = cJSON_Parse(o->out);
    if (!doc)
        fail_msg("not JSON (exit %d):\n%s\n%s", o->status, o->out, o->err);
    const cJSON *row;
    *mine = *correct = 0;
    printf("%-10s %-8s %12s %10s %8s  %s\n", "row", "size", "median ms", "busbw GB/s", "x NCCL",
           "status: message");
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(doc, "results")) {
        const char *v = field(row, "variant"), *st = field(row, "status");
        printf("%-10s %-8s %12.4f %10.1f %8.2f  %s: %s\n", v, field(row, "size"),
               num(row, "median_ms"), num(row, "gbps"), num(row, "speedup_lib"), st,
               field(row, "message"));
        if (strcmp(v, "exercise") == 0) {
            (*mine)++;
            *correct += strcmp(st, "correct") == 0;
        }
    }
    fprintf(stderr, "%s", o->err);
    return doc;
}

static void test_exercise_starter(void **state)
{
    (void)state;
    static ts_output o;
    char ws[CL_PATH_MAX];
    int mine, correct;
    workspace_with("starter", NULL, NULL, ws, sizeof ws);
    cJSON *doc = run_exercise(&o, ws, &mine, &correct);
    assert_int_equal(mine, 11);
    /* the launch the starter's __constant__ ints ask for, as the ranks read them */
    if (!ts_contains(o.out, "1 block of 512 threads a GPU"))
        fail_msg("the ranks did not read the starter's ring_blocks and ring_threads");
    if (correct != 11)
        fail_msg("the starter is correct at %d of 11 sizes (exit %d)", correct, o.status);
    const cJSON *ms;
    cJSON_ArrayForEach(ms, cJSON_GetObjectItem(doc, "milestones"))
        printf("milestone %-12s %-8s %s\n", field(ms, "id"), field(ms, "state"), field(ms, "shown"));
    cJSON_Delete(doc);
    ts_output_free(&o);
}

/* A fast answer to the exercise, written against the learner's interface
 * alone (ring_solution.cu), run as a learner's kernel beside NCCL: correct
 * at every size, and every milestone judged.  How fast it is against NCCL
 * is printed, for the benchmark's summary, not asserted. */
static void test_exercise_solution(void **state)
{
    (void)state;
    static ts_output o;
    char ws[CL_PATH_MAX], src[CL_PATH_MAX], dst[CL_PATH_MAX];
    snprintf(ws, sizeof ws, "%s/ws-solution", ts_tmp);
    ts_shell(&o, true, "mkdir -p '%s/multigpu'", ws);
    assert_int_equal(o.status, 0);
    ts_output_free(&o);
    ts_data_path(src, sizeof src, "features/multigpu/ring_solution.cu");
    char *text = ts_read(src);
    assert_non_null(text);
    snprintf(dst, sizeof dst, "%s/multigpu/starter.cu", ws);
    assert_true(ts_write(dst, text));
    free(text);
    ts_shell(&o, false,
             "'%s' run multigpu --exercise --variant exercise --variant ar_nccl --workspace '%s' "
             "--json", ts_exe(), ws);
    cJSON *doc = cJSON_Parse(o.out);
    if (!doc)
        fail_msg("not JSON (exit %d):\n%s\n%s", o.status, o.out, o.err);
    const cJSON *row, *ms;
    int mine = 0, correct = 0;
    double ex256 = -1.0, nccl256 = -1.0;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(doc, "results")) {
        const char *v = field(row, "variant"), *st = field(row, "status");
        printf("%-10s %-8s %12.4f %10.1f %8.2f  %s: %s\n", v, field(row, "size"),
               num(row, "median_ms"), num(row, "gbps"), num(row, "speedup_lib"), st,
               field(row, "message"));
        bool at256 = strcmp(field(row, "size"), "256 MiB") == 0;
        if (strcmp(v, "exercise") == 0) {
            mine++;
            correct += strcmp(st, "correct") == 0;
            if (at256)
                ex256 = num(row, "gbps");
        } else if (strcmp(v, "ar_nccl") == 0 && at256 && strcmp(st, "correct") == 0) {
            nccl256 = num(row, "gbps");
        }
    }
    fprintf(stderr, "%s", o.err);
    assert_int_equal(mine, 11);
    if (correct != 11)
        fail_msg("the solution is correct at %d of 11 sizes (exit %d)", correct, o.status);
    int judged = 0;
    cJSON_ArrayForEach(ms, cJSON_GetObjectItem(doc, "milestones")) {
        const char *st = field(ms, "state");
        printf("milestone %-12s %-8s %s\n", field(ms, "id"), st, field(ms, "shown"));
        if (strcmp(st, "quiz") != 0) {
            judged++;
            if (strcmp(st, "error") == 0 || strcmp(st, "pending") == 0)
                fail_msg("milestone %s was not judged (%s): %s", field(ms, "id"), st,
                         field(ms, "error"));
        }
    }
    assert_int_equal(judged, 3);
    if (ex256 > 0.0 && nccl256 > 0.0)
        printf("solution ring at 256 MiB: %.1f GB/s, %.2f of NCCL's %.1f\n", ex256,
               ex256 / nccl256, nccl256);
    cJSON_Delete(doc);
    ts_output_free(&o);
}

static void test_exercise_wrong(void **state)
{
    (void)state;
    static ts_output o;
    char ws[CL_PATH_MAX];
    int mine, correct;
    /* the reduce-scatter copies the left's partial sums without adding its own input */
    workspace_with("wrong", "dst[off + i] = add ? v + a.send[off + i] : v;", "dst[off + i] = v;",
                   ws, sizeof ws);
    cJSON *doc = run_exercise(&o, ws, &mine, &correct);
    assert_int_equal(mine, 11);
    assert_int_equal(correct, 0);
    const cJSON *row;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(doc, "results"))
        if (strcmp(field(row, "variant"), "exercise") == 0)
            assert_string_equal(field(row, "status"), "wrong");
    cJSON_Delete(doc);
    ts_output_free(&o);
}

/* A kernel that sums only when its output is poisoned (as it is before
 * the first check) and otherwise returns at once, flags set, keeping the
 * answer it made: correct when first checked and very fast while timed,
 * so the check after timing, on fresh inputs and an unpoisoned output,
 * must find it wrong at every size. */
static void test_exercise_replays(void **state)
{
    (void)state;
    static ts_output o;
    char ws[CL_PATH_MAX];
    int mine, correct;
    workspace_with("replay", "    const int n = a.nranks, nblocks = gridDim.x;\n",
                   "    if (__float_as_uint(a.recv[0]) != 0x7fc0deadu) {\n"
                   "        announce(a.flags + FLAG_DONE(blockIdx.x), a.epoch);\n"
                   "        return;\n"
                   "    }\n"
                   "    const int n = a.nranks, nblocks = gridDim.x;\n",
                   ws, sizeof ws);
    cJSON *doc = run_exercise(&o, ws, &mine, &correct);
    assert_int_equal(mine, 11);
    const cJSON *row;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(doc, "results"))
        if (strcmp(field(row, "variant"), "exercise") == 0) {
            assert_string_equal(field(row, "status"), "wrong");
            if (!ts_contains(field(row, "message"), "after timing"))
                fail_msg("at %s: %s", field(row, "size"), field(row, "message"));
        }
    assert_int_equal(correct, 0);
    cJSON_Delete(doc);
    ts_output_free(&o);
}

/* A learner kernel (the starter with from replaced by to) run with a
 * mark in its environment: the run ends with a fault that holds want and
 * names a GPU, and leaves no process with the mark. */
static void exercise_ends_group(const char *tag, const char *from, const char *to, const char *want)
{
    char ws[CL_PATH_MAX], mark[64], env[80];
    static ts_output o;
    workspace_with(tag, from, to, ws, sizeof ws);
    snprintf(mark, sizeof mark, "mgpu%s%d", tag, (int)getpid());
    snprintf(env, sizeof env, "CUDALAB_TEST_MARK=%s", mark);
    time_t t0 = time(NULL);
    ts_shell(&o, true, "%s '%s' run multigpu --exercise --variant exercise --workspace '%s' "
             "</dev/null", env, ts_exe(), ws);
    printf("%s(exit %d after %ld s)\n", o.out, o.status, (long)(time(NULL) - t0));
    if (o.status == 0 || !ts_contains(o.out, want) || !ts_contains(o.out, "(rank ")
        || !ts_contains(o.out, "the group of"))
        fail_msg("expected a fault with '%s'", want);
    pid_t left[16];
    int nleft = 0;
    for (int i = 0; i < 50 && (nleft = marked(env, NULL, 0, left, 16)) > 0; i++)
        nap(0.1);
    if (nleft)
        fail_msg("%d process(es) of the run are left, the first pid %d", nleft, (int)left[0]);
    ts_output_free(&o);
}

static void test_exercise_hangs(void **state)
{
    (void)state;
    /* every step waits for an epoch nobody reaches */
    exercise_ends_group("hang", "wait_all(a.left_flags + FLAG_STEP(s - 1, 0), nblocks, a.epoch);",
                        "wait_all(a.left_flags + FLAG_STEP(s - 1, 0), nblocks, a.epoch + 7);",
                        "your kernel did not finish the checked collective at 8 B");
}

static void test_exercise_faults(void **state)
{
    (void)state;
    exercise_ends_group("fault", "float v = __ldcg(src + off + i);",
                        "float v = __ldcg(src + off + i + (1ll << 40));",
                        "your kernel failed");
}

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) {
        printf("skipped: %d CUDA device(s) found; the multigpu lab's GPU tests need two or more\n",
               count);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_row_correct),
        cmocka_unit_test(test_one_gpu),
        cmocka_unit_test(test_killed_rank),
        cmocka_unit_test(test_exercise_starter),
        cmocka_unit_test(test_exercise_solution),
        cmocka_unit_test(test_exercise_wrong),
        cmocka_unit_test(test_exercise_replays),
        cmocka_unit_test(test_exercise_hangs),
        cmocka_unit_test(test_exercise_faults),
    };
    return cmocka_run_group_tests(tests, ts_tmp_setup, ts_tmp_teardown);
}

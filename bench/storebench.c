/* storebench.c - how the progress store behaves when it is full.
 *
 * Fills a fresh store in a temporary folder with RUNS runs (default
 * 10,000) of the shipped labs, ten rows each, the way `cudalab run` and
 * the TUI record them, timing every row's write; then times, on the full
 * store, what the TUI reads from it before drawing its first frame (opening
 * it and, for every lab, the place, quiz answers, hints, milestones and the
 * latest results of the learner's kernel), what `cudalab progress` reads
 * from it (the store's part of the command, in this process), how long
 * SQLite's quick_check takes on it (whole, and the small tables only: what
 * opening checks above STORE_CHECK_MAX_BYTES), and, when the cudalab binary
 * is found (CUDALAB, or beside this program's folder), the whole `cudalab
 * progress` command on this store and on an empty one.  Prints the
 * figures; asserts nothing.  usage: storebench [RUNS [DIR]]: with DIR, the
 * store is made there and kept (bench/tui-first-frame.sh opens the TUI on
 * it). */
#include <fcntl.h>
#include <spawn.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/paths.h"
#include "store/store.h"

#define ROWS_A_RUN 10

static const char *const lab_ids[] = {"reduction", "matmul", "embedding", "profiling"};
#define NLABS (sizeof lab_ids / sizeof lab_ids[0])

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void fill_row(run_result *r, int k, int run)
{
    static const char *const variants[] = {"interleaved", "strided", "sequential", "first_add",
                                           "warp_shuffle", "vectorized", "exercise", "cub",
                                           "cpu", "cpu_mt"};
    run_result_init(r);
    snprintf(r->variant, sizeof r->variant, "%s", variants[k % 10]);
    snprintf(r->label, sizeof r->label, "%s", variants[k % 10]);
    snprintf(r->size, sizeof r->size, "2^%d", 20 + (run % 3) * 4);
    r->kind = k == 6 ? RK_EXERCISE : k == 7 ? RK_LIBRARY : k == 8 ? RK_CPU : k == 9 ? RK_CPU_MT
                                                                               : RK_KERNEL;
    r->status = RS_CORRECT;
    r->median_ms = 0.5 + (run % 97) * 0.01;
    r->samples = 30;
    r->gbps = 3000.0;
    r->speedup_cpu = 100.0 + run % 50;
    r->seed = (uint64_t)run * 7919u;
}

/* Best and median of n times (ms), sorted in place. */
static void report(const char *what, double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    printf("%s: best %.1f ms, median %.1f ms (%d runs)\n", what, t[0], t[n / 2], n);
}

/* What `cudalab progress` reads of the store, for every lab, once; ms. */
static double progress_reads(const char *dir)
{
    store *s = NULL;
    char notice[256];
    cl_err e = {{0}};
    double a = clock_now_s();
    if (!store_open(dir, &s, notice, sizeof notice, &e)) {
        fprintf(stderr, "storebench: %s\n", e.msg);
        exit(1);
    }
    for (size_t l = 0; l < NLABS; l++) {
        int step = 0;
        store_milestone *m = NULL;
        store_quiz *q = NULL;
        size_t n = 0;
        store_exercise_summary sum;
        store_place_get(s, lab_ids[l], &step, &e);
        if (!store_milestones(s, lab_ids[l], &m, &n, &e) ||
            !store_quizzes(s, lab_ids[l], &q, &n, &e) ||
            !store_exercise_summary_get(s, lab_ids[l], &sum, &e)) {
            fprintf(stderr, "storebench: %s\n", e.msg);
            exit(1);
        }
        free(m);
        free(q);
    }
    store_close(s);
    return (clock_now_s() - a) * 1e3;
}

/* Every row of the learner's kernel, decoded from its record, for every
 * lab (store_exercise_history: how `cudalab progress` read them before the
 * summary tables); ms. */
static double history_reads(const char *dir)
{
    store *s = NULL;
    char notice[256];
    cl_err e = {{0}};
    if (!store_open(dir, &s, notice, sizeof notice, &e))
        return -1;
    double a = clock_now_s();
    for (size_t l = 0; l < NLABS; l++) {
        store_row *r = NULL;
        size_t n = 0;
        store_exercise_history(s, lab_ids[l], &r, &n, &e);
        free(r);
    }
    double ms = (clock_now_s() - a) * 1e3;
    store_close(s);
    return ms;
}

/* SQLite's quick_check of the store in dir: of the whole file (whole), or
 * of the small tables only, as opening checks a store above
 * STORE_CHECK_MAX_BYTES; ms. */
static double quick_check_ms(const char *dir, bool whole)
{
    static const char *const checks[] = {
        "PRAGMA quick_check(1)",           "PRAGMA quick_check(\"meta\")",
        "PRAGMA quick_check(\"milestones\")", "PRAGMA quick_check(\"quiz_answers\")",
        "PRAGMA quick_check(\"hints\")",      "PRAGMA quick_check(\"places\")",
    };
    char path[CL_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/%s", dir, STORE_FILE);
    sqlite3 *db = NULL;
    double a = clock_now_s();
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
        for (size_t i = whole ? 0 : 1; i < (whole ? 1 : sizeof checks / sizeof checks[0]); i++) {
            sqlite3_stmt *st = NULL;
            if (sqlite3_prepare_v2(db, checks[i], -1, &st, NULL) == SQLITE_OK)
                while (sqlite3_step(st) == SQLITE_ROW) {
                }
            sqlite3_finalize(st);
        }
    sqlite3_close(db);
    return (clock_now_s() - a) * 1e3;
}

/* The cudalab binary: $CUDALAB, or cudalab in the folder above this
 * program's; false when there is none. */
static bool find_cudalab(char *out, size_t n)
{
    const char *env = getenv("CUDALAB");
    if (env && env[0]) {
        snprintf(out, n, "%s", env);
        return access(out, X_OK) == 0;
    }
    char self[CL_PATH_MAX];
    cl_err e = {{0}};
    if (!paths_self_exe(self, sizeof self, &e))
        return false;
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(self, '/');
        if (!slash)
            return false;
        *slash = '\0';
    }
    snprintf(out, n, "%s/cudalab", self);
    return access(out, X_OK) == 0;
}

/* Runs `exe --data dir progress` with its output thrown away; ms, or -1. */
static double time_progress(const char *exe, const char *dir)
{
    char *argv[] = {(char *)exe, (char *)"--data", (char *)dir, (char *)"progress", NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    extern char **environ;
    pid_t pid;
    double a = clock_now_s();
    int rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    int status = 0;
    if (rc != 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return -1;
    return (clock_now_s() - a) * 1e3;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 10000;
    if (runs < 1)
        runs = 1;
    char dir[CL_PATH_MAX] = "/tmp/cudalab-storebench-XXXXXX";
    bool keep = argc > 2;
    cl_err me = {{0}};
    if (keep && (snprintf(dir, sizeof dir, "%s", argv[2]), !paths_mkdir_p(dir, &me))) {
        fprintf(stderr, "storebench: %s\n", me.msg);
        return 1;
    }
    if (!keep && !mkdtemp(dir)) {
        perror("storebench: mkdtemp");
        return 1;
    }
    store *s = NULL;
    char notice[256];
    cl_err e = {{0}};
    if (!store_open(dir, &s, notice, sizeof notice, &e)) {
        fprintf(stderr, "storebench: %s\n", e.msg);
        return 1;
    }
    size_t nw = (size_t)runs * ROWS_A_RUN;
    double *w = malloc(nw * sizeof *w);
    if (!w)
        return 1;
    char source[4096];
    size_t at = 0;
    double t0 = clock_now_s();
    for (int run = 0; run < runs; run++) {
        /* A learner edits between runs: each run's source differs. */
        snprintf(source, sizeof source, "// attempt %d\nextern \"C\" __global__ void k() {}\n", run);
        store_run_info info = {.lab = lab_ids[run % NLABS], .origin = "bench", .seed = (uint64_t)run,
                               .kernel_path = "starter.cu", .kernel_text = source,
                               .launcher_path = "starter.lua",
                               .launcher_text = "return function(gpu, k, args) end\n"};
        int64_t id = 0;
        if (!store_run_begin(s, &info, &id, &e)) {
            fprintf(stderr, "storebench: %s\n", e.msg);
            return 1;
        }
        for (int k = 0; k < ROWS_A_RUN; k++) {
            run_result r;
            fill_row(&r, k, run);
            double a = clock_now_s();
            if (!store_row_add(s, id, &r, NULL, NULL, &e)) {
                fprintf(stderr, "storebench: %s\n", e.msg);
                return 1;
            }
            w[at++] = (clock_now_s() - a) * 1e3;
        }
    }
    double fill_s = clock_now_s() - t0;
    store_close(s);
    qsort(w, at, sizeof *w, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < at; i++)
        sum += w[i];
    printf("filled %d runs x %d rows in %.1f s\n", runs, ROWS_A_RUN, fill_s);
    printf("recording a row: mean %.3f ms, median %.3f ms, p99 %.3f ms, max %.3f ms\n",
           sum / (double)at, w[at / 2], w[at * 99 / 100], w[at - 1]);

    /* What the TUI reads before its first frame, five times, on the full store. */
    double best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
        double a = clock_now_s();
        if (!store_open(dir, &s, notice, sizeof notice, &e)) {
            fprintf(stderr, "storebench: %s\n", e.msg);
            return 1;
        }
        char last[64];
        store_last_lab(s, last, sizeof last, &e);
        for (size_t l = 0; l < NLABS; l++) {
            int step = 0;
            store_place_get(s, lab_ids[l], &step, &e);
            store_quiz *q = NULL;
            store_milestone *m = NULL;
            store_row *r = NULL;
            int *h = NULL;
            size_t n = 0;
            store_quizzes(s, lab_ids[l], &q, &n, &e);
            store_hints(s, lab_ids[l], &h, &n, &e);
            store_milestones(s, lab_ids[l], &m, &n, &e);
            store_latest_exercise_run(s, lab_ids[l], &r, &n, &e);
            free(q);
            free(h);
            free(m);
            free(r);
        }
        store_close(s);
        double ms = (clock_now_s() - a) * 1e3;
        best = ms < best ? ms : best;
    }
    int64_t nruns = 0, nrows = 0;
    if (store_open(dir, &s, notice, sizeof notice, &e)) {
        store_counts(s, &nruns, &nrows, &e);
        store_close(s);
    }
    printf("the TUI's start-up reads on %lld runs (%lld rows): %.1f ms (best of 5)\n",
           (long long)nruns, (long long)nrows, best);

    double t[21];
    for (int rep = 0; rep < 21; rep++)
        t[rep] = progress_reads(dir);
    report("what `cudalab progress` reads of the store (open, then every lab)", t, 21);
    for (int rep = 0; rep < 5; rep++)
        t[rep] = history_reads(dir);
    report("every learner row decoded, as `progress` read them before", t, 5);
    struct stat st;
    char path[CL_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/%s", dir, STORE_FILE);
    double mib = stat(path, &st) == 0 ? (double)st.st_size / (1 << 20) : 0;
    for (int rep = 0; rep < 5; rep++)
        t[rep] = quick_check_ms(dir, true);
    qsort(t, 5, sizeof *t, cmp_double);
    printf("quick_check of the whole store (%.1f MiB): %.1f ms (best of 5), %.2f ms a MiB\n", mib,
           t[0], mib > 0 ? t[0] / mib : 0);
    for (int rep = 0; rep < 5; rep++)
        t[rep] = quick_check_ms(dir, false);
    qsort(t, 5, sizeof *t, cmp_double);
    printf("quick_check of the small tables only: %.1f ms (best of 5)\n", t[0]);

    char exe[CL_PATH_MAX + 16], empty[CL_PATH_MAX + 16];
    if (find_cudalab(exe, sizeof exe)) {
        snprintf(empty, sizeof empty, "%s/empty", dir);
        bool ok = true;
        for (int rep = 0; rep < 11 && ok; rep++)
            ok = (t[rep] = time_progress(exe, dir)) >= 0;
        if (ok)
            report("`cudalab progress` on this store", t, 11);
        for (int rep = 0; rep < 11 && ok; rep++)
            ok = (t[rep] = time_progress(exe, empty)) >= 0;
        if (ok)
            report("`cudalab progress` on an empty store (loading the labs)", t, 11);
        if (!ok)
            fprintf(stderr, "storebench: %s --data %s progress failed\n", exe, dir);
    } else {
        printf("(no cudalab binary found: set CUDALAB to time the command)\n");
    }
    char cmd[CL_PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (!keep && system(cmd) != 0)
        fprintf(stderr, "storebench: could not remove %s\n", dir);
    free(w);
    return 0;
}

#include "cpu/parallel.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cpu/cpuinfo.h"

typedef struct parallel_job {
    parallel_fn fn;
    void *ctx;
    int part, nparts;
} parallel_job;

static void *parallel_trampoline(void *arg)
{
    parallel_job *j = arg;
    j->fn(j->ctx, j->part, j->nparts);
    return NULL;
}

void parallel_run(int nparts, parallel_fn fn, void *ctx)
{
    if (nparts <= 1) {
        fn(ctx, 0, 1);
        return;
    }
    parallel_job *jobs = calloc((size_t)nparts, sizeof *jobs);
    pthread_t *tids = calloc((size_t)nparts, sizeof *tids);
    bool *started = calloc((size_t)nparts, sizeof *started);
    if (!jobs || !tids || !started) {
        for (int p = 0; p < nparts; p++)
            fn(ctx, p, nparts);
        goto cleanup;
    }
    for (int p = 1; p < nparts; p++) {
        jobs[p] = (parallel_job){.fn = fn, .ctx = ctx, .part = p, .nparts = nparts};
        started[p] = pthread_create(&tids[p], NULL, parallel_trampoline, &jobs[p]) == 0;
    }
    fn(ctx, 0, nparts);
    for (int p = 1; p < nparts; p++) {
        if (started[p])
            pthread_join(tids[p], NULL);
        else
            fn(ctx, p, nparts);
    }
cleanup:
    free(jobs);
    free(tids);
    free(started);
}

int parallel_threads(int threads, double work, double min_per_thread)
{
    if (threads <= 0)
        threads = cpu_thread_count();
    if (min_per_thread > 0.0) {
        double cap = work / min_per_thread;
        if (cap < 1.0)
            cap = 1.0;
        if ((double)threads > cap)
            threads = (int)cap;
    }
    return threads < 1 ? 1 : threads;
}

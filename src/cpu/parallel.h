/* parallel.h - run one function on several pthreads and wait for all of them. */
#ifndef CUDALAB_CPU_PARALLEL_H
#define CUDALAB_CPU_PARALLEL_H

typedef void (*parallel_fn)(void *ctx, int part, int nparts);

/* Calls fn(ctx, p, nparts) once for every p in [0,nparts), each on its own
 * thread (part 0 on the calling thread), and returns when all have finished.
 * A part whose thread cannot be created runs on the caller instead, so the
 * work is always done.  nparts <= 1 simply calls fn(ctx, 0, 1). */
void parallel_run(int nparts, parallel_fn fn, void *ctx);

/* Threads to use for `work` units when each thread should get at least
 * `min_per_thread` of them: clamps `threads` (<= 0: cpu_thread_count()). */
int parallel_threads(int threads, double work, double min_per_thread);

#endif

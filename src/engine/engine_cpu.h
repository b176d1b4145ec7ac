/* engine_cpu.h - the CPU baselines' timings, measured once and cached.
 *
 * A baseline (single-thread vectorised, or multi-threaded) is checked
 * against the reference with fresh inputs, then timed: the median of at
 * least three runs, or as many as fit in about a second.  Some take long
 * (sgemm at 4096^3 on one thread), so each timing is cached in the data
 * folder, keyed by problem, size, CPU model, SIMD path and thread count. */
#ifndef CUDALAB_ENGINE_ENGINE_CPU_H
#define CUDALAB_ENGINE_ENGINE_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "engine/problem.h"
#include "result/record.h"

typedef struct engine_cpu_key {
    char problem[RUN_ID_MAX];
    char size[RUN_SIZE_MAX];     /* canonical: "268435456", "4096x4096x4096" */
    char cpu[128];
    char simd[32];
    int threads;
    bool multi;                    /* threads != 1 */
} engine_cpu_key;

typedef struct engine_cpu_timing {
    double median_ms, min_ms, max_ms, spread;
    int samples;
    result_status status;          /* of the check before timing */
    double rel_err;
    char check[256];               /* the checker's summary line */
    uint64_t seed;
    long long measured_at;         /* seconds since the epoch */
    bool cached;                   /* read from the cache, not measured now */
} engine_cpu_timing;

/* Calls back with the repetition count while measuring. */
typedef void (*engine_cpu_progress_fn)(void *ud, int rep, int of);

/* The key for data's size, this CPU and threads (threads != 1: multi). */
void engine_cpu_key_make(const problem_data *data, int threads, engine_cpu_key *key);

/* Pure: the entry for key in the cache document json (NULL or malformed:
 * nothing found). */
bool engine_cpu_cache_lookup(const char *json, const engine_cpu_key *key,
                             engine_cpu_timing *timing);
/* Pure: a new document (malloc'd) with json's entries, key's replaced by
 * timing.
 * NULL when out of memory. */
char *engine_cpu_cache_update(const char *json, const engine_cpu_key *key,
                              const engine_cpu_timing *timing);
/* <data folder>/cpu_baselines.json */
bool engine_cpu_cache_path(char *out, size_t out_size, cl_err *err);

/* Pure: whether the timing loop stops after runs runs taking elapsed_s. */
bool engine_cpu_should_stop(int runs, double elapsed_s);

/* Checks then times data's baseline on threads threads (1: single-thread)
 * with inputs from seed.  false + err only when the inputs could not be made. */
bool engine_cpu_measure(problem_data *data, int threads, uint64_t seed,
                        engine_cpu_progress_fn progress, void *ud, engine_cpu_timing *out,
                        cl_err *err);

/* The cached timing when there is one (use_cache), else engine_cpu_measure
 * and, when the baseline checked correct, a cache update (a cache that
 * cannot be written is not an error). */
bool engine_cpu_baseline(problem_data *data, int threads, uint64_t seed, bool use_cache,
                         engine_cpu_progress_fn progress, void *ud, engine_cpu_timing *out,
                         cl_err *err);

#endif

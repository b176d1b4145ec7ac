#define _GNU_SOURCE
#include "core/rng.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* Elements filled from one chunk seed; part of the output's definition. */
#define RNG_CHUNK ((size_t)1 << 16)
/* Below this many elements a fill runs on the calling thread. */
#define RNG_PARALLEL_MIN ((size_t)1 << 20)
#define RNG_MAX_THREADS 64

static uint64_t rng_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void rng_seed(rng *gen, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        gen->s[i] = rng_splitmix(&x);
}

uint64_t rng_next(rng *gen)
{
    uint64_t *s = gen->s;
    uint64_t out = rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rng_rotl(s[3], 45);
    return out;
}

double rng_uniform(rng *gen)
{
    return (double)(rng_next(gen) >> 11) * 0x1p-53;
}

/* Chunk c of a fill with `seed` draws from rng_seed(base + c), where base is
 * the seed scrambled, so that fills with seeds s and s+1 share no chunk. */
static uint64_t rng_chunk_base(uint64_t seed)
{
    uint64_t x = seed ^ 0x6a09e667f3bcc909ull;
    return rng_splitmix(&x);
}

typedef struct rng_fill_job {
    rng_chunk_fn fn;
    void *ud;
    float *f;
    int32_t *i;
    size_t n;
    uint64_t base;
    float lo, hi;
    int32_t v;
    size_t chunk0, chunk1;
} rng_fill_job;

static void rng_fill_chunk_uniform(const rng_fill_job *j, size_t c)
{
    rng r;
    rng_seed(&r, j->base + c);
    size_t start = c * RNG_CHUNK;
    size_t end = start + RNG_CHUNK < j->n ? start + RNG_CHUNK : j->n;
    double lo = (double)j->lo, span = (double)j->hi - (double)j->lo;
    float top = nextafterf(j->hi, j->lo);
    for (size_t k = start; k < end; k++) {
        double u = (double)(rng_next(&r) >> 40) * 0x1p-24;
        float x = (float)(lo + span * u);
        j->f[k] = x < j->hi ? x : top;
    }
}

/* Lemire's multiply-shift with rejection: exactly uniform in [0, v). */
static int32_t rng_below(rng *r, uint32_t v)
{
    uint64_t m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * v;
    uint32_t low = (uint32_t)m;
    if (low < v) {
        uint32_t threshold = (uint32_t)(-v) % v;
        while (low < threshold) {
            m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * v;
            low = (uint32_t)m;
        }
    }
    return (int32_t)(m >> 32);
}

static void rng_fill_chunk_indices(const rng_fill_job *j, size_t c)
{
    rng r;
    rng_seed(&r, j->base + c);
    size_t start = c * RNG_CHUNK;
    size_t end = start + RNG_CHUNK < j->n ? start + RNG_CHUNK : j->n;
    for (size_t k = start; k < end; k++)
        j->i[k] = j->v > 0 ? rng_below(&r, (uint32_t)j->v) : 0;
}

static void *rng_fill_worker(void *arg)
{
    const rng_fill_job *j = arg;
    for (size_t c = j->chunk0; c < j->chunk1; c++) {
        if (j->fn) {
            rng r;
            rng_seed(&r, j->base + c);
            size_t start = c * RNG_CHUNK;
            j->fn(&r, start, start + RNG_CHUNK < j->n ? start + RNG_CHUNK : j->n, j->ud);
        } else if (j->f)
            rng_fill_chunk_uniform(j, c);
        else
            rng_fill_chunk_indices(j, c);
    }
    return NULL;
}

static int rng_usable_cpus(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    long n = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    if (n < 1)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}

/* Splits the chunks of `proto` over threads; results do not depend on the split. */
static void rng_fill_run(const rng_fill_job *proto, int threads)
{
    size_t nchunks = (proto->n + RNG_CHUNK - 1) / RNG_CHUNK;
    if (threads <= 0)
        threads = proto->n >= RNG_PARALLEL_MIN ? rng_usable_cpus() : 1;
    if (threads > RNG_MAX_THREADS)
        threads = RNG_MAX_THREADS;
    if ((size_t)threads > nchunks)
        threads = (int)nchunks;
    if (threads <= 1) {
        rng_fill_job j = *proto;
        j.chunk0 = 0;
        j.chunk1 = nchunks;
        rng_fill_worker(&j);
        return;
    }
    rng_fill_job jobs[RNG_MAX_THREADS];
    pthread_t tids[RNG_MAX_THREADS];
    bool started[RNG_MAX_THREADS] = {false};
    for (int t = 0; t < threads; t++) {
        jobs[t] = *proto;
        jobs[t].chunk0 = nchunks * (size_t)t / (size_t)threads;
        jobs[t].chunk1 = nchunks * (size_t)(t + 1) / (size_t)threads;
    }
    for (int t = 1; t < threads; t++)
        started[t] = pthread_create(&tids[t], NULL, rng_fill_worker, &jobs[t]) == 0;
    rng_fill_worker(&jobs[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tids[t], NULL);
        else
            rng_fill_worker(&jobs[t]);
    }
}

void rng_fill_uniform(float *out, size_t count, uint64_t seed, float lo, float hi)
{
    rng_fill_uniform_mt(out, count, seed, lo, hi, 0);
}

void rng_fill_indices(int32_t *out, size_t count, uint64_t seed, int32_t bound)
{
    rng_fill_indices_mt(out, count, seed, bound, 0);
}

void rng_fill_uniform_mt(float *out, size_t count, uint64_t seed, float lo, float hi, int threads)
{
    if (count == 0)
        return;
    if (!(hi > lo)) {
        for (size_t k = 0; k < count; k++)
            out[k] = lo;
        return;
    }
    rng_fill_job j = {.f = out, .n = count, .base = rng_chunk_base(seed), .lo = lo, .hi = hi};
    rng_fill_run(&j, threads);
}

void rng_fill_indices_mt(int32_t *out, size_t count, uint64_t seed, int32_t bound, int threads)
{
    if (count == 0)
        return;
    rng_fill_job j = {.i = out, .n = count, .base = rng_chunk_base(seed), .v = bound};
    rng_fill_run(&j, threads);
}

uint64_t rng_fresh_seed(void)
{
    static _Atomic uint64_t counter = 0;
    struct timespec ts = {0, 0};
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    x ^= (uint64_t)getpid() << 40;
    x += atomic_fetch_add(&counter, 1) * 0xd1b54a32d192ed03ull;
    return rng_splitmix(&x);
}

uint64_t rng_secret(void)
{
    uint64_t v = 0;
    unsigned char *b = (unsigned char *)&v;
    size_t got = 0;
    while (got < sizeof v) {
        ssize_t r = getrandom(b + got, sizeof v - got, 0);
        if (r <= 0)
            return rng_fresh_seed();
        got += (size_t)r;
    }
    return v;
}

void rng_fill_chunks(size_t count, uint64_t seed, rng_chunk_fn fn, void *ud)
{
    rng_fill_job j = {.fn = fn, .ud = ud, .n = count, .base = rng_chunk_base(seed)};
    if (count > 0)
        rng_fill_run(&j, 0);
}

uint64_t rng_below64(rng *gen, uint64_t bound)
{
    if (bound <= 1)
        return 0;
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do
        x = rng_next(gen);
    while (x >= limit);
    return x % bound;
}

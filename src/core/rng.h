/* rng.h - seeded, reproducible random inputs (xoshiro256** seeded through splitmix64).
 *
 * The same seed always gives the same numbers, on any machine and whatever
 * the number of threads used to fill a buffer. */
#ifndef CUDALAB_CORE_RNG_H
#define CUDALAB_CORE_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct rng {
    uint64_t s[4];
} rng;

/* Seeds the generator; any seed (0 included) gives a valid state. */
void rng_seed(rng *gen, uint64_t seed);
/* Next 64 random bits. */
uint64_t rng_next(rng *gen);
/* Uniform double in [0,1) with 53 random bits. */
double rng_uniform(rng *gen);
/* Fills out[0..count) with uniform floats in [lo,hi).  Deterministic for
 * (seed, count) whatever the thread count: the buffer is split into fixed
 * chunks, each seeded from seed + chunk index.  Multi-threaded for large
 * count. */
void rng_fill_uniform(float *out, size_t count, uint64_t seed, float lo, float hi);
/* Fills out[0..count) with integers uniform in [0, bound) (bound >= 1;
 * bound <= 0 fills zeros).
 * Same chunking and determinism as rng_fill_uniform; exactly uniform. */
void rng_fill_indices(int32_t *out, size_t count, uint64_t seed, int32_t bound);
/* The fills above with an explicit thread count (threads <= 0: automatic,
 * as above).  The output is the same for every thread count. */
void rng_fill_uniform_mt(float *out, size_t count, uint64_t seed, float lo, float hi, int threads);
void rng_fill_indices_mt(int32_t *out, size_t count, uint64_t seed, int32_t bound, int threads);
/* Calls fn(gen, from, to, ud) over fixed chunks [from, to) of [0, count),
 * each with gen seeded from seed and the chunk's index, on several threads
 * when count is large: what fn draws does not depend on the thread count, as for the
 * fills above.  fn must only touch its own chunk. */
typedef void (*rng_chunk_fn)(rng *gen, size_t from, size_t to, void *ud);
void rng_fill_chunks(size_t count, uint64_t seed, rng_chunk_fn fn, void *ud);
/* A whole number uniform in [0, bound) (0 when bound <= 1). */
uint64_t rng_below64(rng *gen, uint64_t bound);
/* A new seed from the clock, the process id and a counter: differs on every call. */
uint64_t rng_fresh_seed(void);
/* 64 bits from the kernel's random source (getrandom), for draws that the
 * code being measured must not be able to predict (which timed repetition
 * gets fresh inputs, and their seed); rng_fresh_seed's when it fails. */
uint64_t rng_secret(void);

#endif

/* collective.h - the multigpu lab's kernels, seen from C.
 *
 * The lab's own all-reduces run in several processes, one a GPU, that
 * read each other's buffers through CUDA IPC mappings.  Each rank keeps a
 * small array of flags in device memory that its neighbours map too: a
 * rank announces a finished piece of work by storing the collective's
 * number (its epoch) into a flag with release semantics at system scope,
 * and another waits for a flag to reach that number with acquire loads,
 * so the data written before the flag is seen after it.  Nothing here
 * touches CUDA until a launcher is called; every launcher enqueues on its
 * stream and returns the launch's error. */
#ifndef CUDALAB_KERNELS_COLLECTIVE_H
#define CUDALAB_KERNELS_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KCOLL_MAX_RANKS 8
#define KCOLL_MAX_STEPS (2 * (KCOLL_MAX_RANKS - 1))
#define KCOLL_MAX_BLOCKS 256
#define KCOLL_RING_THREADS 512

/* The flags of one rank, in 32-bit words: per ring block, "done reading my
 * left neighbour's buffers"; per ring step and block, "this piece is
 * written"; and the naive all-reduce's two. */
#define KCOLL_FLAG_DONE(block) (block)
#define KCOLL_FLAG_STEP(step, block) (KCOLL_MAX_BLOCKS * (1 + (step)) + (block))
#define KCOLL_FLAG_ARRIVED (KCOLL_MAX_BLOCKS * (1 + KCOLL_MAX_STEPS))
#define KCOLL_FLAG_REDUCED (KCOLL_FLAG_ARRIVED + 1)
#define KCOLL_FLAG_WORDS (KCOLL_FLAG_REDUCED + 31)

/* Where a ring step reads (src) and writes (dst). */
enum { KCOLL_LEFT_SEND = 0, KCOLL_LEFT_SCRATCH = 1, KCOLL_LEFT_RECV = 2 };
enum { KCOLL_MY_SCRATCH = 0, KCOLL_MY_RECV = 1 };

typedef struct kcoll_step {
    int64_t off, count;           /* the step's chunk, in floats */
    int32_t src, dst;
    int32_t add_own;              /* add this rank's input to what is read */
    int32_t pad;
} kcoll_step;

/* One rank's ring all-reduce (catalog/collective.h has the plan). */
typedef struct kcoll_ring_args {
    const float *send;            /* this rank's input */
    float *scratch, *recv;        /* its partial sums and its output */
    const float *left_send, *left_scratch, *left_recv;   /* mapped from rank - 1 */
    unsigned *flags;              /* this rank's flags */
    const unsigned *left_flags, *right_flags;            /* mapped */
    unsigned epoch;               /* this ring collective's number, from 1 */
    unsigned war_epoch;           /* wait for the right neighbour's blocks to have finished
                                   * this one (the previous ring collective of the same
                                   * blocks), 0: no wait (nothing since a barrier) */
    int32_t nsteps, nblocks;
    int64_t slice;                /* floats a block takes of a step's chunk */
    kcoll_step steps[KCOLL_MAX_STEPS];
} kcoll_ring_args;

/* The ring all-reduce: nblocks blocks launched cooperatively (all resident
 * at once, or the launch fails), each block taking its slice of every
 * step's chunk and waiting only for the same block of the left neighbour
 * at the step before: the steps of different blocks overlap. */
cudaError_t kcoll_ring(const kcoll_ring_args *args, cudaStream_t stream);

/* out[i] = sum of ins[k][i] over k < nin (1 to KCOLL_MAX_RANKS), i < n. */
cudaError_t kcoll_reduce(float *out, const float *const *ins, int nin, size_t n,
                         cudaStream_t stream);

/* Stores value into *flag (release, system scope) once the work before it
 * in the stream is done. */
cudaError_t kcoll_flag_set(unsigned *flag, unsigned value, cudaStream_t stream);
/* Holds the stream until every flags[k] (k < n, at most KCOLL_MAX_RANKS)
 * reaches at least want. */
cudaError_t kcoll_flag_wait(const unsigned *const *flags, int n, unsigned want,
                            cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif

/* ring_args.h - the argument of the learner's ring all-reduce kernel, as
 * the rank fills it in C.  Its layout is that of struct ring_args in
 * assets/nvrtc-include/cudalab_ring.h, which the learner's kernel file
 * includes (lua/multigpu.md); tests/features/multigpu compiles that header
 * with NVRTC against these offsets.  Plain C: no CUDA type. */
#ifndef CUDALAB_MGPU_RING_ARGS_H
#define CUDALAB_MGPU_RING_ARGS_H

#include <stddef.h>
#include <stdint.h>

#define RING_MAX_RANKS 8
#define RING_MAX_BLOCKS 256
#define RING_FLAG_WORDS 8192
#define RING_KERNEL "ring_allreduce"
#define RING_BLOCKS_SYMBOL "ring_blocks"
#define RING_THREADS_SYMBOL "ring_threads"
/* What the rank uses when the kernel file leaves a symbol out. */
#define RING_DEFAULT_BLOCKS 0         /* one a multiprocessor */
#define RING_DEFAULT_THREADS 512

typedef struct ring_args {
    int32_t rank, nranks, left, right;
    int64_t count;
    uint32_t epoch;
    int32_t reserved;
    const float *send;
    float *recv, *scratch;
    uint32_t *flags;
    const uint32_t *left_flags, *right_flags;
    const float *send_of[RING_MAX_RANKS];
    float *recv_of[RING_MAX_RANKS];
    float *scratch_of[RING_MAX_RANKS];
    uint32_t *flags_of[RING_MAX_RANKS];
} ring_args;

_Static_assert(sizeof(void *) == 8 && sizeof(ring_args) == 336,
               "ring_args changed: change assets/nvrtc-include/cudalab_ring.h with it");

#endif

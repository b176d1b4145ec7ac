/* collective.h - the arithmetic of the multigpu lab's collectives, in pure C.
 *
 * What a figure of a collective means (algorithm and bus bandwidth, as
 * nccl-tests defines them), the message sizes the lab measures and how
 * often each is repeated, and the plan of the hand-written ring all-reduce:
 * how a buffer is cut into one chunk a rank, which chunk each rank works
 * on at each step, and how a step's chunk is shared among thread blocks.
 * Every rank computes the same plan from the same numbers, so the ranks
 * agree on it without talking.  The ranks (src/mgpu/) run it; the
 * coordinator (src/group/) uses the bandwidth figures; tests check it all
 * without a GPU. */
#ifndef CUDALAB_CATALOG_COLLECTIVE_H
#define CUDALAB_CATALOG_COLLECTIVE_H

#include <stdbool.h>
#include <stddef.h>

#define COLL_MAX_RANKS 8
#define COLL_MAX_STEPS (2 * (COLL_MAX_RANKS - 1))
/* Chunk and slice boundaries fall on multiples of this many floats (16
 * bytes), so a kernel reads them with 16-byte loads. */
#define COLL_ALIGN 4
/* A ring step is shared by at most this many thread blocks ... */
#define COLL_MAX_BLOCKS 256
/* ... each with at least this many floats of it (but one block for less). */
#define COLL_MIN_SLICE 2048
/* The lab's message sizes: 8 B to 1 GiB. */
#define COLL_MAX_SIZES 16
/* What a row of the multigpu lab says when the machine has one GPU, in the
 * words the diagnosis looks for (it then asks for more GPUs, not for one). */
#define COLL_TOO_FEW_GPUS "the multigpu lab needs two or more GPUs in this machine"

/* ---- figures ---------------------------------------------------------------- */

/* The bus-bandwidth factor of an all-reduce over nranks ranks: 2(n-1)/n
 * (0 for fewer than 2 ranks: nothing crosses a link). */
double coll_bus_factor(int nranks);
/* Algorithm bandwidth: the message's bytes over the time of one
 * collective, in GB/s (1e9 bytes a second); -1 when ms is not positive. */
double coll_algbw_gbs(double bytes, double ms);
/* Bus bandwidth: algbw x coll_bus_factor(nranks), comparable across rank
 * counts and with the links' speed; -1 when ms is not positive. */
double coll_busbw_gbs(double bytes, double ms, int nranks);

/* ---- the lab's rows ---------------------------------------------------------------- */

/* The short label of a multigpu row id ("ar_ring": "ring", "exercise":
 * "your kernel"); the id itself for one the lab does not have.  The ranks
 * label the rows they measure and the coordinator those it cannot run
 * from this one table. */
const char *coll_row_label(const char *id);
/* Whether row id needs NCCL (the library row and the training steps that
 * all-reduce through it). */
bool coll_row_needs_nccl(const char *id);

/* ---- sizes and repetitions ------------------------------------------------------ */

/* The message sizes the lab measures, in bytes, smallest first, into
 * out[0..max); returns how many (8 B, 64 B, 512 B, 4 KiB, 32 KiB, 256 KiB,
 * 2 MiB, 16 MiB, 64 MiB, 256 MiB, 1 GiB). */
size_t coll_sizes(size_t *out, size_t max);
/* Collectives timed back to back in one sample of a message of bytes, so
 * a sample lasts long enough for events to time it (at least 1). */
int coll_iters(size_t bytes);
/* Samples (each coll_iters collectives) whose median is the row's time. */
int coll_samples(size_t bytes);

/* ---- the ring -------------------------------------------------------------------- */

typedef struct coll_range {
    size_t off, count;            /* elements */
} coll_range;

/* a mod n in [0, n) for any a (n > 0). */
int coll_mod(int a, int n);
/* Chunk c of a buffer of count elements cut into nranks chunks: all but the
 * last few hold ceil(count / nranks) rounded up to COLL_ALIGN elements;
 * the last ones may be shorter or empty.  The chunks cover [0, count)
 * once, in order. */
coll_range coll_chunk(size_t count, int nranks, int c);

/* Where a step of the ring reads what it adds or copies. */
typedef enum coll_src {
    COLL_SRC_LEFT_SEND,           /* the left neighbour's input */
    COLL_SRC_LEFT_SCRATCH,        /* the left neighbour's partial sums */
    COLL_SRC_LEFT_RECV,           /* the left neighbour's output */
} coll_src;

/* Where a step writes. */
typedef enum coll_dst {
    COLL_DST_SCRATCH,             /* this rank's partial sums */
    COLL_DST_RECV,                /* this rank's output */
} coll_dst;

typedef struct coll_step {
    int chunk;
    coll_src src;
    bool add_own;                 /* add this rank's own input to what it reads */
    coll_dst dst;
} coll_step;

/* The 2(n-1) steps of rank's ring all-reduce over nranks ranks (2 to
 * COLL_MAX_RANKS) into out (room for COLL_MAX_STEPS); returns how many, 0
 * for bad arguments.  Each rank reads only from its left neighbour
 * (rank - 1).  Reduce-scatter, steps 0 .. n-2: step k works on chunk
 * rank-1-k, adding its own input to the left's input (k = 0) or partial
 * sum, into its partial sums, or at the last step into its output: then
 * the rank owns the whole sum of chunk rank+1.  All-gather, steps n-1 ..
 * 2n-3: step n-1+k copies chunk rank-k from the left's output, which the
 * left finished one step before.  Each step of a rank reads exactly what
 * its left neighbour wrote at the step before, so a rank waits only for
 * its left neighbour's flag of that step. */
int coll_ring_steps(int nranks, int rank, coll_step *out);
/* The chunk rank holds the whole sum of after the reduce-scatter. */
int coll_ring_owned(int nranks, int rank);

/* Thread blocks a ring step of a count-element buffer is shared among: one
 * per COLL_MIN_SLICE elements of the largest chunk, between 1 and
 * max_blocks (itself at most COLL_MAX_BLOCKS). */
int coll_ring_blocks(size_t count, int nranks, int max_blocks);
/* Elements each block takes of a step's chunk: the largest chunk over
 * nblocks, rounded up to COLL_ALIGN. */
size_t coll_ring_slice(size_t count, int nranks, int nblocks);
/* Block's part of chunk: [chunk.off + block x slice, ...) clipped to the
 * chunk (count 0 when the chunk is shorter). */
coll_range coll_slice(coll_range chunk, size_t slice, int block);

#endif

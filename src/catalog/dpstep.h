/* dpstep.h - the arithmetic of the multigpu lab's data-parallel step, in
 * pure C.
 *
 * Every GPU runs a training step of the same small network (cpu/mlp.h) on
 * its own batch; the weight gradients are then summed across GPUs by
 * all-reduces of buckets, ranges of the gradient buffer cut in the order
 * the backward pass fills it (the last layer first), so that a bucket can
 * be reduced as soon as the layers it covers are done.  Here: the shapes
 * the lab checks and times, the buckets and when each is ready, what a
 * step computes, and the figures of a step (samples a second, weak
 * scaling).  Every rank computes the same plan from the same numbers. */
#ifndef CUDALAB_CATALOG_DPSTEP_H
#define CUDALAB_CATALOG_DPSTEP_H

#include <stddef.h>

#include "cpu/mlp.h"

/* Bucket boundaries fall on multiples of this many floats (256 bytes). */
#define DP_ALIGN 64
#define DP_MAX_BUCKETS 64
/* Relative tolerance of a checked gradient against the CPU's: float sums
 * of at most a few thousand terms through a few layers. */
#define DP_TOL 1e-4
/* The check's distance of every ReLU from its corner (mlp_check_seed),
 * far above float's rounding of a pre-activation, and the seeds tried. */
#define DP_CHECK_MARGIN 2e-5
#define DP_CHECK_TRIES 256
/* Steps before timing, samples, and steps a sample. */
#define DP_WARMUP 3
#define DP_SAMPLES 10
#define DP_ITERS 2

typedef struct dp_shape {
    mlp_dims net;
    size_t bucket_bytes;              /* largest bucket */
} dp_shape;

/* The timed step: 4 layers of 4096 (256 MiB of gradients), 1024 samples a
 * GPU, buckets of 25 MiB (PyTorch DDP's default). */
dp_shape dp_shape_timed(void);
/* The checked step, small enough for the CPU: 4 layers of 128, 32 samples
 * a GPU, buckets of 24 KiB, so that there are several and some span two
 * layers. */
dp_shape dp_shape_checked(void);

/* "4x4096, 1024/GPU": the rows' size. */
char *dp_size_label(const dp_shape *s, char *buf, size_t cap);

typedef struct dp_bucket {
    size_t off, count;                /* floats of the gradient buffer */
    int ready;                        /* backward layers done before it can go: 1 (only the
                                       * last layer) to layers (all of them) */
} dp_bucket;

/* s's buckets into out[0..max), in the order they become ready: the
 * gradient buffer cut into pieces of bucket_bytes rounded down to DP_ALIGN
 * floats (at least DP_ALIGN), the last one shorter; each ready once the
 * backward pass has produced the layer of its last float.  Returns how
 * many, 0 when they do not fit in max or s is out of range. */
int dp_buckets(const dp_shape *s, dp_bucket *out, int max);

/* FLOPs of one GPU's step: the forward pass (2 x batch x width^2 a layer),
 * every layer's weight gradient (as much again) and the activation
 * gradient of every layer but the first (as much again). */
double dp_step_flops(const dp_shape *s);
/* Samples a second of ngpus GPUs each doing batch samples a step of ms
 * milliseconds; -1 when ms is not positive. */
double dp_samples_per_s(int batch, int ngpus, double ms);
/* Weak scaling (the batch a GPU fixed): N GPUs' samples a second over N
 * times one GPU's, = ms_one / ms_n; -1 when either is not positive. */
double dp_weak_efficiency(double ms_one, double ms_n);

#endif

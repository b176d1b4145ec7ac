/* dpnet.h - what the data-parallel step's two files share: the network's
 * buffers on this rank's GPU and one training step (dpnet.c), which the
 * rows (dprows.c) check and time.  Private to src/mgpu/. */
#ifndef CUDALAB_MGPU_DPNET_H
#define CUDALAB_MGPU_DPNET_H

#include <stdbool.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "catalog/dpstep.h"
#include "mgpu/mgpu_internal.h"

/* How a step's gradients meet the other GPUs'. */
typedef enum mg_dp_mode {
    MG_DP_ONE,                        /* not at all: one GPU alone */
    MG_DP_SERIAL,                     /* every bucket all-reduced after the backward pass */
    MG_DP_OVERLAP,                    /* each bucket as soon as it is written, on a second stream */
    MG_DP_NMODES
} mg_dp_mode;

typedef struct mg_dp mg_dp;

struct mg_dp {
    cudaStream_t comm;                /* the overlapped all-reduces (high priority) */
    cudaEvent_t written[MLP_MAX_LAYERS];   /* backward layer j's gradients written */
    cudaEvent_t reduced;              /* a step's last overlapped all-reduce done */
    /* room for the timed shape; a smaller shape uses the start of each */
    float *w;                         /* weights, layer 0 first (cpu/mlp.h) */
    float *g;                         /* gradients, the last layer's first */
    float *act[MLP_MAX_LAYERS + 1];   /* act[0] the inputs, act[l] layer l-1's output */
    float *tgt, *d[2];                /* targets; gradients of activations */
    float *host;                      /* pinned, host_cap floats: data up, gradients down */
    size_t host_cap;
    float *serial_g;                  /* dp_serial's gradients of the timed shape, or NULL */
    double ms_one, ms_serial;         /* the group's step times so far; 0: not measured */
};

/* This rank's network buffers for the timed shape, the second stream and
 * its events (once; later calls return at once). */
bool mg_dp_open(mg_rank *r, cl_err *err);
/* Uploads s's weights and rank's batch for seed (mlp_fill_weights,
 * mlp_fill_batch). */
bool mg_dp_load(mg_rank *r, const dp_shape *s, uint64_t seed, int rank, cl_err *err);
/* Enqueues one step of s: the forward pass, the loss gradient scaled for
 * nranks x batch samples, the backward pass, and in SERIAL and OVERLAP
 * modes the all-reduce (sum) of every bucket (dp_buckets) through NCCL,
 * in place.  When it returns, r->stream holds the whole step: in OVERLAP
 * mode it waits for the second stream's last all-reduce. */
bool mg_dp_step(mg_rank *r, const dp_shape *s, mg_dp_mode mode, int nranks, cl_err *err);

#endif

/* mlp.h - the multigpu lab's small network, on the CPU: its data from a
 * seed and its gradient in double precision.
 *
 * A stack of `layers` fully connected layers, each width x width with no
 * bias, ReLU between them and none after the last: y = W_L relu(...
 * relu(W_1 x)).  Layer l's weights are row-major [out][in] (as PyTorch's
 * nn.Linear keeps them).  The loss of a step over nranks ranks, each with
 * `batch` samples, is the mean squared error over every rank's samples,
 *     loss = 1 / (2 nranks batch) x sum over samples of ||y - t||^2,
 * so each rank's gradient, scaled by 1 / (nranks batch), sums across
 * ranks to the gradient of the whole step.  Weights are the same on every
 * rank (a hash of the seed); inputs and targets are a hash of (seed, rank,
 * index), so any rank can make any other rank's batch.
 *
 * The gradient buffer holds every layer's weight gradient in the order a
 * backward pass produces them: the last layer's first. */
#ifndef CUDALAB_CPU_MLP_H
#define CUDALAB_CPU_MLP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MLP_MAX_LAYERS 8

typedef struct mlp_dims {
    int layers;                       /* 1 to MLP_MAX_LAYERS */
    int width;                        /* inputs and outputs of every layer */
    int batch;                        /* samples a rank */
} mlp_dims;

/* Weights of one layer (width x width). */
size_t mlp_layer_params(const mlp_dims *d);
/* Weights of the whole network. */
size_t mlp_params(const mlp_dims *d);
/* Where layer l's (0-based, input side first) weights start in the
 * weights (l x layer params) and where its gradient starts in the
 * gradient buffer ((layers - 1 - l) x layer params). */
size_t mlp_weight_offset(const mlp_dims *d, int l);
size_t mlp_grad_offset(const mlp_dims *d, int l);

/* w[0 .. mlp_params) for seed: layer l at mlp_weight_offset, uniform in
 * [-a, a) with a = sqrt(6 / width) (He's initialisation for ReLU, so
 * activations keep their scale from layer to layer). */
void mlp_fill_weights(float *w, const mlp_dims *d, uint64_t seed);
/* Rank's batch for seed: x and t, batch x width each, row-major (a sample
 * a row), uniform in [-1, 1). */
void mlp_fill_batch(float *x, float *t, const mlp_dims *d, uint64_t seed, int rank);

typedef struct mlp_ref {
    double loss;
    /* The smallest |pre-activation| in front of a ReLU, over the layer's
     * root mean square, over every hidden layer and sample: how far the
     * step is from a ReLU whose side rounding could change.  Infinite
     * with one layer. */
    double margin;
} mlp_ref;

/* The double-precision forward and backward pass of a step over ranks
 * 0 .. nranks-1's batches for seed, with weights w (mlp_params doubles, as
 * mlp_fill_weights lays them out): the loss, the margin and, unless grad
 * is NULL, the gradient (mlp_params doubles, backward order).  false when
 * memory runs out or d is out of range. */
bool mlp_reference(const mlp_dims *d, const double *w, uint64_t seed, int nranks, double *grad,
                   mlp_ref *out);

/* The first seed from seed on (seed, seed + 1, ...; at most tries of them)
 * whose step over nranks ranks keeps every ReLU at least margin away from
 * its corner (mlp_ref.margin >= margin), so float and double agree on
 * which side each one is; with none, the one with the widest margin.
 * Every rank finds the same.  false when memory runs out. */
bool mlp_check_seed(const mlp_dims *d, uint64_t seed, int nranks, double margin, int tries,
                    uint64_t *out);

#endif

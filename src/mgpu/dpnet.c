/* dpnet.c - the data-parallel step's network on this rank's GPU: its
 * buffers, its data, and one training step with the gradients all-reduced
 * in buckets after the backward pass or during it (mgpu/dpnet.h).
 *
 * Matrices are row-major, a sample a row; cuBLAS is column-major, where a
 * row-major buffer reads as its transpose.  So with the weights W of a
 * layer [out][in] and its input A [batch][in]:
 *   forward   Z = A W^T   is  Z^T = W A^T      (W's buffer transposed)
 *   weights   dW = dZ^T A is  dW^T = A^T dZ    (dZ's buffer transposed)
 *   inputs    dA = dZ W   is  dA^T = W^T dZ^T  (neither) */
#include "mgpu/dpnet.h"

#include <stdlib.h>
#include <string.h>

#include "dpstep.h"
#include "gpu/cudacheck.h"

bool mg_dp_open(mg_rank *r, cl_err *err)
{
    if (r->dp)
        return true;
    if (!(r->dp = calloc(1, sizeof *r->dp)))
        return err_set(err, "out of memory");
    mg_dp *dp = r->dp;
    const dp_shape t = dp_shape_timed();
    const size_t np = mlp_params(&t.net), na = (size_t)t.net.batch * (size_t)t.net.width;
    int least = 0, greatest = 0;
    CUDA_CHECK(err, cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CUDA_CHECK(err, cudaStreamCreateWithPriority(&dp->comm, cudaStreamNonBlocking, greatest));
    for (int j = 0; j < MLP_MAX_LAYERS; j++)
        CUDA_CHECK(err, cudaEventCreateWithFlags(&dp->written[j], cudaEventDisableTiming));
    CUDA_CHECK(err, cudaEventCreateWithFlags(&dp->reduced, cudaEventDisableTiming));
    CUDA_CHECK(err, cudaMalloc((void **)&dp->w, np * sizeof(float)));
    CUDA_CHECK(err, cudaMalloc((void **)&dp->g, np * sizeof(float)));
    for (int l = 0; l <= t.net.layers; l++)
        CUDA_CHECK(err, cudaMalloc((void **)&dp->act[l], na * sizeof(float)));
    CUDA_CHECK(err, cudaMalloc((void **)&dp->tgt, na * sizeof(float)));
    CUDA_CHECK(err, cudaMalloc((void **)&dp->d[0], na * sizeof(float)));
    CUDA_CHECK(err, cudaMalloc((void **)&dp->d[1], na * sizeof(float)));
    dp->host_cap = np > 2 * na ? np : 2 * na;
    CUDA_CHECK(err, cudaMallocHost((void **)&dp->host, dp->host_cap * sizeof(float)));
    return true;
}

void mg_dp_close(mg_rank *r)
{
    mg_dp *dp = r->dp;
    if (!dp)
        return;
    (void)cudaDeviceSynchronize();
    cudaFree(dp->w);
    cudaFree(dp->g);
    for (int l = 0; l <= MLP_MAX_LAYERS; l++)
        cudaFree(dp->act[l]);
    cudaFree(dp->tgt);
    cudaFree(dp->d[0]);
    cudaFree(dp->d[1]);
    cudaFreeHost(dp->host);
    for (int j = 0; j < MLP_MAX_LAYERS; j++)
        if (dp->written[j])
            cudaEventDestroy(dp->written[j]);
    if (dp->reduced)
        cudaEventDestroy(dp->reduced);
    if (dp->comm)
        cudaStreamDestroy(dp->comm);
    free(dp->serial_g);
    free(dp);
    r->dp = NULL;
}

bool mg_dp_load(mg_rank *r, const dp_shape *s, uint64_t seed, int rank, cl_err *err)
{
    mg_dp *dp = r->dp;
    const size_t np = mlp_params(&s->net), na = (size_t)s->net.batch * (size_t)s->net.width;
    if (np > dp->host_cap || 2 * na > dp->host_cap)
        return err_set(err, "the step's shape outgrows its buffers");
    mlp_fill_weights(dp->host, &s->net, seed);
    CUDA_CHECK(err, cudaMemcpy(dp->w, dp->host, np * sizeof(float), cudaMemcpyHostToDevice));
    mlp_fill_batch(dp->host, dp->host + na, &s->net, seed, rank);
    CUDA_CHECK(err, cudaMemcpy(dp->act[0], dp->host, na * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(err, cudaMemcpy(dp->tgt, dp->host + na, na * sizeof(float), cudaMemcpyHostToDevice));
    return true;
}

static bool forward(mg_rank *r, const mlp_dims *d, cl_err *err)
{
    mg_dp *dp = r->dp;
    const int n = d->width;
    for (int l = 0; l < d->layers; l++) {
        const float *w = dp->w + mlp_weight_offset(d, l);
        CUDA_CHECK(err, kdp_gemm(true, false, n, d->batch, n, w, n, dp->act[l], n, dp->act[l + 1],
                                 n, r->stream));
        if (l < d->layers - 1)
            CUDA_CHECK(err, kdp_relu(dp->act[l + 1], (size_t)d->batch * n, r->stream));
    }
    return true;
}

/* Sums bucket b of every rank's gradients, in place, on stream. */
static bool reduce(mg_rank *r, const dp_bucket *b, cudaStream_t stream, cl_err *err)
{
    float *g = r->dp->g + b->off;
    return mg_nccl_allreduce(r->nccl, g, g, b->count, stream, err);
}

/* The buckets ready once backward layer j (1: the last layer) is written:
 * in OVERLAP mode handed to the second stream after an event on r->stream. */
static bool hand_over(mg_rank *r, const dp_bucket *bk, int nb, int *next, int j, cl_err *err)
{
    mg_dp *dp = r->dp;
    if (*next >= nb || bk[*next].ready != j)
        return true;
    CUDA_CHECK(err, cudaEventRecord(dp->written[j - 1], r->stream));
    CUDA_CHECK(err, cudaStreamWaitEvent(dp->comm, dp->written[j - 1], 0));
    for (; *next < nb && bk[*next].ready == j; (*next)++)
        if (!reduce(r, &bk[*next], dp->comm, err))
            return false;
    return true;
}

bool mg_dp_step(mg_rank *r, const dp_shape *s, mg_dp_mode mode, int nranks, cl_err *err)
{
    mg_dp *dp = r->dp;
    const mlp_dims *d = &s->net;
    const int n = d->width;
    const size_t na = (size_t)d->batch * (size_t)n;
    dp_bucket bk[DP_MAX_BUCKETS];
    int nb = 0, next = 0;
    if (mode != MG_DP_ONE && (nb = dp_buckets(s, bk, DP_MAX_BUCKETS)) == 0)
        return err_set(err, "the step's gradients need more than %d buckets", DP_MAX_BUCKETS);
    if (!forward(r, d, err))
        return false;
    float *dz = dp->d[0], *din = dp->d[1];
    const float scale = 1.0f / ((float)nranks * (float)d->batch);
    CUDA_CHECK(err, kdp_loss_grad(dz, dp->act[d->layers], dp->tgt, scale, na, r->stream));
    for (int j = 1; j <= d->layers; j++) {
        const int l = d->layers - j;
        const float *w = dp->w + mlp_weight_offset(d, l);
        CUDA_CHECK(err, kdp_gemm(false, true, n, n, d->batch, dp->act[l], n, dz, n,
                                 dp->g + mlp_grad_offset(d, l), n, r->stream));
        if (mode == MG_DP_OVERLAP && !hand_over(r, bk, nb, &next, j, err))
            return false;
        if (l == 0)
            break;
        CUDA_CHECK(err, kdp_gemm(false, false, n, d->batch, n, w, n, dz, n, din, n, r->stream));
        CUDA_CHECK(err, kdp_relu_back(din, dp->act[l], na, r->stream));
        float *swap = dz;
        dz = din;
        din = swap;
    }
    if (mode == MG_DP_SERIAL)
        for (; next < nb; next++)
            if (!reduce(r, &bk[next], r->stream, err))
                return false;
    if (mode == MG_DP_OVERLAP) {
        CUDA_CHECK(err, cudaEventRecord(dp->reduced, dp->comm));
        CUDA_CHECK(err, cudaStreamWaitEvent(r->stream, dp->reduced, 0));
    }
    return true;
}

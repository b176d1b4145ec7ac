/* dpstep.c - shapes, buckets and figures of the data-parallel step
 * (dpstep.h). */
#include "catalog/dpstep.h"

#include <stdio.h>

dp_shape dp_shape_timed(void)
{
    dp_shape s = {{4, 4096, 1024}, (size_t)25 << 20};
    return s;
}

dp_shape dp_shape_checked(void)
{
    dp_shape s = {{4, 128, 32}, (size_t)24 << 10};
    return s;
}

char *dp_size_label(const dp_shape *s, char *buf, size_t cap)
{
    snprintf(buf, cap, "%dx%d, %d/GPU", s->net.layers, s->net.width, s->net.batch);
    return buf;
}

int dp_buckets(const dp_shape *s, dp_bucket *out, int max)
{
    const mlp_dims *d = &s->net;
    if (d->layers < 1 || d->layers > MLP_MAX_LAYERS || d->width < 1 || d->batch < 1)
        return 0;
    const size_t total = mlp_params(d), per = mlp_layer_params(d);
    size_t cap = s->bucket_bytes / sizeof(float) / DP_ALIGN * DP_ALIGN;
    if (cap < DP_ALIGN)
        cap = DP_ALIGN;
    int n = 0;
    for (size_t off = 0; off < total; off += cap) {
        if (n == max)
            return 0;
        dp_bucket *b = &out[n++];
        b->off = off;
        b->count = total - off < cap ? total - off : cap;
        b->ready = (int)((b->off + b->count - 1) / per) + 1;
    }
    return n;
}

double dp_step_flops(const dp_shape *s)
{
    const mlp_dims *d = &s->net;
    double gemm = 2.0 * d->batch * (double)d->width * d->width;
    return gemm * (2.0 * d->layers + (d->layers - 1));
}

double dp_samples_per_s(int batch, int ngpus, double ms)
{
    if (!(ms > 0.0))
        return -1.0;
    return (double)batch * ngpus / (ms * 1e-3);
}

double dp_weak_efficiency(double ms_one, double ms_n)
{
    if (!(ms_one > 0.0) || !(ms_n > 0.0))
        return -1.0;
    return ms_one / ms_n;
}

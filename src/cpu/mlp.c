/* mlp.c - the small network's data and its double-precision step (mlp.h). */
#include "cpu/mlp.h"

#include <math.h>
#include <stdlib.h>

#include "cpu/allreduce.h"

/* Each kind of data its own stream of the hash (allreduce_input). */
#define TAG_WEIGHTS 0x5745494748545321ull
#define TAG_INPUTS 0x494e505554532121ull
#define TAG_TARGETS 0x5441524745545321ull

static bool dims_ok(const mlp_dims *d)
{
    return d->layers >= 1 && d->layers <= MLP_MAX_LAYERS && d->width >= 1 && d->batch >= 1;
}

size_t mlp_layer_params(const mlp_dims *d)
{
    return (size_t)d->width * (size_t)d->width;
}

size_t mlp_params(const mlp_dims *d)
{
    return (size_t)d->layers * mlp_layer_params(d);
}

size_t mlp_weight_offset(const mlp_dims *d, int l)
{
    return (size_t)l * mlp_layer_params(d);
}

size_t mlp_grad_offset(const mlp_dims *d, int l)
{
    return (size_t)(d->layers - 1 - l) * mlp_layer_params(d);
}

void mlp_fill_weights(float *w, const mlp_dims *d, uint64_t seed)
{
    const float a = (float)sqrt(6.0 / d->width);
    const size_t per = mlp_layer_params(d);
    for (int l = 0; l < d->layers; l++) {
        float *wl = w + mlp_weight_offset(d, l);
        allreduce_fill(wl, per, seed ^ TAG_WEIGHTS, l);
        for (size_t i = 0; i < per; i++)
            wl[i] *= a;
    }
}

void mlp_fill_batch(float *x, float *t, const mlp_dims *d, uint64_t seed, int rank)
{
    const size_t n = (size_t)d->batch * (size_t)d->width;
    allreduce_fill(x, n, seed ^ TAG_INPUTS, rank);
    allreduce_fill(t, n, seed ^ TAG_TARGETS, rank);
}

/* out (rows x width) = in (rows x width) x W^T, W row-major [out][in]. */
static void forward_layer(const double *in, const double *w, double *out, size_t rows, int width)
{
    const size_t n = (size_t)width;
    for (size_t s = 0; s < rows; s++)
        for (size_t o = 0; o < n; o++) {
            double z = 0.0;
            for (size_t i = 0; i < n; i++)
                z += in[s * n + i] * w[o * n + i];
            out[s * n + o] = z;
        }
}

/* The hidden layer's margin (smallest |z| over its rms), then ReLU in place. */
static double relu_layer(double *z, size_t count)
{
    double sq = 0.0, least = INFINITY;
    for (size_t i = 0; i < count; i++) {
        sq += z[i] * z[i];
        if (fabs(z[i]) < least)
            least = fabs(z[i]);
        if (z[i] < 0.0)
            z[i] = 0.0;
    }
    double rms = sqrt(sq / (double)count);
    return rms > 0.0 ? least / rms : 0.0;
}

/* g (width x width, [out][in]) = dz^T in; and unless din is NULL,
 * din = (dz W) masked by in > 0 (the ReLU in front of this layer). */
static void backward_layer(const double *dz, const double *in, const double *w, double *g,
                           double *din, size_t rows, int width)
{
    const size_t n = (size_t)width;
    for (size_t o = 0; o < n; o++)
        for (size_t i = 0; i < n; i++) {
            double s = 0.0;
            for (size_t r = 0; r < rows; r++)
                s += dz[r * n + o] * in[r * n + i];
            g[o * n + i] = s;
        }
    if (!din)
        return;
    for (size_t r = 0; r < rows; r++)
        for (size_t i = 0; i < n; i++) {
            double s = 0.0;
            for (size_t o = 0; o < n; o++)
                s += dz[r * n + o] * w[o * n + i];
            din[r * n + i] = in[r * n + i] > 0.0 ? s : 0.0;
        }
}

/* act[0] = every rank's inputs, one after another; tgt their targets. */
static bool load_batches(const mlp_dims *d, uint64_t seed, int nranks, double *act0, double *tgt)
{
    const size_t per = (size_t)d->batch * (size_t)d->width;
    float *x = malloc(per * sizeof *x), *t = malloc(per * sizeof *t);
    bool ok = x && t;
    for (int k = 0; ok && k < nranks; k++) {
        mlp_fill_batch(x, t, d, seed, k);
        for (size_t i = 0; i < per; i++) {
            act0[(size_t)k * per + i] = x[i];
            tgt[(size_t)k * per + i] = t[i];
        }
    }
    free(x);
    free(t);
    return ok;
}

bool mlp_reference(const mlp_dims *d, const double *w, uint64_t seed, int nranks, double *grad,
                   mlp_ref *out)
{
    if (!dims_ok(d) || nranks < 1)
        return false;
    const size_t rows = (size_t)nranks * (size_t)d->batch, n = rows * (size_t)d->width;
    const int L = d->layers;
    double *buf = malloc((size_t)(L + 4) * n * sizeof *buf);
    if (!buf)
        return false;
    double *act = buf, *tgt = buf + (size_t)(L + 1) * n, *dz = tgt + n, *din = dz + n;
    bool ok = load_batches(d, seed, nranks, act, tgt);
    out->margin = INFINITY;
    for (int l = 0; ok && l < L; l++) {
        double *z = act + (size_t)(l + 1) * n;
        forward_layer(act + (size_t)l * n, w + mlp_weight_offset(d, l), z, rows, d->width);
        if (l < L - 1)
            out->margin = fmin(out->margin, relu_layer(z, n));
    }
    const double *y = act + (size_t)L * n;
    double loss = 0.0;
    for (size_t i = 0; ok && i < n; i++) {
        double e = y[i] - tgt[i];
        loss += e * e;
        dz[i] = e / (double)rows;
    }
    out->loss = loss / (2.0 * (double)rows);
    for (int l = L - 1; ok && grad && l >= 0; l--) {
        backward_layer(dz, act + (size_t)l * n, w + mlp_weight_offset(d, l),
                       grad + mlp_grad_offset(d, l), l > 0 ? din : NULL, rows, d->width);
        double *swap = dz;
        dz = din;
        din = swap;
    }
    free(buf);
    return ok;
}

bool mlp_check_seed(const mlp_dims *d, uint64_t seed, int nranks, double margin, int tries,
                    uint64_t *out)
{
    if (!dims_ok(d))
        return false;
    const size_t np = mlp_params(d);
    float *wf = malloc(np * sizeof *wf);
    double *w = malloc(np * sizeof *w);
    bool ok = wf && w;
    double best = -1.0;
    *out = seed;
    for (int k = 0; ok && k < tries && best < margin; k++) {
        mlp_fill_weights(wf, d, seed + (uint64_t)k);
        for (size_t i = 0; i < np; i++)
            w[i] = wf[i];
        mlp_ref ref;
        ok = mlp_reference(d, w, seed + (uint64_t)k, nranks, NULL, &ref);
        if (ok && ref.margin > best) {
            best = ref.margin;
            *out = seed + (uint64_t)k;
        }
    }
    free(wf);
    free(w);
    return ok;
}

#include "engine/roofline.h"

#include <stdio.h>

static double max3(double a, double b, double c)
{
    double m = a > b ? a : b;
    return m > c ? m : c;
}

/* The bandwidth ceiling: why filled when gbs passes it. */
static bool too_many_bytes(const roofline_in *in, char *why, size_t n)
{
    double peak = max3(in->bw_theory_gbs, in->bw_copy_gbs, in->bw_read_gbs);
    if (!(in->bytes > 0.0) || !(peak > 0.0))
        return false;
    bool l2 = !in->cold || (in->l2_bytes > 0.0 && in->bytes <= in->l2_bytes);
    double ceiling = ROOFLINE_MARGIN * peak * (l2 ? ROOFLINE_L2_FACTOR : 1.0);
    double gbs = in->bytes / (in->median_ms * 1e-3) / 1e9;
    if (gbs <= ceiling)
        return false;
    snprintf(why, n,
             "faster than this GPU can move the data: %.0f GB/s against a peak of %.0f GB/s "
             "(refused above %.0f GB/s%s): the timed runs cannot have done the work",
             gbs, peak, ceiling, l2 ? ", the L2 cache allowed for" : "");
    return true;
}

/* The arithmetic ceiling: why filled when the FLOP rate passes it. */
static bool too_many_flops(const roofline_in *in, char *why, size_t n)
{
    if (!(in->flops > 0.0) || !(in->fp32_tflops > 0.0))
        return false;
    bool tensor = in->cc_major >= 7;
    double ceiling = ROOFLINE_MARGIN * in->fp32_tflops * (tensor ? ROOFLINE_TENSOR_FACTOR : 1.0);
    double tf = in->flops / (in->median_ms * 1e-3) / 1e12;
    if (tf <= ceiling)
        return false;
    snprintf(why, n,
             "faster than this GPU can compute: %.0f TFLOP/s against an FP32 peak of %.1f "
             "TFLOP/s (refused above %.0f TFLOP/s%s): the timed runs cannot have done the work",
             tf, in->fp32_tflops, ceiling, tensor ? ", tensor cores allowed for" : "");
    return true;
}

bool roofline_refuse(const roofline_in *in, char *why, size_t n)
{
    if (n)
        why[0] = '\0';
    if (!(in->median_ms > ROOFLINE_MIN_MS)) {
        snprintf(why, n,
                 "ran in no measurable time: %.2f us a run, less than launching one kernel "
                 "takes (%.1f us or more): the timed runs did no work on the GPU",
                 in->median_ms * 1e3, ROOFLINE_MIN_MS * 1e3);
        return true;
    }
    return too_many_bytes(in, why, n) || too_many_flops(in, why, n);
}

/* Unit tests for src/catalog/dpstep.c: the shapes the lab checks and
 * times, buckets that cover the gradient buffer once in the order the
 * backward pass fills it (each ready with the layer of its last float),
 * the FLOPs of a step and the scaling figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "catalog/dpstep.h"

static void test_shapes(void **state)
{
    (void)state;
    dp_shape t = dp_shape_timed(), c = dp_shape_checked();
    /* 256 MiB of gradients in the timed step */
    assert_int_equal(mlp_params(&t.net) * sizeof(float), (size_t)256 << 20);
    assert_int_equal(t.bucket_bytes, (size_t)25 << 20);
    assert_int_equal(c.net.layers, t.net.layers);
    char buf[48];
    assert_string_equal(dp_size_label(&t, buf, sizeof buf), "4x4096, 1024/GPU");
    assert_string_equal(dp_size_label(&c, buf, sizeof buf), "4x128, 32/GPU");
}

/* The buckets of s: they tile [0, params) in order, on DP_ALIGN
 * boundaries, none over the cap, and each is ready with the backward step
 * that writes its last float; returns how many. */
static int tiled(const dp_shape *s, dp_bucket *b)
{
    int n = dp_buckets(s, b, DP_MAX_BUCKETS);
    assert_true(n > 0);
    const size_t per = mlp_layer_params(&s->net);
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        assert_int_equal(b[i].off, at);
        assert_true(b[i].count > 0);
        assert_true(b[i].count * sizeof(float) <= s->bucket_bytes || b[i].count == DP_ALIGN);
        assert_int_equal(b[i].off % DP_ALIGN, 0);
        size_t last = b[i].off + b[i].count - 1;
        /* float `last` belongs to layer layers-1-last/per, the (last/per+1)-th done */
        assert_int_equal(b[i].ready, (int)(last / per) + 1);
        if (i > 0)
            assert_true(b[i].ready >= b[i - 1].ready);
        at += b[i].count;
    }
    assert_int_equal(at, mlp_params(&s->net));
    assert_int_equal(b[n - 1].ready, s->net.layers);
    return n;
}

static void test_buckets(void **state)
{
    (void)state;
    dp_bucket b[DP_MAX_BUCKETS];
    /* 256 MiB in 25 MiB pieces: ten whole and one of 6 MiB */
    dp_shape t = dp_shape_timed();
    assert_int_equal(tiled(&t, b), 11);
    assert_int_equal(b[10].count * sizeof(float), (size_t)6 << 20);
    assert_int_equal(b[0].ready, 1);
    /* the third bucket (50 to 75 MiB) spans the last two layers' gradients */
    assert_int_equal(b[2].ready, 2);
    /* the checked shape: 256 KiB in 24 KiB pieces, several spanning two layers */
    dp_shape c = dp_shape_checked();
    int n = tiled(&c, b);
    assert_int_equal(n, 11);
    int spanning = 0;
    const size_t per = mlp_layer_params(&c.net);
    for (int i = 0; i < n; i++)
        spanning += b[i].off / per != (b[i].off + b[i].count - 1) / per;
    assert_true(spanning >= 2);
    /* a bucket larger than the buffer: one bucket, ready at the end */
    c.bucket_bytes = (size_t)1 << 30;
    assert_int_equal(tiled(&c, b), 1);
    /* a tiny cap rounds up to DP_ALIGN floats */
    c.bucket_bytes = 4;
    n = dp_buckets(&c, b, DP_MAX_BUCKETS);
    assert_int_equal(n, 0);   /* 1024 buckets do not fit */
    dp_bucket many[1024];
    assert_int_equal(dp_buckets(&c, many, 1024), 1024);
    assert_int_equal(many[0].count, DP_ALIGN);
    /* no layers: nothing */
    c.net.layers = 0;
    assert_int_equal(dp_buckets(&c, b, DP_MAX_BUCKETS), 0);
}

static void test_flops(void **state)
{
    (void)state;
    dp_shape t = dp_shape_timed();
    /* 4 layers: 4 forward GEMMs, 4 weight gradients, 3 activation gradients */
    double gemm = 2.0 * 1024 * 4096.0 * 4096.0;
    assert_true(fabs(dp_step_flops(&t) - 11.0 * gemm) < 1.0);
    dp_shape one = {{1, 8, 2}, 1024};
    assert_true(fabs(dp_step_flops(&one) - 2.0 * 2.0 * 2 * 8 * 8) < 1e-9);
}

static void test_figures(void **state)
{
    (void)state;
    /* 1024 samples a GPU, 2 GPUs, 10 ms a step: 204800 samples a second */
    assert_true(fabs(dp_samples_per_s(1024, 2, 10.0) - 204800.0) < 1e-6);
    assert_true(dp_samples_per_s(1024, 2, 0.0) < 0.0);
    /* 8 ms alone, 10 ms on N GPUs: 80% of N times one GPU's samples */
    assert_true(fabs(dp_weak_efficiency(8.0, 10.0) - 0.8) < 1e-12);
    assert_true(fabs(dp_samples_per_s(1024, 2, 10.0) / (2 * dp_samples_per_s(1024, 1, 8.0))
                     - dp_weak_efficiency(8.0, 10.0)) < 1e-12);
    assert_true(dp_weak_efficiency(0.0, 10.0) < 0.0);
    assert_true(dp_weak_efficiency(8.0, -1.0) < 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_buckets),
        cmocka_unit_test(test_flops),
        cmocka_unit_test(test_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

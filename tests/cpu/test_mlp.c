/* Unit tests for src/cpu/mlp.c: the layouts, the data from a seed (weights
 * the same for every rank, batches different), and the double-precision
 * gradient against finite differences of the loss, over two ranks'
 * batches, with every ReLU kept away from its corner. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/mlp.h"

static const mlp_dims small = {3, 6, 4};

static void test_layout(void **state)
{
    (void)state;
    const mlp_dims d = {4, 128, 32};
    assert_int_equal(mlp_layer_params(&d), 128 * 128);
    assert_int_equal(mlp_params(&d), 4 * 128 * 128);
    assert_int_equal(mlp_weight_offset(&d, 0), 0);
    assert_int_equal(mlp_weight_offset(&d, 3), 3 * 128 * 128);
    /* the backward pass fills the gradient from the last layer */
    assert_int_equal(mlp_grad_offset(&d, 3), 0);
    assert_int_equal(mlp_grad_offset(&d, 0), 3 * 128 * 128);
}

static void test_data(void **state)
{
    (void)state;
    const mlp_dims d = {2, 64, 8};
    const size_t np = mlp_params(&d), nb = (size_t)d.batch * d.width;
    float *w = malloc(np * sizeof *w), *w2 = malloc(np * sizeof *w2);
    float *x0 = malloc(nb * sizeof *x0), *t0 = malloc(nb * sizeof *t0);
    float *x1 = malloc(nb * sizeof *x1), *t1 = malloc(nb * sizeof *t1);
    assert_true(w && w2 && x0 && t0 && x1 && t1);
    mlp_fill_weights(w, &d, 7);
    mlp_fill_weights(w2, &d, 7);
    assert_memory_equal(w, w2, np * sizeof *w);
    const float a = (float)sqrt(6.0 / d.width);
    double sq = 0.0;
    for (size_t i = 0; i < np; i++) {
        assert_true(w[i] >= -a && w[i] < a);
        sq += (double)w[i] * (double)w[i];
    }
    /* uniform in [-a, a): variance a^2 / 3 = 2 / width */
    assert_true(fabs(sq / (double)np - 2.0 / d.width) < 0.1 * 2.0 / d.width);
    assert_true(memcmp(w, w + mlp_layer_params(&d), mlp_layer_params(&d) * sizeof *w) != 0);
    mlp_fill_weights(w2, &d, 8);
    assert_true(memcmp(w, w2, np * sizeof *w) != 0);
    mlp_fill_batch(x0, t0, &d, 7, 0);
    mlp_fill_batch(x1, t1, &d, 7, 1);
    assert_true(memcmp(x0, x1, nb * sizeof *x0) != 0);
    assert_true(memcmp(x0, t0, nb * sizeof *x0) != 0);
    for (size_t i = 0; i < nb; i++)
        assert_true(x0[i] >= -1.0f && x0[i] < 1.0f && t1[i] >= -1.0f && t1[i] < 1.0f);
    free(w), free(w2), free(x0), free(t0), free(x1), free(t1);
}

static double *weights(const mlp_dims *d, uint64_t seed)
{
    const size_t np = mlp_params(d);
    float *f = malloc(np * sizeof *f);
    double *w = malloc(np * sizeof *w);
    assert_true(f && w);
    mlp_fill_weights(f, d, seed);
    for (size_t i = 0; i < np; i++)
        w[i] = f[i];
    free(f);
    return w;
}

/* Every weight's gradient against (loss(w + h) - loss(w - h)) / 2h, over
 * two ranks' batches. */
static void test_finite_differences(void **state)
{
    (void)state;
    uint64_t seed = 0;
    assert_true(mlp_check_seed(&small, 1000, 2, 1e-2, 64, &seed));
    double *w = weights(&small, seed);
    const size_t np = mlp_params(&small);
    double *g = malloc(np * sizeof *g);
    assert_non_null(g);
    mlp_ref ref;
    assert_true(mlp_reference(&small, w, seed, 2, g, &ref));
    assert_true(ref.margin >= 1e-2);
    assert_true(ref.loss > 0.0);
    const double h = 1e-6;
    int checked = 0;
    for (int l = 0; l < small.layers; l++)
        for (size_t i = 0; i < mlp_layer_params(&small); i++) {
            double *wi = &w[mlp_weight_offset(&small, l) + i], keep = *wi;
            mlp_ref up, down;
            *wi = keep + h;
            assert_true(mlp_reference(&small, w, seed, 2, NULL, &up));
            *wi = keep - h;
            assert_true(mlp_reference(&small, w, seed, 2, NULL, &down));
            *wi = keep;
            double fd = (up.loss - down.loss) / (2.0 * h);
            double an = g[mlp_grad_offset(&small, l) + i];
            if (fabs(fd - an) > 1e-6 * fmax(1.0, fabs(an)))
                fail_msg("layer %d weight %zu: gradient %.10g, finite difference %.10g", l, i, an,
                         fd);
            checked++;
        }
    assert_int_equal(checked, (int)np);
    free(w);
    free(g);
}

/* A step over two ranks covers rank 1's batch too: its gradient is not
 * rank 0's alone. */
static void test_two_ranks(void **state)
{
    (void)state;
    double *w = weights(&small, 5);
    const size_t np = mlp_params(&small);
    double *one = malloc(np * sizeof *one), *two = malloc(np * sizeof *two);
    assert_true(one && two);
    mlp_ref r1, r2;
    assert_true(mlp_reference(&small, w, 5, 1, one, &r1));
    assert_true(mlp_reference(&small, w, 5, 2, two, &r2));
    bool differ = false;
    for (size_t i = 0; i < np; i++)
        differ |= fabs(one[i] - two[i]) > 1e-9;
    assert_true(differ);
    assert_true(r2.loss > 0.0 && r1.loss > 0.0 && r2.loss != r1.loss);
    free(w), free(one), free(two);
}

static void test_check_seed(void **state)
{
    (void)state;
    const mlp_dims d = {4, 32, 8};
    uint64_t a = 0, b = 0;
    assert_true(mlp_check_seed(&d, 77, 2, 1e-3, 64, &a));
    assert_true(mlp_check_seed(&d, 77, 2, 1e-3, 64, &b));
    assert_true(a == b);
    assert_true(a >= 77 && a < 77 + 64);
    double *w = weights(&d, a);
    mlp_ref ref;
    assert_true(mlp_reference(&d, w, a, 2, NULL, &ref));
    assert_true(ref.margin >= 1e-3);
    free(w);
    /* one layer: no ReLU, no corner */
    const mlp_dims one = {1, 8, 2};
    w = weights(&one, 3);
    assert_true(mlp_reference(&one, w, 3, 1, NULL, &ref));
    assert_true(isinf(ref.margin));
    free(w);
    const mlp_dims bad = {0, 8, 2};
    assert_false(mlp_reference(&bad, NULL, 3, 1, NULL, &ref));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_data),
        cmocka_unit_test(test_finite_differences),
        cmocka_unit_test(test_two_ranks),
        cmocka_unit_test(test_check_seed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

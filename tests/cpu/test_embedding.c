/* Embedding lookup: index validation and the row gather. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "cpu/check.h"
#include "cpu/embedding.h"

static void test_validate(void **state)
{
    (void)state;
    int32_t idx[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    int64_t bad = -1;
    assert_true(embedding_validate(idx, 10, 10, &bad));
    assert_int_equal(bad, -1);
    assert_true(embedding_validate(idx, 0, 0, &bad));
    assert_false(embedding_validate(idx, 10, 9, &bad));
    assert_int_equal(bad, 9);
    idx[5] = -1;
    assert_false(embedding_validate(idx, 10, 10, &bad));
    assert_int_equal(bad, 5);
    idx[3] = 10;
    assert_false(embedding_validate(idx, 10, 10, &bad));
    assert_int_equal(bad, 3);
    assert_false(embedding_validate(idx, 10, 10, NULL));
    idx[0] = INT32_MIN;
    assert_false(embedding_validate(idx, 10, 10, &bad));
    assert_int_equal(bad, 0);
}

static void check_gather(int V, int D, int T, uint64_t seed)
{
    float *W = malloc((size_t)V * (size_t)D * sizeof *W);
    int32_t *idx = malloc((size_t)T * sizeof *idx);
    float *out = malloc((size_t)T * (size_t)D * sizeof *out);
    assert_true(W && idx && out);
    rng_fill_uniform(W, (size_t)V * (size_t)D, seed, -1.0f, 1.0f);
    rng_fill_indices(idx, (size_t)T, seed + 1, V);
    assert_true(embedding_validate(idx, T, V, NULL));

    const int threads[] = {-1, 0, 1, 2, 3, 7};
    for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
        check_poison(out, (size_t)T * (size_t)D);
        if (threads[k] < 0)
            cpu_embedding(W, idx, out, T, D);
        else
            cpu_embedding_mt(W, idx, out, T, D, threads[k]);
        for (int t = 0; t < T; t++)
            assert_memory_equal(out + (size_t)t * (size_t)D, W + (size_t)idx[t] * (size_t)D,
                                (size_t)D * sizeof *out);
    }
    free(W);
    free(idx);
    free(out);
}

static void test_gather(void **state)
{
    (void)state;
    check_gather(1, 1, 1, 1);
    check_gather(50, 1, 1000, 2);
    check_gather(1000, 33, 777, 3);
    check_gather(4096, 256, 4096, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_gather),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

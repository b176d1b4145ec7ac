/* Unit tests for src/catalog/collective.c: algorithm and bus bandwidth as
 * nccl-tests defines them, the lab's sizes, and the ring's plan: chunks
 * that cover a buffer once, steps that read only what the left neighbour
 * wrote one step before, and slices that share a chunk among blocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/collective.h"

static void test_bus_factor(void **state)
{
    (void)state;
    assert_true(coll_bus_factor(1) == 0.0);
    assert_true(coll_bus_factor(0) == 0.0);
    assert_true(fabs(coll_bus_factor(2) - 1.0) < 1e-12);
    assert_true(fabs(coll_bus_factor(4) - 1.5) < 1e-12);
    assert_true(fabs(coll_bus_factor(8) - 1.75) < 1e-12);
}

static void test_bandwidths(void **state)
{
    (void)state;
    /* 1 GiB in 10 ms: 107.37 GB/s of algorithm bandwidth */
    double bytes = 1073741824.0;
    assert_true(fabs(coll_algbw_gbs(bytes, 10.0) - 107.3741824) < 1e-9);
    assert_true(fabs(coll_busbw_gbs(bytes, 10.0, 2) - 107.3741824) < 1e-9);
    assert_true(fabs(coll_busbw_gbs(bytes, 10.0, 8) - 107.3741824 * 1.75) < 1e-9);
    /* the quiz's case: 8 GPUs in 17.5 ms carry what 2 GPUs carry in 10 ms */
    assert_true(fabs(coll_busbw_gbs(bytes, 17.5, 8) - coll_busbw_gbs(bytes, 10.0, 2)) < 1e-9);
    assert_true(coll_algbw_gbs(bytes, 0.0) < 0.0);
    assert_true(coll_busbw_gbs(bytes, -1.0, 2) < 0.0);
}

static void test_row_labels(void **state)
{
    (void)state;
    assert_string_equal(coll_row_label("ar_ring"), "ring");
    assert_string_equal(coll_row_label("exercise"), "your kernel");
    assert_string_equal(coll_row_label("dp_overlap"), "overlapped");
    assert_string_equal(coll_row_label("nonesuch"), "nonesuch");
    assert_true(coll_row_needs_nccl("ar_nccl") && coll_row_needs_nccl("dp_serial"));
    assert_false(coll_row_needs_nccl("ar_ring") || coll_row_needs_nccl("dp_1gpu") ||
                 coll_row_needs_nccl("nonesuch"));
}

static void test_sizes(void **state)
{
    (void)state;
    size_t s[COLL_MAX_SIZES];
    size_t n = coll_sizes(s, COLL_MAX_SIZES);
    assert_int_equal(n, 11);
    assert_int_equal(s[0], 8);
    assert_int_equal(s[n - 1], (size_t)1 << 30);
    bool has256 = false;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(s[i] % 8, 0);
        if (i)
            assert_true(s[i] > s[i - 1]);
        has256 |= s[i] == (size_t)256 << 20;
        assert_true(coll_iters(s[i]) >= 1 && coll_iters(s[i]) <= 50);
        assert_true(coll_samples(s[i]) >= 10);
    }
    assert_true(has256);
    assert_int_equal(coll_sizes(s, 3), 3);
    assert_int_equal(coll_iters((size_t)1 << 30), 1);
    assert_int_equal(coll_iters(8), 50);
}

static void test_mod(void **state)
{
    (void)state;
    assert_int_equal(coll_mod(-1, 4), 3);
    assert_int_equal(coll_mod(-9, 4), 3);
    assert_int_equal(coll_mod(5, 4), 1);
    assert_int_equal(coll_mod(0, 2), 0);
}

/* Chunks cover [0, count) once, in order, on 16-byte boundaries. */
static void test_chunks_cover(void **state)
{
    (void)state;
    static const size_t counts[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 100, 1023, 1 << 20,
                                    (1 << 20) + 3, 268435456};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        for (int n = 1; n <= COLL_MAX_RANKS; n++) {
            size_t at = 0;
            for (int c = 0; c < n; c++) {
                coll_range r = coll_chunk(counts[i], n, c);
                assert_int_equal(r.off, at);
                assert_int_equal(r.off % COLL_ALIGN == 0 || r.count == 0, true);
                at += r.count;
            }
            assert_int_equal(at, counts[i]);
        }
    coll_range bad = coll_chunk(100, 4, 4);
    assert_int_equal(bad.count, 0);
}

/* A simulated ring on integers: every rank ends with every rank's sum,
 * each step reading only what the left neighbour wrote at the step
 * before (or its input). */
static void simulate(int n, size_t count)
{
    long *send = calloc((size_t)n * count, sizeof *send);
    long *scratch = calloc((size_t)n * count, sizeof *scratch);
    long *recv = calloc((size_t)n * count, sizeof *recv);
    int *written_at = malloc((size_t)n * count * 2 * sizeof *written_at);
    assert_non_null(send);
    assert_non_null(scratch);
    assert_non_null(recv);
    assert_non_null(written_at);
    for (size_t i = 0; i < (size_t)n * count * 2; i++)
        written_at[i] = -1;
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < count; i++)
            send[(size_t)r * count + i] = (long)(r + 1) * 1000003L + (long)i;
    coll_step plan[COLL_MAX_RANKS][COLL_MAX_STEPS];
    int ns = 0;
    for (int r = 0; r < n; r++) {
        ns = coll_ring_steps(n, r, plan[r]);
        assert_int_equal(ns, 2 * (n - 1));
    }
    for (int s = 0; s < ns; s++)
        for (int r = 0; r < n; r++) {
            const coll_step *st = &plan[r][s];
            int left = coll_mod(r - 1, n);
            coll_range c = coll_chunk(count, n, st->chunk);
            for (size_t i = c.off; i < c.off + c.count; i++) {
                long v;
                size_t li = (size_t)left * count + i;
                if (st->src == COLL_SRC_LEFT_SEND) {
                    v = send[li];
                } else {
                    long *buf = st->src == COLL_SRC_LEFT_SCRATCH ? scratch : recv;
                    int which = st->src == COLL_SRC_LEFT_SCRATCH ? 0 : 1;
                    /* written by the left neighbour exactly one step before */
                    assert_int_equal(written_at[(li * 2) + (size_t)which], s - 1);
                    v = buf[li];
                }
                if (st->add_own)
                    v += send[(size_t)r * count + i];
                size_t mi = (size_t)r * count + i;
                int which = st->dst == COLL_DST_SCRATCH ? 0 : 1;
                (which ? recv : scratch)[mi] = v;
                written_at[mi * 2 + (size_t)which] = s;
            }
        }
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < count; i++) {
            long want = 0;
            for (int k = 0; k < n; k++)
                want += send[(size_t)k * count + i];
            assert_int_equal(recv[(size_t)r * count + i], want);
        }
    free(send);
    free(scratch);
    free(recv);
    free(written_at);
}

static void test_ring_sums(void **state)
{
    (void)state;
    static const size_t counts[] = {1, 2, 3, 8, 13, 64, 1000, 4099};
    for (int n = 2; n <= COLL_MAX_RANKS; n++)
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
            simulate(n, counts[i]);
}

static void test_ring_owned(void **state)
{
    (void)state;
    coll_step st[COLL_MAX_STEPS];
    for (int n = 2; n <= COLL_MAX_RANKS; n++)
        for (int r = 0; r < n; r++) {
            int ns = coll_ring_steps(n, r, st);
            /* the reduce-scatter's last step writes the owned chunk's whole sum */
            assert_int_equal(st[n - 2].chunk, coll_ring_owned(n, r));
            assert_int_equal(st[n - 2].dst, COLL_DST_RECV);
            assert_true(st[n - 2].add_own);
            /* the all-gather writes every other chunk once */
            bool seen[COLL_MAX_RANKS] = {false};
            seen[coll_ring_owned(n, r)] = true;
            for (int s = n - 1; s < ns; s++) {
                assert_false(seen[st[s].chunk]);
                seen[st[s].chunk] = true;
                assert_false(st[s].add_own);
            }
        }
    assert_int_equal(coll_ring_steps(1, 0, st), 0);
    assert_int_equal(coll_ring_steps(COLL_MAX_RANKS + 1, 0, st), 0);
    assert_int_equal(coll_ring_steps(2, 2, st), 0);
}

/* Slices share every chunk among the blocks, aligned, none left over. */
static void test_slices(void **state)
{
    (void)state;
    static const size_t counts[] = {2, 8, 100, 4096, 65537, (size_t)1 << 26, (size_t)1 << 28};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        for (int n = 2; n <= COLL_MAX_RANKS; n++) {
            int nb = coll_ring_blocks(counts[i], n, 132);
            assert_true(nb >= 1 && nb <= 132);
            size_t slice = coll_ring_slice(counts[i], n, nb);
            assert_int_equal(slice % COLL_ALIGN, 0);
            for (int c = 0; c < n; c++) {
                coll_range ch = coll_chunk(counts[i], n, c);
                size_t at = ch.off;
                for (int b = 0; b < nb; b++) {
                    coll_range s = coll_slice(ch, slice, b);
                    if (s.count) {
                        assert_int_equal(s.off, at);
                        at += s.count;
                    }
                }
                assert_int_equal(at, ch.off + ch.count);
            }
        }
    assert_int_equal(coll_ring_blocks(8, 2, 132), 1);
    assert_int_equal(coll_ring_blocks((size_t)1 << 28, 2, 132), 132);
    assert_int_equal(coll_ring_blocks((size_t)1 << 28, 2, 100000), COLL_MAX_BLOCKS);
    assert_int_equal(coll_ring_blocks((size_t)1 << 28, 2, 0), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bus_factor),  cmocka_unit_test(test_bandwidths),
        cmocka_unit_test(test_sizes),       cmocka_unit_test(test_mod),
        cmocka_unit_test(test_row_labels),
        cmocka_unit_test(test_chunks_cover), cmocka_unit_test(test_ring_sums),
        cmocka_unit_test(test_ring_owned),  cmocka_unit_test(test_slices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

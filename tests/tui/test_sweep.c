/* The by-size view's model (tui_sweep.h): rows into series, the
 * half-bandwidth size, the log-log grid, its labels and its words. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support.h"
#include "tui/tui_sweep.h"

/* got within eps of want, or the test fails saying both (cmocka compares floats only). */
static void near(double got, double want, double eps)
{
    if (!(fabs(got - want) <= eps))
        fail_msg("%.17g is not %.17g (within %g)", got, want, eps);
}

static run_result row(const char *variant, const char *size, result_status status, double gbps)
{
    run_result r;
    run_result_init(&r);
    snprintf(r.variant, sizeof r.variant, "%s", variant);
    snprintf(r.label, sizeof r.label, "%s", variant);
    snprintf(r.size, sizeof r.size, "%s", size);
    r.status = status;
    r.gbps = gbps;
    return r;
}

static void add(tui_sweep *sw, const char *variant, const char *size, result_status status,
                double gbps)
{
    run_result r = row(variant, size, status, gbps);
    tui_sweep_add(sw, &r);
}

/* The multigpu lab's eleven sizes, with the rate of a collective that
 * costs latency_us plus its bytes at gbs: bw(S) = S / (a + S/B). */
static const char *const coll[] = {"8 B", "64 B", "512 B", "4 KiB", "32 KiB", "256 KiB",
                                   "2 MiB", "16 MiB", "64 MiB", "256 MiB", "1 GiB"};
static const double coll_bytes[] = {8, 64, 512, 4096, 32768, 262144, 2097152, 16777216,
                                    67108864, 268435456, 1073741824};

static double modelled(double bytes, double latency_us, double gbs)
{
    return bytes / (latency_us * 1e-6 + bytes / (gbs * 1e9)) / 1e9;
}

static void add_coll(tui_sweep *sw, const char *variant, double latency_us, double gbs)
{
    for (size_t k = 0; k < 11; k++)
        add(sw, variant, coll[k], RS_CORRECT, modelled(coll_bytes[k], latency_us, gbs));
}

static void test_sizes(void **state)
{
    double s = 0;
    bool bytes = false;
    (void)state;
    assert_true(tui_sweep_size("8 B", &s, &bytes) && s == 8 && bytes);
    assert_true(tui_sweep_size("256 MiB", &s, &bytes) && s == 268435456.0 && bytes);
    assert_true(tui_sweep_size("1 GiB", &s, &bytes) && s == 1073741824.0 && bytes);
    assert_true(tui_sweep_size("2^20", &s, &bytes) && s == 1048576.0 && !bytes);
    assert_true(tui_sweep_size("2^20+3", &s, &bytes) && s == 1048579.0 && !bytes);
    assert_true(tui_sweep_size("4096", &s, &bytes) && s == 4096 && !bytes);
    assert_false(tui_sweep_size("4096x4096x4096", &s, &bytes));
    assert_false(tui_sweep_size("", &s, &bytes));
    assert_false(tui_sweep_size("0 B", &s, &bytes));
    assert_false(tui_sweep_size("1 GB", &s, &bytes));
}

static void test_half(void **state)
{
    tui_sweeppt line[] = {{1, 1, ""}, {16, 16, ""}};
    tui_sweeppt on_point[] = {{1, 1, ""}, {4, 4, ""}, {16, 8, ""}};
    tui_sweeppt first[] = {{8, 10, ""}, {64, 12, ""}};
    tui_sweeppt bumpy[] = {{1, 1, ""}, {2, 10, ""}, {4, 2, ""}, {8, 20, ""}};
    tui_sweeppt model[11];
    double h;
    (void)state;
    /* a constant time fits no t = a + S/B with a bandwidth: on the log-log
     * line from (1, 1) to (16, 16), 8 GB/s is at 8 */
    near(tui_sweep_half(line, 2), 8.0, 1e-9);
    /* a point exactly at half is the answer */
    near(tui_sweep_half(on_point, 3), 4.0, 1e-9);
    /* already at half at the smallest size: that size */
    near(tui_sweep_half(first, 2), 8.0, 1e-9);
    /* the first time it reaches half, not the last */
    near(tui_sweep_half(bumpy, 4), 2.0, 1e-9);
    assert_true(tui_sweep_half(line, 0) < 0);
    /* t = a + S/B reaches B/2 where a = S/B: 10 us at 100 GB/s is 1 MB.
     * The peak at 1 GiB is a little under B, so half of it comes a little
     * earlier: where S / (a + S/B) = peak / 2, exactly */
    for (size_t k = 0; k < 11; k++) {
        model[k].size = coll_bytes[k];
        model[k].gbs = modelled(coll_bytes[k], 10, 100);
    }
    h = tui_sweep_half(model, 11);
    {
        double half = model[10].gbs / 2, b = 100, a = 10e-6 * 1e9;   /* a in bytes / (GB/s) */
        near(h, half * a / (1 - half / b), 1e-3);
        assert_true(h > 0.98e6 && h < 1e6);
    }
    /* a row off the curve: still between its two points */
    {
        tui_sweeppt odd[] = {{1024, 1, ""}, {2048, 9, ""}, {4096, 10, ""}};
        h = tui_sweep_half(odd, 3);
        assert_true(h > 1024 && h < 2048);
    }
}

static void test_series(void **state)
{
    static tui_sweep sw;
    (void)state;
    tui_sweep_init(&sw);
    /* sizes out of order; a failed row, a row without a bandwidth and one
     * at zero are left out; one variant measured at a single size is no
     * series */
    add(&sw, "ring", "1 GiB", RS_CORRECT, 300);
    add(&sw, "ring", "8 B", RS_CORRECT, 0.001);
    add(&sw, "ring", "2 MiB", RS_CORRECT, 150);
    add(&sw, "ring", "64 B", RS_WRONG, 0.01);
    add(&sw, "ring", "4 KiB", RS_CORRECT, -1);
    add(&sw, "ring", "32 KiB", RS_CORRECT, 0);
    add(&sw, "ring", "512 B", RS_CORRECT, NAN);
    add(&sw, "peer", "256 MiB", RS_CORRECT, 390);
    add(&sw, "nccl", "8 B", RS_NO_DEVICE, -1);
    add(&sw, "nccl", "64 MiB", RS_CORRECT, 280);
    add(&sw, "nccl", "8 B", RS_CORRECT, 0.002);
    add(&sw, "nccl", "16 MiB", RS_CORRECT, 200);
    add(&sw, "nccl", "16 MiB", RS_CORRECT, 250);   /* a later row at a size replaces it */
    /* a count among bytes, and sizes that read as no number */
    add(&sw, "nccl", "2^20", RS_CORRECT, 100);
    add(&sw, "nccl", "1024x1024", RS_CORRECT, 100);
    add(&sw, "nccl", "", RS_CORRECT, 100);
    assert_int_equal(sw.failed, 2);
    assert_string_equal(sw.failure, "ring at 64 B: wrong answer");
    assert_int_equal(tui_sweep_finish(&sw), 2);
    assert_true(sw.bytes);
    assert_string_equal(sw.s[0].variant, "ring");
    assert_int_equal(sw.s[0].n, 3);
    assert_string_equal(sw.s[0].pt[0].label, "8 B");
    near(sw.s[0].pt[1].size, 2097152.0, 0);
    assert_string_equal(sw.s[0].pt[2].label, "1 GiB");
    assert_int_equal(sw.s[0].peak, 2);
    assert_string_equal(sw.s[1].variant, "nccl");
    assert_int_equal(sw.s[1].n, 3);
    near(sw.s[1].pt[1].gbs, 250, 0);
    assert_int_equal(sw.s[1].peak, 2);
    assert_int_equal(sw.best, 0);        /* 300 GB/s against 280 */
    /* half of 300 is 150, reached exactly at 2 MiB */
    near(sw.s[0].half_size, 2097152.0, 0);
    assert_false(tui_sweep_half_at_first(&sw.s[0]));

    /* counts first: bytes are then the odd ones out */
    tui_sweep_init(&sw);
    add(&sw, "cub", "2^28", RS_CORRECT, 3000);
    add(&sw, "cub", "2^20", RS_CORRECT, 1000);
    add(&sw, "cub", "4 KiB", RS_CORRECT, 5);
    add(&sw, "mine", "2^24", RS_CORRECT, 2000);
    add(&sw, "mine", "2^28", RS_CORRECT, 2100);
    assert_int_equal(tui_sweep_finish(&sw), 2);
    assert_false(sw.bytes);
    assert_int_equal(sw.s[0].n, 2);
    assert_true(tui_sweep_half_at_first(&sw.s[1]));

    /* nothing at two sizes */
    tui_sweep_init(&sw);
    add(&sw, "ring", "8 B", RS_CORRECT, 1);
    add(&sw, "nccl", "1 GiB", RS_CORRECT, 300);
    assert_int_equal(tui_sweep_finish(&sw), 0);
    assert_int_equal(sw.failed, 0);
}

/* The row and the column a point of series i is drawn at. */
static const tui_sweepcell *point_cell(const tui_sweepplot *p, const tui_sweep *sw, size_t i,
                                       size_t k)
{
    return tui_sweep_cell(p, tui_sweep_row(p, sw->s[i].pt[k].gbs),
                          tui_sweep_col(p, sw->s[i].pt[k].size));
}

static void test_plot(void **state)
{
    static tui_sweep sw;
    tui_sweepplot p;
    cl_err e;
    char buf[512];
    int ylabels = 0, half_cells = 0;
    const char *lat, *bw;
    (void)state;
    tui_sweep_init(&sw);
    add_coll(&sw, "ar_naive", 31, 175);
    add_coll(&sw, "ar_ring", 10, 320);
    add_coll(&sw, "ar_nccl", 8.5, 330);
    assert_int_equal(tui_sweep_finish(&sw), 3);
    assert_int_equal(sw.best, 2);
    if (!tui_sweep_plot(&sw, 90, 16, &p, &e))
        fail_msg("%s", e.msg);
    /* 8 B to 1 GiB across, 0.0001 to 1000 GB/s up */
    near(p.x_lo, 3, 0);
    near(p.x_hi, 30, 0);
    near(p.y_lo, -4, 0);
    near(p.y_hi, 3, 0);
    assert_int_equal(tui_sweep_col(&p, 8), 0);
    assert_int_equal(tui_sweep_col(&p, 1073741824.0), 89);
    assert_int_equal(tui_sweep_row(&p, 1000), 0);
    assert_int_equal(tui_sweep_row(&p, 1e-4), 15);
    assert_int_equal(tui_sweep_col(&p, 0), -1);
    /* every point has its letter, or the star where series meet: at 1 GiB
     * the ring and NCCL share a cell, the naive one is lower */
    for (size_t i = 0; i < 3; i++)
        for (size_t k = 0; k < 11; k++) {
            const tui_sweepcell *c = point_cell(&p, &sw, i, k);
            assert_true(c->mark == SWM_SHARED ||
                        (c->mark == SWM_POINT && c->letter == tui_sweep_letter(i)));
        }
    assert_int_equal(point_cell(&p, &sw, 1, 10)->mark, SWM_SHARED);
    assert_int_equal(point_cell(&p, &sw, 0, 10)->mark, SWM_POINT);
    assert_int_equal(point_cell(&p, &sw, 0, 10)->letter, 'A');
    /* dots join a series' points: between 8 B and 64 B, left of the first NCCL point */
    assert_int_equal(tui_sweep_cell(&p, tui_sweep_row(&p, modelled(22, 31, 175)), 4)->mark, SWM_LINE);
    assert_int_equal(tui_sweep_cell(&p, tui_sweep_row(&p, modelled(22, 31, 175)), 4)->letter, 'A');
    /* the dotted line stands at NCCL's half size, about a x B = 2.8 MB */
    assert_int_equal(p.half_col, tui_sweep_col(&p, sw.s[2].half_size));
    assert_true(sw.s[2].half_size > 2.0e6 && sw.s[2].half_size < 3.6e6);
    for (int r = 0; r < p.h; r++)
        half_cells += tui_sweep_cell(&p, r, p.half_col)->mark == SWM_HALF;
    assert_true(half_cells >= p.h - 3);
    /* the two regions either side of it, and each series' letter on the axis */
    lat = strstr(p.regions, "<- latency-bound");
    bw = strstr(p.regions, "bandwidth-bound ->");
    assert_non_null(lat);
    assert_non_null(bw);
    assert_int_equal(lat - p.regions + 16, p.half_col - 1);
    assert_int_equal(bw - p.regions, p.half_col + 2);
    assert_int_equal(p.marks[tui_sweep_col(&p, sw.s[0].half_size)], 'A');
    assert_true(tui_sweep_col(&p, sw.s[0].half_size) > p.half_col);  /* the naive one later */
    assert_int_equal((int)strlen(p.marks), 90);
    /* size labels on round powers of two (every fourth fits), GB/s on decades */
    assert_int_equal((int)strlen(p.xaxis), 90);
    assert_true(ts_starts_with(p.xaxis, "   16B    64B   256B   1K     4K "));
    assert_non_null(strstr(p.xaxis, " 1M "));
    assert_string_equal(p.xaxis + 86, "  1G");   /* the last, at the right edge */
    for (int r = 0; r < p.h; r++)
        if (tui_sweep_ylabel(&p, r, buf, sizeof buf)[0])
            ylabels++;
    assert_int_equal(ylabels, 8);
    assert_string_equal(tui_sweep_ylabel(&p, 0, buf, sizeof buf), "1000");
    assert_string_equal(tui_sweep_ylabel(&p, 15, buf, sizeof buf), "0.0001");
    assert_true(tui_sweep_cell(&p, -1, 0)->mark == SWM_NONE && tui_sweep_cell(&p, 0, 90)->mark == SWM_NONE);
    tui_sweep_free(&p);

    /* a narrow plot spaces its labels out and shortens the regions */
    if (!tui_sweep_plot(&sw, 30, 6, &p, &e))
        fail_msg("%s", e.msg);
    assert_null(strstr(p.xaxis, "64B"));
    assert_non_null(strstr(p.xaxis, "1K"));
    assert_non_null(strstr(p.regions, "latency"));
    assert_non_null(strstr(p.regions, "bandwidth"));
    tui_sweep_free(&p);

    assert_false(tui_sweep_plot(&sw, 7, 16, &p, &e));
    assert_non_null(strstr(e.msg, "at least 8 x 4"));
    tui_sweep_free(&p);
    tui_sweep_init(&sw);
    tui_sweep_finish(&sw);
    assert_false(tui_sweep_plot(&sw, 90, 16, &p, &e));
    tui_sweep_free(&p);
}

static void test_words(void **state)
{
    static tui_sweep sw;
    char buf[1024];
    run_result r;
    (void)state;
    tui_sweep_init(&sw);
    add(&sw, "ar_ring", "8 B", RS_CORRECT, 0.001);
    add(&sw, "ar_ring", "2 MiB", RS_CORRECT, 100);
    add(&sw, "ar_ring", "1 GiB", RS_CORRECT, 300);
    r = row("exercise", "8 B", RS_CORRECT, 0.002);
    r.kind = RK_EXERCISE;
    snprintf(r.label, sizeof r.label, "your kernel");
    tui_sweep_add(&sw, &r);
    snprintf(r.size, sizeof r.size, "64 B");
    r.gbps = 0.0015;
    tui_sweep_add(&sw, &r);
    assert_int_equal(tui_sweep_finish(&sw), 2);
    assert_true(sw.s[1].mine);
    /* 150 GB/s lies between 100 at 2 MiB and 300 at 1 GiB: t = a + S/B
     * through both has B = 301 GB/s and a = 14009 B/(GB/s) (14 us), and
     * S / (a + S/B) = 150 at S = 150 a / (1 - 150/B) = 4186128 */
    near(sw.s[0].half_size, 4186128, 1);
    tui_sweep_describe(&sw, 0, "All-reduce: a ring of our own", buf, sizeof buf);
    assert_string_equal(buf, "A All-reduce: a ring of our own: peak 300 GB/s at 1 GiB, half at 3.99 MiB");
    tui_sweep_describe(&sw, 1, NULL, buf, sizeof buf);
    assert_string_equal(buf, "B your kernel (yours): peak 0.00200 GB/s at 8 B, half already at 8 B");
    tui_sweep_header(&sw, "All-reduce: a ring of our own", false, buf, sizeof buf);
    assert_string_equal(buf, "Best: A All-reduce: a ring of our own, 300 GB/s at 1 GiB, half of it "
                             "at 3.99 MiB (the dotted line), where the fixed latency a equals S/B: "
                             "smaller sizes are latency-bound, larger ones bandwidth-bound.");

    /* counts: the half size between two of them as a power of two */
    tui_sweep_init(&sw);
    add(&sw, "sequential", "2^20", RS_CORRECT, 400);
    add(&sw, "sequential", "2^24", RS_CORRECT, 2000);
    add(&sw, "sequential", "2^28", RS_CORRECT, 3000);
    tui_sweep_finish(&sw);
    tui_sweep_describe(&sw, 0, NULL, buf, sizeof buf);
    assert_string_equal(buf, "A sequential: peak 3000 GB/s at 2^28, half at 2^22.8");
    tui_sweep_init(&sw);
    add(&sw, "sequential", "2^20", RS_CORRECT, 2000);
    add(&sw, "sequential", "2^28", RS_CORRECT, 3000);
    tui_sweep_finish(&sw);
    tui_sweep_header(&sw, NULL, false, buf, sizeof buf);
    assert_string_equal(buf, "Best: A sequential, 3000 GB/s at 2^28, half of it already at 2^20, "
                             "the smallest size measured: bandwidth-bound at every size here.");
    tui_sweep_header(&sw, NULL, true, buf, sizeof buf);
    assert_string_equal(buf, "Best: A sequential, 3000 GB/s at 2^28, half of it already at 2^20.");
    assert_int_equal(tui_sweep_letter(0), 'A');
    assert_int_equal(tui_sweep_letter(26), 'a');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes), cmocka_unit_test(test_half), cmocka_unit_test(test_series),
        cmocka_unit_test(test_plot),  cmocka_unit_test(test_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

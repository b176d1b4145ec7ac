/* Roofline arithmetic and its placement in a character grid. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "prof/roofline.h"

/* An H100-like device: 67 TFLOP/s FP32, 3000 GB/s. */
static const roofline h100 = {67000.0, 3000.0};

static bool near(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fabs(b);
}

static void test_ridge_and_roofs(void **state)
{
    (void)state;
    assert_true(roofline_valid(&h100));
    assert_true(near(roofline_ridge(&h100), 22.3333, 1e-4));
    assert_true(near(roofline_attainable(&h100, 1.0), 3000.0, 1e-12));
    assert_true(near(roofline_attainable(&h100, 0.25), 750.0, 1e-12));
    assert_true(near(roofline_attainable(&h100, 100.0), 67000.0, 1e-12));
    assert_true(roofline_attainable(&h100, 0.0) == 0.0);
    assert_true(roofline_attainable(&h100, -1.0) == 0.0);
    assert_int_equal(roofline_side_of(&h100, 1.0), ROOFLINE_MEMORY_BOUND);
    assert_int_equal(roofline_side_of(&h100, 22.4), ROOFLINE_COMPUTE_BOUND);
    assert_string_equal(roofline_side_name(ROOFLINE_MEMORY_BOUND), "memory-bound");
    assert_string_equal(roofline_side_name(ROOFLINE_COMPUTE_BOUND), "compute-bound");

    roofline bad = {0.0, 3000.0};
    assert_false(roofline_valid(&bad));
    assert_true(roofline_ridge(&bad) == 0.0);
    roofline nanr = {NAN, 1.0};
    assert_false(roofline_valid(&nanr));
}

static void test_percent_and_points(void **state)
{
    (void)state;
    roofline_point p = {0.5, 1200.0};            /* roof at 0.5 FLOP/B: 1500 GFLOP/s */
    assert_true(near(roofline_pct_of_roof(&h100, &p), 80.0, 1e-12));
    roofline_point q = {64.0, 33500.0};          /* compute roof */
    assert_true(near(roofline_pct_of_roof(&h100, &q), 50.0, 1e-12));
    roofline_point z = {0.0, 1.0};
    assert_true(roofline_pct_of_roof(&h100, &z) < 0);

    roofline_point r;
    assert_true(roofline_point_from_rates(2000.0, 1.5, &r));   /* 1500 GFLOP/s over 2000 GB/s */
    assert_true(near(r.gflops, 1500.0, 1e-12));
    assert_true(near(r.ai, 0.75, 1e-12));
    assert_false(roofline_point_from_rates(-1.0, 1.5, &r));
    assert_false(roofline_point_from_rates(100.0, 0.0, &r));
    assert_false(roofline_point_from_rates(INFINITY, 1.0, &r));
}

static void test_grid_covers_points_and_ridge(void **state)
{
    (void)state;
    roofline_point pts[] = {{0.75, 2100.0}, {4.75, 12000.0}, {256.75, 60000.0}, {1e-3, 2.0}};
    roofline_grid g;
    cl_err e;
    assert_true(roofline_grid_fit(&g, 60, 16, &h100, pts, 4, &e));
    assert_int_equal(g.w, 60);
    assert_int_equal(g.h, 16);
    assert_true(g.x_lo == floor(g.x_lo) && g.x_hi == floor(g.x_hi));   /* whole decades */
    assert_true(g.y_lo == floor(g.y_lo));
    assert_true(g.x_lo <= log10(1e-3) && g.x_hi >= log10(256.75));
    assert_true(g.x_lo <= log10(22.33 / 16) && g.x_hi >= log10(22.34 * 16));
    assert_true(g.y_lo <= log10(2.0) && g.y_hi >= log10(67000.0 * 1.2));
    for (size_t i = 0; i < 4; i++) {
        int c, r;
        assert_true(roofline_place(&g, pts[i].ai, pts[i].gflops, &c, &r));
        assert_true(c >= 0 && c < g.w && r >= 0 && r < g.h);
    }

    assert_false(roofline_grid_fit(&g, 4, 16, &h100, pts, 4, &e));
    roofline bad = {0, 0};
    assert_false(roofline_grid_fit(&g, 60, 16, &bad, pts, 4, &e));
    assert_true(roofline_grid_fit(&g, 8, 4, &h100, NULL, 0, &e));
    assert_true(g.x_hi > g.x_lo && g.y_hi > g.y_lo);
}

static void test_placement_is_monotonic(void **state)
{
    (void)state;
    roofline_grid g = {50, 10, -2.0, 3.0, 0.0, 5.0};   /* 0.01..1000 FLOP/B, 1..1e5 GFLOP/s */
    int c, r, c2, r2;
    assert_true(roofline_place(&g, 0.01, 1.0, &c, &r));
    assert_int_equal(c, 0);
    assert_int_equal(r, 9);                    /* bottom row: row 0 is the top */
    assert_true(roofline_place(&g, 999.0, 99999.0, &c, &r));
    assert_int_equal(c, 49);
    assert_int_equal(r, 0);
    assert_true(roofline_place(&g, 1.0, 100.0, &c, &r));
    assert_int_equal(c, 20);                   /* two decades of five over 50 columns */
    assert_int_equal(r, 5);
    assert_true(roofline_place(&g, 10.0, 1000.0, &c2, &r2));
    assert_true(c2 > c && r2 < r);
    assert_false(roofline_place(&g, 1e4, 10.0, &c, &r));
    assert_false(roofline_place(&g, 1.0, 1e6, &c, &r));
    assert_false(roofline_place(&g, 1.0, 0.5, &c, &r));
    assert_false(roofline_place(&g, 0.0, 10.0, &c, &r));
    assert_false(roofline_place(&g, NAN, 10.0, &c, &r));
    assert_true(near(roofline_col_ai(&g, 20), pow(10.0, 0.05), 1e-9));
    assert_true(near(roofline_row_gflops(&g, 9), pow(10.0, 0.25), 1e-9));
}

static void test_roof_rows_rise_then_flatten(void **state)
{
    (void)state;
    roofline_grid g;
    cl_err e;
    assert_true(roofline_grid_fit(&g, 60, 16, &h100, NULL, 0, &e));
    int ridge = roofline_ridge_col(&g, &h100);
    assert_true(ridge > 0 && ridge < 59);
    int prev = roofline_roof_row(&g, &h100, 0);
    for (int c = 1; c < g.w; c++) {
        int row = roofline_roof_row(&g, &h100, c);
        assert_true(row <= prev || prev < 0);   /* rows count down as the roof rises */
        if (c > ridge + 1)
            assert_int_equal(row, roofline_roof_row(&g, &h100, g.w - 1));
        prev = row;
    }
    int top = roofline_roof_row(&g, &h100, g.w - 1);
    assert_true(top >= 0 && top <= 1);   /* the compute roof sits just under the top */

    roofline_grid low = {20, 8, -3.0, -2.0, 4.0, 5.0};   /* the memory roof is below this window */
    assert_int_equal(roofline_roof_row(&low, &h100, 0), -1);
    assert_int_equal(roofline_ridge_col(&low, &h100), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ridge_and_roofs),
        cmocka_unit_test(test_percent_and_points),
        cmocka_unit_test(test_grid_covers_points_and_ridge),
        cmocka_unit_test(test_placement_is_monotonic),
        cmocka_unit_test(test_roof_rows_rise_then_flatten),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

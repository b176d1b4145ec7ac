/* Layout: a pure function of the terminal size, checked over many sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tui/tui_layout.h"

static bool inside(tui_rect r, int rows, int cols)
{
    return r.y >= 0 && r.x >= 0 && r.y + r.h <= rows && r.x + r.w <= cols;
}

static bool within(tui_rect in, tui_rect out)
{
    return in.y >= out.y && in.x >= out.x && in.y + in.h <= out.y + out.h &&
           in.x + in.w <= out.x + out.w;
}

static void check_size(int rows, int cols, int nlabs)
{
    tui_layout l;
    long area = 0;
    tui_layout_compute(rows, cols, nlabs, &l);
    assert_false(l.too_small);
    assert_int_equal(l.rows, rows);
    assert_int_equal(l.cols, cols);
    for (int p = 0; p < TUI_P_COUNT; p++) {
        tui_rect r = l.pane[p];
        int mh, mw;
        if (p == TUI_P_DEVICE && tui_rect_empty(r))
            continue;
        assert_false(tui_rect_empty(r));
        assert_true(inside(r, rows, cols));
        tui_layout_min((tui_pane_id)p, &mh, &mw);
        if (r.h < mh || r.w < mw)
            fail_msg("%dx%d: pane %d is %dx%d, below its minimum %dx%d", cols, rows, p, r.w, r.h, mw, mh);
        area += (long)r.h * r.w;
        for (int q = p + 1; q < TUI_P_COUNT; q++)
            if (tui_rect_overlap(r, l.pane[q]))
                fail_msg("%dx%d: panes %d and %d overlap", cols, rows, p, q);
    }
    /* the panes tile the whole screen */
    assert_int_equal(area, (long)rows * cols);
    assert_int_equal(l.pane[TUI_P_STATUS].y, rows - 1);

    {
        tui_rect run = l.pane[TUI_P_RUN];
        tui_rect inner = {run.y + 1, run.x + 1, run.h - 2, run.w - 2};
        assert_false(tui_rect_empty(l.run_table));
        assert_true(within(l.run_table, inner));
        if (!tui_rect_empty(l.run_chart)) {
            assert_true(within(l.run_chart, inner));
            assert_false(tui_rect_overlap(l.run_table, l.run_chart));
            assert_true(l.run_chart.w >= 24);
            assert_true(l.run_chart.h >= 6);
        }
    }
    assert_true(inside(l.help, rows, cols) && !tui_rect_empty(l.help));
    assert_true(inside(l.quiz, rows, cols) && !tui_rect_empty(l.quiz));
    assert_true(inside(l.confirm, rows, cols) && l.confirm.h >= 5);
    assert_true(inside(l.view, rows, cols));
    assert_int_equal(l.view.h, rows - 1);
    assert_int_equal(l.view.w, cols);
    assert_false(tui_rect_overlap(l.view, l.pane[TUI_P_STATUS]));

    for (int p = 0; p < TUI_P_COUNT; p++) {
        tui_rect r = l.pane[p];
        if (tui_rect_empty(r))
            continue;
        assert_int_equal(tui_layout_hit(&l, r.y + r.h / 2, r.x + r.w / 2), p);
        assert_int_equal(tui_layout_hit(&l, r.y, r.x), p);
        assert_int_equal(tui_layout_hit(&l, r.y + r.h - 1, r.x + r.w - 1), p);
    }
}

static void test_many_sizes(void **state)
{
    (void)state;
    for (int rows = TUI_MIN_ROWS; rows <= 100; rows++)
        for (int cols = TUI_MIN_COLS; cols <= 300; cols++)
            check_size(rows, cols, 4);
}

static void test_lab_counts(void **state)
{
    (void)state;
    static const int sizes[][2] = {{16, 60}, {24, 80}, {30, 100}, {50, 200}, {100, 300}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int n = 0; n <= 40; n++)
            check_size(sizes[i][0], sizes[i][1], n);
}

static void test_too_small(void **state)
{
    (void)state;
    static const int sizes[][2] = {{0, 0}, {1, 1}, {15, 80}, {24, 59}, {15, 59}, {10, 300}, {100, 40}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        tui_layout l;
        tui_layout_compute(sizes[i][0], sizes[i][1], 4, &l);
        assert_true(l.too_small);
        assert_int_equal(tui_layout_hit(&l, 0, 0), -1);
        for (int p = 0; p < TUI_P_COUNT; p++)
            assert_true(tui_rect_empty(l.pane[p]));
    }
}

static void test_80x24(void **state)
{
    tui_layout l;
    (void)state;
    tui_layout_compute(24, 80, 4, &l);
    assert_false(l.wide);
    assert_false(l.log_boxed);
    /* every lab fits in the list, the device panel shows */
    assert_true(l.pane[TUI_P_LABS].h - 2 >= 4);
    assert_false(tui_rect_empty(l.pane[TUI_P_DEVICE]));
    /* the run table gets the whole run pane: no room for a chart */
    assert_true(tui_rect_empty(l.run_chart));
    assert_true(l.pane[TUI_P_LESSON].w >= 50);
    assert_true(l.pane[TUI_P_LESSON].h >= 8);
}

static void test_large(void **state)
{
    tui_layout l;
    (void)state;
    tui_layout_compute(100, 300, 4, &l);
    assert_true(l.wide);
    assert_true(l.log_boxed);
    assert_false(tui_rect_empty(l.run_chart));
    assert_true(l.run_table.w >= 64);
    /* side by side: lesson and run share the body's height */
    assert_int_equal(l.pane[TUI_P_LESSON].h, l.pane[TUI_P_RUN].h);
    assert_true(l.pane[TUI_P_LESSON].w <= 104);

    tui_layout_compute(45, 160, 4, &l);
    assert_false(l.wide);
    assert_false(tui_rect_empty(l.run_chart));
    assert_int_equal(l.run_chart.y, l.run_table.y);   /* beside the table */
}

static void test_rects(void **state)
{
    tui_rect a = {0, 0, 2, 2}, b = {1, 1, 2, 2}, c = {2, 0, 1, 5}, e = {5, 5, 0, 3};
    (void)state;
    assert_true(tui_rect_overlap(a, b));
    assert_false(tui_rect_overlap(a, c));
    assert_false(tui_rect_overlap(b, e));
    assert_true(tui_rect_empty(e));
    assert_true(tui_rect_contains(a, 1, 1));
    assert_false(tui_rect_contains(a, 2, 0));
    assert_false(tui_rect_contains(e, 5, 5));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_sizes), cmocka_unit_test(test_lab_counts),
        cmocka_unit_test(test_too_small),  cmocka_unit_test(test_80x24),
        cmocka_unit_test(test_large),      cmocka_unit_test(test_rects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The timeline model: lanes, items, idle gaps, and the layout of items
 * into character columns for a width, zoom and pan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/timeline.h"
#include "support.h"

static void test_lanes_are_found_or_added(void **state)
{
    (void)state;
    timeline t;
    timeline_init(&t);
    cl_err e;
    int s7 = timeline_lane(&t, TL_LANE_STREAM, 7, &e);
    int h2d = timeline_lane(&t, TL_LANE_H2D, 99, &e);
    int s9 = timeline_lane(&t, TL_LANE_STREAM, 9, &e);
    assert_int_equal(s7, 0);
    assert_int_equal(h2d, 1);
    assert_int_equal(s9, 2);
    assert_int_equal(timeline_lane(&t, TL_LANE_STREAM, 7, &e), s7);
    assert_int_equal(timeline_lane(&t, TL_LANE_H2D, 0, &e), h2d);
    assert_string_equal(t.lanes[s7].name, "stream 7");
    assert_string_equal(t.lanes[h2d].name, "copies H2D");
    assert_int_equal(t.lanes[h2d].stream, 0);
    assert_int_equal(timeline_lane_named(&t, TL_LANE_API, 0, "my calls", &e), 3);
    assert_string_equal(t.lanes[3].name, "my calls");
    timeline_free(&t);
    assert_int_equal(t.nlanes, 0);
}

static void test_add_rejects_bad_items(void **state)
{
    (void)state;
    timeline t;
    timeline_init(&t);
    cl_err e;
    tl_item it;
    memset(&it, 0, sizeof it);
    it.lane = 0;
    assert_false(timeline_add(&t, &it, &e));
    assert_non_null(strstr(e.msg, "lane"));
    timeline_lane(&t, TL_LANE_API, 0, &e);
    it.start_ns = 10;
    it.end_ns = 5;
    assert_false(timeline_add(&t, &it, &e));
    assert_non_null(strstr(e.msg, "ends before"));
    timeline_free(&t);
}

static void test_names_round_trip(void **state)
{
    (void)state;
    for (int k = TL_LANE_STREAM; k <= TL_LANE_NVTX; k++) {
        tl_lane_kind back;
        assert_true(timeline_lane_kind_parse(timeline_lane_kind_name((tl_lane_kind)k), &back));
        assert_int_equal(back, k);
    }
    for (int k = TL_KERNEL; k <= TL_RANGE; k++) {
        tl_kind back;
        assert_true(timeline_kind_parse(timeline_kind_name((tl_kind)k), &back));
        assert_int_equal(back, k);
    }
    tl_kind k;
    assert_false(timeline_kind_parse("bogus", &k));
    assert_false(timeline_kind_parse(NULL, &k));
}

static void test_sort_normalise_span(void **state)
{
    (void)state;
    timeline t;
    timeline_init(&t);
    cl_err e;
    int a = timeline_lane(&t, TL_LANE_NVTX, 0, &e);
    int b = timeline_lane(&t, TL_LANE_STREAM, 1, &e);
    ts_tl_add(&t, b, TL_KERNEL, "k2", 5000, 6000, 0, 0, 0);
    ts_tl_add(&t, a, TL_RANGE, "inner", 1000, 2000, 0, 0, 0);
    ts_tl_add(&t, a, TL_RANGE, "outer", 1000, 9000, 0, 0, 0);
    timeline_sort(&t);
    assert_string_equal(t.items[0].name, "outer");   /* enclosing range first on a tie */
    assert_string_equal(t.items[1].name, "inner");
    assert_string_equal(t.items[2].name, "k2");
    uint64_t t0, t1;
    assert_true(timeline_span(&t, &t0, &t1));
    assert_int_equal(t0, 1000);
    assert_int_equal(t1, 9000);
    assert_int_equal(timeline_normalise(&t), 1000);
    assert_int_equal(t.items[0].start_ns, 0);
    assert_int_equal(t.items[2].end_ns, 5000);
    timeline_free(&t);
    assert_false(timeline_span(&t, &t0, &t1));
}

static void test_item_throughput(void **state)
{
    (void)state;
    tl_item it;
    memset(&it, 0, sizeof it);
    it.start_ns = 0;
    it.end_ns = 1000000;          /* 1 ms */
    it.bytes = 25000000;          /* 25 MB */
    assert_true(timeline_item_gbps(&it) > 24.999 && timeline_item_gbps(&it) < 25.001);
    it.bytes = 0;
    assert_true(timeline_item_gbps(&it) < 0);
    it.bytes = 10;
    it.end_ns = 0;
    assert_true(timeline_item_gbps(&it) < 0);
}

static void test_order_lanes(void **state)
{
    (void)state;
    timeline t;
    timeline_init(&t);
    cl_err e;
    int d2h = timeline_lane(&t, TL_LANE_D2H, 0, &e);
    int s20 = timeline_lane(&t, TL_LANE_STREAM, 20, &e);
    int api = timeline_lane(&t, TL_LANE_API, 0, &e);
    int s13 = timeline_lane(&t, TL_LANE_STREAM, 13, &e);
    int h2d = timeline_lane(&t, TL_LANE_H2D, 0, &e);
    int nvtx = timeline_lane(&t, TL_LANE_NVTX, 0, &e);
    ts_tl_add(&t, d2h, TL_MEMCPY, "d2h", 0, 1, 8, TL_PINNED, 0);
    ts_tl_add(&t, s20, TL_KERNEL, "k20", 0, 1, 0, 0, 0);
    ts_tl_add(&t, api, TL_API, "cudaLaunchKernel", 0, 1, 0, 0, 0);
    ts_tl_add(&t, s13, TL_KERNEL, "k13", 0, 1, 0, 0, 0);
    ts_tl_add(&t, h2d, TL_MEMCPY, "h2d", 0, 1, 8, TL_PAGEABLE, 0);
    ts_tl_add(&t, nvtx, TL_RANGE, "phase", 0, 1, 0, 0, 0);
    assert_true(timeline_order_lanes(&t, &e));
    const char *want[] = {"NVTX", "runtime API", "copies H2D", "stream 13", "stream 20", "copies D2H"};
    for (int i = 0; i < 6; i++)
        assert_string_equal(t.lanes[i].name, want[i]);
    for (size_t i = 0; i < t.nitems; i++) {
        const char *lane = t.lanes[t.items[i].lane].name;
        const char *n = t.items[i].name;
        if (strcmp(n, "k13") == 0)
            assert_string_equal(lane, "stream 13");
        if (strcmp(n, "k20") == 0)
            assert_string_equal(lane, "stream 20");
        if (strcmp(n, "h2d") == 0)
            assert_string_equal(lane, "copies H2D");
        if (strcmp(n, "d2h") == 0)
            assert_string_equal(lane, "copies D2H");
        if (strcmp(n, "phase") == 0)
            assert_string_equal(lane, "NVTX");
    }
    timeline_free(&t);
}

static void test_gaps_on_one_lane(void **state)
{
    (void)state;
    timeline t;
    timeline_init(&t);
    cl_err e;
    int s = timeline_lane(&t, TL_LANE_STREAM, 1, &e);
    int other = timeline_lane(&t, TL_LANE_STREAM, 2, &e);
    ts_tl_add(&t, s, TL_KERNEL, "a", 100, 200, 0, 0, 0);
    ts_tl_add(&t, s, TL_KERNEL, "b", 150, 300, 0, 0, 0);   /* overlaps a: merged */
    ts_tl_add(&t, s, TL_KERNEL, "c", 1300, 1400, 0, 0, 0); /* gap 300..1300 */
    ts_tl_add(&t, s, TL_KERNEL, "d", 1405, 1500, 0, 0, 0); /* gap of 5 ns */
    ts_tl_add(&t, other, TL_KERNEL, "x", 0, 5000, 0, 0, 0);
    tl_gaps g;
    assert_true(timeline_gaps(&t, s, 10, &g, &e));
    assert_int_equal(g.n, 1);
    assert_int_equal(g.v[0].start_ns, 300);
    assert_int_equal(g.v[0].end_ns, 1300);
    assert_int_equal(g.first_ns, 100);
    assert_int_equal(g.last_ns, 1500);
    assert_int_equal(g.busy_ns, 200 + 100 + 95);
    assert_int_equal(g.idle_ns, 1000 + 5);
    timeline_gaps_free(&g);

    assert_true(timeline_gaps(&t, s, 0, &g, &e));
    assert_int_equal(g.n, 2);
    timeline_gaps_free(&g);

    assert_false(timeline_gaps(&t, 17, 0, &g, &e));
    timeline_free(&t);
}

static void test_gaps_of_the_whole_gpu(void **state)
{
    (void)state;
    timeline t;
    timeline_init(&t);
    cl_err e;
    int api = timeline_lane(&t, TL_LANE_API, 0, &e);
    int h2d = timeline_lane(&t, TL_LANE_H2D, 0, &e);
    int s = timeline_lane(&t, TL_LANE_STREAM, 3, &e);
    int d2h = timeline_lane(&t, TL_LANE_D2H, 0, &e);
    ts_tl_add(&t, api, TL_API, "cudaMemcpyAsync", 0, 10000, 0, 0, 0);   /* host work: not the GPU */
    ts_tl_add(&t, h2d, TL_MEMCPY, "h2d", 1000, 2000, 1000, TL_PINNED, 0);
    ts_tl_add(&t, s, TL_KERNEL, "k", 1800, 3000, 0, 0, 0);
    ts_tl_add(&t, d2h, TL_MEMCPY, "d2h", 5000, 6000, 1000, TL_PINNED, 0);
    tl_gaps g;
    assert_true(timeline_gaps(&t, TL_GPU_LANES, 0, &g, &e));
    assert_int_equal(g.n, 1);
    assert_int_equal(g.v[0].start_ns, 3000);
    assert_int_equal(g.v[0].end_ns, 5000);
    assert_int_equal(g.busy_ns, 3000);
    assert_int_equal(g.idle_ns, 2000);
    timeline_gaps_free(&g);

    timeline empty;
    timeline_init(&empty);
    assert_true(timeline_gaps(&empty, TL_GPU_LANES, 0, &g, &e));
    assert_int_equal(g.n, 0);
    assert_int_equal(g.busy_ns, 0);
    timeline_free(&t);
}

static void test_view_zoom_and_pan(void **state)
{
    (void)state;
    tl_view v = timeline_view(0, 1000, 1.0, 0.5);
    assert_int_equal(v.t0, 0);
    assert_int_equal(v.t1, 1000);
    v = timeline_view(0, 1000, 4.0, 0.5);           /* a quarter, centred */
    assert_int_equal(v.t0, 375);
    assert_int_equal(v.t1, 625);
    v = timeline_view(0, 1000, 4.0, 0.0);           /* clamped at the start */
    assert_int_equal(v.t0, 0);
    assert_int_equal(v.t1, 250);
    v = timeline_view(0, 1000, 4.0, 1.0);           /* and at the end */
    assert_int_equal(v.t0, 750);
    assert_int_equal(v.t1, 1000);
    v = timeline_view(0, 1000, 0.1, 0.5);           /* zoom below 1 shows everything */
    assert_int_equal(v.t1 - v.t0, 1000);

    tl_view w = timeline_view(0, 1000, 1.0, 0.5);
    w = timeline_view_pan(&w, 0, 1000, 10, 100);    /* cannot move past the end */
    assert_int_equal(w.t0, 0);
    tl_view q = timeline_view(0, 1000, 4.0, 0.0);   /* 0..250 over 50 columns: 5 ns each */
    q = timeline_view_pan(&q, 0, 1000, 10, 50);
    assert_int_equal(q.t0, 50);
    assert_int_equal(q.t1, 300);
    q = timeline_view_pan(&q, 0, 1000, -100, 50);
    assert_int_equal(q.t0, 0);

    tl_view z = timeline_view(0, 1000, 1.0, 0.5);   /* zoom 2x about column 0: t=5 stays there */
    z = timeline_view_zoom(&z, 0, 1000, 2.0, 100, 0);
    assert_int_equal(z.t1 - z.t0, 500);
    assert_true(z.t0 <= 5 && timeline_view_time(&z, 100, 1) > 5);
    tl_view z2 = timeline_view(0, 1000, 1.0, 0.5);
    z2 = timeline_view_zoom(&z2, 0, 1000, 2.0, 100, 99);   /* about the last column */
    assert_int_equal(z2.t1 - z2.t0, 500);
    assert_true(timeline_view_time(&z2, 100, 99) <= 995 && z2.t1 >= 995 && z2.t1 <= 1000);
    tl_view z4 = timeline_view(0, 1000, 1.0, 0.5);   /* zoom 4x about the middle */
    z4 = timeline_view_zoom(&z4, 0, 1000, 4.0, 100, 50);
    assert_true(z4.t0 >= 370 && z4.t0 <= 380 && z4.t1 - z4.t0 == 250);
    tl_view z3 = timeline_view(0, 1000, 1.0, 0.5);
    z3 = timeline_view_zoom(&z3, 0, 1000, 1e9, 100, 50);   /* never narrower than a ns a column */
    assert_true(z3.t1 - z3.t0 >= 100);
    z3 = timeline_view_zoom(&z3, 0, 1000, 1e-9, 100, 50);  /* nor wider than everything */
    assert_int_equal(z3.t1 - z3.t0, 1000);
}

static void test_view_columns(void **state)
{
    (void)state;
    tl_view v = {1000, 2000};   /* 100 columns of 10 ns */
    int c0, c1;
    assert_true(timeline_view_cols(&v, 100, 1000, 1100, &c0, &c1));
    assert_int_equal(c0, 0);
    assert_int_equal(c1, 9);
    assert_true(timeline_view_cols(&v, 100, 1503, 1504, &c0, &c1));  /* 1 ns: still one column */
    assert_int_equal(c0, 50);
    assert_int_equal(c1, 50);
    assert_true(timeline_view_cols(&v, 100, 500, 5000, &c0, &c1));   /* clipped both sides */
    assert_int_equal(c0, 0);
    assert_int_equal(c1, 99);
    assert_false(timeline_view_cols(&v, 100, 0, 1000, &c0, &c1));    /* ends where the view starts */
    assert_false(timeline_view_cols(&v, 100, 2000, 2100, &c0, &c1)); /* starts where it ends */
    assert_true(timeline_view_cols(&v, 100, 1000, 1000, &c0, &c1));  /* an instant at the edge */
    assert_int_equal(c0, 0);
    assert_int_equal(timeline_view_time(&v, 100, 50), 1500);
    assert_int_equal(timeline_view_time(&v, 100, 100), 2000);
}

static void test_layout_row(void **state)
{
    (void)state;
    timeline t;
    timeline_init(&t);
    cl_err e;
    int s = timeline_lane(&t, TL_LANE_STREAM, 1, &e);
    int o = timeline_lane(&t, TL_LANE_STREAM, 2, &e);
    int big = ts_tl_add(&t, s, TL_KERNEL, "big", 0, 370, 0, 0, 0);
    int tiny = ts_tl_add(&t, s, TL_KERNEL, "tiny", 372, 373, 0, 0, 0);
    int late = ts_tl_add(&t, s, TL_KERNEL, "late", 900, 1000, 0, 0, 0);
    ts_tl_add(&t, o, TL_KERNEL, "elsewhere", 0, 1000, 0, 0, 0);
    tl_view v = {0, 1000};
    tl_cell row[10];
    timeline_layout_row(&t, s, &v, 10, row);
    for (int c = 0; c < 3; c++) {
        assert_int_equal(row[c].item, big);
        assert_int_equal(row[c].count, 1);
    }
    assert_int_equal(row[3].item, big);     /* 300..370 covers more than 372..373 */
    assert_int_equal(row[3].count, 2);
    for (int c = 4; c < 9; c++) {
        assert_int_equal(row[c].item, -1);
        assert_int_equal(row[c].count, 0);
    }
    assert_int_equal(row[9].item, late);

    tl_view zoomed = {369, 379};             /* zoomed in: the tiny kernel owns its column */
    timeline_layout_row(&t, s, &zoomed, 10, row);
    assert_int_equal(row[0].item, big);
    assert_int_equal(row[1].item, -1);
    assert_int_equal(row[2].item, -1);
    assert_int_equal(row[3].item, tiny);
    assert_int_equal(row[3].count, 1);
    assert_int_equal(row[4].item, -1);
    timeline_free(&t);
}

static void test_ticks_and_format(void **state)
{
    (void)state;
    tl_view v = {0, 1000000};   /* 1 ms over 100 columns, a tick every >= 10 columns */
    assert_int_equal(timeline_tick_ns(&v, 100, 10), 100000);
    tl_view w = {0, 3000000};   /* 30 us a column x 10 = 300 us -> 500 us */
    assert_int_equal(timeline_tick_ns(&w, 100, 10), 500000);
    tl_view x = {0, 7};
    assert_int_equal(timeline_tick_ns(&x, 100, 10), 1);
    char b[32];
    timeline_format_ns(12, b, sizeof b);
    assert_string_equal(b, "12 ns");
    timeline_format_ns(3400, b, sizeof b);
    assert_string_equal(b, "3.40 us");
    timeline_format_ns(1250000, b, sizeof b);
    assert_string_equal(b, "1.25 ms");
    timeline_format_ns(2e9, b, sizeof b);
    assert_string_equal(b, "2.000 s");
}

static void test_item_cap_counts_dropped(void **state)
{
    (void)state;
    timeline t;
    timeline_init(&t);
    cl_err e;
    int l = timeline_lane(&t, TL_LANE_API, 0, &e);
    tl_item it;
    memset(&it, 0, sizeof it);
    it.lane = l;
    for (size_t i = 0; i < TL_MAX_ITEMS + 3; i++) {
        it.start_ns = i;
        it.end_ns = i + 1;
        assert_true(timeline_add(&t, &it, &e));
    }
    assert_int_equal(t.nitems, TL_MAX_ITEMS);
    assert_int_equal(t.dropped, 3);
    timeline_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lanes_are_found_or_added),
        cmocka_unit_test(test_add_rejects_bad_items),
        cmocka_unit_test(test_names_round_trip),
        cmocka_unit_test(test_sort_normalise_span),
        cmocka_unit_test(test_item_throughput),
        cmocka_unit_test(test_order_lanes),
        cmocka_unit_test(test_gaps_on_one_lane),
        cmocka_unit_test(test_gaps_of_the_whole_gpu),
        cmocka_unit_test(test_view_zoom_and_pan),
        cmocka_unit_test(test_view_columns),
        cmocka_unit_test(test_layout_row),
        cmocka_unit_test(test_ticks_and_format),
        cmocka_unit_test(test_item_cap_counts_dropped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

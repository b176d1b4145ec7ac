/* The pure helpers behind the profiling views: timeline cells, axis and
 * text; the roofline grid; Nsight Compute's metric lines and kernel names;
 * compute-sanitizer's findings; the profiling lab's rows; the child
 * process that runs slow tools.  And the GB/s-by-size view drawn whole, by
 * curses into an off-screen pad, and read back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <cmocka.h>
#include <curses.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <wchar.h>

#include "prof/ncu.h"
#include "prof/trace.h"
#include "support.h"
#include "tui/tui_job.h"
#include "tui/tui_ncu.h"
#include "tui/tui_prof.h"
#include "tui/tui_roof.h"
#include "tui/tui_runtable.h"
#include "tui/tui_san.h"
#include "tui/tui_timeline.h"
#include "tui/tui_views.h"

/* The whole file, which must not be empty. */
static char *read_file(const char *path)
{
    char *buf = ts_read(path);
    assert_non_null(buf);
    assert_true(buf[0] != '\0');
    return buf;
}

/* ---- timeline ------------------------------------------------------------------ */

static int lane_named(const tui_timeline *v, const char *name)
{
    for (size_t i = 0; i < v->t.nlanes; i++)
        if (strcmp(v->t.lanes[i].name, name) == 0)
            return (int)i;
    fail_msg("no lane '%s'", name);
    return -1;
}

static void test_timeline_sample(void **state)
{
    tui_timeline v;
    char path[1024], line[1024];
    tui_tlcell cells[80];
    cl_err e;
    int h2d, d2h, s14, w = 80;
    (void)state;
    memset(&v, 0, sizeof v);
    v.item = -1;
    ts_data_path(path, sizeof path, "prof/data/sample_trace.json");
    if (!tui_timeline_load(&v, path, &e))
        fail_msg("%s", e.msg);
    assert_true(v.loaded);
    assert_int_equal(v.lo, 0);
    assert_true(v.hi > 2000000 && v.hi < 3000000);
    assert_true(timeline_lane_is_gpu(v.t.lanes[v.lane].kind));
    h2d = lane_named(&v, "copies H2D");
    d2h = lane_named(&v, "copies D2H");
    s14 = lane_named(&v, "stream 14");
    assert_int_equal(v.lane, h2d);

    /* the uploads cover the first half; nothing there at the end */
    tui_timeline_cells(&v, h2d, w, cells);
    assert_int_equal(cells[1].mark, TLM_PINNED);
    assert_int_equal(cells[w - 1].mark, TLM_NONE);
    /* the last download is from pageable memory */
    tui_timeline_cells(&v, d2h, w, cells);
    assert_int_equal(cells[w - 1].mark, TLM_PAGEABLE);
    assert_int_equal(cells[w / 2 + 2].mark, TLM_PINNED);
    tui_timeline_cells(&v, s14, w, cells);
    assert_int_equal(cells[w / 3].mark, TLM_KERNEL);
    assert_string_equal(v.t.items[cells[w / 3].item].name, "prof_fma");

    tui_timeline_summary(&v, line, sizeof line);
    assert_non_null(strstr(line, "2 kernels, 4 copies (1 from pageable memory)"));
    assert_non_null(strstr(line, "GPU busy"));

    /* nothing selected: no detail; Tab selects the first upload */
    tui_timeline_detail(&v, true, line, sizeof line);
    assert_string_equal(line, "");
    tui_timeline_step(&v, 1, w);
    assert_true(v.item >= 0);
    tui_timeline_detail(&v, true, line, sizeof line);
    assert_non_null(strstr(line, "memcpy HtoD on copies H2D: start 6.00 us, duration 640 us"));
    assert_non_null(strstr(line, "32 MiB at 52.4 GB/s, pinned"));
    tui_timeline_step(&v, 1, w);
    tui_timeline_detail(&v, false, line, sizeof line);
    assert_non_null(strstr(line, "start 647 \xC2\xB5s"));
    /* the second upload is the last item of the lane: Tab stays on it */
    {
        long at = v.item;
        tui_timeline_step(&v, 1, w);
        assert_int_equal(v.item, at);
        tui_timeline_step(&v, -1, w);
        assert_true(v.item < at);
    }

    /* down to the downloads: the nearest one is picked */
    tui_timeline_lane(&v, 3, w);
    assert_int_equal(v.lane, d2h);
    assert_int_equal(v.t.items[v.item].lane, d2h);
    tui_timeline_cells(&v, d2h, w, cells);
    {
        int sel = 0;
        for (int c = 0; c < w; c++)
            sel += cells[c].selected;
        assert_true(sel > 0);
    }
    tui_timeline_lane(&v, 100, w);
    assert_int_equal(v.lane, (int)v.t.nlanes - 1);
    tui_timeline_lane(&v, -100, w);
    assert_int_equal(v.lane, 0);
    tui_timeline_free(&v);
    assert_false(v.loaded);
    assert_int_equal(v.item, -1);
}

static void test_timeline_zoom_pan(void **state)
{
    tui_timeline v;
    char path[1024], win[96];
    cl_err e;
    int w = 60;
    tl_view before;
    (void)state;
    memset(&v, 0, sizeof v);
    ts_data_path(path, sizeof path, "prof/data/sample_trace.json");
    assert_true(tui_timeline_load(&v, path, &e));
    tui_timeline_window(&v, win, sizeof win);
    assert_non_null(strstr(win, "(1.0x)"));
    tui_timeline_zoom(&v, 2.0, w);
    tui_timeline_zoom(&v, 2.0, w);
    tui_timeline_window(&v, win, sizeof win);
    assert_non_null(strstr(win, "(4.0x)"));
    before = v.view;
    tui_timeline_pan(&v, 10, w);
    assert_true(v.view.t0 > before.t0);
    assert_int_equal(v.view.t1 - v.view.t0, before.t1 - before.t0);
    tui_timeline_pan(&v, -1000, w);
    assert_int_equal(v.view.t0, v.lo);
    tui_timeline_pan(&v, 100000, w);
    assert_int_equal(v.view.t1, v.hi);
    /* zooming out never goes past the whole span */
    for (int i = 0; i < 10; i++)
        tui_timeline_zoom(&v, 0.5, w);
    assert_int_equal(v.view.t0, v.lo);
    assert_int_equal(v.view.t1, v.hi);
    /* zooming in stops at a few hundred ns over the plot */
    for (int i = 0; i < 40; i++)
        tui_timeline_zoom(&v, 2.0, w);
    assert_true(v.view.t1 - v.view.t0 >= 60);
    tui_timeline_reset(&v);
    assert_int_equal(v.view.t0, v.lo);

    /* Enter zooms to the selected kernel; selecting off screen pans to it */
    v.lane = lane_named(&v, "stream 15");
    tui_timeline_step(&v, 1, w);
    assert_string_equal(v.t.items[v.item].name, "prof_fma");
    tui_timeline_focus(&v, w);
    assert_true(v.view.t0 <= v.t.items[v.item].start_ns && v.view.t1 >= v.t.items[v.item].end_ns);
    assert_true(v.view.t1 - v.view.t0 < v.hi - v.lo);
    tui_timeline_pan(&v, -100000, w);
    assert_true(v.view.t1 < v.t.items[v.item].start_ns);
    v.lane = lane_named(&v, "copies D2H");
    v.item = -1;
    tui_timeline_step(&v, -1, w);    /* nothing of the lane in view: its nearest item, panned to */
    assert_true(v.item >= 0);
    assert_int_equal(v.t.items[v.item].lane, v.lane);
    assert_true(v.t.items[v.item].start_ns < v.view.t1 && v.t.items[v.item].end_ns > v.view.t0);
    tui_timeline_free(&v);
}

/* A timeline with a 1 ms hole where the whole GPU waits. */
static void write_gappy(const char *path)
{
    timeline t;
    cl_err e;
    int api, s1, h2d;
    tl_item it;
    timeline_init(&t);
    api = timeline_lane(&t, TL_LANE_API, 0, &e);
    h2d = timeline_lane(&t, TL_LANE_H2D, 0, &e);
    s1 = timeline_lane(&t, TL_LANE_STREAM, 7, &e);
    memset(&it, 0, sizeof it);
    it.lane = h2d;
    it.kind = TL_MEMCPY;
    snprintf(it.name, sizeof it.name, "memcpy HtoD");
    it.start_ns = 0;
    it.end_ns = 1000000;
    it.bytes = 8u << 20;
    it.flags = TL_PAGEABLE;
    assert_true(timeline_add(&t, &it, &e));
    it.lane = s1;
    it.kind = TL_KERNEL;
    it.bytes = 0;
    it.flags = 0;
    snprintf(it.name, sizeof it.name, "scale");
    it.start_ns = 2000000;
    it.end_ns = 3000000;
    assert_true(timeline_add(&t, &it, &e));
    it.lane = api;
    it.kind = TL_API;
    snprintf(it.name, sizeof it.name, "cudaDeviceSynchronize");
    it.start_ns = 1000000;
    it.end_ns = 2000000;
    assert_true(timeline_add(&t, &it, &e));
    snprintf(t.title, sizeof t.title, "test GPU");
    if (!trace_write(&t, path, &e))
        fail_msg("%s", e.msg);
    timeline_free(&t);
}

static void test_timeline_gaps(void **state)
{
    char dir[] = "/tmp/cudalab-tlview-XXXXXX", path[256], line[512], axis[128];
    tui_timeline v;
    tui_tlcell cells[30];
    bool idle[30];
    int ticks[16], nt, s1, api;
    cl_err e;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/gappy.json", dir);
    write_gappy(path);
    memset(&v, 0, sizeof v);
    if (!tui_timeline_load(&v, path, &e))
        fail_msg("%s", e.msg);
    assert_string_equal(v.t.title, "test GPU");
    /* reading order: runtime API, then H2D, then the stream */
    api = lane_named(&v, "runtime API");
    s1 = lane_named(&v, "stream 7");
    assert_true(api < s1);
    assert_int_equal(v.gaps.n, 1);

    /* 30 columns of 100 us: the middle third idles */
    tui_timeline_idle(&v, 30, idle);
    assert_false(idle[5]);
    assert_true(idle[10] && idle[15] && idle[19]);
    assert_false(idle[25]);
    tui_timeline_cells(&v, s1, 30, cells);
    assert_int_equal(cells[15].mark, TLM_IDLE);
    assert_int_equal(cells[25].mark, TLM_KERNEL);
    assert_int_equal(cells[5].mark, TLM_NONE);      /* before the stream's first kernel, but copies ran */
    tui_timeline_cells(&v, api, 30, cells);
    assert_int_equal(cells[15].mark, TLM_API);      /* host lanes never show GPU idle */
    assert_int_equal(cells[5].mark, TLM_NONE);

    tui_timeline_summary(&v, line, sizeof line);
    assert_non_null(strstr(line, "1 kernels, 1 copies (1 from pageable memory)"));
    assert_non_null(strstr(line, "GPU busy 67% of 3.00 ms, idle 1.00 ms"));
    assert_non_null(strstr(line, "longest gap 1.00 ms at 1.00 ms"));

    nt = tui_timeline_axis(&v, 30, axis, sizeof axis, ticks, 16);
    assert_int_equal(strlen(axis), 30);
    assert_int_equal(nt, 2);
    assert_true(nt >= 2);
    assert_int_equal(ticks[0], 0);
    assert_true(strncmp(axis, "0 ns", 4) == 0);
    assert_null(strstr(axis, "1.00 ms"));    /* ticks at least 12 columns apart: 0 and 2 ms */
    nt = tui_timeline_axis(&v, 60, axis, sizeof axis, ticks, 16);
    assert_int_equal(nt, 3);
    assert_int_equal(ticks[1], 20);
    assert_true(strncmp(axis + 20, "1.00 ms", 7) == 0);
    for (int k = 1; k < nt; k++)
        assert_true(ticks[k] > ticks[k - 1]);
    /* too narrow a buffer: nothing written past it */
    assert_int_equal(tui_timeline_axis(&v, 30, axis, 10, ticks, 16), 0);
    assert_string_equal(axis, "");

    tui_timeline_free(&v);
    assert_false(tui_timeline_load(&v, "/nonexistent/trace.json", &e));
    assert_false(v.loaded);
    unlink(path);
    rmdir(dir);
}

static void test_timeline_glyphs(void **state)
{
    tui_role role;
    (void)state;
    for (int m = TLM_NONE; m < TLM_COUNT; m++) {
        const char *u = tui_timeline_glyph((tui_tlmark)m, false, &role);
        const char *s = tui_timeline_glyph((tui_tlmark)m, true, &role);
        assert_int_equal(strlen(s), 1);
        assert_true(strlen(u) >= 1);
        assert_true(strlen(tui_timeline_mark_name((tui_tlmark)m)) > 0);
        for (int k = m + 1; k < TLM_COUNT; k++) {
            assert_string_not_equal(s, tui_timeline_glyph((tui_tlmark)k, true, NULL));
            assert_string_not_equal(u, tui_timeline_glyph((tui_tlmark)k, false, NULL));
        }
    }
    tui_timeline_glyph(TLM_PAGEABLE, true, &role);
    assert_int_equal(role, ROLE_PAGEABLE);
    tui_timeline_glyph(TLM_KERNEL, true, &role);
    assert_int_equal(role, ROLE_KERNEL);
    assert_int_equal(tui_timeline_plot_width(100), 100 - 2 - TUI_TL_LABEL_W - 1);
    assert_int_equal(tui_timeline_plot_width(3), 1);
}

/* ---- roofline -------------------------------------------------------------------- */

static void test_roofline_grid(void **state)
{
    roofline r = {60000.0, 3000.0};    /* 60 TFLOP/s, 3 TB/s: ridge at 20 FLOP/B */
    tui_roofpt pts[3];
    tui_roofplot p;
    cl_err e;
    char buf[256];
    int mem = 0, comp = 0, ridge = 0, drop = 0, letters = 0;
    (void)state;
    memset(pts, 0, sizeof pts);
    snprintf(pts[0].label, sizeof pts[0].label, "roof 0");
    pts[0].ai = 0.75;
    pts[0].gflops = 2000;      /* memory-bound, just under its roof of 2250 */
    snprintf(pts[1].label, sizeof pts[1].label, "roof 256");
    pts[1].ai = 256.75;
    pts[1].gflops = 50000;     /* compute-bound */
    snprintf(pts[2].label, sizeof pts[2].label, "your kernel");
    pts[2].ai = 2;
    pts[2].gflops = 500;
    pts[2].mine = true;
    if (!tui_roof_plot(&r, pts, 3, 60, 16, &p, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(p.w, 60);
    assert_int_equal(p.h, 16);
    assert_true(p.ridge_col > 0 && p.ridge_col < 59);
    for (int row = 0; row < p.h; row++)
        for (int c = 0; c < p.w; c++) {
            const tui_roofcell *cell = tui_roof_cell(&p, row, c);
            switch (cell->mark) {
            case RFM_MEMORY: mem++; assert_true(c < p.ridge_col); break;
            case RFM_COMPUTE: comp++; assert_true(c > p.ridge_col); break;
            case RFM_RIDGE: ridge++; assert_int_equal(c, p.ridge_col); break;
            case RFM_DROP: drop++; assert_int_equal(c, p.ridge_col); break;
            case RFM_POINT: letters++; break;
            default: break;
            }
        }
    assert_int_equal(ridge, 1);
    /* the slope has no holes: every column left of the ridge has a roof
     * cell (or a point drawn over it) */
    for (int c = 0; c < p.ridge_col; c++) {
        int row = roofline_roof_row(&p.g, &r, c);
        if (row >= 0)
            assert_true(tui_roof_cell(&p, row, c)->mark == RFM_MEMORY || tui_roof_cell(&p, row, c)->mark == RFM_POINT);
    }
    assert_true(mem >= p.ridge_col - 3);
    assert_true(comp > 10);
    assert_true(drop > 0);
    assert_int_equal(letters, 3);
    /* the compute roof is one row, the memory roof climbs left to right */
    {
        int crow = -1, prev = p.h;
        for (int c = p.ridge_col + 1; c < p.w; c++) {
            int row = roofline_roof_row(&p.g, &r, c);
            if (crow < 0)
                crow = row;
            assert_int_equal(row, crow);
            assert_int_equal(tui_roof_cell(&p, row, c)->mark == RFM_COMPUTE ||
                                 tui_roof_cell(&p, row, c)->mark == RFM_POINT,
                             1);
        }
        for (int c = 0; c < p.ridge_col; c++) {
            int row = roofline_roof_row(&p.g, &r, c);
            if (row >= 0) {
                assert_true(row <= prev);
                prev = row;
            }
        }
    }
    /* each point sits under the roof, with its letter */
    for (size_t i = 0; i < 3; i++) {
        int c, row;
        assert_true(roofline_place(&p.g, pts[i].ai, pts[i].gflops, &c, &row));
        assert_int_equal(tui_roof_cell(&p, row, c)->letter, tui_roof_letter(i));
        assert_int_equal(tui_roof_cell(&p, row, c)->mine, pts[i].mine);
        assert_true(row >= roofline_roof_row(&p.g, &r, c));
    }
    /* decade labels on both axes */
    {
        int ylabels = 0;
        for (int row = 0; row < p.h; row++)
            if (tui_roof_ylabel(&p, row, buf, sizeof buf)[0])
                ylabels++;
        assert_true(ylabels >= 2);
    }
    assert_int_equal((int)strlen(p.xaxis), 60);
    assert_non_null(strstr(p.xaxis, "1 "));
    assert_non_null(strstr(p.xaxis, "10"));
    assert_true(tui_roof_cell(&p, -1, 0)->mark == RFM_NONE && tui_roof_cell(&p, 0, 99)->mark == RFM_NONE);

    tui_roof_header(&r, true, buf, sizeof buf);
    assert_string_equal(buf, "memory roof 3 TB/s (measured copy), FP32 roof 60 TFLOP/s, ridge at 20 FLOP/B");
    tui_roof_describe(&r, &pts[0], 'A', buf, sizeof buf);
    assert_string_equal(buf, "A roof 0: 2 TFLOP/s at 0.75 FLOP/B, memory-bound, 89% of its roof");
    tui_roof_describe(&r, &pts[2], 'C', buf, sizeof buf);
    assert_non_null(strstr(buf, "your kernel (yours): 500 GFLOP/s at 2 FLOP/B, memory-bound"));
    tui_roof_free(&p);

    {
        roofline bad = {0, 100};
        assert_false(tui_roof_plot(&bad, pts, 3, 60, 16, &p, &e));
        tui_roof_free(&p);
        assert_false(tui_roof_plot(&r, pts, 3, 6, 3, &p, &e));
        tui_roof_free(&p);
    }
    assert_int_equal(tui_roof_letter(0), 'A');
    assert_int_equal(tui_roof_letter(26), 'a');
    assert_int_equal(tui_roof_letter(99), '*');
}

static void test_roofline_points(void **state)
{
    run_result rows[4];
    tui_roofpt pts[4];
    (void)state;
    for (int i = 0; i < 4; i++) {
        run_result_init(&rows[i]);
        rows[i].status = RS_CORRECT;
        rows[i].gbps = 100;
        rows[i].tflops = 1;
        snprintf(rows[i].variant, sizeof rows[i].variant, "v%d", i);
    }
    rows[0].kind = RK_CPU;                 /* CPU rows are not on a GPU's roofline */
    rows[1].tflops = -1;                   /* no FLOP rate */
    rows[2].kind = RK_EXERCISE;
    snprintf(rows[2].label, sizeof rows[2].label, "your kernel");
    rows[3].status = RS_WRONG;
    assert_int_equal(tui_roof_points(rows, 4, pts, 4), 1);
    assert_string_equal(pts[0].label, "your kernel");
    assert_true(pts[0].mine);
    assert_float_equal(pts[0].ai, 10.0, 1e-9);
    assert_float_equal(pts[0].gflops, 1000.0, 1e-9);
    rows[3].status = RS_CORRECT;
    assert_int_equal(tui_roof_points(rows, 4, pts, 4), 2);
    assert_true(pts[0].mine);               /* the learner's point comes first */
    assert_string_equal(pts[1].label, "v3");
    assert_int_equal(tui_roof_points(rows, 4, pts, 1), 1);
}

/* ---- Nsight Compute ----------------------------------------------------------------- */

static void test_ncu_format(void **state)
{
    char path[1024], text[8192];
    char *csv;
    ncu_report rep;
    cl_err e;
    int len;
    (void)state;
    ts_data_path(path, sizeof path, "prof/data/ncu_raw.csv");
    csv = read_file(path);
    if (!ncu_parse_csv(csv, &rep, &e))
        fail_msg("%s", e.msg);
    assert_true(rep.nkernels >= 1);
    len = tui_ncu_format(&rep.kernels[0], 3, text, sizeof text);
    assert_int_equal(len, (int)strlen(text));
    assert_non_null(strstr(text, "Nsight Compute, first launch of "));
    assert_non_null(strstr(text, rep.kernels[0].name));
    assert_non_null(strstr(text, "DRAM throughput"));
    assert_non_null(strstr(text, "SM throughput"));
    assert_non_null(strstr(text, "achieved occupancy"));
    assert_non_null(strstr(text, "L2 hit rate"));
    assert_non_null(strstr(text, "Top stall reasons"));
    /* three stalls, largest first */
    {
        const char *p = strstr(text, "Top stall reasons");
        int lines = 0;
        double prev = 1e300;
        for (p = strchr(p, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
            const char *num = p + 1 + 2 + 44;
            lines++;
            assert_true(strlen(p + 1) > 47);
            double v = atof(num);
            assert_true(v <= prev);
            prev = v;
        }
        assert_int_equal(lines, 3);
    }
    assert_null(strstr(text, "stall: "));
    /* a short buffer is cut, the full length still reported */
    {
        char small[40];
        assert_int_equal(tui_ncu_format(&rep.kernels[0], 3, small, sizeof small), len);
        assert_int_equal(strlen(small), sizeof small - 1);
    }
    ncu_report_free(&rep);
    free(csv);
}

static void test_ncu_kernel_regex(void **state)
{
    char out[256];
    (void)state;
    assert_int_equal(tui_ncu_kernel_regex("extern \"C\" __global__ void reduce_sum(const float *in, float *out)\n{}\n"
                                          "// __global__ void commented(int)\n"
                                          "/* __global__ void hidden(int) */\n"
                                          "const char *s = \"__global__ void quoted(\";\n"
                                          "extern \"C\" __global__ void __launch_bounds__(256, 2)\n"
                                          "finish(float *out) {}\n"
                                          "__global__ void reduce_sum(int);\n",
                                          out, sizeof out),
                     2);
    assert_string_equal(out, "^(reduce_sum|finish)$");
    assert_int_equal(tui_ncu_kernel_regex("int main(void) { return 0; }", out, sizeof out), 0);
    assert_string_equal(out, "");
    assert_int_equal(tui_ncu_kernel_regex("template <int B> __global__ void k1(float *x) {}\n"
                                          "__global__ void sum(float *x) {}\n",
                                          out, sizeof out),
                     2);
    assert_string_equal(out, "^(k1|sum)$");
}

/* A stand-in ncu that prints the sample table after checking it was asked
 * for the kernel. */
static void test_ncu_child(void **state)
{
    char dir[] = "/tmp/cudalab-tuincu-XXXXXX", tool[256], csv[1024];
    tui_ncu_job *j = calloc(1, sizeof *j);
    tui_job job;
    cl_err e;
    FILE *f;
    (void)state;
    assert_non_null(j);
    assert_non_null(mkdtemp(dir));
    snprintf(tool, sizeof tool, "%s/ncu", dir);
    ts_data_path(csv, sizeof csv, "prof/data/ncu_raw.csv");
    f = fopen(tool, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\ncase \"$*\" in *regex:prof_transpose_tiled*) cat '%s' ;; *) echo bad >&2; exit 3 ;; esac\n",
            csv);
    fclose(f);
    assert_int_equal(chmod(tool, 0755), 0);
    snprintf(j->ncu, sizeof j->ncu, "%s", tool);
    snprintf(j->kernel, sizeof j->kernel, "prof_transpose_tiled");
    snprintf(j->args[0], sizeof j->args[0], "/bin/true");
    j->nargs = 1;
    j->timeout_s = 30;
    tui_job_init(&job);
    if (!tui_job_start(&job, tui_ncu_child, j, &e))
        fail_msg("%s", e.msg);
    assert_true(tui_job_active(&job));
    while (!tui_job_pump(&job))
        usleep(10000);
    assert_int_equal(job.status, 0);
    assert_true(strncmp(job.out, "OK\n", 3) == 0);
    assert_non_null(strstr(job.out, "DRAM throughput"));
    tui_job_clear(&job);

    snprintf(j->kernel, sizeof j->kernel, "something_else");
    assert_true(tui_job_start(&job, tui_ncu_child, j, &e));
    while (!tui_job_pump(&job))
        usleep(10000);
    assert_int_equal(job.status, 1);
    assert_true(strncmp(job.out, "ERR\n", 4) == 0);
    assert_true(strlen(job.out) > 4);
    tui_job_clear(&job);
    unlink(tool);
    rmdir(dir);
    free(j);
}

/* ---- compute-sanitizer ------------------------------------------------------------------ */

static void san_result(sanitize_result *r, const char *log)
{
    char path[1024];
    char *text;
    memset(r, 0, sizeof *r);
    ts_data_path(path, sizeof path, "%s", log);
    text = read_file(path);
    assert_true(sanitize_parse_log(text, &r->report));
    free(text);
    snprintf(r->size, sizeof r->size, "2^20");
    r->have_row = true;
    run_result_init(&r->row);
    r->row.status = RS_CORRECT;
}

static void test_san_format(void **state)
{
    sanitize_result r;
    char text[8192];
    (void)state;
    san_result(&r, "features/exercises/sanitizer/racecheck_all.log");
    assert_true(r.report.n > 0);
    tui_san_format(&r, SANITIZE_RACECHECK, text, sizeof text);
    assert_non_null(strstr(text, "compute-sanitizer racecheck ran your kernel once at size 2^20"));
    assert_non_null(strstr(text, "Result: correct"));
    assert_non_null(strstr(text, "racecheck found"));
    assert_non_null(strstr(text, "1. RAW race hazard on shared memory in reduce_sum\n"));
    assert_non_null(strstr(text, "2. WAR race hazard on shared memory in reduce_sum\n"));
    assert_non_null(strstr(text, "   at starter.cu:16, thread (124,0,0) of block (0,0,0)\n"));
    assert_non_null(strstr(text, "The tool counted 3 errors."));
    assert_non_null(strstr(text, "4032 hazards counted"));
    assert_non_null(strstr(text, "A race that happens to give the right answer is still a race"));
    sanitize_report_free(&r.report);

    san_result(&r, "features/exercises/sanitizer/memcheck_oob.log");
    r.row.status = RS_WRONG;
    tui_san_format(&r, SANITIZE_MEMCHECK, text, sizeof text);
    assert_non_null(strstr(text, "memcheck found"));
    assert_non_null(strstr(text, "1. invalid "));
    assert_non_null(strstr(text, "thread ("));
    assert_non_null(strstr(text, "of block ("));
    assert_null(strstr(text, "still a race"));
    sanitize_report_free(&r.report);

    san_result(&r, "features/exercises/sanitizer/clean.log");
    tui_san_format(&r, SANITIZE_MEMCHECK, text, sizeof text);
    assert_non_null(strstr(text, "memcheck found no problems."));
    r.row.status = RS_ERROR;
    snprintf(r.row.message, sizeof r.row.message, "no CUDA device found: no driver");
    r.have_dev = true;
    snprintf(r.dev.reason, sizeof r.dev.reason, "no CUDA device found: no driver");
    tui_san_format(&r, SANITIZE_MEMCHECK, text, sizeof text);
    assert_non_null(strstr(text, "no CUDA device found: no driver\n"));
    assert_non_null(strstr(text, "but the kernel did not run"));
    sanitize_report_free(&r.report);
}

/* ---- the profiling lab's rows ------------------------------------------------------------- */

/* got is want, or NULL when want is. */
static void expect_name(const char *got, const char *want)
{
    if (want)
        assert_string_equal(got, want);
    else
        assert_null(got);
}

static void test_prof_rows(void **state)
{
    static char prof[] = "profiling", other[] = "reduce_sum";
    lab l;
    (void)state;
    memset(&l, 0, sizeof l);
    l.problem = prof;
    assert_true(tui_prof_lab(&l));
    l.problem = other;
    assert_false(tui_prof_lab(&l));
    assert_false(tui_prof_lab(NULL));
    static const struct {
        const char *row, *experiment;
    } experiments[] = {
        {"stride", "stride"},
        {"stride_8", "stride"},
        {"h2d_pinned", "transfers"},
        {"compute_vs_copy", "transfers"},
        {"gemv_row_warp", "gemv"},
        {"block_256", "blocksize"},
        {"timing_first_launch", "timing"},
        {"roof_1024", "roofline"},
        {"overlap_streams", "overlap"},
        {"transpose_padded", "transpose"},
        {"exercise", NULL},
        {"starter", NULL},
        {"cpu", NULL},
        {NULL, NULL},
    };
    for (size_t i = 0; i < sizeof experiments / sizeof experiments[0]; i++)
        expect_name(tui_prof_experiment(experiments[i].row), experiments[i].experiment);
    static const struct {
        const char *row, *kernel;
    } kernels[] = {
        {"gemv_row_warp", "prof_gemv_warp"},
        {"gemv_row_thread", "prof_gemv_row"},
        {"transpose_tiled", "prof_transpose_tiled"},
        {"roof_4", "prof_fma"},
        {"stride", "prof_stride"},
        {"timing_first_launch", "prof_first"},
        {"h2d_pageable", NULL},
        {"small_copies", NULL},
        {"exercise", NULL},
    };
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        expect_name(tui_prof_kernel(kernels[i].row), kernels[i].kernel);
}

static void test_runtable_own_sizes(void **state)
{
    tui_runtable t;
    static const char *const own[] = {"1048576x16", "4194304x32"};
    size_t idx[16], n;
    run_result r;
    (void)state;
    memset(&t, 0, sizeof t);
    assert_true(tui_runtable_expect(&t, "exercise", NULL, RK_EXERCISE, own[0], NULL));
    assert_true(tui_runtable_expect(&t, "stride", NULL, RK_KERNEL, "", NULL));
    assert_true(tui_runtable_expect(&t, "cpu", NULL, RK_CPU, own[0], NULL));
    assert_true(tui_runtable_expect(&t, "exercise", NULL, RK_EXERCISE, own[1], NULL));
    run_result_init(&r);
    snprintf(r.variant, sizeof r.variant, "stride_8");
    snprintf(r.size, sizeof r.size, "64 MiB out");
    assert_true(tui_runtable_result(&t, &r, NULL));
    /* experiment rows first in the order seen, then the size's own rows */
    n = tui_runtable_view_own(&t, own[0], own, 2, idx, 16);
    assert_int_equal(n, 4);
    assert_string_equal(t.v[idx[0]].variant, "stride");
    assert_string_equal(t.v[idx[1]].variant, "stride_8");
    assert_string_equal(t.v[idx[2]].variant, "cpu");
    assert_string_equal(t.v[idx[3]].variant, "exercise");
    n = tui_runtable_view_own(&t, own[1], own, 2, idx, 16);
    assert_int_equal(n, 3);
    assert_int_equal(tui_runtable_view_own(&t, own[0], own, 2, idx, 1), 1);
    assert_true(tui_runtable_remove(&t, "stride", ""));
    assert_false(tui_runtable_remove(&t, "stride", ""));
    assert_null(tui_runtable_find(&t, "stride", ""));
    assert_non_null(tui_runtable_find(&t, "stride_8", "64 MiB out"));
    assert_int_equal(tui_runtable_view_own(&t, own[0], own, 2, idx, 16), 3);
    tui_runtable_free(&t);
}

/* ---- child processes ----------------------------------------------------------------------- */

static int say_hello(void *ud, int fd)
{
    (void)ud;
    return tui_job_write(fd, "OK\nhello from the child") ? 7 : 1;
}

static int write_lots(void *ud, int fd)
{
    static char chunk[8192];
    (void)ud;
    memset(chunk, 'x', sizeof chunk - 1);
    for (int i = 0; i < 64; i++)
        if (!tui_job_write(fd, chunk))
            return 1;
    return 0;
}

/* Starts a grandchild in a process group of its own (as the tools do),
 * tells its pid, and waits for it. */
static int sleep_long(void *ud, int fd)
{
    char msg[32];
    pid_t g;
    (void)ud;
    g = fork();
    if (g == 0) {
        setpgid(0, 0);
        execlp("sleep", "sleep", "30", (char *)NULL);
        _exit(127);
    }
    snprintf(msg, sizeof msg, "%d\n", (int)g);
    tui_job_write(fd, msg);
    sleep(30);
    return 0;
}

/* True while pid runs (a zombie waiting for a parent that does not reap
 * it, as in some containers, has stopped running). */
static bool alive(pid_t pid)
{
    char path[64], buf[256], *p;
    FILE *f;
    bool run = false;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (!(f = fopen(path, "r")))
        return false;
    if (fgets(buf, sizeof buf, f) && (p = strrchr(buf, ')')) != NULL)
        run = p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
    fclose(f);
    return run;
}

static void test_job(void **state)
{
    tui_job j;
    cl_err e;
    pid_t grandchild;
    (void)state;
    tui_job_init(&j);
    assert_false(tui_job_active(&j));
    assert_int_equal(tui_job_fd(&j), -1);
    assert_true(tui_job_start(&j, say_hello, NULL, &e));
    assert_true(tui_job_fd(&j) >= 0);
    while (!tui_job_pump(&j))
        usleep(5000);
    assert_int_equal(j.status, 7);
    assert_string_equal(j.out, "OK\nhello from the child");
    assert_true(tui_job_pump(&j));
    tui_job_clear(&j);
    assert_false(tui_job_active(&j));

    /* a long answer is read whole (it is larger than a pipe's buffer) */
    assert_true(tui_job_start(&j, write_lots, NULL, &e));
    while (!tui_job_pump(&j))
        usleep(5000);
    assert_non_null(j.out);
    assert_int_equal(strlen(j.out), TUI_JOB_OUT_MAX);     /* the rest was read and dropped */
    assert_int_equal(j.status, 0);
    tui_job_clear(&j);

    /* a child that would run for long is stopped, and so is what it started */
    assert_true(tui_job_start(&j, sleep_long, NULL, &e));
    for (int i = 0; i < 200 && !strchr(strbuf_text(&j.got), '\n'); i++) {
        assert_false(tui_job_pump(&j));
        usleep(10000);
    }
    grandchild = (pid_t)atoi(strbuf_text(&j.got));
    assert_true(grandchild > 0);
    usleep(100000);
    tui_job_cancel(&j);
    for (int i = 0; i < 100 && alive(grandchild); i++)
        usleep(10000);
    assert_false(alive(grandchild));
    assert_int_equal(j.pid, 0);
    assert_int_equal(j.status, 128 + 9);
    assert_int_equal(tui_job_fd(&j), -1);
    tui_job_clear(&j);
}

/* ---- GB/s by size, drawn ------------------------------------------------------------ */

static char mg_id[] = "multigpu", mg_title[] = "Several GPUs", mg_problem[] = "multigpu",
            mv0[] = "peer", mv0t[] = "Peer copies", mv1[] = "ar_naive",
            mv1t[] = "All-reduce: gather, sum, broadcast", mv2[] = "ar_ring",
            mv2t[] = "All-reduce: a ring of our own", mv3[] = "ar_nccl", mv3t[] = "All-reduce: NCCL";
static lab_variant mg_variants[] = {
    {.id = mv0, .title = mv0t}, {.id = mv1, .title = mv1t}, {.id = mv2, .title = mv2t},
    {.id = mv3, .title = mv3t},
};
static const char *const mg_sizes[] = {"8 B", "64 B", "512 B", "4 KiB", "32 KiB", "256 KiB",
                                       "2 MiB", "16 MiB", "64 MiB", "256 MiB", "1 GiB"};

/* The multigpu lab in an app with the device known (present or not). */
static void mg_app(tui_app *a, lab *l, lab_set *set, lab **v, bool ascii, bool present)
{
    memset(l, 0, sizeof *l);
    l->id = mg_id;
    l->title = mg_title;
    l->problem = mg_problem;
    l->variants = mg_variants;
    l->nvariants = 4;
    v[0] = l;
    set->v = v;
    set->n = 1;
    assert_true(tui_app_init(a, set, ascii, NULL));
    a->dev_known = true;
    a->dev.present = present;
    if (!present)
        snprintf(a->dev.reason, sizeof a->dev.reason,
                 "no CUDA device found (cudaGetDeviceCount: no CUDA-capable device is detected)");
}

static void mg_row(tui_app *a, const char *variant, const char *size, result_status st, double gbps)
{
    run_result r;
    run_result_init(&r);
    snprintf(r.variant, sizeof r.variant, "%s", variant);
    snprintf(r.label, sizeof r.label, "%s", variant);
    snprintf(r.size, sizeof r.size, "%s", size);
    r.status = st;
    r.gbps = gbps;
    if (st != RS_CORRECT)
        snprintf(r.message, sizeof r.message, "needs two or more GPUs; this machine has one");
    assert_true(tui_runtable_result(&a->ls[0].table, &r, NULL));
}

/* A collective of latency us and bandwidth gbs at each size: S / (a + S/B). */
static void mg_series(tui_app *a, const char *variant, double us, double gbs)
{
    for (size_t k = 0; k < 11; k++) {
        double bytes = 8.0 * pow(8.0, (double)k);
        if (k >= 8)
            bytes = 67108864.0 * pow(4.0, (double)(k - 8));   /* 64 MiB, 256 MiB, 1 GiB */
        mg_row(a, variant, mg_sizes[k], RS_CORRECT, bytes / (us * 1e-6 + bytes / (gbs * 1e9)) / 1e9);
    }
}

/* What the pad shows, a line a row, UTF-8. */
static void pad_text(WINDOW *w, char *out, size_t n)
{
    size_t k = 0;
    for (int y = 0; y < getmaxy(w); y++) {
        for (int x = 0; x < getmaxx(w); x++) {
            cchar_t cc;
            wchar_t wc[CCHARW_MAX + 1] = {0};
            attr_t at;
            short pair;
            char mb[MB_LEN_MAX];
            mbstate_t st;
            size_t len;
            memset(&st, 0, sizeof st);
            assert_int_equal(mvwin_wch(w, y, x, &cc), OK);
            getcchar(&cc, wc, &at, &pair, NULL);
            len = wcrtomb(mb, wc[0] ? wc[0] : L' ', &st);
            assert_true(len != (size_t)-1 && k + len + 2 < n);
            memcpy(out + k, mb, len);
            k += len;
        }
        out[k++] = '\n';
    }
    out[k] = '\0';
}

/* Draws the view of a into a rows x cols pad and reads it into out. */
static void draw_sweep(const tui_app *a, int rows, int cols, char *out, size_t n)
{
    WINDOW *pad = newpad(rows, cols);
    assert_non_null(pad);
    tui_views_sweep(pad, a);
    pad_text(pad, out, n);
    delwin(pad);
}

static void test_sweep_view(void **state)
{
    static tui_app a;
    static char text[65536];
    lab l;
    lab_set set;
    lab *v[1];
    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    SCREEN *scr;
    (void)state;
    assert_non_null(setlocale(LC_ALL, "C.UTF-8"));
    assert_non_null(out);
    assert_non_null(in);
    scr = newterm("xterm", out, in);
    if (!scr) {
        fclose(out);
        fclose(in);
        skip();     /* no terminfo entry for xterm: ncurses-base is not installed */
    }
    set_term(scr);

    /* the three all-reduces at eleven sizes, a peer copy at one size and
     * an all-reduce that failed: three series, NCCL's the best */
    mg_app(&a, &l, &set, v, false, true);
    mg_row(&a, "peer", "256 MiB", RS_CORRECT, 390);
    mg_series(&a, "ar_naive", 31, 175);
    mg_series(&a, "ar_ring", 10, 320);
    mg_series(&a, "ar_nccl", 8.5, 330);
    draw_sweep(&a, 32, 110, text, sizeof text);
    assert_true(ts_contains(text, "GB/s by size: multigpu (log-log)"));
    assert_true(ts_contains(text, "Best: C All-reduce: NCCL, 329 GB/s at 1 GiB, half of it at 2.66 MiB (the dotted line)"));
    assert_true(ts_contains(text, "A All-reduce: gather, sum, broadcast: peak 174 GB/s at 1 GiB, half at 5.12 MiB"));
    assert_true(ts_contains(text, "B All-reduce: a ring of our own: peak 319 GB/s at 1 GiB"));
    assert_true(ts_contains(text, "<- latency-bound \xE2\x94\x8A bandwidth-bound ->"));
    assert_true(ts_contains(text, "\xE2\x94\x94\xE2\x94\x80\xE2\x94\x80"));   /* the axis */
    assert_true(ts_contains(text, "GB/s    "));     /* the captions of both axes */
    assert_true(ts_contains(text, "bytes       16B    64B"));
    assert_true(ts_contains(text, "0.0001 \xE2\x94\x82"));
    assert_true(ts_contains(text, "  1000 \xE2\x94\x82"));
    assert_true(ts_contains(text, "64B"));
    assert_true(ts_contains(text, " 1G "));
    assert_true(ts_contains(text, "f roofline  Esc closes"));
    assert_null(strstr(text, "Peer copies"));     /* one size: no series */
    assert_null(strstr(text, "D "));
    tui_app_free(&a);

    /* the same in ASCII: nothing but ASCII drawn */
    mg_app(&a, &l, &set, v, true, true);
    mg_series(&a, "ar_naive", 31, 175);
    mg_series(&a, "ar_nccl", 8.5, 330);
    draw_sweep(&a, 32, 110, text, sizeof text);
    for (const char *p = text; *p; p++)
        assert_true((unsigned char)*p < 0x80);
    assert_true(ts_contains(text, "<- latency-bound : bandwidth-bound ->"));
    assert_true(ts_contains(text, "+-----"));
    assert_true(ts_contains(text, "  1000 |"));
    assert_true(ts_contains(text, "Best: B All-reduce: NCCL"));
    tui_app_free(&a);

    /* no GPU: nothing measured, said plainly, with what to do */
    mg_app(&a, &l, &set, v, false, false);
    draw_sweep(&a, 24, 80, text, sizeof text);
    assert_true(ts_contains(text, "no CUDA device found (cudaGetDeviceCount: no"));
    assert_true(ts_contains(text, "nothing can be measured on this machine"));
    assert_true(ts_contains(text, "On a machine with a GPU, run the lab (R)"));
    assert_true(ts_contains(text, "all-reduces from 8 B to 1 GiB"));
    tui_app_free(&a);

    /* a GPU, but the rows failed: how many, and the first one's reason */
    mg_app(&a, &l, &set, v, false, true);
    mg_row(&a, "ar_nccl", "8 B", RS_ERROR, -1);
    mg_row(&a, "ar_nccl", "64 B", RS_ERROR, -1);
    draw_sweep(&a, 24, 80, text, sizeof text);
    assert_true(ts_contains(text, "nothing measured correctly at two sizes or more yet: 2 rows did"));
    assert_true(ts_contains(text, "ar_nccl at 8 B: needs two or more GPUs"));
    assert_true(ts_contains(text, "Run the lab (R): rows measured at several sizes"));
    tui_app_free(&a);

    /* a window too small says so; a legend longer than its room scrolls */
    mg_app(&a, &l, &set, v, false, true);
    mg_series(&a, "ar_naive", 31, 175);
    mg_series(&a, "ar_ring", 10, 320);
    mg_series(&a, "ar_nccl", 8.5, 330);
    draw_sweep(&a, 12, 60, text, sizeof text);
    assert_true(ts_contains(text, "the window is too small for the plot"));
    draw_sweep(&a, 15, 80, text, sizeof text);
    assert_true(ts_contains(text, "Up/Down scroll the series"));
    assert_true(ts_contains(text, "A All-reduce: gather"));
    assert_true(ts_contains(text, "Best: C All-reduce: NCCL, 329 GB/s at 1 GiB, half of it at 2.66 MiB."));
    a.plot_scroll = 5;
    draw_sweep(&a, 15, 80, text, sizeof text);
    assert_null(strstr(text, "A All-reduce: gather"));
    assert_true(ts_contains(text, "C All-reduce: NCCL: peak"));
    tui_app_free(&a);

    endwin();
    delscreen(scr);
    fclose(out);
    fclose(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timeline_sample),   cmocka_unit_test(test_timeline_zoom_pan),
        cmocka_unit_test(test_timeline_gaps),     cmocka_unit_test(test_timeline_glyphs),
        cmocka_unit_test(test_roofline_grid),     cmocka_unit_test(test_roofline_points),
        cmocka_unit_test(test_ncu_format),        cmocka_unit_test(test_ncu_kernel_regex),
        cmocka_unit_test(test_ncu_child),         cmocka_unit_test(test_san_format),
        cmocka_unit_test(test_prof_rows),         cmocka_unit_test(test_runtable_own_sizes),
        cmocka_unit_test(test_job),               cmocka_unit_test(test_sweep_view),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

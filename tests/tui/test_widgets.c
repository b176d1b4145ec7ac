/* Pure widgets: number formatting, text widths, Markdown layout, the key
 * table, chart scaling, run-table rows and columns, the message log. */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <curses.h>

#include "tui/tui_chart.h"
#include "tui/tui_fmt.h"
#include "tui/tui_keys.h"
#include "tui/tui_log.h"
#include "tui/tui_md.h"
#include "tui/tui_runtable.h"
#include "tui/tui_text.h"

#define FMT(fn, ...) (fn(__VA_ARGS__, buf, sizeof buf))

static void test_fmt_time(void **state)
{
    char buf[TUI_FMT_MAX];
    (void)state;
    assert_string_equal(FMT(tui_fmt_time_ms, 1.234, false), "1.23 ms");
    assert_string_equal(FMT(tui_fmt_time_ms, 12.345, false), "12.3 ms");
    assert_string_equal(FMT(tui_fmt_time_ms, 123.4, false), "123 ms");
    assert_string_equal(FMT(tui_fmt_time_ms, 0.0123, false), "12.3 \xC2\xB5s");
    assert_string_equal(FMT(tui_fmt_time_ms, 0.0123, true), "12.3 us");
    assert_string_equal(FMT(tui_fmt_time_ms, 0.00085, false), "850 ns");
    assert_string_equal(FMT(tui_fmt_time_ms, 4567.0, false), "4.57 s");
    assert_string_equal(FMT(tui_fmt_time_ms, 0.9996, false), "1.00 ms");
    assert_string_equal(FMT(tui_fmt_time_ms, 999.6, false), "1.00 s");
    assert_string_equal(FMT(tui_fmt_time_ms, -1.0, false), "-");
    assert_string_equal(FMT(tui_fmt_time_ms, NAN, false), "-");
}

static void test_fmt_rates(void **state)
{
    char buf[TUI_FMT_MAX];
    (void)state;
    assert_string_equal(FMT(tui_fmt_speedup, 312.4), "312x");
    assert_string_equal(FMT(tui_fmt_speedup, 31.24), "31.2x");
    assert_string_equal(FMT(tui_fmt_speedup, 3.124), "3.12x");
    assert_string_equal(FMT(tui_fmt_speedup, 0.5234), "0.523x");
    assert_string_equal(FMT(tui_fmt_speedup, 12345.0), "12345x");
    assert_string_equal(FMT(tui_fmt_speedup, 99.97), "100x");
    assert_string_equal(FMT(tui_fmt_speedup, 0.0), "-");
    assert_string_equal(FMT(tui_fmt_speedup, 0.0014), "<0.01x");
    assert_string_equal(FMT(tui_fmt_speedup, 0.0152), "0.015x");
    assert_string_equal(FMT(tui_fmt_rate, 845.2, -1.0), "845 GB/s");
    assert_string_equal(FMT(tui_fmt_rate, 3350.0, -1.0), "3350 GB/s");
    assert_string_equal(FMT(tui_fmt_rate, 12.34, -1.0), "12.3 GB/s");
    assert_string_equal(FMT(tui_fmt_rate, 100.0, 12.34), "12.3 TFLOP/s");
    assert_string_equal(FMT(tui_fmt_rate, -1.0, 0.5), "500 GFLOP/s");
    assert_string_equal(FMT(tui_fmt_rate, 845.0, 0.21), "845 GB/s");   /* a reduction */
    assert_string_equal(FMT(tui_fmt_rate, 0.0, 0.0), "0 GB/s");
    assert_string_equal(FMT(tui_fmt_rate, -1.0, -1.0), "-");
    assert_string_equal(FMT(tui_fmt_spread, 0.021, false), "\xC2\xB1" "2.1%");
    assert_string_equal(FMT(tui_fmt_spread, 0.153, true), "+-15%");
}

static void test_text(void **state)
{
    char out[64];
    size_t st[16], ln[16], n;
    int used;
    (void)state;
    assert_int_equal(tui_text_swidth("abc"), 3);
    assert_int_equal(tui_text_swidth("12 \xC2\xB5s"), 5);
    assert_int_equal(tui_text_swidth("\xE2\x9C\x93"), 1);
    assert_int_equal(tui_text_swidth("\xE6\xBC\xA2\xE5\xAD\x97"), 4);  /* two wide CJK */
    assert_int_equal(tui_text_swidth("\xFF" "a"), 2);                  /* invalid byte */
    assert_int_equal(tui_text_fit("\xE6\xBC\xA2\xE5\xAD\x97", 6, 3, &used), 3);
    assert_int_equal(used, 2);
    assert_string_equal(tui_text_clip("hello world", 8, "~", out, sizeof out), "hello w~");
    assert_string_equal(tui_text_clip("hello", 8, "~", out, sizeof out), "hello");
    assert_string_equal(tui_text_clip("h\xC3\xA9llo w", 4, "\xE2\x80\xA6", out, sizeof out),
                        "h\xC3\xA9l\xE2\x80\xA6");
    n = tui_text_wrap("the quick brown fox jumps", 10, st, ln, 16);
    assert_int_equal(n, 3);
    assert_int_equal(ln[0], 9);
    assert_memory_equal("the quick", "the quick brown fox jumps" + st[0], 9);
    n = tui_text_wrap("abcdefghijkl", 5, st, ln, 16);
    assert_int_equal(n, 3);
    assert_int_equal(ln[2], 2);
    assert_int_equal(tui_text_wrap("   ", 5, st, ln, 16), 0);
    assert_string_equal(tui_text_math("312x >= 100x", out, sizeof out), "312x \xE2\x89\xA5 100x");
    assert_string_equal(tui_text_math("1.2ms <= 2.5ms, a<b", out, sizeof out),
                        "1.2ms \xE2\x89\xA4 2.5ms, a<b");
    assert_string_equal(tui_text_math(">=", out, 3), "");   /* no room: nothing half-written */
}

/* ---- markdown -------------------------------------------------------------- */

static const char lesson[] =
    "    # Why a sum is hard\n"
    "\n"
    "    A GPU runs **thousands of threads** at once, but a *sum* needs every\n"
    "    element to meet every other. Call `__syncthreads()` between steps;\n"
    "    see [the guide](https://example.org/guide). my_var_name stays plain.\n"
    "\n"
    "    - first bullet that is long enough to wrap around the line\n"
    "    - second with `code`\n"
    "      - nested item\n"
    "    1. numbered one\n"
    "    2. numbered two\n"
    "\n"
    "    > a quoted line\n"
    "\n"
    "    ```c\n"
    "    __global__ void k(float *x) { x[threadIdx.x] = 0.0f; /* a long line of code */ }\n"
    "    ```\n"
    "\n"
    "    | kernel | time | speedup |\n"
    "    |---|---:|---|\n"
    "    | naive | 1.2 ms | 3x |\n"
    "    | **shared** | 0.3 ms | 12x |\n"
    "\n"
    "    ---\n"
    "    Unclosed **star and a_b_c.\n";

static const md_line *find_line(const md_doc *d, const char *needle)
{
    for (size_t i = 0; i < d->n; i++)
        if (strstr(d->v[i].text, needle))
            return &d->v[i];
    return NULL;
}

static unsigned style_at(const md_line *l, const char *needle)
{
    const char *p = strstr(l->text, needle);
    assert_non_null(p);
    return l->style[p - l->text];
}

static void test_md_blocks(void **state)
{
    md_doc d;
    const md_line *l;
    (void)state;
    assert_true(tui_md_render(lesson, 40, false, &d, NULL));
    assert_string_equal(d.v[0].text, "Why a sum is hard");
    assert_true(d.v[0].style[0] & MD_HEAD);
    assert_string_equal(d.v[1].text, "");

    l = find_line(&d, "thousands");
    assert_non_null(l);
    assert_true(style_at(l, "thousands") & MD_BOLD);
    assert_false(style_at(l, "A GPU") & MD_BOLD);
    l = find_line(&d, "sum needs");
    assert_true(style_at(l, "sum") & MD_ITALIC);
    l = find_line(&d, "__syncthreads()");
    assert_non_null(l);
    assert_true(style_at(l, "__syncthreads()") & MD_CODE);
    l = find_line(&d, "the guide");
    assert_true(style_at(l, "guide") & MD_LINK);
    l = find_line(&d, "my_var_name");
    assert_non_null(l);
    assert_false(style_at(l, "var") & MD_ITALIC);

    l = find_line(&d, "first bullet");
    assert_memory_equal(l->text, "\xE2\x80\xA2 first", 8);
    assert_true(l->style[0] & MD_MARK);
    /* the continuation hangs under the text, not under the bullet */
    l = l + 1;
    assert_memory_equal(l->text, "  ", 2);
    assert_true(l->text[2] != ' ');
    l = find_line(&d, "nested item");
    assert_memory_equal(l->text, "  \xE2\x80\xA2 nested", 10);
    assert_non_null(find_line(&d, "1. numbered one"));
    assert_non_null(find_line(&d, "2. numbered two"));
    l = find_line(&d, "a quoted line");
    assert_memory_equal(l->text, "\xE2\x94\x82 a quoted", 12);

    l = find_line(&d, "__global__");
    assert_non_null(l);
    assert_true(l->style[0] & MD_BLOCK);
    assert_memory_equal(l->text, "  __global__ void", 17);
    assert_non_null(find_line(&d, "kernel \xE2\x94\x82   time \xE2\x94\x82 speedup"));
    assert_non_null(find_line(&d, "naive  \xE2\x94\x82 1.2 ms \xE2\x94\x82 3x"));
    l = find_line(&d, "shared");
    assert_true(style_at(l, "shared") & MD_BOLD);
    assert_non_null(find_line(&d, "Unclosed **star and a_b_c."));
    assert_string_equal(d.v[d.n - 1].text, "Unclosed **star and a_b_c.");
    tui_md_free(&d);

    assert_true(tui_md_render(lesson, 40, true, &d, NULL));
    assert_non_null(find_line(&d, "- first bullet"));
    assert_non_null(find_line(&d, "kernel |   time | speedup"));
    assert_non_null(find_line(&d, "| a quoted line"));
    tui_md_free(&d);
}

static void test_md_widths(void **state)
{
    (void)state;
    for (int w = 8; w <= 120; w++) {
        md_doc d;
        assert_true(tui_md_render(lesson, w, w % 2 == 0, &d, NULL));
        assert_true(d.n > 10);
        for (size_t i = 0; i < d.n; i++) {
            int lw = tui_text_width(d.v[i].text, d.v[i].len);
            if (lw > w)
                fail_msg("width %d: line %zu is %d wide: '%s'", w, i, lw, d.v[i].text);
            assert_int_equal(strlen(d.v[i].text), d.v[i].len);
        }
        /* no word is lost: the paragraph's last word is always there */
        if (w >= 20)
            assert_non_null(find_line(&d, "plain."));
        tui_md_free(&d);
    }
}

static void test_md_edge(void **state)
{
    md_doc d;
    (void)state;
    assert_true(tui_md_render("", 40, false, &d, NULL));
    assert_int_equal(d.n, 0);
    tui_md_free(&d);
    assert_true(tui_md_render(NULL, 40, false, &d, NULL));
    assert_int_equal(d.n, 0);
    tui_md_free(&d);
    assert_true(tui_md_render("\n\n\nword\n\n\n\nnext\n\n", 40, false, &d, NULL));
    assert_int_equal(d.n, 3);   /* blank lines collapse, none trail */
    tui_md_free(&d);
    assert_true(tui_md_render("```\nunclosed fence\n", 40, false, &d, NULL));
    assert_true(d.n >= 1);
    tui_md_free(&d);
    assert_true(tui_md_render("a `b c` d *e f* g", 5, false, &d, NULL));
    tui_md_free(&d);
    assert_true(tui_md_render("|a|b|\n|-|-|\n|x|\n| only one cell", 10, false, &d, NULL));
    tui_md_free(&d);
}

/* CommonMark cases the hand-written parser before md4c got wrong. */
static void test_md_commonmark(void **state)
{
    static const char src[] =
        "***both*** and *a **b** c*\n"
        "\n"
        "x &amp; y &lt;z&gt; &#955; &#x3bb; &bogus;\n"
        "\n"
        "``a ` b`` and `` `tick` ``; \\*not em\\* \\`not code\\`\n"
        "\n"
        "[f(x)](https://e.org/f(x)) and <https://e.org>\n"
        "\n"
        "7. seven\n"
        "7. eight\n"
        "\n"
        "Setext title\n"
        "============\n"
        "\n"
        "## Closed ##\n"
        "\n"
        "first half\\\n"
        "second half\n"
        "\n"
        "- item\n"
        "\n"
        "  its second paragraph\n"
        "\n"
        "> - a list in a quote\n"
        "\n"
        "1) fenced code in an item:\n"
        "\n"
        "   ```\n"
        "   x = 1;\n"
        "   ```\n"
        "\n"
        "| left | mid | right |\n"
        "|------|:---:|------:|\n"
        "| a | b | c |\n";
    md_doc d;
    const md_line *l;
    (void)state;
    assert_true(tui_md_render(src, 60, false, &d, NULL));

    /* nested emphasis: no stray stars, both styles where they overlap */
    l = find_line(&d, "both and a b c");
    assert_non_null(l);
    assert_int_equal(style_at(l, "both") & (MD_BOLD | MD_ITALIC), MD_BOLD | MD_ITALIC);
    assert_int_equal(style_at(l, "a b") & (MD_BOLD | MD_ITALIC), MD_ITALIC);
    assert_int_equal(style_at(l, "b c") & (MD_BOLD | MD_ITALIC), MD_BOLD | MD_ITALIC);
    /* entities, named and numeric; an unknown name stays as written */
    assert_non_null(find_line(&d, "x & y <z> \xCE\xBB \xCE\xBB &bogus;"));
    /* code spans opened by two backticks hold one; escapes are literal */
    l = find_line(&d, "a ` b and `tick`; *not em* `not code`");
    assert_non_null(l);
    assert_true(style_at(l, "a ` b") & MD_CODE);
    assert_true(style_at(l, "`tick`") & MD_CODE);
    assert_false(style_at(l, "*not em*") & (MD_ITALIC | MD_CODE));
    assert_false(style_at(l, "`not code`") & MD_CODE);
    /* a link whose address has brackets; an autolink shows once */
    l = find_line(&d, "f(x) (https://e.org/f(x)) and https://e.org");
    assert_non_null(l);
    assert_true(style_at(l, "f(x)") & MD_LINK);
    assert_false(strstr(l->text, "https://e.org (https://e.org)"));
    /* ordered lists count from their first number */
    assert_non_null(find_line(&d, "7. seven"));
    assert_non_null(find_line(&d, "8. eight"));
    /* setext and closed ATX headings */
    l = find_line(&d, "Setext title");
    assert_string_equal(l->text, "Setext title");
    assert_true(l->style[0] & MD_HEAD);
    assert_non_null(find_line(&d, "Closed"));
    assert_null(find_line(&d, "Closed #"));
    /* a backslash at the end of a line breaks it */
    assert_string_equal(find_line(&d, "first half")->text, "first half");
    assert_string_equal(find_line(&d, "second half")->text, "second half");
    /* a list item's second paragraph hangs under its text */
    assert_string_equal(find_line(&d, "its second")->text, "  its second paragraph");
    /* blocks nest: a list inside a quote */
    assert_non_null(find_line(&d, "\xE2\x94\x82 \xE2\x80\xA2 a list in a quote"));
    /* code inside an item: indented under its text, as code */
    assert_non_null(find_line(&d, "1) fenced code in an item:"));
    l = find_line(&d, "x = 1;");
    assert_string_equal(l->text, "     x = 1;");
    assert_true(style_at(l, "x = 1;") & MD_BLOCK);
    /* columns align left, centre and right */
    assert_non_null(find_line(&d, "left \xE2\x94\x82 mid \xE2\x94\x82 right"));
    assert_non_null(find_line(&d, "a    \xE2\x94\x82  b  \xE2\x94\x82     c"));
    tui_md_free(&d);

    /* the items of a tight list follow each other; a loose list's are parted */
    assert_true(tui_md_render("- a\n- b\n\ntext\n\n- c\n\n- d\n", 40, true, &d, NULL));
    assert_int_equal(d.n, 8);
    assert_string_equal(d.v[1].text, "- b");
    assert_string_equal(d.v[3].text, "text");
    assert_string_equal(d.v[5].text, "- c");
    assert_string_equal(d.v[6].text, "");
    assert_string_equal(d.v[7].text, "- d");
    tui_md_free(&d);
}

/* ---- keys ------------------------------------------------------------------- */

static void test_keys(void **state)
{
    size_t n;
    const tui_keybind *t = tui_keys_table(&n);
    bool bound[TA_COUNT] = {false};
    static char lines[TA_COUNT][128];
    size_t nl;
    (void)state;
    assert_int_equal(tui_keys_lookup('q'), TA_QUIT);
    assert_int_equal(tui_keys_lookup(KEY_UP), TA_UP);
    assert_int_equal(tui_keys_lookup('k'), TA_UP);
    assert_int_equal(tui_keys_lookup('j'), TA_DOWN);
    assert_int_equal(tui_keys_lookup('?'), TA_HELP);
    assert_int_equal(tui_keys_lookup(27), TA_CANCEL);
    assert_int_equal(tui_keys_lookup('c'), TA_CANCEL);
    assert_int_equal(tui_keys_lookup('\t'), TA_NEXT_PANE);
    assert_int_equal(tui_keys_lookup(KEY_BTAB), TA_PREV_PANE);
    assert_int_equal(tui_keys_lookup('r'), TA_RUN);
    assert_int_equal(tui_keys_lookup('R'), TA_RUN_ALL);
    assert_int_equal(tui_keys_lookup('\r'), TA_ENTER);
    assert_int_equal(tui_keys_lookup('Z'), TA_NONE);
    for (size_t i = 0; i < n; i++) {
        bound[t[i].action] = true;
        for (size_t j = i + 1; j < n; j++)
            if (t[i].key == t[j].key)
                fail_msg("key %d is bound twice", t[i].key);
    }
    for (int a = TA_NONE + 1; a < TA_COUNT; a++) {
        assert_true(bound[a]);
        assert_true(strlen(tui_keys_describe((tui_action)a)) > 0);
    }
    nl = tui_keys_help(&lines[0][0], sizeof lines[0], TA_COUNT);
    assert_int_equal(nl, TA_COUNT - 1);
    for (int a = TA_NONE + 1; a < TA_COUNT; a++) {
        bool found = false;
        for (size_t i = 0; i < nl; i++)
            if (strstr(lines[i], tui_keys_describe((tui_action)a)))
                found = true;
        assert_true(found);
    }
    assert_non_null(strstr(lines[0], "Up"));
    assert_non_null(strstr(lines[0], "k"));
}

/* ---- chart ------------------------------------------------------------------ */

static void test_chart(void **state)
{
    tui_chart_scale s;
    double v1[] = {1.0, 312.0, 0.0, NAN};
    double v2[] = {0.5, 20.0};
    char axis[128];
    (void)state;
    assert_true(tui_chart_scale_for(v1, 4, 40, &s));
    assert_true(fabs(s.lo - 0.1) < 1e-12);     /* a decade below 1x: the CPU's bar shows */
    assert_true(fabs(s.hi - 1000.0) < 1e-9);
    assert_int_equal(s.decades, 4);
    assert_int_equal(tui_chart_eighths(&s, 1000.0), 40 * 8);
    assert_int_equal(tui_chart_eighths(&s, 5000.0), 40 * 8);
    assert_int_equal(tui_chart_eighths(&s, 1.0), 80);
    assert_int_equal(tui_chart_eighths(&s, 0.1), 0);
    assert_int_equal(tui_chart_eighths(&s, 0.0), 0);
    assert_int_equal(tui_chart_eighths(&s, 10.0), 160);
    assert_int_equal(tui_chart_eighths(&s, sqrt(10.0) * 10.0), 200);
    assert_true(tui_chart_eighths(&s, 312.0) > tui_chart_eighths(&s, 100.0));
    assert_int_equal(tui_chart_tick_col(&s, 0.1), 0);
    assert_int_equal(tui_chart_tick_col(&s, 1.0), 10);
    assert_int_equal(tui_chart_tick_col(&s, 1000.0), 39);
    assert_int_equal(tui_chart_tick_col(&s, 1e4), -1);
    tui_chart_axis(&s, axis, sizeof axis);
    assert_int_equal(strlen(axis), 40);
    assert_memory_equal(axis, "0.1x", 4);
    assert_non_null(strstr(axis, " 1x"));
    assert_non_null(strstr(axis, "10x"));
    assert_non_null(strstr(axis, "100x"));
    assert_non_null(strstr(axis, "1000x"));

    assert_true(tui_chart_scale_for(v2, 2, 20, &s));
    assert_true(fabs(s.lo - 0.1) < 1e-12);
    assert_true(fabs(s.hi - 100.0) < 1e-9);
    {
        double at_decade[] = {0.1, 10.0};    /* 0.1 itself needs the decade below */
        assert_true(tui_chart_scale_for(at_decade, 2, 20, &s));
        assert_true(fabs(s.lo - 0.01) < 1e-12);
    }
    assert_true(tui_chart_eighths(&s, 0.5) > 0);
    assert_false(tui_chart_scale_for(v2, 2, 1, &s));
    /* nothing measured: still a usable 1x..10x scale */
    assert_true(tui_chart_scale_for(NULL, 0, 10, &s));
    assert_true(fabs(s.hi - 10.0) < 1e-9);
}

/* ---- run table --------------------------------------------------------------- */

static run_result result(const char *variant, const char *size, result_kind k, result_status st)
{
    run_result r;
    run_result_init(&r);
    r.run = 1;
    snprintf(r.variant, sizeof r.variant, "%s", variant);
    snprintf(r.label, sizeof r.label, "%s", variant);
    snprintf(r.size, sizeof r.size, "%s", size);
    r.kind = k;
    r.status = st;
    r.median_ms = 1.234;
    r.spread = 0.02;
    r.gbps = 845.0;
    r.speedup_cpu = 312.0;
    r.speedup_lib = 0.8;
    r.pct_peak_measured = 28.0;
    return r;
}

static void test_runtable_rows(void **state)
{
    tui_runtable t = {0};
    size_t idx[16], n;
    run_progress p;
    run_result r;
    run_fault f;
    (void)state;
    assert_true(tui_runtable_expect(&t, "naive", NULL, RK_KERNEL, "2^20", NULL));
    assert_true(tui_runtable_expect(&t, "shared", NULL, RK_KERNEL, "2^20", NULL));
    assert_true(tui_runtable_expect(&t, "exercise", NULL, RK_EXERCISE, "2^20", NULL));
    assert_true(tui_runtable_expect(&t, "cub", NULL, RK_LIBRARY, "2^20", NULL));
    assert_true(tui_runtable_expect(&t, "naive", NULL, RK_KERNEL, "2^24", NULL));
    memset(&p, 0, sizeof p);
    p.run = 1;
    snprintf(p.variant, sizeof p.variant, "cpu_mt");
    snprintf(p.size, sizeof p.size, "2^20");
    p.rep = 3;
    p.of = 10;
    snprintf(p.phase, sizeof p.phase, "timing");
    assert_true(tui_runtable_progress(&t, &p, "cub", NULL));
    r = result("cpu", "2^20", RK_CPU, RS_CORRECT);
    assert_true(tui_runtable_result(&t, &r, NULL));

    n = tui_runtable_view(&t, "2^20", idx, 16);
    assert_int_equal(n, 6);
    assert_string_equal(t.v[idx[0]].variant, "cpu");
    assert_string_equal(t.v[idx[1]].variant, "cpu_mt");
    assert_string_equal(t.v[idx[2]].variant, "cub");
    assert_string_equal(t.v[idx[3]].variant, "naive");
    assert_string_equal(t.v[idx[4]].variant, "shared");
    assert_string_equal(t.v[idx[5]].variant, "exercise");
    assert_int_equal(t.v[idx[1]].state, ROW_RUNNING);
    assert_int_equal(t.v[idx[1]].kind, RK_CPU_MT);
    assert_int_equal(t.v[idx[0]].state, ROW_DONE);
    assert_int_equal(tui_runtable_view(&t, "2^24", idx, 16), 1);

    /* progress moves on: the previous running row goes back to waiting */
    snprintf(p.variant, sizeof p.variant, "naive");
    assert_true(tui_runtable_progress(&t, &p, "cub", NULL));
    assert_int_equal(tui_runtable_find(&t, "cpu_mt", "2^20")->state, ROW_QUEUED);
    memset(&f, 0, sizeof f);
    snprintf(f.cause, sizeof f.cause, "signal");
    snprintf(f.message, sizeof f.message, "worker killed by SIGSEGV");
    tui_runtable_fault(&t, &f, "2^20");
    assert_int_equal(tui_runtable_find(&t, "naive", "2^20")->state, ROW_FAULT);
    assert_string_equal(tui_runtable_find(&t, "naive", "2^20")->note, "worker killed by SIGSEGV");
    tui_runtable_finish(&t, "not run");
    assert_int_equal(tui_runtable_find(&t, "shared", "2^20")->state, ROW_SKIPPED);
    assert_int_equal(tui_runtable_find(&t, "cpu", "2^20")->state, ROW_DONE);
    tui_runtable_forget_skipped(&t, "2^24");
    assert_int_equal(tui_runtable_find(&t, "shared", "2^20")->state, ROW_SKIPPED);
    tui_runtable_forget_skipped(&t, "2^20");
    assert_int_equal(tui_runtable_find(&t, "shared", "2^20")->state, ROW_IDLE);
    assert_string_equal(tui_runtable_find(&t, "shared", "2^20")->note, "");
    assert_int_equal(tui_runtable_find(&t, "naive", "2^20")->state, ROW_FAULT);   /* faults stay */
    assert_int_equal(tui_runtable_find(&t, "cpu", "2^20")->state, ROW_DONE);

    {
        run_result all[16];
        assert_int_equal(tui_runtable_results(&t, all, 16), 1);
        assert_string_equal(all[0].variant, "cpu");
    }
    /* a rerun drops the old result */
    assert_true(tui_runtable_expect(&t, "cpu", NULL, RK_CPU, "2^20", NULL));
    assert_false(tui_runtable_find(&t, "cpu", "2^20")->has_result);
    assert_int_equal(tui_runtable_kind_of("cublas", NULL), RK_LIBRARY);
    assert_int_equal(tui_runtable_kind_of("mylib", "mylib"), RK_LIBRARY);
    assert_int_equal(tui_runtable_kind_of("tiled", "cublas"), RK_KERNEL);
    tui_runtable_free(&t);
}

static void test_runtable_columns(void **state)
{
    (void)state;
    for (int w = 1; w <= 200; w++) {
        tui_colspec c[RC_COUNT];
        int n = tui_runtable_columns(w, c), end = 0;
        assert_true(n >= 1);
        assert_int_equal(c[0].id, RC_VARIANT);
        for (int i = 0; i < n; i++) {
            assert_true(c[i].x >= end);
            assert_true(c[i].w >= 1);
            if (i > 0)
                assert_true(c[i].id > c[i - 1].id);
            end = c[i].x + c[i].w;
        }
        assert_true(end <= w);
        if (w >= 40) {   /* variant, time, x CPU and the check mark always fit */
            bool have[RC_COUNT] = {false};
            for (int i = 0; i < n; i++)
                have[c[i].id] = true;
            assert_true(have[RC_TIME] && have[RC_XCPU] && have[RC_CHECK]);
        }
        if (w >= 80)
            assert_int_equal(n, RC_COUNT);
        /* room for "50.7 us +-3.2%" (ASCII) whenever the row has room to spare */
        for (int i = 0; w >= 80 && i < n; i++)
            if (c[i].id == RC_TIME)
                assert_int_equal(c[i].w, 14);
    }
}

static void test_runtable_colnames(void **state)
{
    (void)state;
    assert_string_equal(tui_runtable_colname(RC_CHECK, 11), "check");
    assert_string_equal(tui_runtable_colname(RC_CHECK, 3), "ok");
    assert_string_equal(tui_runtable_colname(RC_XCPU, 7), "x CPU");
    assert_string_equal(tui_runtable_colname(RC_COUNT, 7), "");
}

static tui_role g_role;

/* The text of row's cell in column c, w columns wide; its role in g_role. */
static const char *cell(const tui_row *row, tui_runcol c, int w, bool ascii, unsigned spin)
{
    static char buf[256];
    tui_runtable_cell(row, c, w, ascii, spin, buf, sizeof buf, &g_role);
    return buf;
}

static void test_runtable_cells(void **state)
{
    tui_row row;
    (void)state;
    memset(&row, 0, sizeof row);
    snprintf(row.label, sizeof row.label, "shared");
    row.state = ROW_DONE;
    row.has_result = true;
    row.r = result("shared", "2^20", RK_KERNEL, RS_CORRECT);
    assert_string_equal(cell(&row, RC_TIME, 13, false, 0), "1.23 ms \xC2\xB1" "2.0%");
    assert_string_equal(cell(&row, RC_TIME, 8, true, 0), "1.23 ms");
    /* ASCII writes the spread "+-": the median is never cut for it. */
    assert_string_equal(cell(&row, RC_TIME, 14, true, 0), "1.23 ms +-2.0%");
    assert_string_equal(cell(&row, RC_TIME, 13, true, 0), "1.23 ms");
    assert_string_equal(cell(&row, RC_RATE, 12, false, 0), "845 GB/s");
    assert_string_equal(cell(&row, RC_PEAK, 6, false, 0), "28%");
    assert_string_equal(cell(&row, RC_XCPU, 7, false, 0), "312x");
    assert_string_equal(cell(&row, RC_XLIB, 6, false, 0), "0.800x");
    assert_string_equal(cell(&row, RC_CHECK, 11, false, 0), "\xE2\x9C\x93");
    assert_int_equal(g_role, ROLE_OK);

    row.r.status = RS_WRONG;
    assert_string_equal(cell(&row, RC_CHECK, 11, false, 0), "\xE2\x9C\x97 wrong");
    assert_int_equal(g_role, ROLE_BAD);
    assert_string_equal(cell(&row, RC_CHECK, 3, true, 0), "X");
    row.r.status = RS_UNWRITTEN;
    assert_string_equal(cell(&row, RC_CHECK, 11, false, 0), "\xE2\x88\x85 unwritten");
    row.r.status = RS_NAN;
    assert_string_equal(cell(&row, RC_CHECK, 11, false, 0), "NaN");
    row.r.status = RS_ERROR;
    snprintf(row.note, sizeof row.note, "no CUDA device found: no driver");
    assert_string_equal(cell(&row, RC_CHECK, 11, false, 0), "! error");
    assert_string_equal(cell(&row, RC_TIME, 40, false, 0), "no CUDA device found: no driver");
    assert_string_equal(cell(&row, RC_TIME, 10, true, 0), "no CUDA...");
    assert_string_equal(cell(&row, RC_XCPU, 7, false, 0), "");

    row.r.status = RS_CORRECT;
    row.r.speedup_cpu = 0.5;
    cell(&row, RC_XCPU, 7, false, 0);
    assert_int_equal(g_role, ROLE_SLOW);

    row.has_result = false;
    row.state = ROW_RUNNING;
    row.rep = 5;
    row.of = 10;
    snprintf(row.phase, sizeof row.phase, "timing");
    assert_string_equal(cell(&row, RC_TIME, 13, true, 0), "####.... 5/10");
    assert_string_equal(cell(&row, RC_VARIANT, 13, true, 1), "/ shared");
    snprintf(row.phase, sizeof row.phase, "check");
    assert_string_equal(cell(&row, RC_TIME, 13, true, 0), "checking");
    row.state = ROW_QUEUED;
    assert_string_equal(cell(&row, RC_TIME, 13, true, 0), "queued");
    assert_int_equal(g_role, ROLE_DIM);
}

static void test_log(void **state)
{
    static tui_log l;
    (void)state;
    assert_null(tui_log_recent(&l, 0));
    tui_log_add(&l, TUI_LOG_INFO, "hello %d", 1);
    tui_log_add(&l, TUI_LOG_ERROR, "no device");
    tui_log_add(&l, TUI_LOG_ERROR, "no device");
    tui_log_add(&l, TUI_LOG_ERROR, "no device");
    assert_int_equal(l.n, 2);
    assert_string_equal(tui_log_recent(&l, 0)->text, "no device");
    assert_int_equal(tui_log_recent(&l, 0)->repeat, 3);
    assert_string_equal(tui_log_recent(&l, 1)->text, "hello 1");
    for (int i = 0; i < 100; i++)
        tui_log_add(&l, TUI_LOG_WARN, "line %d\nwith a break", i);
    assert_int_equal(l.n, TUI_LOG_MAX);
    assert_string_equal(tui_log_recent(&l, 0)->text, "line 99 with a break");
    assert_string_equal(tui_log_recent(&l, TUI_LOG_MAX - 1)->text, "line 36 with a break");
    assert_null(tui_log_recent(&l, TUI_LOG_MAX));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmt_time),      cmocka_unit_test(test_fmt_rates),
        cmocka_unit_test(test_text),          cmocka_unit_test(test_md_blocks),
        cmocka_unit_test(test_md_widths),     cmocka_unit_test(test_md_edge),
        cmocka_unit_test(test_md_commonmark),
        cmocka_unit_test(test_keys),          cmocka_unit_test(test_chart),
        cmocka_unit_test(test_runtable_rows), cmocka_unit_test(test_runtable_columns),
        cmocka_unit_test(test_runtable_cells), cmocka_unit_test(test_runtable_colnames),
        cmocka_unit_test(test_log),
    };
    if (!setlocale(LC_ALL, "C.UTF-8"))
        setlocale(LC_ALL, "en_US.UTF-8");
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_escape.c - core/escape.h: cleaning (bytes that are not UTF-8,
 * control characters) and each format's escaping, on hostile text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"

#define FFFD "\xEF\xBF\xBD"
#define PIC_ESC "\xE2\x90\x9B"   /* U+241B */
#define PIC_BEL "\xE2\x90\x87"   /* U+2407 */
#define PIC_TAB "\xE2\x90\x89"
#define PIC_LF "\xE2\x90\x8A"
#define PIC_CR "\xE2\x90\x8D"

typedef bool (*escaper)(strbuf *b, const char *s);

/* What f makes of s (a static buffer). */
static const char *via(escaper f, const char *s)
{
    static char out[1024];
    strbuf b;
    strbuf_init(&b, 0);
    assert_true(f(&b, s));
    snprintf(out, sizeof out, "%s", strbuf_text(&b));
    strbuf_free(&b);
    return out;
}

static bool text_visible(strbuf *b, const char *s)
{
    return escape_text(b, s, ESCAPE_WS_VISIBLE);
}

static bool text_lines(strbuf *b, const char *s)
{
    return escape_text(b, s, ESCAPE_WS_LINES);
}

static bool text_keep(strbuf *b, const char *s)
{
    return escape_text(b, s, ESCAPE_WS_KEEP);
}

static void test_bytes_not_utf8(void **state)
{
    (void)state;
    assert_string_equal(via(text_keep, "a\xff\xfe" "b"), "a" FFFD FFFD "b");
    assert_string_equal(via(text_keep, "\xc0\xaf"), FFFD FFFD);           /* overlong '/' */
    assert_string_equal(via(text_keep, "\xed\xa0\x80"), FFFD FFFD FFFD);  /* a surrogate */
    assert_string_equal(via(text_keep, "\xf4\x90\x80\x80"), FFFD FFFD FFFD FFFD); /* > U+10FFFF */
    assert_string_equal(via(text_keep, "caf\xc3"), "caf" FFFD);           /* cut short */
    assert_string_equal(via(text_keep, "na\xc3\xafve \xe2\x82\xac \xf0\x9f\x98\x80"),
                        "na\xc3\xafve \xe2\x82\xac \xf0\x9f\x98\x80");  /* valid: kept */
}

static void test_controls_visible(void **state)
{
    (void)state;
    assert_string_equal(via(text_keep, "\x1b]0;x\x07"), PIC_ESC "]0;x" PIC_BEL);
    assert_string_equal(via(text_keep, "a\x7f"), "a\xE2\x90\xA1");
    assert_string_equal(via(text_keep, "\xc2\x9b" "31m"), FFFD "31m");       /* C1 CSI */
    assert_string_equal(via(text_keep, "a\xe2\x80\xae" "b"), "a" FFFD "b");  /* RLO */
    assert_string_equal(via(text_keep, "\xef\xbf\xbe"), FFFD);                /* U+FFFE */
    assert_string_equal(via(text_visible, "a\tb\nc\rd"), "a" PIC_TAB "b" PIC_LF "c" PIC_CR "d");
    assert_string_equal(via(text_lines, "a\tb\nc\rd"), "a\tb\nc" PIC_CR "d");
    assert_string_equal(via(text_keep, "a\tb\nc\rd"), "a\tb\nc\rd");
    /* Cleaning twice changes nothing more. */
    const char *hostile = "\x1b[2J\xff\xfe\r\n\t\x07\xc2\x85";
    char once[256];
    snprintf(once, sizeof once, "%s", via(text_visible, hostile));
    assert_string_equal(via(text_visible, once), once);
}

static void test_line_and_dup(void **state)
{
    (void)state;
    char out[8];
    /* "ab" then U+241B (3 bytes) fits in 8 with the NUL; the next does not. */
    assert_string_equal(escape_line(out, sizeof out, "ab\x1b\x1b"), "ab" PIC_ESC);
    assert_string_equal(escape_line(out, 4, "abc\xff"), "abc");
    char *d = escape_dup("x\ny\xff", ESCAPE_WS_LINES);
    assert_string_equal(d, "x\ny" FFFD);
    free(d);
}

static void test_csv(void **state)
{
    (void)state;
    assert_string_equal(via(escape_csv_cell, "plain"), "plain");
    assert_string_equal(via(escape_csv_cell, "a,b"), "\"a,b\"");
    assert_string_equal(via(escape_csv_cell, "say \"hi\""), "\"say \"\"hi\"\"\"");
    assert_string_equal(via(escape_csv_cell, "=HYPERLINK(\"http://e\",\"x\")"),
                        "\"'=HYPERLINK(\"\"http://e\"\",\"\"x\"\")\"");
    assert_string_equal(via(escape_csv_cell, "+1"), "\"'+1\"");
    assert_string_equal(via(escape_csv_cell, "-2"), "\"'-2\"");
    assert_string_equal(via(escape_csv_cell, "@SUM(A1)"), "\"'@SUM(A1)\"");
    assert_string_equal(via(escape_csv_cell, "\tx"), "\"'\tx\"");
    assert_string_equal(via(escape_csv_cell, "\rx"), "\"'\rx\"");
    assert_string_equal(via(escape_csv_cell, "a\nb"), "\"a\nb\"");
    assert_string_equal(via(escape_csv_cell, "1-2"), "1-2");   /* only a leading sign */
    assert_string_equal(via(escape_csv_cell, "\x1b]0;x\x07"), PIC_ESC "]0;x" PIC_BEL);
    assert_string_equal(via(escape_csv_cell, ""), "");
}

static void test_markdown(void **state)
{
    (void)state;
    assert_string_equal(via(escape_md_cell, "[x](http://e)"), "\\[x\\]\\(http\\://e\\)");
    assert_string_equal(via(escape_md_cell, "<script>alert(1)</script>"),
                        "&lt;script&gt;alert\\(1\\)&lt;/script&gt;");
    assert_string_equal(via(escape_md_cell, "a|b\\c*d_e`f!g#h~i&j"),
                        "a\\|b\\\\c\\*d\\_e\\`f\\!g\\#h\\~i&amp;j");
    assert_string_equal(via(escape_md_cell, "a\nb"), "a" PIC_LF "b");
    assert_string_equal(via(escape_md_cell, "www.e.com a@b.c 10:00"), "www\\.e.com a\\@b.c 10:00");
}

static void test_html_and_xml(void **state)
{
    (void)state;
    assert_string_equal(via(escape_html, "<a href='x'>\"&\"</a>"),
                        "&lt;a href=&#39;x&#39;&gt;&quot;&amp;&quot;&lt;/a&gt;");
    assert_string_equal(via(escape_html, "a\nb"), "a" PIC_LF "b");
    assert_string_equal(via(escape_xml_text, "3 < 4 & \"x\"\n\ty\rz"),
                        "3 &lt; 4 &amp; &quot;x&quot;\n\ty&#13;z");
    assert_string_equal(via(escape_xml_attr, "a\nb\tc\rd'"), "a&#10;b&#9;c&#13;d&apos;");
    assert_string_equal(via(escape_xml_attr, "\x01\xff"), "\xE2\x90\x81" FFFD);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_not_utf8), cmocka_unit_test(test_controls_visible),
        cmocka_unit_test(test_line_and_dup),   cmocka_unit_test(test_csv),
        cmocka_unit_test(test_markdown),       cmocka_unit_test(test_html_and_xml),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for src/core: stats, paths, atomic files, the clock, text
 * buffers, figures with units. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "core/clock.h"
#include "core/grow.h"
#include "core/paths.h"
#include "core/stats.h"
#include "core/strbuf.h"
#include "core/strfmt.h"
#include "core/units.h"
#include "support.h"

static void test_stats_odd_even(void **state)
{
    (void)state;
    double a[] = {5, 1, 3};
    stats_summary s = stats_summarise(a, 3);
    assert_true(s.median == 3.0 && s.min == 1.0 && s.max == 5.0);
    double b[] = {4, 1, 3, 2};
    assert_true(stats_median(b, 4) == 2.5);
    double c[] = {2, 2, 2, 2};
    assert_true(stats_summarise(c, 4).spread == 0.0);
    stats_summary z = stats_summarise(NULL, 0);
    assert_true(z.n == 0 && z.median == 0.0);
}

static void test_paths_join_and_mkdir(void **state)
{
    (void)state;
    char out[64];
    assert_true(paths_join(out, sizeof out, "a/", "b"));
    assert_string_equal(out, "a/b");
    assert_true(paths_join(out, sizeof out, "a", "b"));
    assert_string_equal(out, "a/b");
    assert_false(paths_join(out, 4, "abc", "def"));

    char dir[CL_PATH_MAX];
    assert_true(ts_tmpdir(dir, sizeof dir, "test"));
    char deep[CL_PATH_MAX];
    snprintf(deep, sizeof deep, "%s/x/y/z", dir);
    cl_err e;
    assert_true(paths_mkdir_p(deep, &e));
    assert_true(paths_is_dir(deep));
    assert_true(paths_mkdir_p(deep, &e)); /* exists already: fine */

    char file[CL_PATH_MAX + 8];
    snprintf(file, sizeof file, "%s/f.txt", deep);
    assert_true(atomicfile_write(file, "hello", 5, &e));
    size_t len = 0;
    char *txt = file_read_all(file, 100, &len, &e);
    assert_non_null(txt);
    assert_int_equal(len, 5);
    assert_string_equal(txt, "hello");
    free(txt);
    assert_null(file_read_all(file, 2, &len, &e));
    assert_non_null(strstr(e.msg, "larger than"));
    /* A file where a folder is wanted is an error with a message. */
    assert_false(paths_mkdir_p(file, &e));
    assert_non_null(strstr(e.msg, file));

    /* Probing changes nothing and says why a folder is not usable. */
    char why[CL_ERR_MAX], below[CL_PATH_MAX + 32], fresh[CL_PATH_MAX + 32];
    assert_int_equal(paths_dir_probe(deep, why, sizeof why), PATHS_DIR_WRITABLE);
    snprintf(fresh, sizeof fresh, "%s/new/er", dir);
    assert_int_equal(paths_dir_probe(fresh, why, sizeof why), PATHS_DIR_MISSING);
    assert_false(paths_is_dir(fresh));
    snprintf(below, sizeof below, "%s/sub/dir", file);
    assert_int_equal(paths_dir_probe(below, why, sizeof why), PATHS_DIR_NOT_WRITABLE);
    char want[CL_PATH_MAX + 64];
    snprintf(want, sizeof want, "cannot be created (%s is not a folder)", file);
    assert_string_equal(why, want);
    assert_int_equal(paths_dir_probe(file, why, sizeof why), PATHS_DIR_NOT_WRITABLE);
    assert_string_equal(why, "cannot be written (it is not a folder)");

    assert_true(ts_rm_rf(dir));
}

static void test_paths_base_and_dir(void **state)
{
    (void)state;
    char d[16];
    assert_string_equal(paths_base_name("/w/lab/starter.cu"), "starter.cu");
    assert_string_equal(paths_base_name("starter.cu"), "starter.cu");
    assert_string_equal(paths_base_name("lab/"), "");
    assert_true(paths_dir_name("/w/lab/starter.cu", d, sizeof d));
    assert_string_equal(d, "/w/lab");
    assert_true(paths_dir_name("/x", d, sizeof d));
    assert_string_equal(d, "/");
    assert_true(paths_dir_name("x", d, sizeof d));
    assert_string_equal(d, ".");
    assert_false(paths_dir_name("/a/very/long/folder/name/x", d, sizeof d));
}

static void test_paths_home_env(void **state)
{
    (void)state;
    char out[CL_PATH_MAX];
    cl_err e;
    const char *saved = getenv("CUDALAB_HOME");
    char keep[CL_PATH_MAX] = "";
    if (saved)
        snprintf(keep, sizeof keep, "%s", saved);
    setenv("CUDALAB_HOME", "/nonexistent-cudalab", 1);
    assert_false(paths_home(out, sizeof out, &e));
    assert_non_null(strstr(e.msg, "CUDALAB_HOME"));
    unsetenv("CUDALAB_HOME");
    assert_true(paths_home(out, sizeof out, &e)); /* source tree or installed */
    if (keep[0])
        setenv("CUDALAB_HOME", keep, 1);
}

static void test_strfmt_append(void **state)
{
    (void)state;
    char buf[8];
    size_t at = strfmt_append(buf, sizeof buf, 0, "%s", "abc");
    assert_int_equal(at, 3);
    at = strfmt_append(buf, sizeof buf, at, "%d", 12345);
    assert_int_equal(at, 8); /* the length the whole text needs */
    assert_string_equal(buf, "abc1234");
    at = strfmt_append(buf, sizeof buf, at, "more");
    assert_int_equal(at, 12);
    assert_string_equal(buf, "abc1234"); /* nothing written past the end */
}

static void test_strfmt_cell(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(strfmt_cell(buf, sizeof buf, "ab", 4), "ab  ");
    /* multi-byte characters count one column each, and are never split */
    assert_string_equal(strfmt_cell(buf, sizeof buf, "\xE2\x90\x9B]0\xEF\xBF\xBDxyz", 4),
                        "\xE2\x90\x9B]0\xEF\xBF\xBD");
    assert_string_equal(strfmt_cell(buf, 5, "\xE2\x90\x9B" "abc", 3), "\xE2\x90\x9B" "a");
    assert_string_equal(strfmt_cell(buf, sizeof buf, NULL, 2), "  ");
}

static void test_grow_one(void **state)
{
    (void)state;
    int *v = NULL;
    size_t cap = 0, n = 0;
    for (int i = 0; i < 100; i++) {
        assert_true(grow_one((void **)&v, &cap, n, sizeof *v, 4));
        v[n++] = i;
    }
    assert_int_equal(cap, 128);   /* 4, 8, ... doubling */
    assert_int_equal(v[99], 99);
    /* a size past the address space is refused, the array kept */
    size_t huge = (size_t)-1 / 2 + 1;
    assert_false(grow_one((void **)&v, &huge, huge, 4, 4));
    assert_int_equal(v[0], 0);
    free(v);
}

static void test_clock_monotonic(void **state)
{
    (void)state;
    double s0 = clock_now_s(), m0 = clock_now_ms();
    int64_t n0 = clock_now_ns();
    usleep(20 * 1000);
    double s1 = clock_now_s(), m1 = clock_now_ms();
    int64_t n1 = clock_now_ns();
    assert_true(s1 - s0 >= 0.019 && s1 - s0 < 5.0);
    assert_true(m1 - m0 >= 19.0 && m1 - m0 < 5000.0);
    assert_true(n1 - n0 >= 19000000 && n1 - n0 < 5000000000LL);
    /* one clock in three units */
    assert_true(m0 >= s0 * 1e3 && m0 - s0 * 1e3 < 1000.0);
    assert_true((double)n0 >= m0 * 1e6 - 1e6 && (double)n0 - m0 * 1e6 < 1e9);
}

static void test_strbuf(void **state)
{
    (void)state;
    strbuf b = STRBUF_INIT;
    assert_string_equal(strbuf_text(&b), "");
    char *t = strbuf_take(&b);
    assert_string_equal(t, "");          /* empty, but a string */
    free(t);

    assert_true(strbuf_str(&b, "abc"));
    assert_true(strbuf_add(&b, "de\0f", 2));
    for (int i = 0; i < 200; i++)         /* grows past its first allocation */
        assert_true(strbuf_printf(&b, "%03d", i));
    assert_int_equal(b.len, 5 + 600);
    assert_true(strncmp(strbuf_text(&b), "abcde000001", 11) == 0);
    assert_string_equal(strbuf_text(&b) + b.len - 3, "199");
    strbuf_cut(&b, 5);
    assert_true(strncmp(strbuf_text(&b), "000001", 6) == 0);
    strbuf_clear(&b);
    assert_string_equal(strbuf_text(&b), "");
    assert_true(strbuf_printf(&b, "%s=%d", "x", 42));
    t = strbuf_take(&b);
    assert_string_equal(t, "x=42");
    free(t);
    assert_null(b.p);

    /* a limit drops what does not fit, without failing */
    strbuf_init(&b, 8);
    assert_true(strbuf_str(&b, "12345"));
    assert_true(strbuf_printf(&b, "%s", "6789abc"));
    assert_string_equal(strbuf_text(&b), "12345678");
    assert_true(b.truncated);
    assert_true(strbuf_str(&b, "more"));
    assert_int_equal(b.len, 8);
    strbuf_free(&b);
    assert_int_equal(b.max, 8);

    /* after a failed allocation appends are ignored and take says so */
    strbuf_init(&b, 0);
    strbuf_str(&b, "kept");
    b.failed = true;
    assert_false(strbuf_str(&b, "lost"));
    assert_false(strbuf_printf(&b, "%d", 1));
    assert_string_equal(strbuf_text(&b), "kept");
    assert_null(strbuf_take(&b));
    assert_false(b.failed);
}

#define UNITS(fn, v) (fn(v, buf, sizeof buf))

static void test_units(void **state)
{
    (void)state;
    char buf[UNITS_MAX];
    assert_string_equal(UNITS(units_sig3, 312.4), "312");
    assert_string_equal(UNITS(units_sig3, 3.124), "3.12");
    assert_string_equal(UNITS(units_sig3, 0.03124), "0.0312");
    assert_string_equal(UNITS(units_sig3, 0.0), "0");
    assert_string_equal(UNITS(units_sig3, NAN), "NaN");

    assert_string_equal(UNITS(units_bytes, 0.0), "0 B");
    assert_string_equal(UNITS(units_bytes, 512.0), "512 B");
    assert_string_equal(UNITS(units_bytes, 1023.0), "1023 B");
    assert_string_equal(UNITS(units_bytes, 1536.0), "1.5 KiB");
    assert_string_equal(UNITS(units_bytes, 3072.0), "3 KiB");
    assert_string_equal(UNITS(units_bytes, 16384.0), "16 KiB");
    assert_string_equal(UNITS(units_bytes, (double)(256u << 20)), "256 MiB");
    assert_string_equal(UNITS(units_bytes, (double)(3u << 29)), "1.5 GiB");
    assert_string_equal(UNITS(units_bytes, 79.65 * 1073741824.0), "79.7 GiB");
    assert_string_equal(UNITS(units_bytes, 1048575.0), "1 MiB");     /* never "1024 KiB" */
    assert_string_equal(UNITS(units_bytes, 1234567.0), "1.18 MiB");
    assert_string_equal(UNITS(units_bytes, 4398046511104.0), "4 TiB");
    assert_string_equal(UNITS(units_bytes, -1.0), "-");
    {
        double b = -1;
        assert_true(units_parse_bytes("8 B", &b) && b == 8.0);
        assert_true(units_parse_bytes("256 MiB", &b) && b == (double)(256u << 20));
        assert_true(units_parse_bytes("1.5KiB", &b) && b == 1536.0);
        assert_true(units_parse_bytes("1 GiB", &b) && b == 1073741824.0);
        assert_false(units_parse_bytes("2^20", &b));
        assert_false(units_parse_bytes("1 GB", &b));
        assert_false(units_parse_bytes("-1 B", &b));
        assert_false(units_parse_bytes("", &b));
        assert_false(units_parse_bytes("1 MiB x", &b));
        /* every size units_bytes writes reads back as itself */
        for (int e = 0; e <= 40; e++) {
            char t[UNITS_MAX];
            assert_true(units_parse_bytes(units_bytes(ldexp(1.0, e), t, sizeof t), &b));
            assert_true(b == ldexp(1.0, e));
        }
    }

    assert_string_equal(UNITS(units_pct, 87.2), "87%");
    assert_string_equal(UNITS(units_pct, 5.23), "5.2%");
    assert_string_equal(UNITS(units_pct, 0.01), "<0.1%");
    assert_string_equal(UNITS(units_pct, 0.0), "0%");
    assert_string_equal(UNITS(units_pct, -1.0), "-");
    assert_string_equal(UNITS(units_pct, INFINITY), "-");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_odd_even),
        cmocka_unit_test(test_strfmt_append),
        cmocka_unit_test(test_strfmt_cell),
        cmocka_unit_test(test_grow_one),
        cmocka_unit_test(test_clock_monotonic),
        cmocka_unit_test(test_strbuf),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_paths_join_and_mkdir),
        cmocka_unit_test(test_paths_home_env),
        cmocka_unit_test(test_paths_base_and_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

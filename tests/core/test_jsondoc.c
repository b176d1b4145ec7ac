/* test_jsondoc.c - core/jsondoc.h: a JSON file written one way reads back
 * as exactly that, and anything else is told apart: bytes before or
 * after, a key twice, another spacing, escape or number form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsondoc.h"
#include "core/jsonf.h"
#include "support.h"

/* A document with the numbers cudalab writes: doubles that need 15, 16
 * and 17 digits, integers, a seed, a null. */
static char *sample(void)
{
    cJSON *o = cJSON_CreateObject();
    jsonf_put_double(o, "a", 0.1);
    jsonf_put_double(o, "b", 1.0 / 3.0);
    jsonf_put_double(o, "c", 2.675);
    jsonf_put_double(o, "neg_zero", -0.0);
    jsonf_put_double(o, "big", 1e300);
    jsonf_put_int(o, "n", 42);
    jsonf_put_u64(o, "seed", 18446744073709551615ull);
    jsonf_put_str(o, "s", "tab\there \"quoted\" \x1b");
    cJSON_AddNullToObject(o, "none");
    cJSON *arr = cJSON_AddArrayToObject(o, "rows");
    cJSON *row = cJSON_CreateObject();
    cJSON_AddItemToArray(arr, row);
    jsonf_put_double(row, "ms", 0.123456789012345678);
    char *text = jsondoc_file_text(o);
    cJSON_Delete(o);
    assert_non_null(text);
    return text;
}

static jsondoc_status parse(const char *text, char *why, size_t n)
{
    cJSON *doc = NULL;
    jsondoc_status st = jsondoc_parse_file(text, strlen(text), &doc, why, n);
    cJSON_Delete(doc);
    return st;
}

static void test_round_trip(void **state)
{
    (void)state;
    char why[256];
    char *text = sample();
    assert_int_equal(parse(text, why, sizeof why), JSONDOC_EXACT);
    free(text);
}

/* text with its first occurrence of from replaced by to. */
static char *edit(const char *text, const char *from, const char *to)
{
    const char *p = strstr(text, from);
    assert_non_null(p);
    size_t n = strlen(text) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
    return out;
}

static void expect(const char *text, jsondoc_status want, const char *says)
{
    char why[256];
    assert_int_equal(parse(text, why, sizeof why), want);
    assert_true(ts_contains(why, says));
}

static void test_inexact(void **state)
{
    (void)state;
    char *text = sample();
    size_t n = strlen(text);
    char *more = malloc(n + 32);
    snprintf(more, n + 32, "%s{}", text);
    expect(more, JSONDOC_INEXACT, "2 bytes after the end");
    snprintf(more, n + 32, "%.*s junk", (int)n - 1, text);
    expect(more, JSONDOC_INEXACT, "5 bytes after the end");
    snprintf(more, n + 32, "  %s", text);
    expect(more, JSONDOC_INEXACT, "2 bytes before the document");
    snprintf(more, n + 32, "\xEF\xBB\xBF%s", text);
    expect(more, JSONDOC_INEXACT, "3 bytes before the document");
    snprintf(more, n + 32, "%.*s", (int)n - 1, text);
    expect(more, JSONDOC_INEXACT, "newline that ends the file is missing");
    free(more);
    char *dup = edit(text, "\"n\":", "\"n\":\t7,\n\t\"n\":");
    expect(dup, JSONDOC_INEXACT, "the key 'n' appears twice");
    free(dup);
    char *nested = edit(text, "\"ms\":", "\"ms\":\t1,\n\t\t\t\"ms\":");
    expect(nested, JSONDOC_INEXACT, "the key 'ms' appears twice");
    free(nested);
    static const char *const forms[][2] = {
        {"\"n\":\t42", "\"n\":\t42.0"},      /* a number written another way */
        {"\"n\":\t42", "\"n\":\t4.2e1"},
        {"\"none\":\tnull", "\"none\": null"},   /* spacing */
        {"tab\\there", "tab\\u0009here"},        /* an escape */
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char *t = edit(text, forms[i][0], forms[i][1]);
        expect(t, JSONDOC_INEXACT, "not in the form cudalab writes");
        free(t);
    }
    free(text);
}

static void test_not_json(void **state)
{
    (void)state;
    expect("garbage", JSONDOC_NOT_JSON, "not JSON");
    expect("[1, 2]\n", JSONDOC_NOT_JSON, "not an object");
    char why[64];
    cJSON *doc = NULL;
    assert_int_equal(jsondoc_parse_file("{}\0{}", 5, &doc, why, sizeof why), JSONDOC_NOT_JSON);
    assert_null(doc);
    assert_true(ts_contains(why, "NUL byte"));
}

static void test_clean_strings(void **state)
{
    (void)state;
    cJSON *o = cJSON_Parse("{\"a\": \"x\\u001b\", \"b\": [\"\\u0007\", {\"c\": \"ok\"}]}");
    assert_non_null(o);
    cJSON *raw = cJSON_CreateString("\xff");
    cJSON_AddItemToObject(o, "d", raw);
    assert_true(jsondoc_clean_strings(o, ESCAPE_WS_KEEP));
    char *text = jsondoc_print(o, false);
    assert_string_equal(text, "{\"a\":\"x\xE2\x90\x9B\",\"b\":[\"\xE2\x90\x87\",{\"c\":\"ok\"}],"
                              "\"d\":\"\xEF\xBF\xBD\"}");
    free(text);
    cJSON_Delete(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_inexact),
        cmocka_unit_test(test_not_json),
        cmocka_unit_test(test_clean_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

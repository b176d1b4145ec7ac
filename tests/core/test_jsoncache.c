/* Unit tests for core/jsoncache: finding, replacing, reading and writing
 * cached entries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsoncache.h"
#include "core/paths.h"
#include "support.h"

typedef struct probe {
    const char *name;
    double value;
    int seen;
} probe;

static bool take_named(const cJSON *entry, void *ud)
{
    probe *p = ud;
    p->seen++;
    if (!jsoncache_str_is(entry, "name", p->name))
        return false;
    p->value = jsoncache_num(entry, "value", -1.0);
    return true;
}

static bool same_name(const cJSON *entry, void *ud)
{
    const probe *p = ud;
    return jsoncache_str_is(entry, "name", p->name);
}

static bool fill_named(cJSON *entry, void *ud)
{
    const probe *p = ud;
    return cJSON_AddStringToObject(entry, "name", p->name) &&
           cJSON_AddNumberToObject(entry, "value", p->value);
}

static bool fill_fails(cJSON *entry, void *ud)
{
    (void)entry;
    (void)ud;
    return false;
}

static void test_find(void **state)
{
    (void)state;
    probe p = {"b", 0.0, 0};
    assert_false(jsoncache_find(NULL, "items", take_named, &p));
    assert_false(jsoncache_find("not json", "items", take_named, &p));
    assert_false(jsoncache_find("{\"other\":[{\"name\":\"b\"}]}", "items", take_named, &p));
    assert_int_equal(p.seen, 0);

    const char *doc = "{\"items\":[{\"name\":\"a\",\"value\":1},7,{\"name\":\"b\",\"value\":2},"
                      "{\"name\":\"b\",\"value\":3}]}";
    assert_true(jsoncache_find(doc, "items", take_named, &p));
    assert_true(p.value == 2.0);            /* the first match wins */
    assert_int_equal(p.seen, 2);            /* objects only, and it stops there */

    p = (probe){"c", 0.0, 0};
    assert_false(jsoncache_find(doc, "items", take_named, &p));
    assert_int_equal(p.seen, 3);
}

static void test_num_and_str(void **state)
{
    (void)state;
    cJSON *o = cJSON_Parse("{\"n\":2.5,\"s\":\"x\",\"t\":true}");
    assert_non_null(o);
    assert_true(jsoncache_num(o, "n", 0.0) == 2.5);
    assert_true(jsoncache_num(o, "s", -1.0) == -1.0);
    assert_true(jsoncache_num(o, "missing", 7.0) == 7.0);
    assert_true(jsoncache_str_is(o, "s", "x"));
    assert_false(jsoncache_str_is(o, "s", "y"));
    assert_false(jsoncache_str_is(o, "n", "2.5"));
    cJSON_Delete(o);
}

static void test_replace(void **state)
{
    (void)state;
    probe a = {"a", 1.0, 0}, b = {"b", 2.0, 0};
    char *one = jsoncache_replace(NULL, "items", same_name, fill_named, &a);
    assert_non_null(one);
    char *two = jsoncache_replace(one, "items", same_name, fill_named, &b);
    assert_non_null(two);

    probe a2 = {"a", 5.0, 0};
    char *three = jsoncache_replace(two, "items", same_name, fill_named, &a2);
    assert_non_null(three);
    cJSON *doc = cJSON_Parse(three);
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(doc, "items");
    assert_int_equal(cJSON_GetArraySize(items), 2);    /* "a" replaced, "b" kept */
    assert_string_equal(cJSON_GetArrayItem(items, 0)->child->valuestring, "b");
    cJSON_Delete(doc);

    probe f = {"a", 0.0, 0};
    assert_true(jsoncache_find(three, "items", take_named, &f));
    assert_true(f.value == 5.0);
    f = (probe){"b", 0.0, 0};
    assert_true(jsoncache_find(three, "items", take_named, &f));
    assert_true(f.value == 2.0);

    char *fresh = jsoncache_replace("garbage", "items", same_name, fill_named, &b);
    assert_non_null(fresh);
    f = (probe){"b", 0.0, 0};
    assert_true(jsoncache_find(fresh, "items", take_named, &f));

    assert_null(jsoncache_replace(three, "items", same_name, fill_fails, &b));
    free(one);
    free(two);
    free(three);
    free(fresh);
}

static void test_path_read_write(void **state)
{
    (void)state;
    char dir[CL_PATH_MAX];
    assert_true(ts_tmpdir(dir, sizeof dir, "jsoncache"));
    char data[CL_PATH_MAX + 8], cache[CL_PATH_MAX + 8];
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(cache, sizeof cache, "%s/cache", dir);
    ts_data_home(data);
    setenv("XDG_CACHE_HOME", cache, 1);

    char path[CL_PATH_MAX];
    cl_err e = {{0}};
    assert_true(jsoncache_path("cache.json", path, sizeof path, &e));
    assert_non_null(strstr(path, cache));   /* the cache folder, not the data folder */
    assert_null(strstr(path, data));
    assert_non_null(strstr(path, "/cache.json"));
    assert_false(jsoncache_path("cache.json", path, 8, &e));

    assert_true(jsoncache_path("cache.json", path, sizeof path, &e));
    assert_null(jsoncache_read(path, 1024));              /* no file yet */
    assert_true(jsoncache_write(path, "{\"items\":[]}", &e)); /* creates the folders */
    char *txt = jsoncache_read(path, 1024);
    assert_non_null(txt);
    assert_string_equal(txt, "{\"items\":[]}");
    free(txt);
    assert_null(jsoncache_read(path, 4));                 /* over the limit */

    assert_true(ts_rm_rf(dir));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_num_and_str),
        cmocka_unit_test(test_replace),
        cmocka_unit_test(test_path_read_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

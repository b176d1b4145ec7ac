/* test_decl_gpu.c - problems a lab declares, run on a GPU the way an
 * instructor runs them (`cudalab run LAB --labs FOLDER --json`): rungs of
 * the lab folder, a Lua reference, a reference kernel in double precision
 * checked once against its Lua twin, a builtin's library and CPU rows, the
 * learner's exercise, a wrong rung and one that does not compile each as
 * its own row, and a reference kernel that faults blamed on the lab, never
 * on the learner.  Skips (exit 77) without a device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/devinfo.h"
#include "engine/engine.h"
#include "support.h"

static char g_dir[CL_PATH_MAX];

/* Runs `cudalab run <lab> --json` on the declared fixtures with args;
 * returns the parsed document (the caller deletes it) and the exit status. */
static cJSON *run_json(const char *lab_id, const char *args, int *status)
{
    char fixtures[CL_PATH_MAX];
    ts_data_path(fixtures, sizeof fixtures, "lab/fixtures/declared");
    ts_output o = {0};
    *status = ts_shell(&o, false,
                       "XDG_DATA_HOME='%s/data' XDG_CACHE_HOME='%s/cache' '%s' run %s "
                       "--labs '%s' --workspace '%s/ws' --budget 0.05 --json %s",
                       g_dir, g_dir, ts_exe(), lab_id, fixtures, g_dir, args);
    printf("cudalab run %s %s: exit %d\n%s", lab_id, args, *status, o.err);
    cJSON *doc = cJSON_Parse(o.out);
    if (!doc)
        fail_msg("not JSON: %.2000s", o.out);
    ts_output_free(&o);
    return doc;
}

static const cJSON *row(const cJSON *doc, const char *variant, const char *size)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "results"))
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, "variant");
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(r, "size");
        if (cJSON_IsString(v) && strcmp(v->valuestring, variant) == 0 && cJSON_IsString(s) &&
            strcmp(s->valuestring, size) == 0)
            return r;
    }
    char *text = cJSON_Print(doc);
    fail_msg("no row %s at %s in %s", variant, size, text);
    free(text);
    return NULL;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1.0;
}

static void expect(const cJSON *r, const char *status, const char *part)
{
    printf("  %-12s %-10s %-10s %8.4f ms %7.1f GB/s  %s\n", str(r, "variant"), str(r, "size"),
           str(r, "status"), num(r, "median_ms"), num(r, "gbps"), str(r, "message"));
    if (strcmp(str(r, "status"), status) != 0 || (part && !strstr(str(r, "message"), part)))
        fail_msg("row %s: expected %s%s%s, got %s: %s", str(r, "variant"), status,
                 part ? " saying " : "", part ? part : "", str(r, "status"),
                 str(r, "message"));
}

static void measured(const cJSON *r)
{
    expect(r, "correct", NULL);
    assert_true(num(r, "median_ms") > 0.0);
    assert_true(num(r, "gbps") > 0.0);
}

static void test_square(void **state)
{
    (void)state;
    int st;
    cJSON *doc = run_json("square", "--exercise --size 2^20 --size 2^16+3", &st);
    assert_int_equal(st, 0);
    for (int i = 0; i < 2; i++) {
        const char *size = i ? "2^16+3" : "2^20";
        measured(row(doc, "naive", size));
        measured(row(doc, "grid_stride", size));
        measured(row(doc, "exercise", size));
        const cJSON *copy = row(doc, "copy", size);
        measured(copy);
        assert_true(num(row(doc, "naive", size), "speedup_lib") > 0.0);
    }
    cJSON_Delete(doc);
}

static void test_builtin_scan(void **state)
{
    (void)state;
    int st;
    cJSON *doc = run_json("psum", "--exercise --size 2^16", &st);
    assert_int_equal(st, 0);
    measured(row(doc, "naive", "2^16"));
    measured(row(doc, "exercise", "2^16"));
    measured(row(doc, "cub_scan", "2^16"));
    const cJSON *cpu = row(doc, "cpu", "2^16");
    expect(cpu, "correct", NULL);
    assert_true(num(row(doc, "naive", "2^16"), "speedup_cpu") > 0.0);
    cJSON_Delete(doc);
}

static void test_reference_kernel(void **state)
{
    (void)state;
    int st;
    /* the first size is small enough for the Lua check; the second is not */
    cJSON *doc = run_json("rowsum", "--exercise --size 64x100 --size 4096x1024", &st);
    assert_int_equal(st, 1);   /* a wrong rung and a broken one */
    for (int i = 0; i < 2; i++) {
        const char *size = i ? "4096x1024" : "64x100";
        measured(row(doc, "thread_row", size));
        measured(row(doc, "exercise", size));
        expect(row(doc, "wrong", size), "wrong", NULL);
        expect(row(doc, "broken", size), "error", "rungs/broken.cu:");
    }
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(doc, "fault")));
    cJSON_Delete(doc);
}

static void test_reference_faults(void **state)
{
    (void)state;
    int st;
    cJSON *doc = run_json("badref", "--exercise --size 64x100", &st);
    assert_int_equal(st, 1);
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(doc, "fault");
    char *text = cJSON_Print(f);
    printf("fault: %s\n", text);
    free(text);
    assert_true(cJSON_IsObject(f));
    assert_string_equal(str(f, "variant"), "reference");
    if (!strstr(str(f, "message"), "badref/lab.lua:"))
        fail_msg("the fault does not name the lab's file: %s", str(f, "message"));
    /* the learner is not blamed: the diagnosis names the lab */
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(f, "diagnosis");
    assert_non_null(d);
    assert_string_equal(str(d, "cause"), "lab");
    cJSON_Delete(doc);
}

int main(void)
{
    device_info d;
    engine_probe(&d);
    if (!d.present) {
        printf("SKIP: %s\n", d.reason);
        return 77;
    }
    if (!ts_tmpdir(g_dir, sizeof g_dir, "decl-gpu"))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_square),
        cmocka_unit_test(test_builtin_scan),
        cmocka_unit_test(test_reference_kernel),
        cmocka_unit_test(test_reference_faults),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    ts_rm_rf(g_dir);
    return rc;
}

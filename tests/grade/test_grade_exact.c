/* test_grade_exact.c - verification is over exactly the document: bytes
 * before or after it, a key twice, a second signature or one out of its
 * place make a signed report tampered, in every format, for `verify` and
 * for `class`; the verdicts for unsigned and unreadable files stay. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cjson/cJSON.h>
#include <cmocka.h>

#include "core/jsondoc.h"
#include "grade/classview.h"
#include "grade/report.h"
#include "grade_fixture.h"
#include "support.h"

static char dir[CL_PATH_MAX];
static int fresh_count;

static int setup(void **state)
{
    (void)state;
    return ts_tmpdir(dir, sizeof dir, "exact") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ts_rm_rf(dir);
    return 0;
}

/* A new folder of signed reports (its path into out). */
static void fresh(char *out, size_t n)
{
    snprintf(out, n, "%s/r%d", dir, fresh_count++);
    grade_report r;
    gf_report(&r, "ada", 1.25, "00000000000000000000000000000000000000000000000000000000000000b2");
    gf_write_all(&r, out, true);
    grade_report_free(&r);
}

/* The verdict on file after before and after were put around it. */
static sign_verdict wrapped(const char *file, const char *before, const char *after)
{
    char out[CL_PATH_MAX + 16];
    fresh(out, sizeof out);
    gf_wrap(out, file, before, after);
    return gf_verdict(out, file, gf_key);
}

static void test_bytes_around(void **state)
{
    (void)state;
    static const char *const files[] = {"report.json", "results.json", "junit.xml", "grades.csv"};
    for (size_t i = 0; i < 4; i++) {
        printf("%s\n", files[i]);
        assert_int_equal(wrapped(files[i], "", "junk"), SIGN_TAMPERED);
        assert_int_equal(wrapped(files[i], "", "\n"), SIGN_TAMPERED);
        assert_int_equal(wrapped(files[i], "", "{}"), SIGN_TAMPERED);
        assert_int_equal(wrapped(files[i], " ", ""), SIGN_TAMPERED);
        assert_int_equal(wrapped(files[i], "\n", ""), SIGN_TAMPERED);
    }
    /* junk before a JSON document: not JSON any more */
    assert_int_equal(wrapped("report.json", "x", ""), SIGN_UNREADABLE);
    assert_int_equal(wrapped("junit.xml", "<!-- x -->", ""), SIGN_TAMPERED);
    /* the CSV's signature file with more in it */
    char out[CL_PATH_MAX + 16];
    fresh(out, sizeof out);
    gf_wrap(out, "grades.csv.sig", "", "x");
    assert_int_equal(gf_verdict(out, "grades.csv", gf_key), SIGN_TAMPERED);
    fresh(out, sizeof out);
    gf_wrap(out, "grades.csv.sig", "", "hmac-sha256 00\n");
    assert_int_equal(gf_verdict(out, "grades.csv", gf_key), SIGN_TAMPERED);
    fresh(out, sizeof out);
    gf_wrap(out, "grades.csv.sig", " ", "");
    assert_int_equal(gf_verdict(out, "grades.csv", gf_key), SIGN_TAMPERED);
}

static void test_keys_and_signatures(void **state)
{
    (void)state;
    char out[CL_PATH_MAX + 16];
    /* a key twice: the second "score" is what a lenient reader might take */
    fresh(out, sizeof out);
    gf_tamper(out, "report.json", "\"score\":\t4,", "\"score\":\t4,\n\t\"score\":\t6,");
    assert_int_equal(gf_verdict(out, "report.json", gf_key), SIGN_TAMPERED);
    fresh(out, sizeof out);
    gf_tamper(out, "results.json", "\"score\":\t4,", "\"score\":\t4,\n\t\"score\":\t6,");
    assert_int_equal(gf_verdict(out, "results.json", gf_key), SIGN_TAMPERED);
    /* a second signature, the same one again at the top */
    fresh(out, sizeof out);
    char *json = gf_read(out, "report.json");
    const char *sig = strstr(json, "\t\"signature\"");
    assert_non_null(sig);
    char block[512];
    snprintf(block, sizeof block, "{\n%.*s,\n", (int)(strchr(sig, '}') - sig + 1), sig);
    free(json);
    gf_tamper(out, "report.json", "{\n", block);
    assert_int_equal(gf_verdict(out, "report.json", gf_key), SIGN_TAMPERED);
    /* results.json with a report.json-style signature besides its own */
    fresh(out, sizeof out);
    gf_tamper(out, "results.json", "\t\"score\":", "\t\"signature\":\t{\n\t\t\"alg\":\t\"hmac-sha256\","
                                                  "\n\t\t\"value\":\t\"00\"\n\t},\n\t\"score\":");
    assert_int_equal(gf_verdict(out, "results.json", gf_key), SIGN_TAMPERED);
    /* a signature object with a field more */
    fresh(out, sizeof out);
    gf_tamper(out, "report.json", "\"alg\":\t\"hmac-sha256\",", "\"alg\":\t\"hmac-sha256\",\n"
                                                              "\t\t\"note\":\t\"x\",");
    assert_int_equal(gf_verdict(out, "report.json", gf_key), SIGN_TAMPERED);
    /* a second signature line in the XML */
    fresh(out, sizeof out);
    char *xml = gf_read(out, "junit.xml");
    const char *mark = strstr(xml, "<!-- cudalab-signature");
    assert_non_null(mark);
    gf_wrap(out, "junit.xml", "", mark);
    free(xml);
    assert_int_equal(gf_verdict(out, "junit.xml", gf_key), SIGN_TAMPERED);
}

/* Without a signature, or unreadable: as before. */
static void test_other_verdicts(void **state)
{
    (void)state;
    char out[CL_PATH_MAX + 16];
    snprintf(out, sizeof out, "%s/plain", dir);
    grade_report r;
    gf_report(&r, "ada", 1.25, "00000000000000000000000000000000000000000000000000000000000000b2");
    gf_write_all(&r, out, false);
    grade_report_free(&r);
    assert_int_equal(gf_verdict(out, "report.json", gf_key), SIGN_UNSIGNED);
    assert_int_equal(gf_verdict(out, "junit.xml", gf_key), SIGN_UNSIGNED);
    assert_int_equal(gf_verdict(out, "grades.csv", gf_key), SIGN_UNSIGNED);
    char path[CL_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/bin.json", out);
    assert_true(ts_write(path, "{\"a\": 1}"));
    assert_int_equal(gf_verdict(out, "bin.json", gf_key), SIGN_UNSIGNED);
    assert_true(ts_write(path, "not json at all"));
    assert_int_equal(gf_verdict(out, "bin.json", gf_key), SIGN_UNREADABLE);
    assert_int_equal(gf_verdict(out, "missing.json", gf_key), SIGN_UNREADABLE);
    /* A report of the first format is not called tampered: it is not read. */
    char old[CL_PATH_MAX + 16], why[256], file[CL_PATH_MAX + 32];
    fresh(old, sizeof old);
    gf_tamper(old, "report.json", "\"format_version\":\t2", "\"format_version\":\t1");
    snprintf(file, sizeof file, "%s/report.json", old);
    assert_int_equal(sign_verify_file(file, gf_key, strlen(gf_key), why, sizeof why),
                     SIGN_UNREADABLE);
    assert_true(ts_contains(why, "older format"));
}

/* The class view refuses the same files, with a key or without one. */
static void test_class_refuses(void **state)
{
    (void)state;
    char cls[CL_PATH_MAX + 16], sub[CL_PATH_MAX + 32];
    snprintf(cls, sizeof cls, "%s/class", dir);
    const char *names[] = {"ada", "bob", "cy"};
    for (int i = 0; i < 3; i++) {
        grade_report r;
        char sha[65];
        snprintf(sha, sizeof sha, "%064d", i);
        gf_report(&r, names[i], 1.0 + i, sha);
        snprintf(sub, sizeof sub, "%s/%s", cls, names[i]);
        gf_write_all(&r, sub, true);
        grade_report_free(&r);
    }
    snprintf(sub, sizeof sub, "%s/bob", cls);
    gf_wrap(sub, "report.json", "", "{\"learner\": \"mallory\"}");
    snprintf(sub, sizeof sub, "%s/cy", cls);
    gf_tamper(sub, "report.json", "\"score\":\t4,", "\"score\":\t4,\n\t\"score\":\t6,");
    for (int with_key = 0; with_key < 2; with_key++) {
        class_opts o = {.key = with_key ? gf_key : NULL, .keylen = with_key ? strlen(gf_key) : 0};
        class_view v;
        cl_err e = {{0}};
        assert_true(class_load(cls, &o, &v, &e));
        assert_int_equal(v.nrows, 1);
        assert_string_equal(v.files[v.rows[0]].rep.learner, "ada");
        int seen = 0;
        for (size_t i = 0; i < v.nfiles; i++) {
            const class_file *f = &v.files[i];
            printf("  %s: %s\n", f->path, f->problem);
            if (strstr(f->path, "/bob/"))
                seen += ts_contains(f->problem, "after the end of the document");
            if (strstr(f->path, "/cy/"))
                seen += ts_contains(f->problem, "the key 'score' appears twice");
        }
        assert_int_equal(seen, 2);
        class_free(&v);
    }
}

/* Rows as a real run fills them, with every awkward number and text: a
 * report of them reads back as exactly what cudalab wrote, signed or not. */
static void test_real_rows(void **state)
{
    (void)state;
    static const double values[] = {0.1, 1.0 / 3.0, 2.675, 1e-320, 1.7976931348623157e308,
                                    -0.0, 123456789.123456789, 5e-324, 0.30000000000000004};
    grade_report r;
    gf_report(&r, "ada", 0.123456789012345678, "00000000000000000000000000000000000000000000000000000000000000c3");
    grade_lab *gl = &r.labs[0];
    free(gl->rows);
    gl->nrows = 9;
    gl->rows = calloc(gl->nrows, sizeof *gl->rows);
    assert_non_null(gl->rows);
    for (size_t i = 0; i < gl->nrows; i++) {
        run_result *x = &gl->rows[i];
        run_result_init(x);
        double v = values[i];
        snprintf(x->variant, sizeof x->variant, "v%zu", i);
        snprintf(x->message, sizeof x->message, "line one\nline\ttwo \x1b[31m\xff %zu", i);
        x->median_ms = v, x->min_ms = v / 7, x->max_ms = v * 3, x->spread = 1.0 / (double)(i + 3);
        x->gbps = i % 2 ? -1.0 : v, x->tflops = NAN, x->pct_peak_measured = INFINITY;
        x->speedup_cpu = -INFINITY, x->rel_err = v * 1e-9, x->seed = UINT64_MAX - i;
        x->samples = (int)i, x->threads = 16, x->code = -(int)i, x->wall_ms = v * 1e6;
        x->nmismatch = 2;
        x->mismatches[0] = (mismatch){.index = INT64_MAX, .got = v, .expected = -v};
        x->mismatches[1] = (mismatch){.index = 0, .got = NAN, .expected = 1e300};
    }
    char out[CL_PATH_MAX + 16];
    for (int with_key = 0; with_key < 2; with_key++) {
        snprintf(out, sizeof out, "%s/real%d", dir, with_key);
        gf_write_all(&r, out, with_key);
        if (with_key)
            for (int i = 0; i < 2; i++)
                assert_int_equal(gf_verdict(out, i ? "results.json" : "report.json", gf_key),
                                 SIGN_VALID);
        char *text = gf_read(out, "report.json");
        cJSON *doc = NULL;
        char why[256];
        assert_int_equal(jsondoc_parse_file(text, strlen(text), &doc, why, sizeof why),
                         JSONDOC_EXACT);
        cJSON_Delete(doc);
        free(text);
        class_opts o = {.key = with_key ? gf_key : NULL, .keylen = with_key ? strlen(gf_key) : 0};
        class_view v;
        cl_err e = {{0}};
        assert_true(class_load(out, &o, &v, &e));
        assert_int_equal(v.nrows, 1);
        class_free(&v);
    }
    grade_report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_around),
        cmocka_unit_test(test_keys_and_signatures),
        cmocka_unit_test(test_other_verdicts),
        cmocka_unit_test(test_class_refuses),
        cmocka_unit_test(test_real_rows),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

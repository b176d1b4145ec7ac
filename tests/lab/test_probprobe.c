/* The problems a lab declares tried without a GPU (lab/probprobe.h), as
 * `cudalab check` tries them: a Lua reference that raises, loops, leaves
 * an element unwritten or makes NaN (at the smallest size or at a larger
 * one), a judge that fails or rejects the exact answer, a rule tighter
 * than its output type's rounding, a view kept past its call, errors
 * inside errors and a memory hog each become one diagnostic at the lab
 * file's line; a sound problem gives none; a copy bar beside a one-element
 * output gives a warning that stops nothing.  The fixtures are tests/lab/fixtures/probe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "lab/labmodel.h"
#include "lab/milestone.h"
#include "lab/probdecl.h"
#include "lab/probprobe.h"
#include "support.h"

/* Loads fixture dir/name, which must load cleanly, and probes it into d. */
static void probe(const char *dir, const char *name, lab_diags *d)
{
    char path[4096], home[4096];
    ts_data_path(path, sizeof path, "lab/fixtures/%s/%s/lab.lua", dir, name);
    ts_home_path(home, sizeof home, "%s", "");
    size_t nd = 0;
    lab *l = ts_lab_load(path, home, &nd);
    if (!l || nd)
        fail_msg("fixture %s did not load cleanly (%zu diagnostics)", name, nd);
    lab_probe_problems(l, d);
    lab_free(l);
}

/* Fixture name gives exactly one diagnostic (no warning), at line, whose
 * message holds each of the texts. */
static void expect_one_of(const char *name, int line, int alt, const char *const *texts,
                          size_t n)
{
    lab_diags d = {0};
    probe("probe", name, &d);
    if (d.n != 1)
        fail_msg("%s: %zu diagnostics, expected 1%s%s", name, d.n, d.n ? ": " : "",
                 d.n ? d.v[0].msg : "");
    const lab_diag *g = &d.v[0];
    if ((g->line != line && g->line != alt) || g->warning || !strstr(g->file, name))
        fail_msg("%s: at %s:%d (warning %d), expected line %d", name, g->file, g->line,
                 g->warning, line);
    for (size_t i = 0; i < n; i++)
        if (!strstr(g->msg, texts[i]))
            fail_msg("%s: expected \"%s\" in \"%s\"", name, texts[i], g->msg);
    lab_diags_free(&d);
}

static void expect_one(const char *name, int line, const char *const *texts, size_t n)
{
    expect_one_of(name, line, line, texts, n);
}

#define EXPECT(name, line, ...)                                                        \
    do {                                                                               \
        static const char *const texts_[] = {__VA_ARGS__};                             \
        expect_one(name, line, texts_, sizeof texts_ / sizeof texts_[0]);              \
    } while (0)

static void test_references(void **state)
{
    (void)state;
    /* the error at the line Lua names; the smallest of the lab's sizes */
    EXPECT("refraise", 13, "problem 'refraise': reference: attempt to index a nil value (field 'w')",
           "size 2^10");
    /* at the reference's own line */
    EXPECT("refunwritten", 11, "problem 'refunwritten': reference: left y[1023] unwritten",
           "1 of the 1024 elements of y");
    EXPECT("refnan", 11, "reference: set y[", "] to NaN");
    /* stopped by the reference's time limit, at the line it was running */
    EXPECT("refloop", 13, "reference: ", "script ran longer than");
    EXPECT("hostilerr", 13, "problem 'hostilerr': reference: again");
    /* tried at a larger size too: the largest of at most 2^18 elements (2^14
     * here; 2^21, 2^22 elements in all, is past the bound) */
    EXPECT("refbig", 14, "problem 'refbig': reference: ", "only the first 1024 inputs were read",
           "size 2^14, inputs as a run makes them");
}

static void test_judges(void **state)
{
    (void)state;
    /* a judge must accept the reference's own answer rounded to the output's type */
    EXPECT("judgereject", 10, "problem 'judgereject': judge of 'y': it rejects the reference's "
                              "own answer, rounded to f32",
           "y[0] differs");
    EXPECT("judgeerror", 11, "judge of 'y': index 1024 is outside the view (0 to 1023)");
    /* a view lives only during its call */
    EXPECT("kept", 12, "judge of 'y': this view has expired");
    /* the judge's own words, as they are (check's printing escapes them) */
    EXPECT("ctljudge", 10, "judge of 'y': it rejects the reference's own answer", ": no \033]0;");
    /* a memory hog is stopped by a limit of the sandbox: the memory limit, at
     * the line that allocated (12), or, where the build runs slowly (ASan),
     * the time limit first, at the output's line (9) */
    {
        static const char *const hog[] = {"problem 'hog': judge of 'y': ", "script"};
        expect_one_of("hog", 12, 9, hog, 2);
    }
    /* "exact" against a reference its type cannot hold */
    EXPECT("exactthird", 9, "problem 'exactthird': output 'y': it is judged \"exact\", but the "
                            "reference's y[0] = ", "is not a value of f32");
    /* a tolerance tighter than the output type's rounding */
    EXPECT("tolthird", 10, "problem 'tolthird': output 'y': its rule { rel = 1e-09 } rejects the "
                           "reference's own answer rounded to f32: y[", "no kernel writing f32 can "
                           "pass");
    EXPECT("tolhalf", 9, "problem 'tolhalf': output 'y': its rule { abs = 0.1 } rejects the "
                          "reference's own answer rounded to i32: y[", "off by 0.5");
}

static void test_sound_problem(void **state)
{
    (void)state;
    lab_diags d = {0};
    probe("probe", "good", &d);
    if (d.n)
        fail_msg("the sound problem: %s:%d: %s", d.v[0].file, d.v[0].line, d.v[0].msg);
    lab_diags_free(&d);
}

/* The sizes a Lua reference may take (lab/probcap.c): `run --size`
 * refuses a larger one, naming the largest that fits. */
static void test_reference_size_bound(void **state)
{
    (void)state;
    char path[4096], home[4096], best[64];
    ts_data_path(path, sizeof path, "lab/fixtures/probe/good/lab.lua");
    ts_home_path(home, sizeof home, "%s", "");
    lab *l = ts_lab_load(path, home, NULL);
    assert_non_null(l);
    const problem_decl *d = &l->decls[0];
    problem_dims dims;
    cl_err e = {{0}};
    /* five buffers of n elements: 2^20 is over 2^22 in all, 2^19 is not */
    assert_true(probdecl_parse(d, "2^20", &dims, NULL));
    assert_false(probdecl_ref_cap_check(d, &dims, l->sizes, l->nsizes, &e));
    assert_true(ts_contains(e.msg, "problem good has a Lua reference, which runs only where the "
                                   "buffers hold at most 2^22 elements in all (4194304); this "
                                   "size's hold 5242880; the largest size that fits is 838860"));
    assert_true(probdecl_parse(d, "2^19", &dims, NULL));
    assert_true(probdecl_ref_cap_check(d, &dims, l->sizes, l->nsizes, &e));
    assert_true(probdecl_largest_ref_size(d, l->sizes, l->nsizes, best, sizeof best));
    assert_string_equal(best, "838860");   /* floor(2^22 / 5) */
    /* without `bytes`, a milestone is judged at the size of most buffer
     * bytes, not at the first listed */
    assert_string_equal(lab_milestone_size(l, 0), "2^10+1");
    lab_free(l);
}

static void test_copy_bar_advice(void **state)
{
    (void)state;
    lab_diags d = {0};
    probe("probeadvice", "copysum", &d);
    assert_int_equal(d.n, 1);
    assert_true(d.v[0].warning);
    assert_int_equal(lab_diags_errors(&d), 0);
    assert_int_equal(d.v[0].line, 18);
    assert_true(ts_contains(d.v[0].msg, "library \"copy\": the copy row times a device-to-device "
                                        "copy of the outputs (4 B at size 2^20)"));
    assert_true(ts_contains(d.v[0].msg, "\"x lib\" against it will mean little"));
    lab_diags_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_references),
        cmocka_unit_test(test_judges),
        cmocka_unit_test(test_sound_problem),
        cmocka_unit_test(test_reference_size_bound),
        cmocka_unit_test(test_copy_bar_advice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

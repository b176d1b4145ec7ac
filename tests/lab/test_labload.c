/* Tests for loading labs: the shipped labs, lab sets, and a corpus of bad
 * lab files (tests/lab/bad/<case>/lab.lua), each of which starts with
 *   -- expect: <part of the message>
 *   -- line: <line the message must name>      (optional) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "core/paths.h"
#include "cputime.h"
#include "lab/labmodel.h"
#include "lab/milestone.h"
#include "support.h"

static char g_home[CL_PATH_MAX];
static char g_data[CL_PATH_MAX];

static void print_diags(const lab_diags *d)
{
    for (size_t i = 0; i < d->n; i++)
        fprintf(stderr, "  %s:%d: %s\n", d->v[i].file, d->v[i].line, d->v[i].msg);
}

static int setup(void **state)
{
    (void)state;
    const char *home = getenv("CUDALAB_HOME");
    const char *data = getenv("CUDALAB_TEST_DATA");
    if (!home || !data)
        return -1;
    snprintf(g_home, sizeof g_home, "%s", home);
    snprintf(g_data, sizeof g_data, "%s", data);
    return 0;
}

static lab *load_shipped(const char *id)
{
    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/labs/%s/lab.lua", g_home, id);
    size_t ndiags = 0;
    lab *l = ts_lab_load(path, g_home, &ndiags);
    if (ndiags)
        fail_msg("lab '%s' loaded with %zu problems", id, ndiags);
    assert_non_null(l);
    assert_string_equal(l->id, id);
    assert_non_null(l->title);
    assert_true(l->nsteps >= 3);
    for (size_t i = 0; i < l->nsteps; i++) {
        assert_true(strlen(l->steps[i].title) > 0);
        assert_true(strlen(l->steps[i].body) > 80);
        assert_true(l->steps[i].line > 0);
    }
    for (size_t q = 0; q < l->nquizzes; q++) {
        assert_true(l->quizzes[q].nchoices >= 3 && l->quizzes[q].nchoices <= 4);
        size_t ncorrect = 0;
        for (size_t c = 0; c < l->quizzes[q].nchoices; c++) {
            ncorrect += l->quizzes[q].choices[c].correct;
            assert_true(strlen(l->quizzes[q].choices[c].feedback) > 20);
        }
        assert_int_equal(ncorrect, 1);
    }
    for (size_t m = 0; m < l->nmilestones; m++) {
        const lab_milestone *ms = &l->milestones[m];
        assert_true((ms->quiz != NULL) != (ms->check_ref != LUA_NOREF));
        if (!ms->quiz)
            assert_non_null(ms->target);
    }
    return l;
}

static void assert_variants(const lab *l, const char *const *ids, const char *const *kernels,
                            size_t n)
{
    assert_int_equal(l->nvariants, n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(l->variants[i].id, ids[i]);
        assert_string_equal(l->variants[i].kernel, kernels[i]);
        assert_true(strlen(l->variants[i].title) > 0);
        assert_true(strlen(l->variants[i].why) > 20);
    }
}

static void assert_sizes(const lab *l, const char *const *sizes, size_t n)
{
    assert_int_equal(l->nsizes, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(l->sizes[i], sizes[i]);
}

static bool has_milestone_quiz(const lab *l)
{
    for (size_t i = 0; i < l->nmilestones; i++)
        if (l->milestones[i].quiz)
            return true;
    return false;
}

static void test_reduction(void **state)
{
    (void)state;
    lab *l = load_shipped("reduction");
    assert_string_equal(l->problem, "reduce_sum");
    assert_string_equal(l->library, "cub");
    static const char *const sizes[] = {"2^20", "2^24", "2^28"};
    assert_sizes(l, sizes, 3);
    static const char *const ids[] = {"interleaved", "strided", "sequential",
                                      "first_add", "warp_shuffle", "vectorized"};
    static const char *const kernels[] = {"reduce_interleaved_divergent", "reduce_interleaved_strided",
                                          "reduce_sequential", "reduce_first_add",
                                          "reduce_warp_shuffle", "reduce_vectorized"};
    assert_variants(l, ids, kernels, 6);
    assert_true(l->nmilestones >= 2 && has_milestone_quiz(l));
    lab_free(l);
}

static void test_matmul(void **state)
{
    (void)state;
    lab *l = load_shipped("matmul");
    assert_string_equal(l->problem, "sgemm");
    assert_string_equal(l->library, "cublas");
    static const char *const sizes[] = {"1024x1024x1024", "2048x2048x2048", "4096x4096x4096"};
    assert_sizes(l, sizes, 3);
    static const char *const ids[] = {"naive",      "coalesced", "smem_tiled", "blocktile_1d",
                                      "blocktile_2d", "vectorized", "warptile", "wmma_tf32",
                                      "wmma_bf16",  "wmma_async", "wgmma", "wgmma_persist",
                                      "wgmma_cluster", "wgmma_tmastore"};
    static const char *const kernels[] = {"sgemm_naive", "sgemm_coalesced", "sgemm_smem_tiled",
                                          "sgemm_blocktile_1d", "sgemm_blocktile_2d",
                                          "sgemm_vectorized", "sgemm_warptile", "gemm_wmma_tf32",
                                          "gemm_wmma_bf16", "gemm_wmma_async", "gemm_wgmma",
                                          "gemm_wgmma_persist", "gemm_wgmma_cluster",
                                          "gemm_wgmma_tmastore"};
    assert_variants(l, ids, kernels, 14);
    assert_true(l->nmilestones >= 2 && has_milestone_quiz(l));
    lab_free(l);
}

static void test_embedding(void **state)
{
    (void)state;
    lab *l = load_shipped("embedding");
    assert_string_equal(l->problem, "embedding");
    assert_string_equal(l->library, "copy");
    static const char *const sizes[] = {"4096x1024x32000", "16384x4096x32000"};
    assert_sizes(l, sizes, 2);
    static const char *const ids[] = {"naive", "warp_row", "vectorized"};
    static const char *const kernels[] = {"embed_naive", "embed_warp_row", "embed_vectorized"};
    assert_variants(l, ids, kernels, 3);
    assert_true(l->nmilestones >= 3 && has_milestone_quiz(l));
    lab_free(l);
}

static void test_profiling(void **state)
{
    (void)state;
    lab *l = load_shipped("profiling");
    assert_string_equal(l->problem, "profiling");
    assert_null(l->library);
    static const char *const ids[] = {"transfers", "overlap", "stride", "gemv",
                                      "blocksize", "transpose", "timing", "roofline"};
    assert_variants(l, ids, ids, 8);
    static const char *const sizes[] = {"2^20", "2^22"};
    assert_sizes(l, sizes, 2);
    assert_string_equal(lab_own_exercise(l)->problem, "pipeline");
    assert_string_equal(lab_own_exercise(l)->kernel, "starter.cu");
    assert_string_equal(lab_own_exercise(l)->launcher, "starter.lua");
    assert_true(lab_own_exercise(l)->nhints >= 3);
    assert_true(l->nsteps >= 9);
    /* the report milestone stays; the 10x one moved to the pipeline lab */
    assert_int_equal(l->nmilestones, 1);
    assert_string_equal(l->milestones[0].target, ">= 3x");
    lab_free(l);
}

static void test_pipeline(void **state)
{
    (void)state;
    lab *l = load_shipped("pipeline");
    assert_string_equal(l->problem, "pipeline");
    assert_null(l->library);
    static const char *const ids[] = {"load",   "fill",   "filter",  "transform", "standardize",
                                      "binning", "encode", "groupby", "gemm",      "pipeline"};
    assert_variants(l, ids, ids, 10);
    static const char *const sizes[] = {"2^20", "2^24"};
    assert_sizes(l, sizes, 2);
    assert_string_equal(lab_own_exercise(l)->problem, "pipeline");
    assert_string_equal(lab_own_exercise(l)->kernel, "starter.cu");
    assert_string_equal(lab_own_exercise(l)->launcher, "starter.lua");
    assert_true(lab_own_exercise(l)->nhints >= 4);
    assert_true(l->nsteps >= 7);
    assert_int_equal(l->nmilestones, 3);
    assert_string_equal(l->milestones[0].id, "pipeline10x");
    assert_string_equal(l->milestones[0].target, ">= 10x");
    assert_string_equal(l->milestones[1].id, "steps5x");
    assert_string_equal(l->milestones[1].target, "slowest step >= 5x");
    /* judged at the large size */
    assert_string_equal(lab_milestone_size(l, 0), "2^24");
    assert_string_equal(lab_milestone_size(l, 1), "2^24");
    assert_true(has_milestone_quiz(l));
    lab_free(l);
}

static void test_set_finds_every_lab(void **state)
{
    (void)state;
    char dir[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/labs", g_home);
    const char *dirs[] = {dir};
    lab_set set = {0};
    lab_diags d = {0};
    cl_err e;
    assert_true(lab_set_load(&set, dirs, 1, g_home, &d, &e));
    print_diags(&d);
    assert_int_equal(d.n, 0);
    static const char *const order[] = {"basics", "profiling", "debugging", "python",
                                        "reduction", "matmul", "embedding", "scan",
                                        "pipeline", "stencil", "layernorm", "multigpu"};
    const size_t nlabs = sizeof order / sizeof order[0];
    assert_int_equal(set.n, nlabs);
    for (size_t i = 0; i < nlabs; i++)
        assert_string_equal(set.v[i]->id, order[i]);
    assert_non_null(lab_set_find(&set, "matmul"));
    assert_null(lab_set_find(&set, "nope"));
    lab_set_free(&set);

    /* The same folder twice: every lab is a duplicate the second time. */
    const char *twice[] = {dir, dir};
    assert_true(lab_set_load(&set, twice, 2, g_home, &d, &e));
    assert_int_equal(set.n, nlabs);
    assert_int_equal(d.n, nlabs);
    for (size_t i = 0; i < d.n; i++)
        assert_non_null(strstr(d.v[i].msg, "is already defined in"));
    lab_set_free(&set);
    lab_diags_free(&d);

    const char *missing[] = {"/nonexistent/labs", dir};
    assert_false(lab_set_load(&set, missing, 2, g_home, &d, &e));
    assert_non_null(strstr(e.msg, "cannot read lab folder /nonexistent/labs"));
    assert_int_equal(set.n, nlabs);
    lab_set_free(&set);
    lab_diags_free(&d);
}

static void test_good_fixture(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/lab/fixtures/withex/lab.lua", g_data);
    lab_diags d = {0};
    lab *l = lab_load(path, g_home, &d);
    print_diags(&d);
    assert_non_null(l);
    assert_int_equal(d.n, 0);
    assert_int_equal(l->order, 100);
    assert_true(l->time_limit_s == 120.0);
    assert_string_equal(l->summary, "");
    assert_string_equal(l->steps[0].title, "Indented");
    assert_string_equal(l->steps[0].body, "First line.\n\n  Indented more.\nLast line.");
    assert_string_equal(l->steps[1].title, "Table form");
    assert_string_equal(l->variants[0].why, "");
    assert_string_equal(l->sizes[0], "1048576");
    assert_string_equal(l->sizes[1], "2^20");
    assert_string_equal(l->sizes[2], "1<<10");
    assert_string_equal(lab_own_exercise(l)->kernel, "starter.cu");
    assert_string_equal(lab_own_exercise(l)->launcher, "starter.lua");
    assert_int_equal(lab_own_exercise(l)->nhints, 3);
    assert_string_equal(lab_own_exercise(l)->hints[1], "Second hint,\non two lines.");
    assert_string_equal(lab_own_exercise(l)->hints[2], "Third hint starts at the brackets,\nand goes on indented.");
    assert_string_equal(l->milestones[0].target, ">= 100x");
    assert_string_equal(l->milestones[1].target, "<= 2.5ms");
    assert_string_equal(l->milestones[2].target, "custom target");
    assert_null(l->milestones[3].target);
    assert_string_equal(l->milestones[4].target, "correct and >= 50%");
    assert_non_null(strstr(l->dir, "fixtures/withex"));
    lab_free(l);
}

static void test_profiling_problem(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/lab/fixtures/profdemo/lab.lua", g_data);
    lab_diags d = {0};
    lab *l = lab_load(path, g_home, &d);
    print_diags(&d);
    assert_non_null(l);
    assert_string_equal(l->problem, "profiling");
    assert_int_equal(l->nsizes, 0);
    assert_null(l->library);
    assert_int_equal(l->nvariants, 2);
    assert_string_equal(l->variants[0].kernel, "transfers");
    assert_string_equal(l->variants[1].kernel, "ignored_name");
    lab_free(l);
    lab_diags_free(&d);
}

/* A profiling lab's exercise solves the pipeline problem at the sizes it
 * declares, which become the lab's sizes; other labs' exercises solve the
 * lab's own problem. */
static void test_profiling_exercise(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/lab/fixtures/profex/lab.lua", g_data);
    lab_diags d = {0};
    lab *l = lab_load(path, g_home, &d);
    print_diags(&d);
    assert_non_null(l);
    assert_string_equal(l->problem, "profiling");
    assert_string_equal(lab_own_exercise(l)->problem, "pipeline");
    static const char *const sizes[] = {"1048576", "2^10", "4096"};
    assert_sizes(l, sizes, 3);
    assert_string_equal(l->variants[0].kernel, "transfers");
    lab_free(l);

    l = load_shipped("reduction");
    assert_non_null(lab_own_exercise(l)->kernel);
    assert_string_equal(lab_own_exercise(l)->problem, "reduce_sum");
    lab_free(l);
    lab_diags_free(&d);
}

/* A lab of several exercises: its own first (id "", the lab's problem and
 * sizes), then the listed ones in order, each with what it declares and
 * the lab's problem and sizes where it declares none. */
static void test_several_exercises(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/lab/fixtures/multiex/lab.lua", g_data);
    lab_diags d = {0};
    lab *l = lab_load(path, g_home, &d);
    print_diags(&d);
    assert_non_null(l);
    assert_int_equal(l->nexercises, 3);
    const lab_exercise *own = lab_own_exercise(l), *sum2 = lab_exercise_find(l, "sum2"),
                       *mm = lab_exercise_find(l, "mm");
    assert_ptr_equal(own, &l->exercises[0]);
    assert_ptr_equal(lab_exercise_find(l, NULL), own);
    assert_ptr_equal(sum2, &l->exercises[1]);
    assert_ptr_equal(mm, &l->exercises[2]);
    assert_null(lab_exercise_find(l, "nope"));
    assert_string_equal(own->problem, "reduce_sum");
    assert_int_equal(own->nsizes, 2);
    assert_string_equal(own->sizes[1], "2^24");
    assert_int_equal(own->nvariants, 0);
    assert_null(own->library);
    assert_string_equal(sum2->title, "A second sum");
    assert_string_equal(sum2->problem, "reduce_sum");
    assert_string_equal(sum2->kernel, "sum2/starter.cu");
    assert_int_equal(sum2->nsizes, 2);
    assert_string_equal(sum2->sizes[0], "2^20");
    assert_int_equal(sum2->nhints, 0);
    assert_string_equal(mm->problem, "sgemm");
    assert_string_equal(mm->library, "cublas");
    assert_int_equal(mm->nsizes, 2);
    assert_string_equal(mm->sizes[1], "512");
    assert_int_equal(mm->nvariants, 1);
    assert_string_equal(mm->variants[0].id, "naive");
    assert_string_equal(mm->variants[0].kernel, "sgemm_naive");
    assert_int_equal(mm->nhints, 2);
    assert_null(l->milestones[0].exercise);
    assert_string_equal(l->milestones[1].exercise, "sum2");
    assert_string_equal(l->milestones[2].exercise, "mm");
    char name[64];
    assert_string_equal(lab_exercise_name(own, name, sizeof name), "the exercise");
    assert_string_equal(lab_exercise_name(mm, name, sizeof name), "exercise 'mm'");
    lab_free(l);
    lab_diags_free(&d);
}

/* The example lab in lua/README.md loads as it is written. */
static void test_readme_example(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/lua/README.md", g_home);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[65536];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    const char *sec = strstr(text, "## A complete small lab");
    assert_non_null(sec);
    const char *start = strstr(sec, "```lua\n");
    assert_non_null(start);
    start += 7;
    const char *end = strstr(start, "```");
    assert_non_null(end);

    char dir[] = "/tmp/cudalab-readme-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char labdir[CL_PATH_MAX], file[CL_PATH_MAX];
    snprintf(labdir, sizeof labdir, "%s/mysum", dir);
    cl_err e;
    assert_true(paths_mkdir_p(labdir, &e));
    const char *names[] = {"lab.lua", "starter.cu", "starter.lua"};
    for (int i = 0; i < 3; i++) {
        snprintf(file, sizeof file, "%s/%s", labdir, names[i]);
        f = fopen(file, "w");
        assert_non_null(f);
        if (i == 0)
            fwrite(start, 1, (size_t)(end - start), f);
        fclose(f);
    }
    snprintf(file, sizeof file, "%s/lab.lua", labdir);
    lab_diags d = {0};
    lab *l = lab_load(file, g_home, &d);
    print_diags(&d);
    assert_non_null(l);
    assert_int_equal(d.n, 0);
    assert_int_equal(l->nvariants, 3);
    assert_int_equal(l->nmilestones, 3);
    assert_string_equal(l->milestones[1].target, ">= 0.8x");
    lab_free(l);
    lab_diags_free(&d);
    for (int i = 0; i < 3; i++) {
        snprintf(file, sizeof file, "%s/%s", labdir, names[i]);
        remove(file);
    }
    remove(labdir);
    remove(dir);
}

/* Reads the expectation lines at the top of a bad lab file. */
static void read_expect(const char *path, char *expect, size_t n, int *line)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char buf[1024];
    expect[0] = '\0';
    *line = 0;
    while (fgets(buf, sizeof buf, f) && strncmp(buf, "-- ", 3) == 0) {
        buf[strcspn(buf, "\n")] = '\0';
        if (strncmp(buf, "-- expect: ", 11) == 0)
            snprintf(expect, n, "%s", buf + 11);
        else if (strncmp(buf, "-- line: ", 9) == 0)
            *line = atoi(buf + 9);
    }
    fclose(f);
    if (!expect[0])
        fail_msg("%s has no '-- expect:' line", path);
}

static void test_bad_corpus(void **state)
{
    (void)state;
    char dir[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/lab/bad", g_data);
    DIR *dp = opendir(dir);
    assert_non_null(dp);
    struct dirent *de;
    int ncases = 0, nfail = 0;
    while ((de = readdir(dp)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char path[CL_PATH_MAX], expect[512];
        int line;
        snprintf(path, sizeof path, "%s/%s/lab.lua", dir, de->d_name);
        if (!paths_is_file(path))
            continue;
        read_expect(path, expect, sizeof expect, &line);
        ncases++;
        lab_diags d = {0};
        double t0 = cpu_time_s();
        lab *l = lab_load(path, g_home, &d);
        double dt = cpu_time_s() - t0;
        bool found = false;
        for (size_t i = 0; i < d.n; i++) {
            if (!strstr(d.v[i].msg, expect))
                continue;
            found = strcmp(d.v[i].file, path) == 0 && (line == 0 || d.v[i].line == line);
            if (found)
                break;
        }
        if (l || !found || dt >= 1.0) {
            nfail++;
            fprintf(stderr, "case %s: %s; expected \"%s\" at line %d, %.2f s of CPU; got:\n",
                    de->d_name, l ? "loaded" : "failed", expect, line, dt);
            print_diags(&d);
        }
        lab_free(l);
        lab_diags_free(&d);
    }
    closedir(dp);
    assert_true(ncases >= 40);
    assert_int_equal(nfail, 0);
}

/* Every problem in a lab is reported, not only the first. */
static void test_all_problems_reported(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/lab/fixtures/manyproblems/lab.lua", g_data);
    lab_diags d = {0};
    lab *l = lab_load(path, g_home, &d);
    assert_null(l);
    static const char *const want[] = {
        "unknown field 'titel'", "missing required field 'title'",
        "variant 'a': field 'kernel' must be a string, got number",
        "duplicate variant id 'b'", "milestone 'm' has no check function",
        "quiz 'q' has no correct choice",
    };
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        bool found = false;
        for (size_t i = 0; i < d.n; i++)
            found = found || strstr(d.v[i].msg, want[w]) != NULL;
        if (!found) {
            print_diags(&d);
            fail_msg("missing diagnostic: %s", want[w]);
        }
    }
    lab_diags_free(&d);
}

static void test_missing_files(void **state)
{
    (void)state;
    lab_diags d = {0};
    assert_null(lab_load("/nonexistent/lab.lua", g_home, &d));
    assert_int_equal(d.n, 1);
    assert_string_equal(d.v[0].msg, "no such lab file");
    lab_diags_free(&d);

    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/lab/fixtures/withex/lab.lua", g_data);
    assert_null(lab_load(path, "/nonexistent-home", &d));
    assert_int_equal(d.n, 1);
    assert_non_null(strstr(d.v[0].msg, "cannot open /nonexistent-home/lua/lab.lua"));
    lab_diags_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduction),
        cmocka_unit_test(test_matmul),
        cmocka_unit_test(test_embedding),
        cmocka_unit_test(test_profiling),
        cmocka_unit_test(test_pipeline),
        cmocka_unit_test(test_set_finds_every_lab),
        cmocka_unit_test(test_good_fixture),
        cmocka_unit_test(test_profiling_problem),
        cmocka_unit_test(test_profiling_exercise),
        cmocka_unit_test(test_several_exercises),
        cmocka_unit_test(test_readme_example),
        cmocka_unit_test(test_bad_corpus),
        cmocka_unit_test(test_all_problems_reported),
        cmocka_unit_test(test_missing_files),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}

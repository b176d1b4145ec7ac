/* The data-pipeline lab without a GPU: the data set (deterministic for a
 * seed whatever the thread count, its documented distributions, fixed
 * counts of missing values for a seed), its file in the cache (written,
 * checked, and made again with a message when missing, truncated, from
 * another table or damaged), the algorithms under the CPU steps (selection,
 * radix sort, log1p, the matrix product), every CPU step on one thread and
 * on several against the double-precision reference at awkward sizes, the
 * checker catching wrong, unwritten and non-finite outputs by name, and
 * bad sizes refused with their numbers. */
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

#include "core/paths.h"
#include "cpu/cpuinfo.h"
#include "cpu/prep_algo.h"
#include "cpu/prep_check.h"
#include "cpu/prep_cpu.h"
#include "cpu/prep_file.h"
#include "cpu/prep_ref.h"
#include "support.h"

/* For the default seed at 65536 rows: missing values in all numeric
 * columns, rows paid with type 5, and the sum of the rows' days. */
#define PREP_GOLDEN_MISSING 13038
#define PREP_GOLDEN_PAY5 1319
#define PREP_GOLDEN_DAYS 11953763

static char g_cache[CL_PATH_MAX];

/* A state of n rows holding the generated table. */
static void make_state(prep_state *st, int64_t n, uint64_t seed)
{
    cl_err e = {{0}};
    if (!prep_state_new(st, n, seed, &e))
        fail_msg("%s", e.msg);
    prep_generate(&st->raw, n, seed, 0);
}

/* ---- the data set ------------------------------------------------------------ */

static void test_deterministic(void **state)
{
    (void)state;
    const int64_t n = 100003;
    size_t bytes = prep_table_bytes(n);
    void *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    prep_cols ca, cb, cc;
    prep_cols_in(a, n, &ca);
    prep_cols_in(b, n, &cb);
    prep_cols_in(c, n, &cc);
    prep_generate(&ca, n, 7, 1);
    prep_generate(&cb, n, 7, 4);
    assert_memory_equal(a, b, bytes);
    /* a slice generated alone is the same slice */
    memset(c, 0, bytes);
    prep_generate_rows(&cc, n, 7, 5000, 5100);
    for (int64_t i = 5000; i < 5100; i++) {
        assert_int_equal(cc.zone[i], ca.zone[i]);
        assert_memory_equal(&cc.label[i], &ca.label[i], 4);
    }
    /* another seed, another table */
    prep_generate(&cb, n, 8, 2);
    assert_true(memcmp(a, b, bytes) != 0);
    free(a);
    free(b);
    free(c);
}

static double frac(int64_t k, int64_t n)
{
    return (double)k / (double)n;
}

static void test_distributions(void **state)
{
    (void)state;
    const int64_t n = 1 << 18;
    prep_state st;
    make_state(&st, n, PREP_DEFAULT_SEED);
    int64_t s = st.stride;
    static const double missing[PREP_NUM] = {.02, .015, .01, .03, .005, .04, .06, .02};
    for (int c = 0; c < PREP_NUM; c++) {
        int64_t k = 0;
        for (int64_t i = 0; i < n; i++)
            k += isnan(st.raw.num[c * s + i]);
        double f = frac(k, n);
        if (fabs(f - missing[c]) > 0.002)
            fail_msg("%s: %.4f missing, documented %.3f", prep_num_name(c), f, missing[c]);
    }
    int64_t refunds = 0, zero_tip = 0, tips = 0, zone0 = 0, pay0 = 0, rush = 0, night = 0;
    int64_t glitches = 0, cancelled = 0;
    for (int64_t i = 0; i < n; i++) {
        float fare = st.raw.num[i], dist = st.raw.num[s + i], dur = st.raw.num[2 * s + i];
        float tip = st.raw.num[3 * s + i];
        refunds += fare < 0.0f;
        glitches += dist > 100.0f;
        cancelled += dur == 0.0f;
        if (!isnan(tip)) {
            tips++;
            zero_tip += tip == 0.0f;
        }
        zone0 += st.raw.zone[i] == 0;
        pay0 += st.raw.pay[i] == 0;
        assert_true(st.raw.ts[i] >= 0 && st.raw.ts[i] < 366 * PREP_DAY);
        assert_true(st.raw.zone[i] >= 0 && st.raw.zone[i] < PREP_ZONES);
        assert_true(st.raw.pay[i] >= 0 && st.raw.pay[i] < PREP_PAY);
        int h = st.raw.ts[i] / 3600 % 24;
        rush += h == 8 || h == 18;
        night += h == 3;
        float pass = st.raw.num[4 * s + i];
        assert_true(isnan(pass) || (pass >= 1.0f && pass <= 6.0f && pass == floorf(pass)));
        float rating = st.raw.num[6 * s + i];
        assert_true(isnan(rating) || (rating >= 1.0f && rating <= 5.0f));
    }
    assert_true(fabs(frac(refunds, n) - 0.005 * 0.98) < 0.001);
    assert_true(fabs(frac(cancelled, n) - 0.004 * 0.99) < 0.001);
    assert_true(frac(glitches, n) > 0.001 && frac(glitches, n) < 0.003);
    assert_true(fabs(frac(zero_tip, tips) - 0.35) < 0.01);
    assert_true(fabs(frac(zone0, n) - log(2.0) / log(10001.0)) < 0.003);
    assert_true(fabs(frac(pay0, n) - 0.52) < 0.01);
    assert_true(rush > 4 * night);           /* the rush hours stand out */

    /* medians of the lognormal columns: e^2.5 fares, e^1.0 km */
    prep_cpu_fill(&st, 1);
    assert_true(fabs((double)st.median[0] - exp(2.5)) / exp(2.5) < 0.02);
    assert_true(fabs((double)st.median[1] - exp(1.0)) / exp(1.0) < 0.03);
    /* a quarter of the year is after the cut-off: about 75% of rows are kept */
    prep_cpu_filter(&st, 1);
    assert_true(frac(st.m, n) > 0.72 && frac(st.m, n) < 0.76);
    prep_state_free(&st);
}

/* The counts of missing values, refunds and zone-0 rows for the default
 * seed come from integer arithmetic only: the same on every machine. */
static void test_golden_counts(void **state)
{
    (void)state;
    const int64_t n = 65536;
    prep_state st;
    make_state(&st, n, PREP_DEFAULT_SEED);
    int64_t miss = 0, zone_pay = 0;
    for (int c = 0; c < PREP_NUM; c++)
        for (int64_t i = 0; i < n; i++)
            miss += isnan(st.raw.num[c * st.stride + i]);
    uint64_t days = 0;
    for (int64_t i = 0; i < n; i++) {
        zone_pay += st.raw.pay[i] == 5;
        days += (uint64_t)(st.raw.ts[i] / PREP_DAY);
    }
    print_message("missing %lld, pay 5 %lld, days %llu\n", (long long)miss, (long long)zone_pay,
                  (unsigned long long)days);
    assert_int_equal(miss, PREP_GOLDEN_MISSING);
    assert_int_equal(zone_pay, PREP_GOLDEN_PAY5);
    assert_int_equal(days, PREP_GOLDEN_DAYS);
    prep_state_free(&st);
}

/* ---- the file --------------------------------------------------------------------- */

static void ensure(int64_t n, uint64_t seed, void *block, bool *filled, char *note, size_t nl)
{
    char path[CL_PATH_MAX];
    cl_err e = {{0}};
    if (!prep_file_ensure(n, seed, block, 2, path, sizeof path, filled, note, nl, &e))
        fail_msg("%s", e.msg);
    assert_true(ts_starts_with(path, g_cache));
}

static void test_file(void **state)
{
    (void)state;
    const int64_t n = 5000;
    size_t bytes = prep_table_bytes(n);
    void *block = malloc(bytes), *want = malloc(bytes);
    assert_non_null(block);
    assert_non_null(want);
    prep_cols c;
    prep_cols_in(want, n, &c);
    prep_generate(&c, n, 99, 1);
    char path[CL_PATH_MAX], note[CL_PATH_MAX + 256];
    cl_err e = {{0}};
    assert_true(prep_file_path(n, 99, path, sizeof path, &e));
    assert_true(ts_contains(path, "/pipeline/trips-5000-99.bin"));

    /* missing: generated, with a message */
    bool filled = false;
    ensure(n, 99, block, &filled, note, sizeof note);
    assert_true(filled);
    assert_true(ts_contains(note, "was missing: generated 5000 rows (seed 99)"));
    assert_memory_equal(block, want, bytes);
    assert_true(prep_file_check(path, n, 99, NULL, 1, &e));
    /* read back by slices on several threads */
    memset(block, 0, bytes);
    assert_true(prep_file_read(path, block, n, 3, &e));
    assert_memory_equal(block, want, bytes);
    /* asked for another seed or size: a file of its own */
    assert_false(prep_file_check(path, n, 98, NULL, 1, &e));
    assert_true(ts_contains(e.msg, "another table"));

    /* damaged: one flipped bit in the body */
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, PREP_FILE_HEADER + 1234, SEEK_SET);
    int ch = fgetc(f);
    fseek(f, PREP_FILE_HEADER + 1234, SEEK_SET);
    fputc(ch ^ 0x10, f);
    fclose(f);
    assert_false(prep_file_check(path, n, 99, NULL, 2, &e));
    assert_true(ts_contains(e.msg, "damaged: its checksum does not match"));
    sleep(1);   /* a new modification time: the process no longer trusts the file */
    ensure(n, 99, block, &filled, note, sizeof note);
    assert_true(ts_contains(note, "damaged"));
    assert_memory_equal(block, want, bytes);

    /* truncated */
    assert_int_equal(truncate(path, 1000), 0);
    ensure(n, 99, block, &filled, note, sizeof note);
    assert_true(ts_contains(note, "1000 bytes instead of"));
    /* not ours */
    f = fopen(path, "r+b");
    assert_non_null(f);
    fputs("NOTADATA", f);
    fclose(f);
    sleep(1);
    ensure(n, 99, block, &filled, note, sizeof note);
    assert_true(ts_contains(note, "not a cudalab data set"));
    /* good and trusted now: not read again */
    memset(block, 0, bytes);
    ensure(n, 99, block, &filled, note, sizeof note);
    assert_false(filled);
    assert_string_equal(note, "");
    /* another seed's file replaces the previous other seed's, not the default's */
    char other[CL_PATH_MAX], dflt[CL_PATH_MAX];
    ensure(n, PREP_DEFAULT_SEED, block, &filled, note, sizeof note);
    ensure(n, 7, block, &filled, note, sizeof note);
    assert_true(prep_file_path(n, 7, other, sizeof other, &e));
    assert_true(prep_file_path(n, PREP_DEFAULT_SEED, dflt, sizeof dflt, &e));
    assert_true(paths_is_file(other) && paths_is_file(dflt) && !paths_is_file(path));
    ensure(n, 8, block, &filled, note, sizeof note);
    assert_false(paths_is_file(other));
    assert_true(paths_is_file(dflt));
    /* the checksum is the same whatever the thread count */
    assert_true(prep_checksum(want, bytes, 1) == prep_checksum(want, bytes, 7));
    free(block);
    free(want);
}

/* ---- algorithms ---------------------------------------------------------------------- */

static int cmpu(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void test_algorithms(void **state)
{
    (void)state;
    /* keys order floats exactly, -0 before +0 */
    const float order[] = {-INFINITY, -3.5f, -1e-30f, -0.0f, 0.0f, 1e-30f, 2.0f, INFINITY};
    for (size_t i = 0; i + 1 < sizeof order / sizeof order[0]; i++) {
        assert_true(prep_key(order[i]) < prep_key(order[i + 1]));
        assert_true(prep_unkey(prep_key(order[i])) == order[i]);
    }
    const size_t n = 200003;
    uint32_t *v = malloc(n * 4), *w = malloc(n * 4), *t = malloc(n * 4);
    float *f = malloc(n * 4);
    assert_non_null(v);
    assert_non_null(w);
    assert_non_null(t);
    assert_non_null(f);
    for (size_t i = 0; i < n; i++) {
        f[i] = (float)((double)((i * 2654435761u) % 100000u) - 50000.0) / 7.0f;
        v[i] = prep_key(f[i]);
        if (i % 10 == 0)
            v[i] = prep_key(1.0f);            /* many ties */
        f[i] = prep_unkey(v[i]);
    }
    memcpy(w, v, n * 4);
    qsort(w, n, 4, cmpu);
    uint32_t *sorted = prep_radix_sort(memcpy(t, v, n * 4), malloc(n * 4), n, 1);
    assert_memory_equal(sorted, w, n * 4);
    free(sorted);
    uint32_t *copy = malloc(n * 4);
    assert_non_null(copy);
    sorted = prep_radix_sort(memcpy(copy, v, n * 4), t, n, 4);
    assert_memory_equal(sorted, w, n * 4);
    free(copy);
    static const size_t ks[] = {0, 1, 100, 100001, 200002};
    size_t ranks[5];
    uint32_t got[5];
    for (size_t i = 0; i < 5; i++) {
        memcpy(t, v, n * 4);
        assert_true(prep_select(t, n, ks[i]) == w[ks[i]]);
        ranks[i] = ks[i];
    }
    prep_hist_select(f, n, ranks, 5, got, 3);
    for (size_t i = 0; i < 5; i++)
        assert_true(got[i] == w[ks[i]]);

    /* log1p within 2 units in the last place, on every vector path */
    const cpu_simd paths[] = {CPU_SIMD_SCALAR, CPU_SIMD_SSE2, CPU_SIMD_AVX2, CPU_SIMD_AVX512};
    cpu_simd was = cpu_simd_level();
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        if (!cpu_simd_force(paths[p]))
            continue;
        float x[1003], y[1003];
        for (int i = 0; i < 1003; i++)
            x[i] = i == 0 ? 0.0f : powf(10.0f, -9.0f + 12.0f * (float)i / 1003.0f);
        prep_log1p_clip(x, y, 1003, 1e30f);
        for (int i = 0; i < 1003; i++) {
            double want = log1p((double)x[i]);
            double ulp = (double)nextafterf((float)want, INFINITY) - (double)(float)want;
            if (fabs((double)y[i] - want) > 2.0 * ulp)
                fail_msg("%s: log1p(%g) = %.9g, want %.9g", cpu_simd_name(paths[p]),
                         (double)x[i], (double)y[i], want);
        }
        prep_log1p_clip(x, y, 5, 1e30f);
        assert_true(y[0] == 0.0f);
    }
    cpu_simd_force(was);
    free(v);
    free(w);
    free(t);
    free(f);
}

/* ---- the CPU steps against the reference ------------------------------------------------ */

/* Runs every step on threads threads, each after poisoning its outputs, and
 * checks it against the reference of its own inputs. */
static void run_and_check(prep_state *st, prep_ref *r, int threads)
{
    void *buf = malloc(prep_check_buf_bytes(st->n));
    assert_non_null(buf);
    prep_src src = prep_src_state(st);
    for (int s = PREP_FILL; s <= PREP_GEMM; s++) {
        prep_poison_state(st, (prep_step)s);
        cl_err e = {{0}};
        assert_true(prep_cpu_step(st, (prep_step)s, NULL, threads, &e));
        prep_ref_step(r, st, (prep_step)s, 2);
        prep_report rep;
        assert_true(prep_check_step(r, st, (prep_step)s, &src, buf, 2, &rep, &e));
        if (rep.c.status != CHECK_OK) {
            char msg[1024];
            prep_report_describe(&rep, msg, sizeof msg);
            fail_msg("%lld rows, %d threads, %s: %s", (long long)st->n, threads,
                     prep_step_id((prep_step)s), msg);
        }
    }
    /* everything at once, as after a whole run */
    prep_report rep;
    cl_err e = {{0}};
    assert_true(prep_check_all(r, st, &src, buf, 2, &rep, &e));
    assert_int_equal(rep.c.status, CHECK_OK);
    assert_true(rep.total > 0);
    free(buf);
}

static void test_steps(void **state)
{
    (void)state;
    static const int64_t sizes[] = {1, 2, 31, 33, 1000, 65539, 300007};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (int threads = 1; threads <= 4; threads += 3) {
            prep_state st;
            prep_ref r;
            cl_err e = {{0}};
            make_state(&st, sizes[k], 11 + k);
            assert_true(prep_ref_new(&r, sizes[k], &e));
            run_and_check(&st, &r, threads);
            if (sizes[k] >= 1000) {
                assert_true(st.m > 0 && st.m < st.n);
                /* the bins spread the kept fares evenly */
                int64_t first = 0;
                for (int64_t i = 0; i < st.m; i++)
                    first += st.X[PREP_X_BIN * st.stride + i] == 0.0f;
                assert_true(llabs(first - st.m / PREP_BINS) <= st.m / 100 + 2);
            }
            prep_ref_free(&r);
            prep_state_free(&st);
        }
    }
}

/* Rows nothing survives, and columns with no value at all. */
static void test_degenerate(void **state)
{
    (void)state;
    prep_state st;
    prep_ref r;
    cl_err e = {{0}};
    make_state(&st, 200, 5);
    assert_true(prep_ref_new(&r, 200, &e));
    for (int64_t i = 0; i < 200; i++) {
        st.raw.num[i] = NAN;                          /* no fares at all: median 0 */
        st.raw.num[5 * st.stride + i] = 7.0f;         /* a constant column */
    }
    run_and_check(&st, &r, 1);
    assert_true(st.median[0] == 0.0f);
    assert_int_equal(st.m, 0);                        /* fare 0 is not > 0 */
    for (int64_t i = 0; i < 200; i++)
        st.raw.num[i] = 10.0f;
    run_and_check(&st, &r, 3);
    assert_true(st.m > 0);
    assert_true(st.stats[PREP_NUM + 5] == 0.0f);      /* constant: deviation 0, z 0 */
    assert_true(st.X[(PREP_X_Z + 5) * st.stride] == 0.0f);
    prep_ref_free(&r);
    prep_state_free(&st);
}

/* ---- the checker ------------------------------------------------------------------------- */

static void expect_fail(prep_state *st, prep_ref *r, prep_step s, check_status want,
                        const char *words)
{
    void *buf = malloc(prep_check_buf_bytes(st->n));
    assert_non_null(buf);
    prep_src src = prep_src_state(st);
    prep_report rep;
    cl_err e = {{0}};
    assert_true(prep_check_step(r, st, s, &src, buf, 2, &rep, &e));
    char msg[1024];
    prep_report_describe(&rep, msg, sizeof msg);
    if (rep.c.status != want || !strstr(msg, words))
        fail_msg("%s: got \"%s\", wanted %s with \"%s\"", prep_step_id(s), msg,
                 check_status_name(want), words);
    free(buf);
}

static void test_checker(void **state)
{
    (void)state;
    prep_state st;
    prep_ref r;
    cl_err e = {{0}};
    make_state(&st, 4096, 3);
    assert_true(prep_ref_new(&r, 4096, &e));
    run_and_check(&st, &r, 1);
    int64_t s = st.stride;

    float keep = st.X[(PREP_X_Z + 3) * s + 17];
    st.X[(PREP_X_Z + 3) * s + 17] = keep * 1.01f + 0.01f;
    expect_fail(&st, &r, PREP_STANDARDIZE, CHECK_WRONG, "wrong: X[z_tip]: 1 of");
    st.X[(PREP_X_Z + 3) * s + 17] = nextafterf(keep, INFINITY);   /* within the tolerance */
    expect_fail(&st, &r, PREP_STANDARDIZE, CHECK_OK, "ok");
    st.X[(PREP_X_Z + 3) * s + 17] = keep;

    int32_t z = st.kept.zone[5];
    st.kept.zone[5] = (z + 1) % PREP_ZONES;           /* exact columns allow nothing */
    expect_fail(&st, &r, PREP_FILTER, CHECK_WRONG, "kept_zone: 1 of");
    st.kept.zone[5] = z;
    int64_t m = st.m;
    st.m = m - 1;                                     /* one row short */
    expect_fail(&st, &r, PREP_FILTER, CHECK_WRONG, "count");
    st.m = m;

    check_poison(st.Y + 3 * s + 100, 2);
    expect_fail(&st, &r, PREP_GEMM, CHECK_UNWRITTEN, "unwritten: Y[3]: 2 output elements");
    float bin = st.X[PREP_X_BIN * s + 2];
    st.X[PREP_X_BIN * s + 2] = NAN;
    expect_fail(&st, &r, PREP_BINNING, CHECK_NONFINITE, "nonfinite: X[fare_bin]: 1 output");
    st.X[PREP_X_BIN * s + 2] = bin;
    st.edges[3] = nextafterf(st.edges[3], INFINITY);
    expect_fail(&st, &r, PREP_BINNING, CHECK_WRONG, "wrong: edges: 1 of 15");
    st.counts[0]++;
    expect_fail(&st, &r, PREP_ENCODE, CHECK_WRONG, "wrong: counts: 1 of 10000");
    st.median[2] = -st.median[2];
    expect_fail(&st, &r, PREP_FILL, CHECK_WRONG, "median");
    prep_ref_free(&r);
    prep_state_free(&st);
}

/* More elements near the tolerance than a part of the check keeps for its
 * second look: the verdict is still the rule's, element by element. */
static void test_checker_many(void **state)
{
    (void)state;
    prep_state st;
    prep_ref r;
    cl_err e = {{0}};
    make_state(&st, 100000, 7);
    assert_true(prep_ref_new(&r, 100000, &e));
    run_and_check(&st, &r, 1);
    int64_t s = st.stride, m = st.m;
    double *want = malloc((size_t)m * sizeof *want);
    assert_non_null(want);
    double ref2 = 0.0;
    for (int64_t i = 0; i < m; i++) {
        double acc = 0.0;
        for (int k = 0; k < PREP_FEATURES; k++)
            acc += (double)st.X[k * s + i] * (double)st.W[k];
        want[i] = acc;
        ref2 += acc * acc;
    }
    double rms = sqrt(ref2 / (double)m);

    /* every element off by half the tolerance of the rms: right, though
     * more than 4096 of them are over the tolerance of their own size */
    int64_t near = 0;
    for (int64_t i = 0; i < m; i++) {
        st.Y[i] = (float)(want[i] + 0.5 * PREP_TOL * rms);
        near += fabs(want[i]) < 0.5 * rms;
    }
    if (near <= 4096)
        fail_msg("only %lld of %lld rows near zero", (long long)near, (long long)m);
    expect_fail(&st, &r, PREP_GEMM, CHECK_OK, "ok");

    /* every element 3e-4 too large: wrong wherever that is over the rule */
    int64_t bad = 0;
    for (int64_t i = 0; i < m; i++) {
        st.Y[i] = (float)(want[i] * (1.0 + 3e-4));
        double scale = fabs(want[i]) > rms ? fabs(want[i]) : rms;
        bad += fabs((double)st.Y[i] - want[i]) > PREP_TOL * scale;
    }
    assert_true(bad > 4096);
    char words[64];
    snprintf(words, sizeof words, "wrong: Y[0]: %lld of %lld", (long long)bad, (long long)m);
    expect_fail(&st, &r, PREP_GEMM, CHECK_WRONG, words);
    free(want);
    prep_ref_free(&r);
    prep_state_free(&st);
}

/* ---- sizes ------------------------------------------------------------------------------- */

static void test_sizes(void **state)
{
    (void)state;
    prep_state st;
    cl_err e = {{0}};
    assert_false(prep_state_new(&st, 0, 1, &e));
    assert_true(ts_contains(e.msg, "0 rows: the pipeline takes 1 to 134217728"));
    assert_false(prep_state_new(&st, PREP_MAX_ROWS + 1, 1, &e));
    assert_true(ts_contains(e.msg, "134217729 rows"));
    assert_false(prep_host_fits((size_t)1 << 62, PREP_MAX_ROWS, &e));
    assert_true(ts_contains(e.msg, "of host memory for the pipeline at 134217728 rows;"));
    assert_true(ts_contains(e.msg, "is available"));
    assert_int_equal(prep_stride(1), 32);
    assert_int_equal(prep_stride(33), 64);
    assert_int_equal(prep_stride(1024), 1056);
    assert_int_equal(prep_stride(1 << 24), (1 << 24) + 32);
    assert_int_equal(prep_table_bytes(64), 12 * 4 * 64);
    assert_int_equal(prep_file_bytes(64), PREP_FILE_HEADER + 12 * 4 * 64);
    assert_true(prep_step_find("groupby") == PREP_GROUPBY);
    assert_true(prep_step_find("nope") == -1);
    assert_true(prep_state_bytes(1 << 24) > prep_table_bytes(1 << 24) * 4);
}

static int setup(void **state)
{
    (void)state;
    if (!ts_tmpdir(g_cache, sizeof g_cache, "prep"))
        return -1;
    setenv("CUDALAB_CACHE", g_cache, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ts_rm_rf(g_cache);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_distributions),
        cmocka_unit_test(test_golden_counts),
        cmocka_unit_test(test_file),
        cmocka_unit_test(test_algorithms),
        cmocka_unit_test(test_steps),
        cmocka_unit_test(test_degenerate),
        cmocka_unit_test(test_checker),
        cmocka_unit_test(test_checker_many),
        cmocka_unit_test(test_sizes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

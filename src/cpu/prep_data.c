#include "cpu/prep_data.h"

#include <math.h>

#include "cpu/parallel.h"

#define GEN_MIN_ROWS 65536.0
#define TWO_PI 6.283185307179586

/* Independent streams of uniform numbers, one per use. */
enum {
    S_FARE, S_FARE2, S_DIST, S_DIST2, S_DUR, S_DUR2, S_TIP, S_TIP2, S_PASS, S_TEMP, S_TEMP2, S_RATE,
    S_SURGE, S_DAY, S_HOUR, S_HOUR2, S_HOUR3, S_SEC, S_PAY, S_ZONE, S_NOISE, S_NOISE2,
    S_MISS0,                    /* S_MISS0 + c: column c missing */
    S_REFUND = S_MISS0 + PREP_NUM, S_GLITCH, S_CANCEL, S_EFFECT, S_WEIGHT,
};

static const char *const num_names[PREP_NUM] = {
    "fare", "distance_km", "duration_min", "tip", "passengers", "temperature", "rating", "surge",
};

/* Probability (in 1/10000) that each numeric column is missing. */
static const uint32_t missing_bp[PREP_NUM] = {200, 150, 100, 300, 50, 400, 600, 200};

const char *prep_num_name(int col)
{
    return col >= 0 && col < PREP_NUM ? num_names[col] : "?";
}

const char *prep_feature_name(int feature)
{
    static const char *const z[PREP_NUM] = {
        "z_fare", "z_distance_km", "z_duration_min", "z_tip",
        "z_passengers", "z_temperature", "z_rating", "z_surge",
    };
    static const char *const pay[PREP_PAY] = {"pay_0", "pay_1", "pay_2",
                                              "pay_3", "pay_4", "pay_5"};
    if (feature >= PREP_X_Z && feature < PREP_X_Z + PREP_NUM)
        return z[feature - PREP_X_Z];
    if (feature >= PREP_X_PAY && feature < PREP_X_PAY + PREP_PAY)
        return pay[feature - PREP_X_PAY];
    switch (feature) {
    case PREP_X_HOUR: return "hour";
    case PREP_X_DOW: return "dow";
    case PREP_X_BIN: return "fare_bin";
    case PREP_X_FREQ: return "zone_freq";
    case PREP_X_TARGET: return "zone_mean_label";
    default: return "?";
    }
}

int64_t prep_stride(int64_t rows)
{
    if (rows < 1)
        rows = 1;
    int64_t s = (rows + PREP_ALIGN_ROWS - 1) / PREP_ALIGN_ROWS * PREP_ALIGN_ROWS;
    /* columns a multiple of 4 KiB apart would share cache sets */
    return s % 1024 == 0 ? s + PREP_ALIGN_ROWS : s;
}

size_t prep_table_bytes(int64_t rows)
{
    return (size_t)(PREP_NUM + 4) * 4u * (size_t)prep_stride(rows);
}

void prep_cols_in(void *block, int64_t rows, prep_cols *cols)
{
    size_t s = (size_t)prep_stride(rows);
    float *f = block;
    cols->num = f;
    cols->ts = (int32_t *)(f + PREP_NUM * s);
    cols->pay = cols->ts + s;
    cols->zone = cols->pay + s;
    cols->label = (float *)(cols->zone + s);
}

/* ---- counter-based random numbers --------------------------------------- */

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* 64 random bits for (seed, stream, i). */
static uint64_t bits(uint64_t seed, uint64_t stream, uint64_t i)
{
    return mix64(mix64(seed ^ (stream * 0x9e3779b97f4a7c15ull)) + i * 0xd1b54a32d192ed03ull);
}

/* Uniform in [0, 1) with 53 bits. */
static double unif(uint64_t seed, uint64_t stream, uint64_t i)
{
    return (double)(bits(seed, stream, i) >> 11) * 0x1p-53;
}

/* True with probability bp / 10000, decided on integers only. */
static bool chance(uint64_t seed, uint64_t stream, uint64_t i, uint32_t bp)
{
    return (uint32_t)(bits(seed, stream, i) % 10000u) < bp;
}

/* Uniform in (0, 1): never 0, for logarithms. */
static double unif_open(uint64_t seed, uint64_t stream, uint64_t i)
{
    return ((double)(bits(seed, stream, i) >> 11) + 0.5) * 0x1p-53;
}

/* A standard normal from two streams (Box-Muller). */
static double normal(uint64_t seed, uint64_t s1, uint64_t s2, uint64_t i)
{
    double r = sqrt(-2.0 * log(unif_open(seed, s1, i)));
    return r * cos(TWO_PI * unif(seed, s2, i));
}

/* Index into cumulative probabilities (in 1/100) of a categorical draw. */
static int pick(const int *cum, int k, uint64_t seed, uint64_t stream, uint64_t i)
{
    int u = (int)(bits(seed, stream, i) % 100u);
    for (int j = 0; j < k - 1; j++)
        if (u < cum[j])
            return j;
    return k - 1;
}

static double zone_effect(uint64_t seed, int32_t zone)
{
    return 2.0 * unif(seed, S_EFFECT, (uint64_t)zone) - 1.0;
}

/* ---- one row --------------------------------------------------------------- */

static void gen_row(const prep_cols *c, int64_t s, uint64_t seed, int64_t r)
{
    static const int pass_cum[5] = {62, 80, 88, 94, 98};
    static const int pay_cum[5] = {52, 79, 90, 95, 98};
    uint64_t i = (uint64_t)r;
    double v[PREP_NUM];
    v[0] = exp(2.5 + 0.7 * normal(seed, S_FARE, S_FARE2, i));
    v[1] = exp(1.0 + 0.9 * normal(seed, S_DIST, S_DIST2, i));
    v[2] = exp(2.6 + 0.6 * normal(seed, S_DUR, S_DUR2, i));
    v[3] = unif(seed, S_TIP, i) < 0.35 ? 0.0 : -2.5 * log(unif_open(seed, S_TIP2, i));
    v[4] = 1.0 + pick(pass_cum, 6, seed, S_PASS, i);
    v[5] = 12.0 + 9.0 * normal(seed, S_TEMP, S_TEMP2, i);
    v[6] = 1.0 + 4.0 * pow(unif(seed, S_RATE, i), 0.35);
    v[7] = 1.0 - 0.12 * log(unif_open(seed, S_SURGE, i));

    int32_t day = (int32_t)(bits(seed, S_DAY, i) % 366u);
    double u = unif(seed, S_HOUR, i), h;
    if (u < 0.45)
        h = 24.0 * unif(seed, S_HOUR2, i);
    else if (u < 0.75)
        h = 8.5 + 1.5 * normal(seed, S_HOUR2, S_HOUR3, i);
    else
        h = 18.0 + 2.0 * normal(seed, S_HOUR2, S_HOUR3, i);
    h = fmod(h, 24.0);
    if (h < 0.0)
        h += 24.0;
    int32_t hour = (int32_t)h;
    if (hour > 23)
        hour = 23;
    int32_t sec = (int32_t)(bits(seed, S_SEC, i) % 3600u);
    int32_t ts = day * PREP_DAY + hour * 3600 + sec;
    int32_t zone = (int32_t)floor(pow((double)PREP_ZONES + 1.0, unif(seed, S_ZONE, i))) - 1;
    zone = zone < 0 ? 0 : zone >= PREP_ZONES ? PREP_ZONES - 1 : zone;
    bool rush = (hour >= 7 && hour <= 9) || (hour >= 16 && hour <= 19);

    double label = 0.8 * log1p(v[0]) + 0.3 * log1p(v[1]) - 0.2 * log1p(v[2]) +
                   zone_effect(seed, zone) + (rush ? 0.25 : 0.0) +
                   0.5 * normal(seed, S_NOISE, S_NOISE2, i);

    if (chance(seed, S_REFUND, i, 50))
        v[0] = -v[0];
    if (chance(seed, S_GLITCH, i, 30))
        v[1] *= 40.0;
    if (chance(seed, S_CANCEL, i, 40))
        v[2] = 0.0;
    for (int k = 0; k < PREP_NUM; k++) {
        float x = chance(seed, S_MISS0 + (uint64_t)k, i, missing_bp[k]) ? NAN : (float)v[k];
        c->num[(int64_t)k * s + r] = x;
    }
    c->ts[r] = ts;
    c->pay[r] = pick(pay_cum, PREP_PAY, seed, S_PAY, i);
    c->zone[r] = zone;
    c->label[r] = (float)label;
}

void prep_generate_rows(const prep_cols *cols, int64_t rows, uint64_t seed, int64_t r0, int64_t r1)
{
    int64_t s = prep_stride(rows);
    for (int64_t r = r0; r < r1 && r < rows; r++)
        gen_row(cols, s, seed, r);
}

typedef struct gen_job {
    const prep_cols *c;
    int64_t n;
    uint64_t seed;
} gen_job;

static void gen_part(void *ctx, int part, int nparts)
{
    const gen_job *j = ctx;
    int64_t r0 = j->n * part / nparts, r1 = j->n * (part + 1) / nparts;
    prep_generate_rows(j->c, j->n, j->seed, r0, r1);
}

void prep_generate(const prep_cols *cols, int64_t rows, uint64_t seed, int threads)
{
    int64_t s = prep_stride(rows);
    for (int64_t r = rows; r < s; r++) {
        for (int k = 0; k < PREP_NUM; k++)
            cols->num[(int64_t)k * s + r] = 0.0f;
        cols->ts[r] = cols->pay[r] = cols->zone[r] = 0;
        cols->label[r] = 0.0f;
    }
    gen_job j = {cols, rows, seed};
    parallel_run(parallel_threads(threads, (double)rows, GEN_MIN_ROWS), gen_part, &j);
}

void prep_weights(float *weights, uint64_t seed)
{
    for (int k = 0; k < PREP_FEATURES * PREP_HIDDEN; k++)
        weights[k] = (float)(unif(seed, S_WEIGHT, (uint64_t)k) - 0.5);
}

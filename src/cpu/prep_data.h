/* prep_data.h - the data-pipeline lab's data set: a table of taxi trips.
 *
 * A columnar table of n rows, generated from a seed.  Every value of row i
 * depends only on (seed, i), so the table is the same whatever the thread
 * count, and any slice can be generated alone.  The columns, in order:
 *
 *   num[0] fare         lognormal(2.5, 0.7); 2% missing (NaN); 0.5% are
 *                       refunds, stored negative
 *   num[1] distance_km  lognormal(1.0, 0.9); 1.5% missing; 0.3% GPS glitches,
 *                       40 times too long
 *   num[2] duration_min lognormal(2.6, 0.6); 1% missing; 0.4% exactly 0
 *                       (cancelled)
 *   num[3] tip          0 with probability 0.35, else exponential with mean
 *                       2.5; 3% missing
 *   num[4] passengers   1 to 6 (probabilities .62 .18 .08 .06 .04 .02);
 *                       0.5% missing
 *   num[5] temperature  normal(12, 9) degrees C; 4% missing
 *   num[6] rating       1 + 4 u^0.35 for u uniform in [0, 1); 6% missing
 *   num[7] surge        1 + exponential with mean 0.12; 2% missing
 *   ts     int32        seconds since PREP_EPOCH (2024-01-01 00:00 UTC, a
 *                       Monday): a day uniform over the 366 days of 2024,
 *                       an hour from 45% uniform, 30% normal(8.5, 1.5), 25%
 *                       normal(18, 2) (wrapped into the day), the second
 *                       uniform within the hour
 *   pay    int32        payment type 0..5 (probabilities .52 .27 .11 .05 .03 .02)
 *   zone   int32        pickup zone 0..9999, log-uniform: zone = floor(10001^u) - 1,
 *                       so zone z has probability log((z+2)/(z+1)) / log(10001)
 *   label  float        0.8 log1p(fare) + 0.3 log1p(distance) - 0.2 log1p(duration)
 *                       + effect(zone) + 0.25 (rush hour) + normal(0, 0.5), from
 *                       the values before they were marked missing, where
 *                       effect(zone) is uniform in [-1, 1) per zone
 *
 * Missing values, refunds, glitches and cancellations are drawn from their
 * own uniform numbers with integer arithmetic, so how many there are for a
 * seed and n is the same on every machine.  The numeric columns are
 * stored one after another, column c at num[c * stride] (stride: n rounded
 * up to a multiple of PREP_ALIGN_ROWS, plus PREP_ALIGN_ROWS more when that
 * is a multiple of 1024, so that columns do not start a multiple of 4 KiB
 * apart and fight for the same cache sets; the tail is zero). */
#ifndef CUDALAB_CPU_PREP_DATA_H
#define CUDALAB_CPU_PREP_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PREP_NUM 8              /* numeric columns */
#define PREP_SKEWED 4           /* the first four: log1p, then clipped */
#define PREP_PAY 6              /* payment types */
#define PREP_ZONES 10000        /* pickup zones */
#define PREP_BINS 16            /* quantile bins of the fare */
#define PREP_EDGES (PREP_BINS - 1)
#define PREP_HIDDEN 16          /* outputs of the linear layer */
#define PREP_FEATURES 19        /* columns of the feature matrix X */
#define PREP_MAX_ROWS ((int64_t)1 << 27)
#define PREP_ALIGN_ROWS 32      /* column stride: a multiple of 128 bytes */
#define PREP_EPOCH 1704067200LL /* 2024-01-01 00:00:00 UTC, a Monday */
#define PREP_DAY 86400
#define PREP_CUTOFF_DAY 274     /* 2024-10-01: later trips are held out */
#define PREP_LOG_CLIP 5.0f      /* log1p of a skewed column is clipped to [0, 5] */
#define PREP_DEFAULT_SEED 2024u
/* Columns of X: z-scores of the eight numeric columns, hour, day of week,
 * the fare's bin, the zone's frequency, one-hot payment type, the zone's
 * mean label (target encoding). */
#define PREP_X_Z 0
#define PREP_X_HOUR 8
#define PREP_X_DOW 9
#define PREP_X_BIN 10
#define PREP_X_FREQ 11
#define PREP_X_PAY 12
#define PREP_X_TARGET 18

/* The columns of one table of n rows, each stride elements long. */
typedef struct prep_cols {
    float *num;                 /* PREP_NUM * stride */
    int32_t *ts, *pay, *zone;
    float *label;
} prep_cols;

/* Names of the numeric columns ("fare", ...) and of X's columns
 * ("z_fare", ..., "hour", "dow", "fare_bin", "zone_freq", "pay_0", ...,
 * "zone_mean_label"). */
const char *prep_num_name(int col);
const char *prep_feature_name(int feature);

/* The column stride for a table of rows (see above; at least
 * PREP_ALIGN_ROWS). */
int64_t prep_stride(int64_t rows);
/* Bytes of one table of rows as stored (and as loaded onto the device): 12
 * columns of prep_stride(rows) four-byte values. */
size_t prep_table_bytes(int64_t rows);
/* Points cols at the columns inside block (prep_table_bytes(rows) bytes). */
void prep_cols_in(void *block, int64_t rows, prep_cols *cols);

/* Fills rows [r0, r1) of the table at cols (stride from rows) for seed. */
void prep_generate_rows(const prep_cols *cols, int64_t rows, uint64_t seed, int64_t r0, int64_t r1);
/* The whole table on threads threads (<= 0: all); zeroes the padding. */
void prep_generate(const prep_cols *cols, int64_t rows, uint64_t seed, int threads);

/* The filter's predicate on one row, after missing values are filled:
 * fare > 0, 0 < distance <= 100, 0 < duration <= 300 and a trip before
 * PREP_CUTOFF_DAY. */
static inline bool prep_keep(float fare, float dist, float dur, int32_t ts)
{
    return fare > 0.0f && dist > 0.0f && dist <= 100.0f && dur > 0.0f && dur <= 300.0f &&
           ts < PREP_CUTOFF_DAY * PREP_DAY;
}

/* The weights of the linear layer, X (PREP_FEATURES) -> PREP_HIDDEN,
 * column-major (weights[k + j * PREP_FEATURES] multiplies feature k into
 * output j), uniform in [-0.5, 0.5) from seed. */
void prep_weights(float *weights, uint64_t seed);

#endif

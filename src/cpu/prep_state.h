/* prep_state.h - the data pipeline's steps and everything they produce.
 *
 * The pipeline turns the raw table (prep_data.h) into a feature matrix
 * and hands it to a linear layer:
 *
 *   load         the table from its file (prep_file.h) into memory
 *   fill         each numeric column's missing values -> its median (the
 *                lower one: element (count - 1) / 2 of its sorted values,
 *                -0 before +0; 0 for a column with no values)
 *   filter       keep the rows prep_keep() accepts, in order: m rows
 *   transform    t = clip(log1p(x), 0, 5) for the skewed columns, t = x
 *                for the others; hour = (ts / 3600) % 24 and day of week
 *                = (ts / 86400) % 7 (Monday 0) into X
 *   standardize  each column of t: mean and population standard deviation,
 *                z = (t - mean) / std (0 where std is 0) into X
 *   binning      the fare's 15 quantile edges, edge j the element
 *                floor((j + 1) m / 16) of the sorted kept fares, and each
 *                fare's bin, the number of edges <= it, into X
 *   encode       rows per zone (a histogram), each row's zone frequency
 *                count / m, and the payment type one-hot, into X
 *   groupby      the mean label per zone (0 for a zone with no rows) and
 *                each row's zone mean (target encoding) into X
 *   gemm         Y = X W: the linear layer, PREP_FEATURES -> PREP_HIDDEN
 *
 * A prep_state holds the table and every step's output, each column
 * `stride` elements long (only the first n, or m after the filter,
 * count).  X and Y are column-major with leading dimension stride:
 * element (i, j) at j * stride + i.  The CPU baselines (prep_cpu.h) fill
 * one; the GPU side keeps the same layout in device memory. */
#ifndef CUDALAB_CPU_PREP_STATE_H
#define CUDALAB_CPU_PREP_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "cpu/prep_data.h"

typedef enum prep_step {
    PREP_LOAD,
    PREP_FILL,
    PREP_FILTER,
    PREP_TRANSFORM,
    PREP_STANDARDIZE,
    PREP_BINNING,
    PREP_ENCODE,
    PREP_GROUPBY,
    PREP_GEMM,
    PREP_NSTEPS
} prep_step;

/* The steps a learner's launcher implements: fill .. groupby. */
#define PREP_FIRST_OWN PREP_FILL
#define PREP_LAST_OWN PREP_GROUPBY

/* "load", "fill", ..., "gemm"; NULL out of range. */
const char *prep_step_id(prep_step step);
/* A few words: "fill missing values with medians". */
const char *prep_step_title(prep_step step);
/* The step called id, or -1. */
int prep_step_find(const char *id);

typedef struct prep_state {
    int64_t n, stride;
    void *raw_block;                  /* the table as loaded: prep_table_bytes(n) */
    prep_cols raw;
    float median[PREP_NUM];           /* fill */
    float *filled;                    /* PREP_NUM columns */
    int64_t m;                        /* filter: rows kept */
    void *kept_block;
    prep_cols kept;
    float *t;                         /* transform: PREP_NUM columns */
    float stats[2 * PREP_NUM];        /* standardize: the means, then the deviations */
    float edges[PREP_EDGES];          /* binning */
    int32_t *counts;                  /* encode: PREP_ZONES */
    float *gmean;                     /* groupby: PREP_ZONES */
    float *X;                         /* PREP_FEATURES columns */
    float W[PREP_FEATURES * PREP_HIDDEN];
    float *Y;                         /* PREP_HIDDEN columns */
    void *scratch;                    /* for the CPU steps: 3 * stride * 4 bytes */
} prep_state;

/* Bytes of host memory a state for a table of rows takes. */
size_t prep_state_bytes(int64_t rows);
/* Bytes the steps read and write at least (what their GB/s counts): the table
 * for load, then each step's input and output columns; kept: the rows the
 * filter kept. */
double prep_step_bytes(prep_step step, int64_t rows, int64_t kept);

/* Checks that need bytes of host memory are available (MemAvailable of
 * /proc/meminfo): false + "needs 42.0 GiB of host memory for the pipeline
 * at 134217728 rows; 20.1 GiB is available". */
bool prep_host_fits(size_t need, int64_t rows, cl_err *err);
/* A state for a table of rows (1 to PREP_MAX_ROWS) after prep_host_fits, with
 * the weights for seed; the table itself is not filled. */
bool prep_state_new(prep_state *st, int64_t rows, uint64_t seed, cl_err *err);
void prep_state_free(prep_state *st);

#endif

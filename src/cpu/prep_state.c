#include "cpu/prep_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const step_ids[PREP_NSTEPS] = {
    "load", "fill", "filter", "transform", "standardize", "binning", "encode", "groupby", "gemm",
};

static const char *const step_titles[PREP_NSTEPS] = {
    "load the table from disk",
    "fill missing values with medians",
    "filter rows",
    "log1p, clip, hour and day of week",
    "standardize the numeric columns",
    "quantile bins of the fare",
    "zone frequency and one-hot payment",
    "mean label per zone",
    "hand-off: the linear layer Y = X W",
};

const char *prep_step_id(prep_step step)
{
    return (int)step >= 0 && step < PREP_NSTEPS ? step_ids[step] : NULL;
}

const char *prep_step_title(prep_step step)
{
    return (int)step >= 0 && step < PREP_NSTEPS ? step_titles[step] : NULL;
}

int prep_step_find(const char *id)
{
    for (int s = 0; id && s < PREP_NSTEPS; s++)
        if (strcmp(step_ids[s], id) == 0)
            return s;
    return -1;
}

size_t prep_state_bytes(int64_t rows)
{
    size_t s = (size_t)prep_stride(rows);
    size_t cols = 2 * (PREP_NUM + 4) /* raw, kept */ + PREP_NUM /* filled */ + PREP_NUM /* t */ +
                  PREP_FEATURES + PREP_HIDDEN + 3 /* scratch */;
    return cols * 4 * s + 2 * 4 * PREP_ZONES;
}

double prep_step_bytes(prep_step step, int64_t rows, int64_t kept)
{
    double N = (double)rows, M = (double)kept;
    switch (step) {
    case PREP_LOAD: return (double)prep_table_bytes(rows);
    case PREP_FILL: return 4.0 * (2 * PREP_NUM) * N;
    case PREP_FILTER: return 4.0 * (PREP_NUM + 4) * (N + M);
    case PREP_TRANSFORM: return 4.0 * (PREP_NUM + 1 + PREP_NUM + 2) * M;
    case PREP_STANDARDIZE: return 4.0 * (2 * PREP_NUM) * M;
    case PREP_BINNING: return 4.0 * 2 * M;
    case PREP_ENCODE: return 4.0 * (2 + 1 + PREP_PAY) * M;
    case PREP_GROUPBY: return 4.0 * 3 * M;
    case PREP_GEMM: return 4.0 * (PREP_FEATURES + PREP_HIDDEN) * M;
    default: return 0.0;
    }
}

static void format_gib(double b, char *out, size_t n)
{
    if (b >= 1073741824.0)
        snprintf(out, n, "%.1f GiB", b / 1073741824.0);
    else
        snprintf(out, n, "%.1f MiB", b / 1048576.0);
}

/* MemAvailable in bytes, or -1 when it cannot be read. */
static double mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return -1.0;
    char line[256];
    double kib = -1.0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kib) == 1)
            break;
    fclose(f);
    return kib < 0 ? -1.0 : kib * 1024.0;
}

bool prep_host_fits(size_t need, int64_t rows, cl_err *err)
{
    double avail = mem_available();
    if (avail < 0 || (double)need <= avail)
        return true;
    char a[32], b[32];
    format_gib((double)need, a, sizeof a);
    format_gib(avail, b, sizeof b);
    return err_set(err, "needs %s of host memory for the pipeline at %lld rows; %s is available", a,
                   (long long)rows, b);
}

bool prep_state_new(prep_state *st, int64_t rows, uint64_t seed, cl_err *err)
{
    memset(st, 0, sizeof *st);
    if (rows < 1 || rows > PREP_MAX_ROWS)
        return err_set(err, "%lld rows: the pipeline takes 1 to %lld", (long long)rows,
                       (long long)PREP_MAX_ROWS);
    if (!prep_host_fits(prep_state_bytes(rows), rows, err))
        return false;
    size_t s = (size_t)prep_stride(rows);
    st->n = rows;
    st->stride = (int64_t)s;
    st->raw_block = malloc(prep_table_bytes(rows));
    st->kept_block = malloc(prep_table_bytes(rows));
    st->filled = malloc(PREP_NUM * s * sizeof(float));
    st->t = malloc(PREP_NUM * s * sizeof(float));
    st->X = malloc(PREP_FEATURES * s * sizeof(float));
    st->Y = malloc(PREP_HIDDEN * s * sizeof(float));
    st->counts = malloc(PREP_ZONES * sizeof(int32_t));
    st->gmean = malloc(PREP_ZONES * sizeof(float));
    st->scratch = malloc(3 * s * 4);
    if (!st->raw_block || !st->kept_block || !st->filled || !st->t || !st->X || !st->Y ||
        !st->counts || !st->gmean || !st->scratch) {
        char a[32];
        format_gib((double)prep_state_bytes(rows), a, sizeof a);
        prep_state_free(st);
        return err_set(err, "out of host memory: the pipeline at %lld rows needs %s",
                       (long long)rows, a);
    }
    prep_cols_in(st->raw_block, rows, &st->raw);
    prep_cols_in(st->kept_block, rows, &st->kept);
    prep_weights(st->W, seed);
    return true;
}

void prep_state_free(prep_state *st)
{
    free(st->raw_block);
    free(st->kept_block);
    free(st->filled);
    free(st->t);
    free(st->X);
    free(st->Y);
    free(st->counts);
    free(st->gmean);
    free(st->scratch);
    memset(st, 0, sizeof *st);
}

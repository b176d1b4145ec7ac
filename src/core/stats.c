#include "core/stats.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between closest ranks of a sorted array. */
static double quantile(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    if (i + 1 >= n)
        return v[n - 1];
    double frac = pos - (double)i;
    return v[i] + frac * (v[i + 1] - v[i]);
}

double stats_median(double *values, size_t count)
{
    if (count == 0)
        return 0.0;
    qsort(values, count, sizeof *values, cmp_double);
    return quantile(values, count, 0.5);
}

stats_summary stats_summarise(double *values, size_t count)
{
    stats_summary s = {0};
    if (count == 0)
        return s;
    qsort(values, count, sizeof *values, cmp_double);
    double sum = 0.0;
    for (size_t i = 0; i < count; i++)
        sum += values[i];
    s.n = count;
    s.min = values[0];
    s.max = values[count - 1];
    s.mean = sum / (double)count;
    s.median = quantile(values, count, 0.5);
    s.spread = s.median > 0.0 ? (quantile(values, count, 0.75) - quantile(values, count, 0.25)) / s.median : 0.0;
    return s;
}

/* stats.h - summary statistics of timing samples. */
#ifndef CUDALAB_CORE_STATS_H
#define CUDALAB_CORE_STATS_H

#include <stddef.h>

typedef struct stats_summary {
    size_t n;
    double median, min, max, mean;
    double spread;   /* (p75 - p25) / median: relative interquartile spread */
} stats_summary;

/* Summarises values[0..count) (sorted in place).  count == 0 gives all
 * zeros. */
stats_summary stats_summarise(double *values, size_t count);
double stats_median(double *values, size_t count);

#endif

/* cputime.h - the CPU time this test process has used, for checks on the
 * sandbox's time budget (which counts CPU time, not time spent waiting for a
 * busy machine). */
#ifndef CUDALAB_TESTS_LAB_CPUTIME_H
#define CUDALAB_TESTS_LAB_CPUTIME_H

#include <time.h>

/* Seconds of CPU time used by this process so far. */
static inline double cpu_time_s(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0)
        return 0.0;
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#endif

/* cputime.h - the CPU time this test process and its finished children
 * have used, for checks on the sandbox's time budget (which counts CPU
 * time, not time spent waiting for a busy machine; a slow pattern's trial
 * run is a child). */
#ifndef CUDALAB_TESTS_LAB_CPUTIME_H
#define CUDALAB_TESTS_LAB_CPUTIME_H

#include <sys/resource.h>
#include <time.h>

/* Seconds of CPU time used by this process and its reaped children. */
static inline double cpu_time_s(void)
{
    struct timespec t;
    struct rusage ru;
    double s = 0.0;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) == 0)
        s = (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
    if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
        s += (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
             (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    return s;
}

#endif

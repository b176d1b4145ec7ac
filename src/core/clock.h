/* clock.h - the one monotonic clock: time since an arbitrary start that
 * never jumps when the wall clock is set.  For deadlines, time limits and
 * host-side timing; CPU time and wall-clock dates are other clocks. */
#ifndef CUDALAB_CORE_CLOCK_H
#define CUDALAB_CORE_CLOCK_H

#include <stdint.h>

/* Monotonic time in seconds. */
double clock_now_s(void);
/* Monotonic time in milliseconds. */
double clock_now_ms(void);
/* Monotonic time in nanoseconds. */
int64_t clock_now_ns(void);

#endif

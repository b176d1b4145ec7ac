/* cpuinfo.h - what the host CPU offers the baselines. */
#ifndef CUDALAB_CPU_CPUINFO_H
#define CUDALAB_CPU_CPUINFO_H

/* Usable CPUs for this process (sched_getaffinity), at least 1. */
int cpu_thread_count(void);
/* Vector path the baselines choose at run time: "avx512f", "avx2+fma" or "sse2"
 * ("scalar" on a machine that is not x86-64). */
const char *cpu_simd_path(void);
/* Model name from /proc/cpuinfo, "" if unknown.  The string is static. */
const char *cpu_model_name(void);

#endif

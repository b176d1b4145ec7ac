/* cpuinfo.h - what the host CPU offers the baselines, and which vector path they use. */
#ifndef CUDALAB_CPU_CPUINFO_H
#define CUDALAB_CPU_CPUINFO_H

#include <stdbool.h>

/* Usable CPUs for this process (sched_getaffinity), at least 1. */
int cpu_thread_count(void);
/* Vector path the baselines choose at run time: "avx512f", "avx2+fma" or "sse2"
 * ("scalar" on a machine that is not x86-64). */
const char *cpu_simd_path(void);
/* Model name from /proc/cpuinfo, "" if unknown.  The string is static. */
const char *cpu_model_name(void);

typedef enum cpu_simd {
    CPU_SIMD_SCALAR,         /* plain C, any machine */
    CPU_SIMD_SSE2,           /* x86-64 baseline */
    CPU_SIMD_AVX2,           /* AVX2 with FMA */
    CPU_SIMD_AVX512          /* AVX-512 F */
} cpu_simd;

/* The path the baselines use now: the best supported one unless forced. */
cpu_simd cpu_simd_level(void);
/* The best path this CPU (and OS) supports. */
cpu_simd cpu_simd_best(void);
bool cpu_simd_supported(cpu_simd simd);
/* Makes the baselines use path simd (for tests and comparisons); false, and no
 * change, when this CPU does not support it. */
bool cpu_simd_force(cpu_simd simd);
/* "scalar", "sse2", "avx2+fma", "avx512f". */
const char *cpu_simd_name(cpu_simd simd);

#endif

#define _GNU_SOURCE
#include "cpu/cpuinfo.h"

#include <ctype.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static _Atomic int cpuinfo_forced = -1;
static pthread_once_t cpuinfo_model_once = PTHREAD_ONCE_INIT;
static char cpuinfo_model[128];

int cpu_thread_count(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n >= 1)
            return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 1 ? (int)n : 1;
}

bool cpu_simd_supported(cpu_simd simd)
{
    switch (simd) {
    case CPU_SIMD_SCALAR:
        return true;
#if defined(__x86_64__)
    case CPU_SIMD_SSE2:
        return true;
    case CPU_SIMD_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case CPU_SIMD_AVX512:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f");
#endif
    default:
        return false;
    }
}

cpu_simd cpu_simd_best(void)
{
    static const cpu_simd order[] = {CPU_SIMD_AVX512, CPU_SIMD_AVX2, CPU_SIMD_SSE2};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (cpu_simd_supported(order[i]))
            return order[i];
    return CPU_SIMD_SCALAR;
}

cpu_simd cpu_simd_level(void)
{
    int f = atomic_load(&cpuinfo_forced);
    return f >= 0 ? (cpu_simd)f : cpu_simd_best();
}

bool cpu_simd_force(cpu_simd simd)
{
    if (!cpu_simd_supported(simd))
        return false;
    atomic_store(&cpuinfo_forced, (int)simd);
    return true;
}

const char *cpu_simd_name(cpu_simd simd)
{
    switch (simd) {
    case CPU_SIMD_SSE2:
        return "sse2";
    case CPU_SIMD_AVX2:
        return "avx2+fma";
    case CPU_SIMD_AVX512:
        return "avx512f";
    case CPU_SIMD_SCALAR:
    default:
        return "scalar";
    }
}

const char *cpu_simd_path(void)
{
    return cpu_simd_name(cpu_simd_level());
}

static void cpuinfo_read_model(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *v = strchr(line, ':');
        if (!v)
            continue;
        v++;
        while (*v == ' ' || *v == '\t')
            v++;
        snprintf(cpuinfo_model, sizeof cpuinfo_model, "%s", v);
        size_t len = strlen(cpuinfo_model);
        while (len > 0 && isspace((unsigned char)cpuinfo_model[len - 1]))
            cpuinfo_model[--len] = '\0';
        break;
    }
    fclose(f);
}

const char *cpu_model_name(void)
{
    pthread_once(&cpuinfo_model_once, cpuinfo_read_model);
    return cpuinfo_model;
}

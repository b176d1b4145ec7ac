/* cpubench.c - how fast the CPU baselines run on this machine.
 *
 * Prints the single-thread and all-threads throughput of the reduction and
 * the SGEMM baselines that the labs' "x CPU" columns divide by, with the
 * SIMD path and thread count they used.  A measurement, not a test: it
 * asserts nothing.  usage: cpubench [REPS] */
#include <stdio.h>
#include <stdlib.h>

#include "core/clock.h"
#include "core/rng.h"
#include "cpu/cpuinfo.h"
#include "cpu/reduce.h"
#include "cpu/sgemm.h"

static void bench_reduce(int reps)
{
    size_t n = (size_t)1 << 24;
    float *x = malloc(n * sizeof *x);
    if (!x) {
        fputs("cpubench: out of memory\n", stderr);
        return;
    }
    rng_fill_uniform(x, n, 1, 0.0f, 1.0f);
    volatile float sink = 0.0f;
    double t0 = clock_now_s();
    for (int r = 0; r < reps; r++)
        sink += cpu_reduce_sum(x, n);
    double t1 = clock_now_s();
    for (int r = 0; r < reps; r++)
        sink += cpu_reduce_sum_mt(x, n, 0);
    double t2 = clock_now_s();
    double bytes = (double)reps * (double)n * sizeof(float);
    printf("reduce 2^24 floats (%s): 1 thread %.2f GB/s, %d threads %.2f GB/s\n",
           cpu_simd_path(), bytes / (t1 - t0) * 1e-9, cpu_thread_count(),
           bytes / (t2 - t1) * 1e-9);
    (void)sink;
    free(x);
}

static void bench_sgemm(int reps)
{
    int n = 512;
    size_t elems = (size_t)n * (size_t)n;
    float *a = malloc(elems * sizeof *a), *b = malloc(elems * sizeof *b),
          *c = malloc(elems * sizeof *c);
    if (a && b && c) {
        rng_fill_uniform(a, elems, 2, -1.0f, 1.0f);
        rng_fill_uniform(b, elems, 3, -1.0f, 1.0f);
        double t0 = clock_now_s();
        for (int r = 0; r < reps; r++)
            cpu_sgemm(n, n, n, a, b, c);
        double t1 = clock_now_s();
        for (int r = 0; r < reps; r++)
            cpu_sgemm_mt(n, n, n, a, b, c, 0);
        double t2 = clock_now_s();
        double flops = (double)reps * 2.0 * n * (double)n * n;
        printf("sgemm 512^3 (%s): 1 thread %.2f GFLOP/s, %d threads %.2f GFLOP/s\n",
               cpu_simd_path(), flops / (t1 - t0) * 1e-9, cpu_thread_count(),
               flops / (t2 - t1) * 1e-9);
    } else {
        fputs("cpubench: out of memory\n", stderr);
    }
    free(a);
    free(b);
    free(c);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 4;
    if (reps < 1)
        reps = 1;
    printf("CPU: %s\n", cpu_model_name());
    bench_reduce(reps);
    bench_sgemm(reps);
    return 0;
}

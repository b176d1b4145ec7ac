/* scan.c - the inclusive prefix sum on the CPU (cpu/scan.h).  The running
 * sum is kept in double: a float one drifts past the check's tolerance from
 * about 2^20 elements (and stops growing at 2^24), and a double add costs
 * the CPU no more than a float one in a dependent chain. */
#include "cpu/scan.h"

#include "cpu/cpuinfo.h"
#include "cpu/parallel.h"

/* Fewer elements than this per thread do not pay for the thread. */
#define SCAN_MIN_PER_THREAD ((size_t)1 << 18)
#define SCAN_MAX_PARTS 256

void cpu_scan(const float *in, float *out, size_t count)
{
    double s = 0.0;
    for (size_t i = 0; i < count; i++) {
        s += (double)in[i];
        out[i] = (float)s;
    }
}

void ref_scan(const float *in, double *out, size_t count)
{
    double s = 0.0;
    for (size_t i = 0; i < count; i++) {
        s += (double)in[i];
        out[i] = s;
    }
}

typedef struct scan_job {
    const float *x;
    float *out;
    size_t n;
    double total[SCAN_MAX_PARTS];    /* each slice's sum, then its offset */
    int pass;
} scan_job;

static void slice(const scan_job *j, int part, int nparts, size_t *from, size_t *to)
{
    *from = j->n * (size_t)part / (size_t)nparts;
    *to = j->n * (size_t)(part + 1) / (size_t)nparts;
}

static void scan_part(void *ctx, int part, int nparts)
{
    scan_job *j = ctx;
    size_t from, to;
    slice(j, part, nparts, &from, &to);
    if (j->pass == 0) {
        double s = 0.0;
        for (size_t i = from; i < to; i++)
            s += (double)j->x[i];
        j->total[part] = s;
        return;
    }
    double s = j->total[part];
    for (size_t i = from; i < to; i++) {
        s += (double)j->x[i];
        j->out[i] = (float)s;
    }
}

void cpu_scan_mt(const float *in, float *out, size_t count, int threads)
{
    if (threads <= 0)
        threads = cpu_thread_count();
    size_t most = count / SCAN_MIN_PER_THREAD;
    if ((size_t)threads > most)
        threads = most > 0 ? (int)most : 1;
    if (threads > SCAN_MAX_PARTS)
        threads = SCAN_MAX_PARTS;
    if (threads <= 1) {
        cpu_scan(in, out, count);
        return;
    }
    scan_job j = {.x = in, .out = out, .n = count, .pass = 0};
    parallel_run(threads, scan_part, &j);
    double carry = 0.0;
    for (int p = 0; p < threads; p++) {
        double t = j.total[p];
        j.total[p] = carry;
        carry += t;
    }
    j.pass = 1;
    parallel_run(threads, scan_part, &j);
}

/* allreduce.c - hashed inputs and the chunked double-precision check
 * (allreduce.h). */
#include "cpu/allreduce.h"

#include <math.h>
#include <string.h>

#include "cpu/parallel.h"

#define PARTS_MAX 64
#define PER_PART_MIN (1u << 20)

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

float allreduce_input(uint64_t seed, int rank, size_t i)
{
    uint64_t z = mix64(seed + 0x9e3779b97f4a7c15ull * ((uint64_t)rank + 1));
    z = mix64(z ^ (0xd1b54a32d192ed03ull * ((uint64_t)i + 1)));
    /* 24 bits: k / 2^23 - 1 for k < 2^24, exact in a float */
    return (float)((double)(z >> 40) * (1.0 / 8388608.0) - 1.0);
}

typedef struct fill_job {
    float *out;
    size_t count;
    uint64_t seed;
    int rank;
} fill_job;

static void fill_part(void *ctx, int part, int nparts)
{
    const fill_job *j = ctx;
    size_t from = j->count / (size_t)nparts * (size_t)part;
    size_t to = part == nparts - 1 ? j->count : j->count / (size_t)nparts * (size_t)(part + 1);
    for (size_t i = from; i < to; i++)
        j->out[i] = allreduce_input(j->seed, j->rank, i);
}

void allreduce_fill(float *out, size_t count, uint64_t seed, int rank)
{
    fill_job j = {out, count, seed, rank};
    int parts = parallel_threads(0, (double)count, PER_PART_MIN);
    parallel_run(parts > PARTS_MAX ? PARTS_MAX : parts, fill_part, &j);
}

/* What one thread found in its range. */
typedef struct part_report {
    int64_t unwritten, nonfinite, differing, compared;
    double diff2, ref2;
    int nfirst[3];                    /* the first elements of each kind: */
    check_mismatch first[3][4];       /* unwritten, non-finite, wrong */
} part_report;

enum { FIRST_UNWRITTEN, FIRST_NONFINITE, FIRST_WRONG };

typedef struct check_job {
    const float *got;
    size_t count;
    uint64_t seed;
    int nranks;
    double tol;
    part_report parts[PARTS_MAX];
} check_job;

static void note(part_report *p, int kind, size_t i, double got, double want)
{
    if (p->nfirst[kind] < 4)
        p->first[kind][p->nfirst[kind]++] = (check_mismatch){(int64_t)i, got, want};
}

static void check_part(void *ctx, int part, int nparts)
{
    check_job *j = ctx;
    part_report *p = &j->parts[part];
    memset(p, 0, sizeof *p);
    size_t from = j->count / (size_t)nparts * (size_t)part;
    size_t to = part == nparts - 1 ? j->count : j->count / (size_t)nparts * (size_t)(part + 1);
    for (size_t i = from; i < to; i++) {
        double ref = 0.0;
        for (int r = 0; r < j->nranks; r++)
            ref += (double)allreduce_input(j->seed, r, i);
        float g = j->got[i];
        if (check_is_poison(g)) {
            p->unwritten++;
            note(p, FIRST_UNWRITTEN, i, (double)g, ref);
            continue;
        }
        if (!isfinite(g)) {
            p->nonfinite++;
            note(p, FIRST_NONFINITE, i, (double)g, ref);
            continue;
        }
        double d = (double)g - ref;
        p->compared++;
        p->diff2 += d * d;
        p->ref2 += ref * ref;
        if (fabs(d) > j->tol * fmax(fabs(ref), 1.0)) {
            p->differing++;
            note(p, FIRST_WRONG, i, (double)g, ref);
        }
    }
}

/* Sums the parts' findings into r, first mismatches in index order. */
static void merge(const check_job *j, int nparts, check_report *r)
{
    double diff2 = 0.0, ref2 = 0.0;
    for (int k = 0; k < nparts; k++) {
        const part_report *p = &j->parts[k];
        r->unwritten += p->unwritten;
        r->nonfinite += p->nonfinite;
        r->differing += p->differing;
        r->compared += p->compared;
        diff2 += p->diff2;
        ref2 += p->ref2;
    }
    r->rel_err = ref2 > 0.0 ? sqrt(diff2 / ref2) : sqrt(diff2);
    if (r->unwritten > 0 || r->nonfinite > 0)
        r->status = r->unwritten > 0 ? CHECK_UNWRITTEN : CHECK_NONFINITE;
    else if (r->differing > 0 || r->rel_err > j->tol)
        r->status = CHECK_WRONG;
    else
        r->status = CHECK_OK;
    int kind = r->status == CHECK_UNWRITTEN   ? FIRST_UNWRITTEN
               : r->status == CHECK_NONFINITE ? FIRST_NONFINITE
                                              : FIRST_WRONG;
    for (int k = 0; k < nparts && r->nmismatch < 4; k++) {
        const part_report *p = &j->parts[k];
        for (int m = 0; m < p->nfirst[kind] && r->nmismatch < 4; m++)
            r->mismatch[r->nmismatch++] = p->first[kind][m];
    }
}

check_report allreduce_check(const float *got, size_t count, uint64_t seed, int nranks,
                             double tol)
{
    check_report r;
    memset(&r, 0, sizeof r);
    check_job job;
    memset(&job, 0, sizeof job);
    job.got = got;
    job.count = count;
    job.seed = seed;
    job.nranks = nranks;
    job.tol = tol;
    int parts = parallel_threads(0, (double)count, PER_PART_MIN);
    if (parts > PARTS_MAX)
        parts = PARTS_MAX;
    if (parts < 1)
        parts = 1;
    parallel_run(parts, check_part, &job);
    merge(&job, parts, &r);
    return r;
}

/* collective.c - bandwidth figures, sizes and the ring's plan (collective.h). */
#include "catalog/collective.h"

#include <string.h>

double coll_bus_factor(int nranks)
{
    if (nranks < 2)
        return 0.0;
    return 2.0 * (double)(nranks - 1) / (double)nranks;
}

double coll_algbw_gbs(double bytes, double ms)
{
    if (!(ms > 0.0))
        return -1.0;
    return bytes / (ms * 1e6);
}

double coll_busbw_gbs(double bytes, double ms, int nranks)
{
    double alg = coll_algbw_gbs(bytes, ms);
    return alg < 0.0 ? -1.0 : alg * coll_bus_factor(nranks);
}

static const struct {
    const char *id, *label;
    bool nccl;
} rows[] = {
    {"peer", "peer copies", false},  {"ar_naive", "naive", false},
    {"ar_ring", "ring", false},      {"ar_nccl", "NCCL", true},
    {"exercise", "your kernel", false}, {"dp_1gpu", "1 GPU", false},
    {"dp_serial", "serial", true},   {"dp_overlap", "overlapped", true},
};

const char *coll_row_label(const char *id)
{
    for (size_t i = 0; id && i < sizeof rows / sizeof rows[0]; i++)
        if (strcmp(rows[i].id, id) == 0)
            return rows[i].label;
    return id ? id : "";
}

bool coll_row_needs_nccl(const char *id)
{
    for (size_t i = 0; id && i < sizeof rows / sizeof rows[0]; i++)
        if (strcmp(rows[i].id, id) == 0)
            return rows[i].nccl;
    return false;
}

size_t coll_sizes(size_t *out, size_t max)
{
    static const size_t sizes[] = {
        8, 64, 512, (size_t)4 << 10, (size_t)32 << 10, (size_t)256 << 10, (size_t)2 << 20,
        (size_t)16 << 20, (size_t)64 << 20, (size_t)256 << 20, (size_t)1 << 30,
    };
    size_t n = sizeof sizes / sizeof sizes[0];
    if (n > max)
        n = max;
    for (size_t i = 0; i < n; i++)
        out[i] = sizes[i];
    return n;
}

int coll_iters(size_t bytes)
{
    /* about 32 MiB a sample, between 1 and 50 collectives: a small message's
     * sample then lasts hundreds of microseconds, far above the events'
     * resolution, and a large one's a single collective */
    const size_t target = (size_t)32 << 20;
    if (bytes == 0 || bytes >= target)
        return 1;
    size_t it = target / bytes;
    return it > 50 ? 50 : (int)it;
}

int coll_samples(size_t bytes)
{
    return bytes >= ((size_t)64 << 20) ? 10 : 20;
}

int coll_mod(int a, int n)
{
    int m = a % n;
    return m < 0 ? m + n : m;
}

static size_t round_up(size_t v, size_t to)
{
    return (v + to - 1) / to * to;
}

coll_range coll_chunk(size_t count, int nranks, int c)
{
    coll_range r = {0, 0};
    if (nranks < 1 || c < 0 || c >= nranks)
        return r;
    size_t base = round_up((count + (size_t)nranks - 1) / (size_t)nranks, COLL_ALIGN);
    size_t off = base * (size_t)c;
    r.off = off < count ? off : count;
    r.count = count - r.off < base ? count - r.off : base;
    return r;
}

int coll_ring_owned(int nranks, int rank)
{
    return coll_mod(rank + 1, nranks);
}

int coll_ring_steps(int nranks, int rank, coll_step *out)
{
    if (nranks < 2 || nranks > COLL_MAX_RANKS || rank < 0 || rank >= nranks)
        return 0;
    int n = 0;
    for (int k = 0; k <= nranks - 2; k++) {
        coll_step *s = &out[n++];
        s->chunk = coll_mod(rank - 1 - k, nranks);
        s->src = k == 0 ? COLL_SRC_LEFT_SEND : COLL_SRC_LEFT_SCRATCH;
        s->add_own = true;
        s->dst = k == nranks - 2 ? COLL_DST_RECV : COLL_DST_SCRATCH;
    }
    for (int k = 0; k <= nranks - 2; k++) {
        coll_step *s = &out[n++];
        s->chunk = coll_mod(rank - k, nranks);
        s->src = COLL_SRC_LEFT_RECV;
        s->add_own = false;
        s->dst = COLL_DST_RECV;
    }
    return n;
}

int coll_ring_blocks(size_t count, int nranks, int max_blocks)
{
    if (max_blocks > COLL_MAX_BLOCKS)
        max_blocks = COLL_MAX_BLOCKS;
    if (max_blocks < 1)
        max_blocks = 1;
    size_t largest = coll_chunk(count, nranks, 0).count;
    size_t want = (largest + COLL_MIN_SLICE - 1) / COLL_MIN_SLICE;
    if (want < 1)
        want = 1;
    return want > (size_t)max_blocks ? max_blocks : (int)want;
}

size_t coll_ring_slice(size_t count, int nranks, int nblocks)
{
    size_t largest = coll_chunk(count, nranks, 0).count;
    if (nblocks < 1)
        nblocks = 1;
    size_t s = round_up((largest + (size_t)nblocks - 1) / (size_t)nblocks, COLL_ALIGN);
    return s > 0 ? s : COLL_ALIGN;
}

coll_range coll_slice(coll_range chunk, size_t slice, int block)
{
    coll_range r = {chunk.off + chunk.count, 0};
    if (block < 0)
        return r;
    size_t start = slice * (size_t)block;
    if (start >= chunk.count)
        return r;
    r.off = chunk.off + start;
    r.count = chunk.count - start < slice ? chunk.count - start : slice;
    return r;
}

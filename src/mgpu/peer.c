/* peer.c - copies between GPU 0 and GPU 1 in rank 0's process:
 * cudaMemcpyPeer before peer access is enabled, then with it, each way and
 * both ways at once.  The runtime says whether the GPUs can reach each
 * other and ranks the link; the driver's NVML gives the nominal rate of
 * GPU 0's NVLinks, which the rows with peer access are measured against
 * (their %peak). */
#include "mgpu/mgpu_internal.h"

#include <stdio.h>
#include <string.h>

#include "core/strfmt.h"
#include "core/units.h"
#include "cpu/allreduce.h"
#include "gpu/cudacheck.h"
#include "kernels.h"
#include "mgpu/nvml.h"

#define PEER_BYTES ((size_t)256 << 20)
#define PEER_SAMPLES 10

typedef struct peer_ctx {
    mg_rank *r;
    float *a0, *b0;                   /* on GPU 0 */
    float *a1, *b1;                   /* on GPU 1 */
    float *host;                      /* pinned: read back, then the two sources */
    cudaStream_t s1;                  /* on GPU 1 */
    cudaEvent_t e1;                   /* on GPU 1 */
    bool can01, can10;
    int perf_rank;
    double nominal_gbs;               /* GPU 0's NVLinks together, each way; 0 unknown */
    char link[512];
} peer_ctx;

/* One copy (or both at once) on the streams, as timed. */
typedef enum { COPY_01, COPY_10, COPY_BOTH } copy_dir;

static bool enqueue(peer_ctx *p, copy_dir d, cl_err *err)
{
    cudaStream_t s0 = p->r->stream;
    if (d == COPY_BOTH) {
        CUDA_CHECK(err, cudaEventRecord(p->r->ev[2 * MG_MAX_SAMPLES - 1], s0));
        CUDA_CHECK(err, cudaStreamWaitEvent(p->s1, p->r->ev[2 * MG_MAX_SAMPLES - 1], 0));
    }
    if (d != COPY_10)
        CUDA_CHECK(err, cudaMemcpyPeerAsync(p->a1, 1, p->a0, 0, PEER_BYTES, s0));
    if (d != COPY_01)
        CUDA_CHECK(err, cudaMemcpyPeerAsync(p->b0, 0, p->b1, 1, PEER_BYTES, d == COPY_BOTH ? p->s1 : s0));
    if (d == COPY_BOTH) {
        CUDA_CHECK(err, cudaEventRecord(p->e1, p->s1));
        CUDA_CHECK(err, cudaStreamWaitEvent(s0, p->e1, 0));
    }
    return true;
}

/* dst (device dev) holds exactly what the host buffer src held. */
static bool same(peer_ctx *p, const float *dst, const float *want, bool *ok, cl_err *err)
{
    CUDA_CHECK(err, cudaMemcpy(p->host, dst, PEER_BYTES, cudaMemcpyDefault));
    *ok = memcmp(p->host, want, PEER_BYTES) == 0;
    return true;
}

/* Fresh inputs in a0 and b1, poison in a1 and b0 (the destinations). */
static bool fresh(peer_ctx *p, uint64_t seed, float *want0, float *want1, cl_err *err)
{
    const size_t n = PEER_BYTES / sizeof(float);
    allreduce_fill(want0, n, seed, 0);
    allreduce_fill(want1, n, seed, 1);
    CUDA_CHECK(err, cudaMemcpy(p->a0, want0, PEER_BYTES, cudaMemcpyDefault));
    CUDA_CHECK(err, cudaMemcpy(p->b1, want1, PEER_BYTES, cudaMemcpyDefault));
    CUDA_CHECK(err, kernels_fill_u32((uint32_t *)p->b0, CHECK_POISON_BITS, n, p->r->stream));
    CUDA_CHECK(err, cudaSetDevice(1));
    CUDA_CHECK(err, kernels_fill_u32((uint32_t *)p->a1, CHECK_POISON_BITS, n, p->s1));
    CUDA_CHECK(err, cudaStreamSynchronize(p->s1));
    CUDA_CHECK(err, cudaSetDevice(0));
    CUDA_CHECK(err, cudaStreamSynchronize(p->r->stream));
    return true;
}

static bool timed(peer_ctx *p, copy_dir d, run_result *row, cl_err *err)
{
    mg_rank *r = p->r;
    for (int w = 0; w < 2; w++)
        if (!enqueue(p, d, err))
            return false;
    for (int s = 0; s < PEER_SAMPLES; s++) {
        CUDA_CHECK(err, cudaEventRecord(r->ev[2 * s], r->stream));
        if (!enqueue(p, d, err))
            return false;
        CUDA_CHECK(err, cudaEventRecord(r->ev[2 * s + 1], r->stream));
    }
    CUDA_CHECK(err, cudaStreamSynchronize(r->stream));
    if (!mg_row_times(r, PEER_SAMPLES, 1, row, err))
        return false;
    double moved = (double)PEER_BYTES * (d == COPY_BOTH ? 2.0 : 1.0);
    row->gbps = moved / (row->median_ms * 1e6);
    return true;
}

/* One row: fresh data, a checked copy, then the timed ones. */
static bool peer_row(peer_ctx *p, const char *id, const char *label, copy_dir d, uint64_t seed,
                     cl_err *err)
{
    run_result row;
    run_result_init(&row);
    strfmt_copy(row.variant, sizeof row.variant, id);
    strfmt_copy(row.label, sizeof row.label, label);
    units_bytes((double)PEER_BYTES, row.size, sizeof row.size);
    row.kind = RK_KERNEL;
    row.seed = seed;
    mg_link_progress(p->r, id, row.size, "check", 0, 1);
    float *want0 = p->host + PEER_BYTES / sizeof(float);
    float *want1 = p->host + 2 * (PEER_BYTES / sizeof(float));
    bool ok0 = true, ok1 = true;
    if (!fresh(p, seed, want0, want1, err) || !enqueue(p, d, err))
        return false;
    CUDA_CHECK(err, cudaStreamSynchronize(p->r->stream));
    if ((d != COPY_10 && !same(p, p->a1, want0, &ok0, err))
        || (d != COPY_01 && !same(p, p->b0, want1, &ok1, err)))
        return false;
    row.status = ok0 && ok1 ? RS_CORRECT : RS_WRONG;
    mg_link_progress(p->r, id, row.size, "timing", 0, PEER_SAMPLES);
    if (!timed(p, d, &row, err))
        return false;
    /* with peer access the copy crosses the link: its share of the
     * nominal rate (both ways: of twice it) */
    if (p->nominal_gbs > 0.0 && strcmp(id, "peer_staged") != 0)
        row.pct_peak_theory = 100.0 * row.gbps / (p->nominal_gbs * (d == COPY_BOTH ? 2.0 : 1.0));
    if (row.status == RS_CORRECT)
        snprintf(row.message, sizeof row.message, "%.1f GB/s%s; %s", row.gbps,
                 d == COPY_BOTH ? " both ways together" : "", p->link);
    else
        snprintf(row.message, sizeof row.message, "the copy differs from its source");
    mg_link_row(p->r, &row, 1);
    return true;
}

/* What the runtime says of the link between GPU 0 and GPU 1. */
static bool describe_link(peer_ctx *p, cl_err *err)
{
    int c01 = 0, c10 = 0, atomics = 0;
    CUDA_CHECK(err, cudaDeviceCanAccessPeer(&c01, 0, 1));
    CUDA_CHECK(err, cudaDeviceCanAccessPeer(&c10, 1, 0));
    p->can01 = c01 != 0;
    p->can10 = c10 != 0;
    p->perf_rank = -1;
    mg_nvlinks nl;
    char why[256], rate[300];
    if (mg_nvml_nvlinks(0, &nl, why, sizeof why) && nl.active > 0) {
        p->nominal_gbs = nl.active * nl.link_gbs;
        snprintf(rate, sizeof rate,
                 "nominal rate (NVML): %d active NVLinks of %.1f GB/s each way on GPU 0, "
                 "%.0f GB/s each way in all",
                 nl.active, nl.link_gbs, p->nominal_gbs);
    } else {
        snprintf(rate, sizeof rate, "the link's nominal rate is unknown: %s", why);
    }
    if (p->can01) {
        CUDA_CHECK(err, cudaDeviceGetP2PAttribute(&p->perf_rank, cudaDevP2PAttrPerformanceRank, 0, 1));
        CUDA_CHECK(err, cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, 0, 1));
        snprintf(p->link, sizeof p->link,
                 "peer access supported (performance rank %d, native atomics %s); %s",
                 p->perf_rank, atomics ? "yes" : "no", rate);
    } else {
        snprintf(p->link, sizeof p->link,
                 "no peer access between GPU 0 and GPU 1: copies pass through host memory; %s",
                 rate);
    }
    return true;
}

static bool setup(peer_ctx *p, cl_err *err)
{
    CUDA_CHECK(err, cudaMallocHost((void **)&p->host, 3 * PEER_BYTES));
    CUDA_CHECK(err, cudaMalloc((void **)&p->a0, PEER_BYTES));
    CUDA_CHECK(err, cudaMalloc((void **)&p->b0, PEER_BYTES));
    CUDA_CHECK(err, cudaSetDevice(1));
    CUDA_CHECK(err, cudaMalloc((void **)&p->a1, PEER_BYTES));
    CUDA_CHECK(err, cudaMalloc((void **)&p->b1, PEER_BYTES));
    CUDA_CHECK(err, cudaStreamCreateWithFlags(&p->s1, cudaStreamNonBlocking));
    CUDA_CHECK(err, cudaEventCreateWithFlags(&p->e1, cudaEventDisableTiming));
    CUDA_CHECK(err, cudaSetDevice(0));
    return describe_link(p, err);
}

static void teardown(peer_ctx *p)
{
    (void)cudaSetDevice(1);
    if (p->s1)
        (void)cudaStreamSynchronize(p->s1);
    void *on1[] = {p->a1, p->b1};
    for (int i = 0; i < 2; i++)
        if (on1[i])
            (void)cudaFree(on1[i]);
    if (p->e1)
        (void)cudaEventDestroy(p->e1);
    if (p->s1)
        (void)cudaStreamDestroy(p->s1);
    (void)cudaSetDevice(0);
    void *on0[] = {p->a0, p->b0};
    for (int i = 0; i < 2; i++)
        if (on0[i])
            (void)cudaFree(on0[i]);
    if (p->host)
        (void)cudaFreeHost(p->host);
}

/* Peer access both ways (cudaDeviceEnablePeerAccess from each side). */
static bool enable(peer_ctx *p, cl_err *err)
{
    CUDA_CHECK(err, cudaDeviceEnablePeerAccess(1, 0));
    CUDA_CHECK(err, cudaSetDevice(1));
    if (p->can10)
        CUDA_CHECK(err, cudaDeviceEnablePeerAccess(0, 0));
    CUDA_CHECK(err, cudaSetDevice(0));
    return true;
}

/* The rows that need peer access, each an error row without it. */
static bool no_access_rows(peer_ctx *p)
{
    static const char *const ids[][2] = {
        {"peer_0to1", "peer 0->1"}, {"peer_1to0", "peer 1->0"}, {"peer_both", "peer both ways"}};
    for (int i = 0; i < 3; i++) {
        run_result row;
        run_result_init(&row);
        strfmt_copy(row.variant, sizeof row.variant, ids[i][0]);
        strfmt_copy(row.label, sizeof row.label, ids[i][1]);
        units_bytes((double)PEER_BYTES, row.size, sizeof row.size);
        row.status = RS_ERROR;
        snprintf(row.message, sizeof row.message,
                 "GPU 0 cannot access GPU 1's memory (cudaDeviceCanAccessPeer says no): no peer "
                 "access to enable on this machine");
        mg_link_row(p->r, &row, 1);
    }
    return true;
}

bool mg_peer_rows(mg_rank *r, cl_err *err)
{
    peer_ctx p;
    memset(&p, 0, sizeof p);
    p.r = r;
    uint64_t seed = r->seed ^ 0x70ee7ull;
    bool ok = setup(&p, err)
              && peer_row(&p, "peer_staged", "peer 0->1, access off", COPY_01, seed, err);
    if (ok && !p.can01)
        ok = no_access_rows(&p);
    else if (ok)
        ok = enable(&p, err) && peer_row(&p, "peer_0to1", "peer 0->1", COPY_01, seed + 1, err)
             && peer_row(&p, "peer_1to0", "peer 1->0", COPY_10, seed + 2, err)
             && peer_row(&p, "peer_both", "peer both ways", COPY_BOTH, seed + 3, err);
    teardown(&p);
    return ok;
}

/* buffers.c - each rank's all-reduce buffers, exported through CUDA IPC
 * and mapped by every other rank of the group. */
#include "mgpu/mgpu_internal.h"

#include <string.h>

#include "collective.h"
#include "gpu/cudacheck.h"

/* Handles of one rank's four allocations, as exchanged. */
typedef struct mg_handles {
    cudaIpcMemHandle_t send, recv, scratch, flags;
} mg_handles;

_Static_assert(sizeof(mg_handles) <= RANKMSG_BLOB_MAX, "IPC handles outgrow an exchange");
_Static_assert(KCOLL_MAX_RANKS == COLL_MAX_RANKS && KCOLL_MAX_BLOCKS == COLL_MAX_BLOCKS,
               "kernels/collective.h and catalog/collective.h disagree");

/* The largest message every rank can hold: each proposes what fits its
 * free memory (rank 0 keeps a copy of every other rank's input), the
 * smallest proposal wins. */
static bool agree_cap(mg_rank *r, size_t *bytes, cl_err *err)
{
    size_t free_b = 0, total = 0;
    CUDA_CHECK(err, cudaMemGetInfo(&free_b, &total));
    size_t nbuf = 3 + (r->rank == 0 ? (size_t)r->nranks - 1 : 0);
    size_t want = MG_MAX_BYTES;
    const size_t margin = (size_t)1 << 30;
    while (want > ((size_t)1 << 20) && want * nbuf + margin > free_b)
        want /= 2;
    rank_blob all[COLL_MAX_RANKS];
    uint64_t mine = want;
    if (!mg_link_exchange(r, &mine, sizeof mine, all, err))
        return false;
    *bytes = want;
    for (int k = 0; k < r->nranks; k++) {
        uint64_t v = 0;
        if (all[k].len != sizeof v)
            return err_set(err, "rank %d proposed no buffer size", k);
        memcpy(&v, all[k].data, sizeof v);
        if (v < *bytes)
            *bytes = (size_t)v;
    }
    return true;
}

static bool allocate(mg_rank *r, size_t bytes, cl_err *err)
{
    mg_bufs *b = &r->b;
    b->cap = bytes / sizeof(float);
    CUDA_CHECK(err, cudaMalloc((void **)&b->send, bytes));
    CUDA_CHECK(err, cudaMalloc((void **)&b->recv, bytes));
    CUDA_CHECK(err, cudaMalloc((void **)&b->scratch, bytes));
    CUDA_CHECK(err, cudaMalloc((void **)&b->flags, KCOLL_FLAG_WORDS * sizeof(unsigned)));
    CUDA_CHECK(err, cudaMemset(b->flags, 0, KCOLL_FLAG_WORDS * sizeof(unsigned)));
    CUDA_CHECK(err, cudaMallocHost((void **)&b->host, bytes));
    for (int k = 1; r->rank == 0 && k < r->nranks; k++)
        CUDA_CHECK(err, cudaMalloc((void **)&b->stage[k], bytes));
    CUDA_CHECK(err, cudaDeviceSynchronize());
    return true;
}

/* Maps rank k's allocations from their handles. */
static bool map_peer(mg_rank *r, int k, const rank_blob *blob, cl_err *err)
{
    mg_handles h;
    if (blob->len != sizeof h)
        return err_set(err, "rank %d sent no IPC handles", k);
    memcpy(&h, blob->data, sizeof h);
    mg_bufs *b = &r->b;
    void *p;
    const unsigned lazy = cudaIpcMemLazyEnablePeerAccess;
    CUDA_CHECK(err, cudaIpcOpenMemHandle(&p, h.send, lazy));
    b->p_send[k] = p;
    CUDA_CHECK(err, cudaIpcOpenMemHandle(&p, h.recv, lazy));
    b->p_recv[k] = p;
    CUDA_CHECK(err, cudaIpcOpenMemHandle(&p, h.scratch, lazy));
    b->p_scratch[k] = p;
    CUDA_CHECK(err, cudaIpcOpenMemHandle(&p, h.flags, lazy));
    b->p_flags[k] = p;
    return true;
}

bool mg_bufs_open(mg_rank *r, cl_err *err)
{
    mg_bufs *b = &r->b;
    if (b->ready)
        return true;
    size_t bytes = 0;
    if (!agree_cap(r, &bytes, err) || !allocate(r, bytes, err))
        return false;
    b->p_send[r->rank] = b->send;
    b->p_recv[r->rank] = b->recv;
    b->p_scratch[r->rank] = b->scratch;
    b->p_flags[r->rank] = b->flags;
    b->ready = true;
    if (!r->p2p_all)      /* NCCL alone: it finds its own way between the GPUs */
        return mg_link_barrier(r, err);
    mg_handles h;
    memset(&h, 0, sizeof h);
    CUDA_CHECK(err, cudaIpcGetMemHandle(&h.send, b->send));
    CUDA_CHECK(err, cudaIpcGetMemHandle(&h.recv, b->recv));
    CUDA_CHECK(err, cudaIpcGetMemHandle(&h.scratch, b->scratch));
    CUDA_CHECK(err, cudaIpcGetMemHandle(&h.flags, b->flags));
    rank_blob all[COLL_MAX_RANKS];
    if (!mg_link_exchange(r, &h, sizeof h, all, err))
        return false;
    for (int k = 0; k < r->nranks; k++)
        if (k != r->rank && !map_peer(r, k, &all[k], err))
            return false;
    /* nobody touches another rank's buffers before every rank mapped them */
    return mg_link_barrier(r, err);
}

void mg_bufs_close(mg_rank *r)
{
    mg_bufs *b = &r->b;
    for (int k = 0; b->ready && k < r->nranks; k++) {
        if (k == r->rank)
            continue;
        const void *ps[] = {b->p_send[k], b->p_recv[k], b->p_scratch[k], b->p_flags[k]};
        for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
            if (ps[i])
                (void)cudaIpcCloseMemHandle((void *)ps[i]);
        b->p_send[k] = b->p_recv[k] = b->p_scratch[k] = NULL;
        b->p_flags[k] = NULL;
    }
    for (int k = 0; k < COLL_MAX_RANKS; k++) {
        if (b->stage[k])
            (void)cudaFree(b->stage[k]);
        b->stage[k] = NULL;
    }
    void *ds[] = {b->send, b->recv, b->scratch, b->flags};
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++)
        if (ds[i])
            (void)cudaFree(ds[i]);
    if (b->host)
        (void)cudaFreeHost(b->host);
    memset(b, 0, sizeof *b);
}

/* allreduce.c - one all-reduce of the lab's three: naive (gather to GPU 0,
 * sum, broadcast), the hand-written ring, and ncclAllReduce, or the
 * learner's (mgpu/exercise.h); and setting up what each needs. */
#include "mgpu/mgpu_internal.h"

#include <stdio.h>
#include <string.h>

#include "collective.h"
#include "core/strfmt.h"
#include "gpu/cudacheck.h"
#include "mgpu/exercise.h"

const char *mg_algo_id(mg_algo a)
{
    static const char *const ids[] = {"ar_naive", "ar_ring", "ar_nccl", "exercise"};
    return a < MG_NALGOS ? ids[a] : "";
}

const char *mg_algo_label(mg_algo a)
{
    return coll_row_label(mg_algo_id(a));
}

/* NCCL's communicator, made once by every rank together: whether every
 * rank could load NCCL (exchanged, so all decide alike), then rank 0's
 * unique id to all. */
static bool nccl_setup(mg_rank *r, cl_err *err)
{
    char version[32], from[1024];
    r->nccl_tried = true;
    unsigned char loaded = mg_nccl_load(version, sizeof version, from, sizeof from, r->nccl_why,
                                        sizeof r->nccl_why);
    rank_blob all[COLL_MAX_RANKS];
    if (!mg_link_exchange(r, &loaded, 1, all, err))
        return false;
    for (int k = 0; k < r->nranks; k++)
        if (all[k].len != 1 || !all[k].data[0]) {
            if (loaded)
                snprintf(r->nccl_why, sizeof r->nccl_why, "NCCL could not be loaded by rank %d", k);
            return true;
        }
    if (r->rank == 0)
        mg_link_log(r, 0, "NCCL %s from %s", version, from);
    unsigned char id[MG_NCCL_ID_BYTES];
    memset(id, 0, sizeof id);
    if (r->rank == 0 && !mg_nccl_unique_id(id, err))
        return false;
    if (!mg_link_exchange(r, r->rank == 0 ? id : NULL, r->rank == 0 ? sizeof id : 0, all, err))
        return false;
    if (all[0].len != sizeof id)
        return err_set(err, "rank 0 sent no NCCL unique id");
    r->nccl = mg_nccl_init(r->nranks, all[0].data, r->rank, err);
    return r->nccl != NULL;
}

bool mg_nccl_ready(mg_rank *r, bool *can, char *msg, size_t n, cl_err *err)
{
    msg[0] = '\0';
    if (!r->nccl_tried && !nccl_setup(r, err))
        return false;
    *can = r->nccl != NULL;
    if (!*can)
        strfmt_copy(msg, n, r->nccl_why);
    return true;
}

bool mg_algo_ready(mg_rank *r, mg_algo a, bool *can, char *msg, size_t n, cl_err *err)
{
    msg[0] = '\0';
    *can = false;
    if (a == MG_NCCL)
        return mg_nccl_ready(r, can, msg, n, err) && (!*can || mg_bufs_open(r, err));
    if (!r->p2p_all) {
        snprintf(msg, n, "%s: the lab's own all-reduces read other GPUs' memory directly", r->p2p_why);
        return true;
    }
    if (!mg_bufs_open(r, err))
        return false;
    if (a == MG_EXERCISE)
        return mg_ex_ready(r, can, msg, n, err);
    *can = true;
    return true;
}

static bool naive(mg_rank *r, size_t count, cl_err *err)
{
    mg_bufs *b = &r->b;
    const unsigned e = ++r->epoch_naive;
    const size_t bytes = count * sizeof(float);
    if (r->rank != 0) {
        /* arrived: this rank's input may be read, and its last broadcast is done */
        CUDA_CHECK(err, kcoll_flag_set(b->flags + KCOLL_FLAG_ARRIVED, e, r->stream));
        const unsigned *reduced = b->p_flags[0] + KCOLL_FLAG_REDUCED;
        CUDA_CHECK(err, kcoll_flag_wait(&reduced, 1, e, r->stream));
        CUDA_CHECK(err, cudaMemcpyAsync(b->recv, b->p_recv[0], bytes, cudaMemcpyDefault, r->stream));
        return true;
    }
    const unsigned *arrived[COLL_MAX_RANKS];
    const float *ins[COLL_MAX_RANKS];
    ins[0] = b->send;
    for (int k = 1; k < r->nranks; k++)
        arrived[k - 1] = b->p_flags[k] + KCOLL_FLAG_ARRIVED;
    CUDA_CHECK(err, kcoll_flag_wait(arrived, r->nranks - 1, e, r->stream));
    for (int k = 1; k < r->nranks; k++) {
        CUDA_CHECK(err, cudaMemcpyAsync(b->stage[k], b->p_send[k], bytes, cudaMemcpyDefault,
                                        r->stream));
        ins[k] = b->stage[k];
    }
    CUDA_CHECK(err, kcoll_reduce(b->recv, ins, r->nranks, count, r->stream));
    CUDA_CHECK(err, kcoll_flag_set(b->flags + KCOLL_FLAG_REDUCED, e, r->stream));
    return true;
}

static bool ring(mg_rank *r, size_t count, cl_err *err)
{
    mg_bufs *b = &r->b;
    coll_step steps[COLL_MAX_STEPS];
    kcoll_ring_args a;
    memset(&a, 0, sizeof a);
    int ns = coll_ring_steps(r->nranks, r->rank, steps);
    if (ns == 0)
        return err_set(err, "no ring for rank %d of %d", r->rank, r->nranks);
    const int left = coll_mod(r->rank - 1, r->nranks), right = coll_mod(r->rank + 1, r->nranks);
    a.send = b->send;
    a.scratch = b->scratch;
    a.recv = b->recv;
    a.left_send = b->p_send[left];
    a.left_scratch = b->p_scratch[left];
    a.left_recv = b->p_recv[left];
    a.flags = b->flags;
    a.left_flags = b->p_flags[left];
    a.right_flags = b->p_flags[right];
    a.epoch = ++r->epoch_ring;
    a.nsteps = ns;
    a.nblocks = coll_ring_blocks(count, r->nranks, r->max_blocks);
    /* Block b's "done" flag was last set by block b of the previous ring
     * collective only when that had as many blocks; otherwise a barrier
     * (a new size) came between, and there is nothing to wait for. */
    a.war_epoch = a.nblocks == r->ring_blocks_last ? a.epoch - 1 : 0;
    r->ring_blocks_last = a.nblocks;
    a.slice = (int64_t)coll_ring_slice(count, r->nranks, a.nblocks);
    for (int s = 0; s < ns; s++) {
        coll_range c = coll_chunk(count, r->nranks, steps[s].chunk);
        a.steps[s].off = (int64_t)c.off;
        a.steps[s].count = (int64_t)c.count;
        a.steps[s].src = steps[s].src == COLL_SRC_LEFT_SEND      ? KCOLL_LEFT_SEND
                         : steps[s].src == COLL_SRC_LEFT_SCRATCH ? KCOLL_LEFT_SCRATCH
                                                                 : KCOLL_LEFT_RECV;
        a.steps[s].dst = steps[s].dst == COLL_DST_SCRATCH ? KCOLL_MY_SCRATCH : KCOLL_MY_RECV;
        a.steps[s].add_own = steps[s].add_own;
    }
    CUDA_CHECK(err, kcoll_ring(&a, r->stream));
    return true;
}

bool mg_allreduce(mg_rank *r, mg_algo a, size_t count, cl_err *err)
{
    switch (a) {
    case MG_NAIVE:
        return naive(r, count, err);
    case MG_RING:
        return ring(r, count, err);
    case MG_NCCL:
        return mg_nccl_allreduce(r->nccl, r->b.send, r->b.recv, count, r->stream, err);
    case MG_EXERCISE:
        return mg_ex_allreduce(r, count, err);
    case MG_NALGOS:
        break;
    }
    return err_set(err, "no such all-reduce");
}

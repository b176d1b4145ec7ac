/* rank.c - a rank's life: its GPU, what the other ranks' GPUs are, the
 * requested rows in order, and a clean end or a reported failure
 * (mgpu/rank.h). */
#include "mgpu/rank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/experiments_list.h"
#include "core/strfmt.h"
#include "gpu/cudacheck.h"
#include "gpu/device.h"
#include "mgpu/exercise.h"
#include "mgpu/mgpu_internal.h"
#include "proto/channel.h"
#include "proto/protocol.h"

/* NVLink multicast (NVLS) off before NCCL can read the environment: on
 * shared machines a program using it can take the host's GPUs out of
 * service. */
static void nvls_off(void)
{
    setenv("NCCL_NVLS_ENABLE", "0", 1);
}

/* The GPUs the lab may use: CUDA's count, at most $CUDALAB_MGPU_GPUS. */
static int count_gpus(char *note, size_t n)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        count = 0;
    }
    note[0] = '\0';
    const char *cap = getenv(MG_GPUS_ENV);
    if (cap && cap[0]) {
        char *end;
        long v = strtol(cap, &end, 10);
        if (*end == '\0' && v >= 0 && v < count) {
            snprintf(note, n, "%ld of %d GPUs (%s=%s)", v, count, MG_GPUS_ENV, cap);
            count = (int)v;
        }
    }
    return count > COLL_MAX_RANKS ? COLL_MAX_RANKS : count;
}

int mgpu_probe_main(void)
{
    nvls_off();
    static rankmsg m;
    mg_rank r;
    memset(&r, 0, sizeof r);
    r.out_fd = proto_channel_fd();
    m.type = RMSG_PROBE;
    rank_probe *p = &m.u.probe;
    char note[256];
    if (device_probe(0, &p->dev, note, sizeof note))
        p->ndevices = count_gpus(p->devices_note, sizeof p->devices_note);
    char from[1024];
    p->nccl = mg_nccl_load(p->nccl_version, sizeof p->nccl_version, from, sizeof from, p->nccl_why,
                           sizeof p->nccl_why);
    return mg_link_send(&r, &m) ? 0 : 1;
}

/* This rank's GPU and stream, and what every rank's GPU is: the fewest
 * SMs (the ring's blocks) and whether every pair reaches the other. */
static bool start(mg_rank *r, cl_err *e)
{
    CUDA_CHECK(e, cudaSetDevice(r->rank));
    CUDA_CHECK(e, cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking));
    for (int i = 0; i < 2 * MG_MAX_SAMPLES; i++)
        CUDA_CHECK(e, cudaEventCreate(&r->ev[i]));
    struct { int32_t sms; uint32_t reach; } me = {0, 0}, them;
    CUDA_CHECK(e, cudaDeviceGetAttribute(&me.sms, cudaDevAttrMultiProcessorCount, r->rank));
    for (int k = 0; k < r->nranks; k++) {
        int can = 0;
        if (k != r->rank)
            CUDA_CHECK(e, cudaDeviceCanAccessPeer(&can, r->rank, k));
        if (can || k == r->rank)
            me.reach |= 1u << k;
    }
    rank_blob all[COLL_MAX_RANKS];
    if (!mg_link_exchange(r, &me, sizeof me, all, e))
        return false;
    r->max_blocks = COLL_MAX_BLOCKS;
    r->p2p_all = true;
    for (int k = 0; k < r->nranks; k++) {
        if (all[k].len != sizeof them)
            return err_set(e, "rank %d did not say what its GPU is", k);
        memcpy(&them, all[k].data, sizeof them);
        if (them.sms > 0 && them.sms < r->max_blocks)
            r->max_blocks = them.sms;
        for (int j = 0; j < r->nranks && r->p2p_all; j++)
            if (!(them.reach & (1u << j))) {
                r->p2p_all = false;
                snprintf(r->p2p_why, sizeof r->p2p_why,
                         "GPU %d cannot access GPU %d's memory (no peer access between them)", k, j);
            }
    }
    return true;
}

/* The requested experiments: the peer copies first (before anything
 * enables peer access), then each size with every requested all-reduce
 * of the lab's, then the data-parallel step, and last, when the request
 * has a kernel file, the learner's at each size.  The learner's kernel
 * runs in this process beside NCCL: one that writes where it should not
 * can then spoil only its own rows, never the lab's figures (NCCL's
 * among them) that its milestones are judged against. */
static bool run(mg_rank *r, cl_err *e)
{
    bool peer = false, algo[MG_NALGOS] = {false}, dp[MG_DP_ROWS] = {false};
    for (int i = 0; i < r->req.nvariants; i++) {
        const char *v = r->req.variants[i].id;
        peer |= strcmp(v, "peer") == 0;
        for (int a = 0; a < MG_NALGOS; a++)
            algo[a] |= strcmp(v, mg_algo_id((mg_algo)a)) == 0;
        for (int k = 0; k < MG_DP_ROWS; k++)
            dp[k] |= strcmp(v, mg_dp_id(k)) == 0;
    }
    if (r->req.nvariants == 0) {
        peer = true;
        for (int a = 0; a < MG_NALGOS; a++)
            algo[a] = true;
        for (int k = 0; k < MG_DP_ROWS; k++)
            dp[k] = true;
    }
    algo[MG_EXERCISE] = r->req.exercise_kernel[0] != '\0';
    if (peer && r->rank == 0 && !mg_peer_rows(r, e))
        return false;
    if (peer && !mg_link_barrier(r, e))
        return false;
    size_t sizes[COLL_MAX_SIZES];
    size_t nsizes = coll_sizes(sizes, COLL_MAX_SIZES);
    for (size_t s = 0; s < nsizes; s++)
        for (int a = 0; a < MG_NALGOS; a++)
            if (a != MG_EXERCISE && algo[a] && !mg_measure(r, (mg_algo)a, sizes[s], e))
                return false;
    if (!mg_dp_rows(r, dp, e))
        return false;
    for (size_t s = 0; s < nsizes && algo[MG_EXERCISE]; s++)
        if (!mg_measure(r, MG_EXERCISE, sizes[s], e))
            return false;
    return true;
}

static bool read_request(mg_rank *r, cl_err *e)
{
    char *line;
    static proto_msg m;
    if (!mg_link_read(r, &line, e))
        return false;
    if (!proto_decode(line, &m, e))
        return false;
    if (m.type != MSG_RUN)
        return err_set(e, "the coordinator's first line is not a run request");
    r->req = m.u.run;
    r->seed = r->req.seed;
    return true;
}

static bool parse(int argc, char **argv, mg_rank *r)
{
    r->rank = r->nranks = -1;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--rank") == 0)
            r->rank = atoi(argv[++i]);
        else if (strcmp(argv[i], "--ranks") == 0)
            r->nranks = atoi(argv[++i]);
    }
    return r->nranks >= 2 && r->nranks <= COLL_MAX_RANKS && r->rank >= 0 && r->rank < r->nranks;
}

int mgpu_rank_main(int argc, char **argv)
{
    nvls_off();
    static mg_rank r;
    if (!parse(argc, argv, &r)) {
        fprintf(stderr, "usage: cudalab worker --rank R --ranks N   (2 <= N <= %d; started by "
                        "cudalab itself)\n", COLL_MAX_RANKS);
        return 2;
    }
    r.in_fd = STDIN_FILENO;
    r.out_fd = proto_channel_fd();
    /* the coordinator's death ends the rank: no orphan keeps a GPU */
    if (!proto_die_with_parent())
        return 1;
    cl_err e = {{0}};
    if (read_request(&r, &e) && start(&r, &e) && run(&r, &e)) {
        bool ok = mg_nccl_destroy(r.nccl, &e);
        r.nccl = NULL;
        mg_ex_close(&r);
        mg_bufs_close(&r);
        mg_dp_close(&r);
        if (ok)
            return 0;
    }
    mg_link_fail(&r, e.msg, (int)cudacheck_last());
    mg_nccl_abort(r.nccl);
    return 1;
}

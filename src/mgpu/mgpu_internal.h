/* mgpu_internal.h - what the pieces of a rank share: its state, its line
 * to the coordinator (link.c), its buffers and their mappings in the other
 * ranks (buffers.c), the all-reduces (allreduce.c), their measurement
 * (measure.c), the peer copies (peer.c) and the data-parallel step
 * (dpnet.c, dprows.c).  rank.c calls them all; the measurement calls the
 * all-reduces and the link, and nothing calls back into rank.c.  Private
 * to src/mgpu/. */
#ifndef CUDALAB_MGPU_INTERNAL_H
#define CUDALAB_MGPU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "catalog/collective.h"
#include "core/err.h"
#include "cpu/check.h"
#include "mgpu/nccl.h"
#include "proto/rankmsg.h"
#include "result/record.h"

#define MG_MAX_SAMPLES 32
/* The all-reduces' largest message: the lab's largest size. */
#define MG_MAX_BYTES ((size_t)1 << 30)

/* MG_EXERCISE: the learner's ring kernel (mgpu/exercise.h), run only when
 * the request carries one. */
typedef enum mg_algo { MG_NAIVE, MG_RING, MG_NCCL, MG_EXERCISE, MG_NALGOS } mg_algo;

/* What a rank's buffers are, and how the others see them. */
typedef struct mg_bufs {
    size_t cap;                       /* floats each of send, recv, scratch hold */
    float *send, *recv, *scratch;
    unsigned *flags;                  /* KCOLL_FLAG_WORDS words */
    float *host;                      /* pinned: inputs on the way up, outputs down */
    float *stage[COLL_MAX_RANKS];     /* rank 0's copies of the others' inputs (naive) */
    /* every rank's buffers as this process sees them ([rank]: its own) */
    const float *p_send[COLL_MAX_RANKS], *p_recv[COLL_MAX_RANKS], *p_scratch[COLL_MAX_RANKS];
    const unsigned *p_flags[COLL_MAX_RANKS];
    bool ready;
} mg_bufs;

typedef struct mg_rank {
    int rank, nranks;
    int in_fd, out_fd;                /* the coordinator: stdin, fd 3 */
    char *line;                       /* a line being read from in_fd */
    size_t line_len, line_used;
    unsigned seq;                     /* exchanges so far */
    run_request req;
    uint64_t seed;
    cudaStream_t stream;
    cudaEvent_t ev[2 * MG_MAX_SAMPLES];
    int max_blocks;                   /* fewest SMs of any rank's GPU, for the ring */
    bool p2p_all;                     /* every GPU of the group can reach every other */
    char p2p_why[256];                /* when not: which pair cannot */
    mg_bufs b;
    /* collectives of each of the lab's own all-reduces so far: the flags
     * each announces and waits for carry these numbers */
    unsigned epoch_naive, epoch_ring;
    int ring_blocks_last;             /* blocks of the last ring collective */
    mg_nccl_comm *nccl;
    bool nccl_tried;
    char nccl_why[1024];              /* when nccl is NULL after trying */
    struct mg_exercise *ex;           /* the learner's kernel, once asked for (exercise.c) */
    struct mg_dp *dp;                 /* the data-parallel step's network (mgpu/dpnet.h) */
} mg_rank;

/* ---- the line to the coordinator (link.c) ------------------------------------- */

/* Sends msg; false when the coordinator is gone. */
bool mg_link_send(mg_rank *r, const rankmsg *msg);
/* Reads the next line from the coordinator into *line (valid until the
 * next read); false + err at the end of input or on an over-long line. */
bool mg_link_read(mg_rank *r, char **line, cl_err *err);
/* Sends this rank's part of an exchange and waits for everyone's, into
 * all[0..nranks); false + err when the coordinator is gone or answers
 * something else. */
bool mg_link_exchange(mg_rank *r, const void *data, size_t len, rank_blob *all, cl_err *err);
/* An exchange of nothing: returns once every rank has reached it. */
bool mg_link_barrier(mg_rank *r, cl_err *err);
void mg_link_row(mg_rank *r, const run_result *row, int of);
void mg_link_progress(mg_rank *r, const char *variant, const char *size, const char *phase,
                      int rep, int of);
void mg_link_log(mg_rank *r, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Tells the coordinator this rank cannot go on, and why. */
void mg_link_fail(mg_rank *r, const char *message, int code);

/* ---- buffers (buffers.c) ------------------------------------------------------- */

/* Allocates this rank's buffers for messages up to MG_MAX_BYTES (less when
 * the GPU lacks the memory: the same cap on every rank, agreed through an
 * exchange), exports them through CUDA IPC and maps every other rank's. */
bool mg_bufs_open(mg_rank *r, cl_err *err);
/* Unmaps and frees what mg_bufs_open made. */
void mg_bufs_close(mg_rank *r);

/* ---- the all-reduces (allreduce.c) ---------------------------------------------- */

/* The algorithm's row id ("ar_ring", "exercise") and label ("ring"). */
const char *mg_algo_id(mg_algo a);
const char *mg_algo_label(mg_algo a);
/* Whether this group can run a (*can), or why not (msg): every rank asks
 * at the same point, and the first question about NCCL sets up its
 * communicator (rank 0's unique id handed to the others).  false + err
 * when this rank cannot go on. */
bool mg_algo_ready(mg_rank *r, mg_algo a, bool *can, char *msg, size_t n, cl_err *err);
/* Whether NCCL's communicator is there (*can), or why not (msg), set up
 * by the first question, as mg_algo_ready does for MG_NCCL but without
 * the all-reduce buffers.  false + err when this rank cannot go on. */
bool mg_nccl_ready(mg_rank *r, bool *can, char *msg, size_t n, cl_err *err);
/* Enqueues one all-reduce of count floats, send to recv, on r->stream. */
bool mg_allreduce(mg_rank *r, mg_algo a, size_t count, cl_err *err);

/* ---- measuring (measure.c) ------------------------------------------------------ */

/* A row's seed: the same on every rank, different for each of the run's
 * measurements (what: an mg_algo, or past MG_NALGOS another row). */
uint64_t mg_row_seed(uint64_t base, int what, size_t bytes);
/* The row's times from the samples timed between r->ev[2s] and
 * r->ev[2s + 1] (s < samples, at most MG_MAX_SAMPLES), each of per
 * repetitions: median, spread and extremes of one repetition. */
bool mg_row_times(mg_rank *r, int samples, int per, run_result *row, cl_err *err);
/* The row's status, error and first mismatches from a check. */
void mg_judge(run_result *row, const check_report *cr);
/* Checks and times algorithm a at bytes and sends the row (every rank
 * sends its own; the coordinator merges them).  false + err: this rank
 * cannot go on (a CUDA or NCCL call failed, the coordinator is gone). */
bool mg_measure(mg_rank *r, mg_algo a, size_t bytes, cl_err *err);

/* ---- the data-parallel step (dpnet.c, dprows.c) ------------------------------------ */

#define MG_DP_ROWS 3
/* The id of data-parallel row k: "dp_1gpu", "dp_serial", "dp_overlap". */
const char *mg_dp_id(int k);
/* The requested rows (want[k]: row k), in that order: the step of a small
 * network checked against the CPU, then timed, on GPU 0 alone and on every
 * GPU with the gradients all-reduced after the backward pass or during it.
 * false + err: this rank cannot go on. */
bool mg_dp_rows(mg_rank *r, const bool want[MG_DP_ROWS], cl_err *err);
/* Frees what the rows allocated. */
void mg_dp_close(mg_rank *r);

/* ---- peer copies (peer.c) -------------------------------------------------------- */

/* On rank 0: copies between GPU 0 and GPU 1 without and with peer access,
 * each direction and both at once; sends its rows (of 1). */
bool mg_peer_rows(mg_rank *r, cl_err *err);

#endif

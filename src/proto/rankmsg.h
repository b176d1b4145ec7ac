/* rankmsg.h - the messages between the multi-GPU coordinator and its ranks.
 *
 * A multigpu run is served by `cudalab worker --group` (src/group/), which
 * makes no CUDA call and starts one rank a GPU, `cudalab worker --rank R
 * --ranks N` (src/mgpu/).  The coordinator writes the run's request to a
 * rank's stdin as the worker protocol's "run" line (proto/protocol.h);
 * after that, one JSON object a line in each direction:
 *   rank -> coordinator, on the rank's fd 3:
 *     {"type":"probe", ...}            what a probing rank found (GPUs, NCCL)
 *     {"type":"gather","tag":T,"data":HEX}   its part of an exchange
 *     {"type":"row","of":K,"result":{...}}   a measured row; K ranks send it
 *     {"type":"progress", ...}  {"type":"log","level":L,"msg":M}
 *     {"type":"fail","message":M,"code":C}   it cannot go on (then exits)
 *   coordinator -> rank, on its stdin:
 *     {"type":"all","tag":T,"data":[HEX, ...]}  every rank's part, by rank
 * An exchange is how ranks that share no memory yet agree: rank 0's NCCL
 * unique id, the CUDA IPC handles of each rank's buffers, a barrier (empty
 * parts).  Every field is checked when read: the coordinator trusts
 * nothing a rank writes beyond its form. */
#ifndef CUDALAB_PROTO_RANKMSG_H
#define CUDALAB_PROTO_RANKMSG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/devinfo.h"
#include "core/err.h"
#include "result/record.h"

#define RANKMSG_MAX_RANKS 8
#define RANKMSG_BLOB_MAX 512          /* bytes of one rank's part of an exchange */
#define RANKMSG_TAG_MAX 32

typedef enum rankmsg_type {
    RMSG_INVALID, RMSG_PROBE, RMSG_GATHER, RMSG_ALL, RMSG_ROW, RMSG_PROGRESS, RMSG_LOG, RMSG_FAIL,
} rankmsg_type;

/* What a probing rank found. */
typedef struct rank_probe {
    device_info dev;                  /* GPU 0 (present false: no usable GPU, dev.reason) */
    int ndevices;                     /* GPUs the lab may use */
    char devices_note[256];           /* how they were counted ("2 of 8: CUDALAB_MGPU_GPUS=2") */
    bool nccl;                        /* libnccl could be loaded */
    char nccl_version[32];            /* "2.27.3" */
    char nccl_why[512];               /* when not: why, and what to install */
} rank_probe;

typedef struct rank_blob {
    size_t len;
    unsigned char data[RANKMSG_BLOB_MAX];
} rank_blob;

typedef struct rankmsg {
    rankmsg_type type;
    char tag[RANKMSG_TAG_MAX];        /* gather, all */
    rank_blob blob;                   /* gather */
    int nall;                         /* all: one part a rank */
    rank_blob all[RANKMSG_MAX_RANKS];
    int of;                           /* row */
    int level;                        /* log: 0 info, 1 warn, 2 error */
    int code;                         /* fail: the CUDA or NCCL code, 0 none */
    char text[1024];                  /* log, fail */
    union {
        rank_probe probe;
        run_result row;
        run_progress progress;
    } u;
} rankmsg;

/* One JSON line with its '\n' (malloc'd), or NULL (out of memory, or a
 * message that breaks the bounds above). */
char *rankmsg_encode(const rankmsg *msg);
/* Decodes one line; false + err naming what is wrong with it. */
bool rankmsg_decode(const char *line, rankmsg *msg, cl_err *err);

#endif

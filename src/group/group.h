/* group.h - the coordinator of a multigpu run, one rank process a GPU.
 *
 * `cudalab worker --group` serves the worker protocol like any worker, but
 * makes no CUDA call: for its hello it asks a probing process
 * (`cudalab worker --probe`) what the machine offers, and for a run it
 * starts one rank a GPU (`cudalab worker --rank R --ranks N`, src/mgpu/),
 * passes what the ranks exchange (rank 0's NCCL unique id, their CUDA IPC
 * handles, barriers) from one to the others, merges their rows into one a
 * measurement and watches them: a rank that fails, dies or stops
 * answering ends the whole group (every other rank is killed and reaped:
 * no orphans) and the run ends with a fault naming its GPU.  Every rank
 * starts with NCCL_NVLS_ENABLE=0.  With fewer than two GPUs or none, each
 * requested experiment gets a row that says why it cannot run. */
#ifndef CUDALAB_GROUP_GROUP_H
#define CUDALAB_GROUP_GROUP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/devinfo.h"
#include "proto/rankmsg.h"
#include "result/record.h"

/* Seconds a group may go without a message from any rank before it is
 * taken for hung (default GROUP_STALL_S; the variable overrides it). */
#define GROUP_STALL_ENV "CUDALAB_MGPU_STALL_S"
#define GROUP_STALL_S 120.0

/* Where rows go (the worker loop's sink, in the same shape). */
typedef struct group_sink {
    void (*progress)(void *ud, const run_progress *message);
    void (*result)(void *ud, const run_result *row);
    void (*log)(void *ud, int level, const char *msg);
    void *ud;
} group_sink;

/* Asks a probing process what the machine offers, once a process; out is
 * GPU 0 (present false, with the reason, when there is none). */
void group_probe(device_info *out);
/* Runs req (problem "multigpu") on every GPU, rows to sink.  false with
 * fault when the group had to be stopped. */
bool group_run(const run_request *req, const group_sink *sink, run_fault *fault);
void group_shutdown(void);

/* ---- pure parts, for the tests ---------------------------------------------- */

/* Whether a machine as probe found it can run the lab: true, or false
 * with one row a requested experiment (req's variants, every experiment
 * when none), and one for the learner's kernel when req has one, in
 * out[0..max), *nout of them, each saying why not. */
bool group_runnable(const rank_probe *probe, const run_request *req, run_result *out, size_t max,
                    size_t *nout);

#endif

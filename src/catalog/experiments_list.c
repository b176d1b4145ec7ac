#include "catalog/experiments_list.h"

#include <stdio.h>
#include <string.h>

#include "core/paths.h"

typedef struct experiment_entry {
    const char *problem;
    const char *id;
    const char *title;
} experiment_entry;

#define P EXPERIMENTS_PROBLEM
#define B EXPERIMENTS_BASICS
#define M EXPERIMENTS_MULTIGPU

static const experiment_entry entries[] = {
    {P, "transfers",
     "host<->device copies: pageable vs pinned, many small vs one large, copy vs compute"},
    {P, "overlap", "copy-compute-copy on one stream vs chunks spread over four streams"},
    {P, "stride", "coalesced vs strided global reads, stride 1 to 128"},
    {P, "gemv", "matrix-vector product: row-major vs column-major, thread vs warp per row"},
    {P, "blocksize", "one bandwidth kernel at 32 to 1024 threads per block, with occupancy"},
    {P, "transpose", "matrix transpose: naive vs shared-memory tile vs padded tile"},
    {P, "timing", "host timers with and without synchronisation vs CUDA events; first launch"},
    {P, "roofline", "one kernel at rising arithmetic intensity against the roofline"},
    {B, "divergence", "a branch taken by whole warps vs by half of each warp, same work"},
    {B, "occupancy", "registers and shared memory a block against occupancy and time; a spill"},
    {B, "hierarchy", "the same reads from DRAM, the L2, shared memory and registers"},
    {B, "fences", "a message between blocks with and without __threadfence()"},
    {M, "peer", "copies from GPU to GPU with and without peer access, against the link"},
    {M, "ar_naive", "all-reduce by gathering to GPU 0, summing and broadcasting"},
    {M, "ar_ring", "all-reduce by a hand-written ring: reduce-scatter, then all-gather"},
    {M, "ar_nccl", "ncclAllReduce, the library every framework calls"},
    {M, "dp_1gpu", "a small MLP's training step on GPU 0 alone: the base of the scaling"},
    {M, "dp_serial", "the step on every GPU, gradients all-reduced after the backward pass"},
    {M, "dp_overlap", "the step on every GPU, gradient buckets all-reduced during the backward pass"},
};
#define NENTRY (sizeof entries / sizeof entries[0])

static const experiment_entry *entry_find(const char *id)
{
    for (size_t i = 0; id && i < NENTRY; i++)
        if (strcmp(entries[i].id, id) == 0)
            return &entries[i];
    return NULL;
}

const char *const *experiments_ids_of(const char *problem, size_t *count)
{
    static const char *ids[3][NENTRY];
    int which = !problem ? 0 : strcmp(problem, B) == 0 ? 1 : strcmp(problem, M) == 0 ? 2 : 0;
    *count = 0;
    for (size_t i = 0; problem && i < NENTRY; i++)
        if (strcmp(entries[i].problem, problem) == 0)
            ids[which][(*count)++] = entries[i].id;
    return ids[which];
}

const char *const *experiments_ids(size_t *count)
{
    return experiments_ids_of(P, count);
}

bool experiments_problem(const char *problem)
{
    return problem &&
           (strcmp(problem, P) == 0 || strcmp(problem, B) == 0 || strcmp(problem, M) == 0);
}

const char *experiments_problem_of(const char *id)
{
    const experiment_entry *xp = entry_find(id);
    return xp ? xp->problem : NULL;
}

const char *experiments_title(const char *id)
{
    const experiment_entry *xp = entry_find(id);
    return xp ? xp->title : NULL;
}

bool experiments_known(const char *id)
{
    return entry_find(id) != NULL;
}

bool experiments_timeline_path(const char *msg, char *path, size_t path_size)
{
    size_t plen = strlen(EXPERIMENTS_TIMELINE_LOG);
    if (!msg || strncmp(msg, EXPERIMENTS_TIMELINE_LOG, plen) != 0 || !msg[plen])
        return false;
    const char *p = msg + plen;
    const char *end = strstr(p, " (");
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == 0 || len >= path_size)
        return false;
    memcpy(path, p, len);
    path[len] = '\0';
    return true;
}

bool experiments_timeline_file(char *out, size_t out_size, cl_err *err)
{
    char data[CL_PATH_MAX];
    if (!paths_data_dir(data, sizeof data, err))
        return false;
    int w = snprintf(out, out_size, "%s/timelines/last.json", data);
    if (w < 0 || (size_t)w >= out_size)
        return err_set(err, "the timeline path is too long");
    return true;
}


/* exercise.c - the learner's ring all-reduce in a rank (mgpu/exercise.h):
 * compiled and loaded on every rank, its launch agreed, its flags mapped
 * by every rank, then one cooperative launch a collective.
 *
 * The learner's flags are an allocation of their own, zeroed and never
 * shared with the lab's ring (whose flags carry epochs of its own), so
 * that the learner's epochs start at 1.  The data buffers are the lab's:
 * every row runs between barriers, so two all-reduces never use them at
 * once. */
#include "mgpu/exercise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strfmt.h"
#include "gpu/cudacheck.h"
#include "mgpu/mgpu_internal.h"
#include "mgpu/ring_args.h"

_Static_assert(RING_MAX_RANKS == COLL_MAX_RANKS && RING_MAX_BLOCKS == COLL_MAX_BLOCKS,
               "mgpu/ring_args.h and catalog/collective.h disagree");
_Static_assert(sizeof(cudaIpcMemHandle_t) <= RANKMSG_BLOB_MAX, "an IPC handle outgrows an exchange");

#define MAX_DIAGS_LOGGED 10

struct mg_exercise {
    bool tried, can;
    char why[512];
    cudaLibrary_t lib;
    bool have_lib;
    cudaKernel_t kern;
    int blocks, threads;
    uint32_t *flags;                     /* this rank's RING_FLAG_WORDS */
    uint32_t *p_flags[COLL_MAX_RANKS];   /* every rank's, as mapped here */
    unsigned epoch;
};

/* Every rank says whether its part went well; *bad is the first rank
 * whose did not (-1: none). */
static bool agree(mg_rank *r, bool mine, int *bad, cl_err *err)
{
    unsigned char ok = mine;
    rank_blob all[COLL_MAX_RANKS];
    if (!mg_link_exchange(r, &ok, 1, all, err))
        return false;
    *bad = -1;
    for (int k = 0; k < r->nranks && *bad < 0; k++)
        if (all[k].len != 1 || !all[k].data[0])
            *bad = k;
    return true;
}

/* Rank 0 puts the compiler's diagnostics (warnings too) in the log. */
static void log_diags(mg_rank *r, const nvrtc_output *prog)
{
    char text[NVRTC_TEXT_MAX * 3 + NVRTC_FILE_MAX];
    for (size_t i = 0; r->rank == 0 && i < prog->ndiags && i < MAX_DIAGS_LOGGED; i++) {
        nvrtc_diag_format(&prog->diags[i], text, sizeof text);
        size_t len = strlen(text);
        if (len > 0 && text[len - 1] == '\n')
            text[len - 1] = '\0';
        mg_link_log(r, prog->diags[i].severity == NVRTC_SEV_ERROR ? 2 : 1, "%s", text);
    }
    if (r->rank == 0 && prog->ndiags > MAX_DIAGS_LOGGED)
        mg_link_log(r, 1, "... and %zu more diagnostics", prog->ndiags - MAX_DIAGS_LOGGED);
}

static bool compile(mg_rank *r, nvrtc_output *prog, char *why, size_t n)
{
    int major = 0, minor = 0;
    char arch[16];
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, r->rank) != cudaSuccess
        || cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, r->rank) != cudaSuccess) {
        (void)cudaGetLastError();
        major = 0;
    }
    if (major > 0)
        snprintf(arch, sizeof arch, "sm_%d%d", major, minor);
    bool ok = mg_ex_compile(r->req.exercise_kernel, NULL, major > 0 ? arch : NULL, prog, why, n);
    log_diags(r, prog);
    return ok;
}

/* The int the kernel file defines as name into *out (fallback when it
 * defines none): 1; 0 with why when it is not an int; -1 + err when a
 * CUDA call failed. */
static int launch_symbol(struct mg_exercise *x, const char *name, int fallback, int *out,
                         char *why, size_t n, cl_err *err)
{
    void *p = NULL;
    size_t bytes = 0;
    if (cudaLibraryGetGlobal(&p, &bytes, x->lib, name) != cudaSuccess) {
        (void)cudaGetLastError();
        *out = fallback;
        return 1;
    }
    if (bytes != sizeof(int)) {
        snprintf(why, n, "%s is %zu bytes: it must be an int (extern \"C\" __constant__ int %s)",
                 name, bytes, name);
        return 0;
    }
    cudaError_t st = cudaMemcpy(out, p, sizeof(int), cudaMemcpyDeviceToHost);
    if (st != cudaSuccess) {
        (void)cudacheck_fail(err, st, "cudaMemcpy(out, p, sizeof(int), cudaMemcpyDeviceToHost)",
                             __FILE__, __LINE__);
        return -1;
    }
    return 1;
}

/* Loads the program and reads and checks its launch: *fatal when a CUDA
 * call failed in a way that ends the rank. */
static bool load(mg_rank *r, struct mg_exercise *x, const nvrtc_output *prog, char *why, size_t n,
                 bool *fatal, cl_err *err)
{
    *fatal = false;
    cudaError_t st = cudaLibraryLoadData(&x->lib, prog->cubin, NULL, NULL, 0, NULL, NULL, 0);
    if (st != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, n, "the GPU cannot load your compiled kernel: %s", cudaGetErrorString(st));
        return false;
    }
    x->have_lib = true;
    *fatal = true;
    CUDA_CHECK(err, cudaLibraryGetKernel(&x->kern, x->lib, RING_KERNEL));
    *fatal = false;
    int got = launch_symbol(x, RING_BLOCKS_SYMBOL, RING_DEFAULT_BLOCKS, &x->blocks, why, n, err);
    if (got == 1)
        got = launch_symbol(x, RING_THREADS_SYMBOL, RING_DEFAULT_THREADS, &x->threads, why, n, err);
    if (got != 1) {
        *fatal = got < 0;
        return false;
    }
    if (x->threads < 32 || x->threads > 1024 || x->threads % 32) {
        snprintf(why, n, "ring_threads = %d: a block has a multiple of 32 threads, 32 to 1024",
                 x->threads);
        return false;
    }
    if (x->blocks == 0)
        x->blocks = r->max_blocks;
    if (x->blocks < 1 || x->blocks > r->max_blocks) {
        snprintf(why, n, "ring_blocks = %d: from 1 to %d (one a multiprocessor of the smallest GPU "
                 "of the group), or 0 for one a multiprocessor", x->blocks, r->max_blocks);
        return false;
    }
    int per_sm = 0, sms = 0;
    *fatal = true;
    CUDA_CHECK(err, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)x->kern,
                                                                   x->threads, 0));
    CUDA_CHECK(err, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, r->rank));
    *fatal = false;
    if ((long)per_sm * sms < x->blocks) {
        snprintf(why, n, "%d blocks of %d threads cannot all be resident at once on GPU %d (%d a "
                 "multiprocessor fit, %d multiprocessors): fewer registers or threads a block, or "
                 "fewer blocks", x->blocks, x->threads, r->rank, per_sm, sms);
        return false;
    }
    return true;
}

/* This rank's flags, zeroed, and every other rank's mapped. */
static bool map_flags(mg_rank *r, struct mg_exercise *x, cl_err *err)
{
    const size_t bytes = RING_FLAG_WORDS * sizeof(uint32_t);
    CUDA_CHECK(err, cudaMalloc((void **)&x->flags, bytes));
    CUDA_CHECK(err, cudaMemset(x->flags, 0, bytes));
    CUDA_CHECK(err, cudaDeviceSynchronize());
    cudaIpcMemHandle_t h;
    memset(&h, 0, sizeof h);
    CUDA_CHECK(err, cudaIpcGetMemHandle(&h, x->flags));
    rank_blob all[COLL_MAX_RANKS];
    if (!mg_link_exchange(r, &h, sizeof h, all, err))
        return false;
    x->p_flags[r->rank] = x->flags;
    for (int k = 0; k < r->nranks; k++) {
        if (k == r->rank)
            continue;
        if (all[k].len != sizeof h)
            return err_set(err, "rank %d sent no IPC handle for its exercise flags", k);
        memcpy(&h, all[k].data, sizeof h);
        void *p = NULL;
        CUDA_CHECK(err, cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess));
        x->p_flags[k] = p;
    }
    /* nobody sets a flag in another rank before every rank mapped them */
    return mg_link_barrier(r, err);
}

/* Why the group cannot run the kernel, seen from this rank: its own
 * words when it failed, else the first rank that did. */
static void not_here(struct mg_exercise *x, bool mine_ok, const char *mine, int bad,
                     const char *what)
{
    x->can = false;
    if (!mine_ok)
        strfmt_copy(x->why, sizeof x->why, mine);
    else
        snprintf(x->why, sizeof x->why, "GPU %d could not %s your kernel", bad, what);
}

static bool setup(mg_rank *r, struct mg_exercise *x, cl_err *err)
{
    char why[sizeof x->why] = "";
    nvrtc_output prog;
    int bad = -1;
    bool ok = compile(r, &prog, why, sizeof why);
    if (!agree(r, ok, &bad, err)) {
        nvrtc_output_free(&prog);
        return false;
    }
    if (bad >= 0) {
        nvrtc_output_free(&prog);
        not_here(x, ok, why, bad, "compile");
        return true;
    }
    bool fatal = false;
    ok = load(r, x, &prog, why, sizeof why, &fatal, err);
    if (ok && r->rank == 0) {
        const nvrtc_kernel *k = nvrtc_find_kernel(&prog, RING_KERNEL);
        mg_link_log(r, 0, "your kernel: %s, %d registers, %d B spilled; %d block%s of %d "
                    "threads a GPU, launched cooperatively", RING_KERNEL, k ? k->registers : -1,
                    k ? k->spill_stores : -1, x->blocks, x->blocks == 1 ? "" : "s", x->threads);
    }
    nvrtc_output_free(&prog);
    if (fatal)
        return false;
    if (!agree(r, ok, &bad, err))
        return false;
    if (bad >= 0) {
        not_here(x, ok, why, bad, "load");
        return true;
    }
    if (!map_flags(r, x, err))
        return false;
    x->can = true;
    return true;
}

bool mg_ex_ready(mg_rank *r, bool *can, char *msg, size_t n, cl_err *err)
{
    *can = false;
    msg[0] = '\0';
    if (!r->ex && !(r->ex = calloc(1, sizeof *r->ex)))
        return err_set(err, "out of memory");
    struct mg_exercise *x = r->ex;
    if (!x->tried) {
        x->tried = true;
        if (!setup(r, x, err))
            return false;
    }
    *can = x->can;
    if (!x->can)
        strfmt_copy(msg, n, x->why);
    return true;
}

bool mg_ex_allreduce(mg_rank *r, size_t count, cl_err *err)
{
    struct mg_exercise *x = r->ex;
    const mg_bufs *b = &r->b;
    if (!x || !x->can)
        return err_set(err, "the learner's kernel is not ready");
    ring_args a;
    memset(&a, 0, sizeof a);
    a.rank = r->rank;
    a.nranks = r->nranks;
    a.left = coll_mod(r->rank - 1, r->nranks);
    a.right = coll_mod(r->rank + 1, r->nranks);
    a.count = (int64_t)count;
    a.epoch = ++x->epoch;
    a.send = b->send;
    a.recv = b->recv;
    a.scratch = b->scratch;
    a.flags = x->flags;
    a.left_flags = x->p_flags[a.left];
    a.right_flags = x->p_flags[a.right];
    for (int k = 0; k < r->nranks; k++) {
        /* the mappings of the other ranks' buffers may be written: the
         * lab's own kernels only read them */
        a.send_of[k] = b->p_send[k];
        a.recv_of[k] = (float *)(uintptr_t)b->p_recv[k];
        a.scratch_of[k] = (float *)(uintptr_t)b->p_scratch[k];
        a.flags_of[k] = x->p_flags[k];
    }
    cudaLaunchAttribute coop;
    memset(&coop, 0, sizeof coop);
    coop.id = cudaLaunchAttributeCooperative;
    coop.val.cooperative = 1;
    cudaLaunchConfig_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDim = (dim3){(unsigned)x->blocks, 1, 1};
    cfg.blockDim = (dim3){(unsigned)x->threads, 1, 1};
    cfg.stream = r->stream;
    cfg.attrs = &coop;
    cfg.numAttrs = 1;
    void *params[] = {&a};
    CUDA_CHECK_LAUNCH(err, cudaLaunchKernelExC(&cfg, (const void *)x->kern, params));
    return true;
}

const char *mg_ex_note(const mg_rank *r)
{
    static char note[256];
    const struct mg_exercise *x = r->ex;
    size_t len = 0;
    note[0] = '\0';
    if (x && x->can)
        len = strfmt_append(note, sizeof note, 0, "; %d block%s of %d threads a GPU", x->blocks,
                            x->blocks == 1 ? "" : "s", x->threads);
    if (r->nccl_tried && !r->nccl)
        (void)strfmt_append(note, sizeof note, len, "; no NCCL row to compare with here, so the "
                            "milestones against NCCL stay pending");
    return note;
}

void mg_ex_close(mg_rank *r)
{
    struct mg_exercise *x = r->ex;
    if (!x)
        return;
    for (int k = 0; k < COLL_MAX_RANKS; k++)
        if (k != r->rank && x->p_flags[k])
            (void)cudaIpcCloseMemHandle(x->p_flags[k]);
    if (x->flags)
        (void)cudaFree(x->flags);
    if (x->have_lib)
        (void)cudaLibraryUnload(x->lib);
    (void)cudaGetLastError();
    free(x);
    r->ex = NULL;
}

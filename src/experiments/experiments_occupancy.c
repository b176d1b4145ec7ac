/* experiments_occupancy.c - the basics lab's occupancy experiment.
 *
 * One latency-bound walk (labs/basics/occupancy.cu, compiled here with
 * NVRTC so that ptxas's own report comes with it) keeping 8, 32, 64 and 128
 * counts in registers, the 128 again under __launch_bounds__(256, 4), which
 * makes ptxas spill, and the 8 again with more and more shared memory a
 * block.  Each row shows the registers and spills ptxas reported, the
 * blocks an SM holds as the occupancy API computes them, and the time of
 * the same grid of blocks. */
#include "experiments/experiments.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "core/paths.h"
#include "gpu/buffer.h"
#include "gpu/cudacheck.h"
#include "gpu/nvrtc.h"
#include "experiments/experiments_internal.h"

#define OCC_SOURCE "labs/basics/occupancy.cu"
#define OCC_BLOCK 256
#define OCC_N 4096                 /* ints of the walk's table: 16 KiB, held by the L1 */
#define OCC_STRIDE 1237            /* one hop; odd, so every index is reached */
#define OCC_STEPS 4096             /* a multiple of 128 */

typedef struct occ_variant {
    const char *id, *label, *kernel;
    int regs;                      /* counts kept (R of the source) */
    int share;                     /* 0: no shared memory; k: enough for k blocks an SM */
} occ_variant;

static const occ_variant variants[] = {
    {.id = "occ_r8", .label = "8 counts kept", .kernel = "occ_r8",
     .regs = 8, .share = 0},
    {.id = "occ_r32", .label = "32 counts kept", .kernel = "occ_r32",
     .regs = 32, .share = 0},
    {.id = "occ_r64", .label = "64 counts kept", .kernel = "occ_r64",
     .regs = 64, .share = 0},
    {.id = "occ_r128", .label = "128 counts kept", .kernel = "occ_r128",
     .regs = 128, .share = 0},
    {.id = "occ_spill", .label = "128, at most 64 registers", .kernel = "occ_spill",
     .regs = 128, .share = 0},
    {.id = "occ_smem_4", .label = "8 kept, shared for 4 blocks", .kernel = "occ_r8",
     .regs = 8, .share = 4},
    {.id = "occ_smem_2", .label = "8 kept, shared for 2 blocks", .kernel = "occ_r8",
     .regs = 8, .share = 2},
    {.id = "occ_smem_1", .label = "8 kept, shared for 1 block", .kernel = "occ_r8",
     .regs = 8, .share = 1},
};
#define NVARIANT (sizeof variants / sizeof variants[0])

typedef struct occ_job {
    const void *func;              /* a cudaKernel_t */
    const int *next;
    int *out;
    int blocks;
    size_t smem;
} occ_job;

static bool occ_once(void *ud, cudaStream_t s, cl_err *e)
{
    const occ_job *j = ud;
    int n = OCC_N, steps = OCC_STEPS;
    void *args[] = {(void *)&j->next, &n, &steps, (void *)&j->out};
    dim3 grid = {(unsigned)j->blocks, 1, 1}, block = {OCC_BLOCK, 1, 1};
    CUDA_CHECK(e, cudaLaunchKernel(j->func, grid, block, args, j->smem, s));
    return true;
}

/* Thread t's walk (labs/basics/occupancy.cu): where it ends, and how many
 * odd indices it read, the same for every variant.  With an odd stride
 * and an even table the index changes parity at every hop, so an even
 * number of steps reads exactly half odd ones. */
typedef struct occ_walk {
    int end, odd;
} occ_walk;

static occ_walk occ_walk_of(int t)
{
    long long end = ((long long)(t & (OCC_N - 1)) + (long long)OCC_STEPS * OCC_STRIDE) % OCC_N;
    return (occ_walk){(int)end, OCC_STEPS / 2};
}

/* out[t] of the variant keeping r counts. */
static int occ_ref(const occ_walk *w, int t, int r)
{
    int sum = w[t].odd;
    for (int k = 0; k < r; k++)
        sum += (t + k) & 15;
    return w[t].end + sum;
}

/* The log's ptxas lines about kernel ("Function properties for occ_spill"
 * and the line after it), joined into one; "" when there are none. */
static void ptxas_lines(const char *log, const char *kernel, char *out, size_t n)
{
    char key[96];
    snprintf(key, sizeof key, "Function properties for %s\n", kernel);
    const char *at = log ? strstr(log, key) : NULL;
    out[0] = '\0';
    if (!at)
        return;
    const char *body = at + strlen(key);
    const char *nl = strchr(body, '\n');
    /* NVRTC prefixes the line: "ptxas         .     352 bytes stack frame, ..." */
    if (strncmp(body, "ptxas", 5) == 0)
        body += 5;
    while (*body == ' ' || *body == '.')
        body++;
    snprintf(out, n, "ptxas info: Function properties for %s: %.*s", kernel,
             (int)(nl ? nl - body : (long)strlen(body)), body);
}

/* Dynamic shared memory for `share` blocks an SM (0: none). */
static bool smem_for(const xctx *x, int share, size_t *smem, cl_err *e)
{
    int per_sm = 0, optin = 0, reserved = 0;
    *smem = 0;
    if (share == 0)
        return true;
    CUDA_CHECK(e, cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                         x->dev.ordinal));
    CUDA_CHECK(e, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                         x->dev.ordinal));
    CUDA_CHECK(e, cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock,
                                         x->dev.ordinal));
    long s = per_sm / share - reserved;
    *smem = (size_t)(s > optin ? optin : s > 0 ? s : 0);
    return true;
}

static void occ_row(xctx *x, const occ_variant *v, const nvrtc_output *prog, cudaLibrary_t lib,
                    const int *next, int *out, int *hout, const occ_walk *walks, int blocks)
{
    cl_err e = {{0}};
    run_result r;
    char sz[48];
    snprintf(sz, sizeof sz, "%d blocks x %d, %d steps", blocks, OCC_BLOCK, OCC_STEPS);
    experiments_row_start(x, &r, v->id, v->label, sz);
    cudaKernel_t k;
    occ_job j = {.func = NULL, .next = next, .out = out, .blocks = blocks, .smem = 0};
    int per_sm = 0, max_threads = 0;
    const nvrtc_kernel *nk = nvrtc_find_kernel(prog, v->kernel);
    struct cudaFuncAttributes fa;
    timing_result tr;
    CUDA_CHECK_GOTO(&e, cudaLibraryGetKernel(&k, lib, v->kernel), fail);
    j.func = (const void *)k;
    if (!smem_for(x, v->share, &j.smem, &e))
        goto fail;
    if (j.smem > 48 * 1024)
        CUDA_CHECK_GOTO(&e, cudaFuncSetAttribute(j.func, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 (int)j.smem), fail);
    CUDA_CHECK_GOTO(&e, cudaFuncGetAttributes(&fa, j.func), fail);
    CUDA_CHECK_GOTO(&e, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, j.func, OCC_BLOCK,
                                                                      j.smem), fail);
    CUDA_CHECK_GOTO(&e, cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor,
                                               x->dev.ordinal), fail);
    size_t ob = (size_t)blocks * OCC_BLOCK * sizeof(int);
    if (!experiments_poison(x, out, ob, &e) || !occ_once(&j, x->s, &e) ||
        !experiments_download(x, hout, out, ob, &e) ||
        !experiments_time_job(x, occ_once, &j, 0, 5, 0, &tr, &e))
        goto fail;
    experiments_set_timing(&r, &tr);
    r.status = RS_CORRECT;
    for (int t = 0; t < blocks * OCC_BLOCK; t++) {
        int want = occ_ref(walks, t, v->regs);
        if (hout[t] != want) {
            r.status = RS_WRONG;
            r.nmismatch = 1;
            r.mismatches[0].index = t;
            r.mismatches[0].got = hout[t];
            r.mismatches[0].expected = want;
            engine_row_note(&r, "thread %d wrote %d, expected %d", t, hout[t], want);
            break;
        }
    }
    int waves = per_sm > 0 ? (blocks + per_sm * x->dev.sm_count - 1) / (per_sm * x->dev.sm_count) : 0;
    engine_row_note(&r, "%d registers a thread, %d B of local memory (spills)%s%s; the "
                        "occupancy API fits %d block%s of %d on an SM: %d of %d threads, "
                        "%.1f%% occupancy, so the grid runs in %d wave%s",
                    fa.numRegs, (int)fa.localSizeBytes, j.smem ? ", " : "",
                    j.smem ? "shared memory a block as given" : "", per_sm,
                    per_sm == 1 ? "" : "s", OCC_BLOCK, per_sm * OCC_BLOCK, max_threads,
                    max_threads ? 100.0 * per_sm * OCC_BLOCK / max_threads : 0.0, waves,
                    waves == 1 ? "" : "s");
    if (j.smem) {
        char b[32];
        buffer_format_bytes(j.smem, b, sizeof b);
        engine_row_note(&r, "%s of shared memory a block, unused by the kernel: only the "
                            "reservation counts", b);
    }
    if (nk && (nk->spill_stores > 0 || nk->spill_loads > 0)) {
        char lines[256];
        ptxas_lines(prog->log, v->kernel, lines, sizeof lines);
        engine_row_note(&r, "%s", lines[0] ? lines : "ptxas reported spills");
    }
    engine_row_emit(&x->rows, &r);
    return;
fail:
    experiments_row_failed(x, &r, &e);
}

/* Every row as an RS_ERROR with e's message. */
static void occ_fail_all(xctx *x, const cl_err *e)
{
    for (size_t k = 0; k < NVARIANT && !x->broken; k++) {
        run_result r;
        experiments_row_start(x, &r, variants[k].id, variants[k].label, "");
        experiments_row_failed(x, &r, e);
    }
}

void experiments_occupancy(xctx *ctx)
{
    cl_err e = {{0}};
    char home[CL_PATH_MAX], src[CL_PATH_MAX], arch[16];
    nvrtc_output prog;
    memset(&prog, 0, sizeof prog);
    cudaLibrary_t lib = NULL;
    gpu_buffer next = {0}, out = {0};
    int *hnext = NULL, *hout = NULL;
    occ_walk *walks = NULL;
    int max_threads = 0, blocks = 0;
    cudacheck_reset();
    snprintf(arch, sizeof arch, "sm_%d%d", ctx->dev.cc_major, ctx->dev.cc_minor);
    if (!paths_home(home, sizeof home, &e) || !paths_join(src, sizeof src, home, OCC_SOURCE)) {
        err_prefix(&e, "the occupancy experiment's kernels (%s)", OCC_SOURCE);
        goto fail_all;
    }
    if (!nvrtc_compile(src, arch, &prog, &e))
        goto fail_all;
    if (prog.log && prog.log[0]) {
        char msg[960];
        snprintf(msg, sizeof msg, "occupancy experiment: ptxas said\n%.900s", prog.log);
        engine_row_log(&ctx->rows, 0, msg);
    }
    CUDA_CHECK_GOTO(&e, cudaLibraryLoadData(&lib, prog.cubin, NULL, NULL, 0, NULL, NULL, 0),
                    fail_all);
    CUDA_CHECK_GOTO(&e, cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor,
                                               ctx->dev.ordinal), fail_all);
    blocks = ctx->dev.sm_count * (max_threads / OCC_BLOCK);   /* one full wave at 100% */
    hnext = malloc((size_t)OCC_N * sizeof *hnext);
    hout = malloc((size_t)blocks * OCC_BLOCK * sizeof *hout);
    walks = malloc((size_t)blocks * OCC_BLOCK * sizeof *walks);
    if (!hnext || !hout || !walks) {
        err_set(&e, "out of host memory for the occupancy experiment");
        goto fail_all;
    }
    for (int i = 0; i < OCC_N; i++)
        hnext[i] = (int)(((long long)i + OCC_STRIDE) % OCC_N);
    for (int t = 0; t < blocks * OCC_BLOCK; t++)
        walks[t] = occ_walk_of(t);
    if (!buffer_alloc(&next, (size_t)OCC_N * sizeof(int), &e) ||
        !buffer_alloc(&out, (size_t)blocks * OCC_BLOCK * sizeof(int), &e) ||
        !experiments_upload(ctx, next.ptr, hnext, next.bytes, &e))
        goto fail_all;
    for (size_t k = 0; k < NVARIANT && !ctx->broken; k++)
        occ_row(ctx, &variants[k], &prog, lib, next.ptr, out.ptr, hout, walks, blocks);
    goto done;
fail_all:
    occ_fail_all(ctx, &e);
done:
    if (lib && cudaLibraryUnload(lib) != cudaSuccess)
        cudaGetLastError();
    nvrtc_output_free(&prog);
    buffer_free(&next);
    buffer_free(&out);
    free(hnext);
    free(hout);
    free(walks);
}

/* diagnose_launch.c - a launch configuration CUDA refused, explained:
 * which limit it broke (threads or shared memory a block, registers, the
 * grid, a zero size), with the numbers the launch asked for and the
 * device's limits. */
#include "supervise/diagnose_internal.h"

typedef enum launch_kind {
    LK_UNKNOWN,
    LK_THREADS,      /* too many threads in a block */
    LK_SHARED,       /* too much shared memory */
    LK_RESOURCES,    /* registers x threads do not fit */
    LK_GRID,         /* grid too large */
    LK_ZERO,         /* zero or negative grid or block */
} launch_kind;

/* The figures of a refused launch: the device's limits (those of current
 * GPUs when unknown), what the launch asked for (from the launch itself,
 * else read from CUDA's message) and the limit the message names. */
typedef struct launch_figures {
    int max_threads;
    long long max_shared;
    int regs_sm;
    long long threads, limit, shared, regs, grid;    /* -1 or 0: unknown */
} launch_figures;

static launch_figures launch_figures_of(const diag_input *in, const char *text)
{
    launch_figures f = {
        .max_threads = in->max_threads_per_block > 0 ? in->max_threads_per_block
                                                     : DEFAULT_MAX_THREADS,
        .max_shared = in->max_shared_per_block > 0 ? in->max_shared_per_block
                                                   : DEFAULT_MAX_SHARED,
        .regs_sm = in->regs_per_sm > 0 ? in->regs_per_sm : DEFAULT_REGS_PER_SM,
        .threads = in->has_launch ? in->block_threads : diag_number_after(text, "block of"),
        .limit = diag_number_after(text, "the limit is"),
        .shared = in->has_launch ? in->shared_bytes : diag_number_after(text, "shared memory of"),
        .regs = in->regs_per_thread > 0 ? in->regs_per_thread : diag_number_after(text, "it uses"),
        .grid = in->has_launch ? in->grid_blocks : -1,
    };
    if (f.grid <= 0 && !in->has_launch)
        f.grid = diag_number_after(text, "grid.x of");
    if (f.grid <= 0 && !in->has_launch)
        f.grid = diag_number_after(text, "grid.y of");
    if (f.grid <= 0 && !in->has_launch)
        f.grid = diag_number_after(text, "grid.z of");
    return f;
}

/* Which limit the launch broke, from CUDA's words and the figures. */
static launch_kind launch_kind_of(const diag_input *in, const char *text, const launch_figures *f)
{
    if (diag_find(text, "must be a positive integer") ||
        (in->has_launch && (in->block_threads <= 0 || in->grid_blocks <= 0)))
        return LK_ZERO;
    if (diag_find(text, "too many resources") || diag_find(text, "LaunchOutOfResources") ||
        diag_find(text, "can run at most"))
        return LK_RESOURCES;
    if (diag_find(text, "shared memory") || f->shared > f->max_shared)
        return LK_SHARED;
    if (diag_find(text, "grid.") || diag_find(text, "blocks: the limit") || f->grid > 2147483647LL)
        return LK_GRID;
    if (diag_find(text, "threads") || diag_find(text, "block.") || f->threads > f->max_threads)
        return LK_THREADS;
    return LK_UNKNOWN;
}

static void explain_threads(diagnosis *d, const launch_figures *f)
{
    if (f->threads > 0)
        diag_explain(d, "You asked for %lld threads in one block; a block may hold at most %lld "
                        "threads on this GPU.",
                     f->threads, f->limit > 0 ? f->limit : (long long)f->max_threads);
    else
        diag_explain(d, "The block has more threads than the GPU allows: at most %d in one block "
                        "(x*y*z together), and at most 64 along z.",
                     f->max_threads);
    diag_suggest(d, "Use a block of 128 to 512 threads (a multiple of 32, the warp size) and "
                    "more blocks: grid = (n + block - 1) / block.");
}

static void explain_shared(diagnosis *d, const launch_figures *f)
{
    if (f->shared > 0)
        diag_explain(d, "Your launch asks for %lld bytes of shared memory per block; this GPU gives "
                        "a block at most %lld bytes.",
                     f->shared, f->limit > 0 ? f->limit : f->max_shared);
    else
        diag_explain(d, "Your launch asks for more shared memory per block than the GPU has (%lld "
                        "bytes unless the kernel opts in to more).",
                     f->max_shared);
    diag_explain(d, " The 'shared' value of gpu.launch is in bytes: a block of 256 floats needs "
                    "256 * 4 = 1024.");
    diag_suggest(d, "Ask for block * 4 bytes (one float a thread) or whatever your kernel's "
                    "extern __shared__ array really needs, not a number of elements times 1024.");
}

static void explain_resources(diagnosis *d, const launch_figures *f, const char *text)
{
    long long regs = f->regs, threads = f->threads;
    long long fit = diag_number_after(text, "can run at most");
    if (fit <= 0 && regs > 0)
        fit = (f->regs_sm / regs) / 32 * 32;
    if (regs > 0 && threads > 0)
        diag_explain(d,
            "Each thread of your kernel uses %lld registers: %lld threads x %lld = %lld "
            "registers, more than the %d a multiprocessor has, so at most %lld threads fit "
            "in a block.",
            regs, threads, regs, threads * regs, f->regs_sm, fit);
    else if (regs > 0)
        diag_explain(d,
            "Each thread of your kernel uses %lld registers, and a multiprocessor has %d, "
            "so at most %lld threads fit in a block.",
            regs, f->regs_sm, fit);
    else
        diag_explain(d, "The launch needs more registers or shared memory than one multiprocessor "
                        "has: the block's threads times the registers each uses must fit in %d "
                        "registers.",
                     f->regs_sm);
    diag_suggest(d, "Launch smaller blocks (256 threads), or add __launch_bounds__(256) before "
                    "the kernel so the compiler keeps it within the register budget.");
}

static void explain_grid(diagnosis *d, const launch_figures *f)
{
    if (f->grid > 0)
        diag_explain(d, "Your grid has %lld blocks along one axis; the limit is %lld (2147483647 "
                        "along x, 65535 along y and z).",
                     f->grid, f->limit > 0 ? f->limit : 2147483647LL);
    else
        diag_explain(d, "The grid is larger than the GPU allows: up to 2147483647 blocks along x, "
                        "65535 along y and z.");
    diag_suggest(d, "Cap the grid (for example at a few blocks per multiprocessor) and let each "
                    "thread loop over several elements with a grid-stride loop: for (i = ...; "
                    "i < n; i += blockDim.x * gridDim.x).");
}

void diag_launch(const diag_input *in, const char *text, const char *what, diagnosis *diag)
{
    diag_set(diag, DIAG_LAUNCH_CONFIG, "The GPU refused your launch configuration");
    launch_figures f = launch_figures_of(in, text);
    switch (launch_kind_of(in, text, &f)) {
    case LK_THREADS:
        explain_threads(diag, &f);
        break;
    case LK_SHARED:
        explain_shared(diag, &f);
        break;
    case LK_RESOURCES:
        explain_resources(diag, &f, text);
        break;
    case LK_GRID:
        explain_grid(diag, &f);
        break;
    case LK_ZERO:
        diag_explain(diag,
                     "A grid or a block with 0 (or a negative number of) threads is not a launch.  "
                     "This usually comes from integer division rounding down to zero, e.g. grid = "
                     "n / block when n < block.");
        diag_suggest(diag, "Round up: grid = (n + block - 1) // block in the launcher (Lua's // is "
                        "integer division).");
        break;
    case LK_UNKNOWN:
        diag_explain(
            diag,
            "CUDA reported %s: the grid, the block or the shared memory of the launch is "
            "outside what this GPU allows (at most %d threads a block, %lld bytes of shared "
            "memory, 65535 blocks along y and z).",
            what ? what : "an invalid launch configuration", f.max_threads, f.max_shared);
        diag_suggest(diag,
                     "Print the numbers your launcher computes (print() shows in the log) and "
                     "compare them with these limits.");
        break;
    }
    if (!diag_empty(text))
        diag_explain(diag, "  (Reported: %s)", text);
}

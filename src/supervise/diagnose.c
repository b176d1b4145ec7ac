#include "supervise/diagnose.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"


#define DEFAULT_MAX_THREADS 1024
#define DEFAULT_MAX_SHARED (48LL * 1024)
#define DEFAULT_REGS_PER_SM 65536

typedef enum launch_kind {
    LK_UNKNOWN,
    LK_THREADS,      /* too many threads in a block */
    LK_SHARED,       /* too much shared memory */
    LK_RESOURCES,    /* registers x threads do not fit */
    LK_GRID,         /* grid too large */
    LK_ZERO,         /* zero or negative grid or block */
} launch_kind;

typedef struct pattern {
    const char *needle;
    diag_cause cause;
    const char *what;        /* short name of the CUDA error, or NULL */
} pattern;

static const pattern patterns[] = {
    {"renamed it to", DIAG_KERNEL_MISSING, NULL},
    {"has no kernel named", DIAG_KERNEL_MISSING, NULL},
    {"defines no __global__", DIAG_KERNEL_MISSING, NULL},
    {"unknown kernel", DIAG_KERNEL_MISSING, NULL},
    {"cudaErrorIllegalAddress", DIAG_MEMORY_ACCESS, "illegal address"},
    {"illegal memory access", DIAG_MEMORY_ACCESS, "illegal address"},
    {"(illegal address)", DIAG_MEMORY_ACCESS, "illegal address"},
    {"cudaErrorMisalignedAddress", DIAG_MEMORY_ACCESS, "misaligned address"},
    {"misaligned address", DIAG_MEMORY_ACCESS, "misaligned address"},
    {"cudaErrorInvalidAddressSpace", DIAG_MEMORY_ACCESS, "invalid address space"},
    {"invalid address space", DIAG_MEMORY_ACCESS, "invalid address space"},
    {"cudaErrorLaunchFailure", DIAG_MEMORY_ACCESS, "unspecified launch failure"},
    {"unspecified launch failure", DIAG_MEMORY_ACCESS, "unspecified launch failure"},
    {"cudaErrorAssert", DIAG_KERNEL_FAULT, "device-side assert"},
    {"device-side assert", DIAG_KERNEL_FAULT, "device-side assert"},
    {"cudaErrorHardwareStackError", DIAG_KERNEL_FAULT, "hardware stack error"},
    {"hardware stack error", DIAG_KERNEL_FAULT, "hardware stack error"},
    {"cudaErrorIllegalInstruction", DIAG_KERNEL_FAULT, "illegal instruction"},
    {"illegal instruction", DIAG_KERNEL_FAULT, "illegal instruction"},
    {"cudaErrorInvalidPc", DIAG_KERNEL_FAULT, "invalid program counter"},
    {"invalid program counter", DIAG_KERNEL_FAULT, "invalid program counter"},
    {"(invalid PC)", DIAG_KERNEL_FAULT, "invalid program counter"},
    {"cudaErrorLaunchTimeout", DIAG_TIMEOUT, "launch timeout"},
    {"launch timed out", DIAG_TIMEOUT, "launch timeout"},
    {"(launch timeout)", DIAG_TIMEOUT, "launch timeout"},
    {"cudaErrorInvalidConfiguration", DIAG_LAUNCH_CONFIG, "invalid configuration"},
    {"invalid configuration argument", DIAG_LAUNCH_CONFIG, "invalid configuration"},
    {"cudaErrorLaunchOutOfResources", DIAG_LAUNCH_CONFIG, "too many resources"},
    {"too many resources requested", DIAG_LAUNCH_CONFIG, "too many resources"},
    {"threads: the limit is", DIAG_LAUNCH_CONFIG, NULL},
    {"can run at most", DIAG_LAUNCH_CONFIG, NULL},
    {"shared memory of", DIAG_LAUNCH_CONFIG, NULL},
    {"blocks: the limit is", DIAG_LAUNCH_CONFIG, NULL},
    {"must be a positive integer", DIAG_LAUNCH_CONFIG, NULL},
    {"block.x of", DIAG_LAUNCH_CONFIG, NULL},
    {"block.y of", DIAG_LAUNCH_CONFIG, NULL},
    {"block.z of", DIAG_LAUNCH_CONFIG, NULL},
    {"cudaErrorMemoryAllocation", DIAG_OUT_OF_MEMORY, "out of memory"},
    {"out of device memory", DIAG_OUT_OF_MEMORY, "out of memory"},
    {"out of host memory", DIAG_OUT_OF_MEMORY, "out of memory"},
    {", device has ", DIAG_OUT_OF_MEMORY, "out of memory"},
    {"out of memory", DIAG_OUT_OF_MEMORY, "out of memory"},
    {"cudaErrorNoDevice", DIAG_NO_DEVICE, NULL},
    {"cudaErrorInsufficientDriver", DIAG_NO_DEVICE, NULL},
    {"no CUDA device found", DIAG_NO_DEVICE, NULL},
    {"no CUDA-capable device", DIAG_NO_DEVICE, NULL},
    {"driver version is insufficient", DIAG_NO_DEVICE, NULL},
};

/* ---- text helpers --------------------------------------------------------- */

static const char *find(const char *hay, const char *needle)
{
    if (!hay || !needle)
        return NULL;
    size_t nl = strlen(needle);
    for (const char *p = hay; *p; p++)
        if (strncasecmp(p, needle, nl) == 0)
            return p;
    return NULL;
}

static void explain(diagnosis *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void suggest(diagnosis *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends to the explanation. */
static void explain(diagnosis *d, const char *fmt, ...)
{
    size_t len = strlen(d->explanation);
    if (len + 1 >= sizeof d->explanation)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->explanation + len, sizeof d->explanation - len, fmt, ap);
    va_end(ap);
}

/* Sets the next step. */
static void suggest(diagnosis *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->next_step, sizeof d->next_step, fmt, ap);
    va_end(ap);
}

static bool empty(const char *s)
{
    return !s || !s[0];
}

/* The integer right after needle in text ("block of 2048" -> 2048), or -1. */
static long long number_after(const char *text, const char *needle)
{
    const char *p = find(text, needle);
    if (!p)
        return -1;
    p += strlen(needle);
    while (*p == ' ')
        p++;
    if (!isdigit((unsigned char)*p))
        return -1;
    return strtoll(p, NULL, 10);
}

static const pattern *classify(const char *text)
{
    if (empty(text))
        return NULL;
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++)
        if (find(text, patterns[i].needle))
            return &patterns[i];
    return NULL;
}

/* "path/starter.lua:12: message" -> where "starter.lua:12", *msg -> "message". */
static void lua_location(const char *err, char *where, size_t n, const char **msg)
{
    where[0] = '\0';
    *msg = err;
    for (const char *p = err; *p && *p != '\n'; p++) {
        if (*p != ':' || !isdigit((unsigned char)p[1]))
            continue;
        const char *q = p + 1;
        while (isdigit((unsigned char)*q))
            q++;
        if (*q != ':')
            continue;
        char file[512];
        size_t fl = (size_t)(p - err) < sizeof file ? (size_t)(p - err) : sizeof file - 1;
        memcpy(file, err, fl);
        file[fl] = '\0';
        snprintf(where, n, "%s:%.*s", paths_base_name(file), (int)(q - p - 1), p + 1);
        q++;
        while (*q == ' ')
            q++;
        *msg = q;
        return;
    }
}

static void set(diagnosis *d, diag_cause c, const char *title)
{
    d->cause = c;
    snprintf(d->title, sizeof d->title, "%s", title);
}

/* ---- the problems' buffers, for hints ---------------------------------------- */

static const char *buffers_text(const char *problem)
{
    if (!problem)
        return NULL;
    if (strcmp(problem, "reduce_sum") == 0)
        return "input holds n floats and output holds exactly 1";
    if (strcmp(problem, "sgemm") == 0)
        return "A holds M*K floats, B holds K*N and C holds M*N, all row-major";
    if (strcmp(problem, "embedding") == 0)
        return "W holds V*D floats, idx holds T ints and out holds T*D floats";
    return NULL;
}

static const char *wrong_hint(const char *problem)
{
    if (!problem)
        return NULL;
    if (strcmp(problem, "reduce_sum") == 0)
        return "For a sum over many blocks, each block's partial sum must reach the one "
               "output: add it with atomicAdd(out, partial) (plain out[0] = partial lets "
               "the last block win), or write partials and reduce them in a second launch.";
    if (strcmp(problem, "sgemm") == 0)
        return "Row-major indexing is A[row * K + k], B[k * N + col], C[row * N + col]; the "
               "k loop runs over all K, and every tile of A and B is loaded completely before "
               "it is used.";
    if (strcmp(problem, "embedding") == 0)
        return "Output row t is row idx[t] of W: out[t * D + d] = W[idx[t] * D + d].  Check "
               "that you multiply the looked-up index, not t, by D.";
    return NULL;
}

/* ---- one paragraph a cause ---------------------------------------------------- */

static void diag_compile(const diag_input *in, diagnosis *d)
{
    set(d, DIAG_COMPILE, "Your kernel does not compile");
    const char *file = in->compile_file ? paths_base_name(in->compile_file) : "";
    if (file[0] && in->compile_line > 0 && in->compile_col > 0)
        snprintf(d->where, sizeof d->where, "%s:%d:%d", file, in->compile_line, in->compile_col);
    else if (file[0] && in->compile_line > 0)
        snprintf(d->where, sizeof d->where, "%s:%d", file, in->compile_line);
    else if (file[0])
        snprintf(d->where, sizeof d->where, "%s", file);
    const char *msg = in->compile_message ? in->compile_message : "(no message)";
    if (d->where[0])
        explain(d, "%s: error: %s", d->where, msg);
    else
        explain(d, "error: %s", msg);
    if (in->compile_errors > 1)
        explain(d, " (and %d more error%s)",
                in->compile_errors - 1, in->compile_errors > 2 ? "s" : "");
    explain(d, ".");
    if (find(msg, "is undefined")) {
        explain(d,
            " The compiler does not know this name: it is misspelt or used before it is "
            "declared.  CUDA's built-ins are threadIdx.x, blockIdx.x, blockDim.x and gridDim.x.");
    } else if (find(msg, "expected a")) {
        explain(d, " Something is missing just before the place shown, often a ';' at the end of "
                   "the previous line or a closing bracket.");
    } else if (find(msg, "too much shared data")) {
        explain(d, " The static __shared__ arrays of one kernel may hold at most 48 KiB (49152 "
                   "bytes) together.");
    } else if (find(msg, "cannot open source file") || find(msg, "could not open source file")) {
        explain(d, " An #include names a file the compiler cannot find.");
    } else if (find(msg, "too many registers") || find(msg, "uses too much")) {
        explain(d,
            " ptxas, the last compiler stage, found the kernel needs more of a resource than "
            "the GPU has.");
    }
    if (d->where[0])
        suggest(d, "Open your kernel at %s and fix the first error (later ones often follow "
                   "from it); when you save, it is compiled again.",
                d->where);
    else
        suggest(d, "Fix the first error in your kernel file (later ones often follow from "
                   "it); when you save, it is compiled again.");
}

static void diag_missing(const char *text, diagnosis *d)
{
    set(d, DIAG_KERNEL_MISSING, "The launcher asks for a kernel your file does not define");
    explain(d, "%s.", text);
    if (find(text, "renamed it to")) {
        explain(d, " C++ adds the parameter types to a function's name (name mangling), so the "
                   "launcher cannot find it under the name you wrote.");
        suggest(d, "Write the kernel as extern \"C\" __global__ void name(...), as the starter "
                   "does.");
    } else {
        suggest(d, "Use the same name in the launcher (k.<name>) as in the kernel file, and "
                   "declare the kernel extern \"C\" __global__.");
    }
}

static void diag_launch(const diag_input *in, const char *text, const char *what, diagnosis *d)
{
    set(d, DIAG_LAUNCH_CONFIG, "The GPU refused your launch configuration");
    int max_threads = in->max_threads_per_block > 0 ? in->max_threads_per_block
                                                    : DEFAULT_MAX_THREADS;
    long long max_shared = in->max_shared_per_block > 0 ? in->max_shared_per_block
                                                        : DEFAULT_MAX_SHARED;
    int regs_sm = in->regs_per_sm > 0 ? in->regs_per_sm : DEFAULT_REGS_PER_SM;
    long long threads = in->has_launch ? in->block_threads : number_after(text, "block of");
    long long limit = number_after(text, "the limit is");
    long long shared = in->has_launch ? in->shared_bytes : number_after(text, "shared memory of");
    long long regs = in->regs_per_thread > 0 ? in->regs_per_thread : number_after(text, "it uses");
    long long grid = in->has_launch ? in->grid_blocks : -1;
    if (grid <= 0 && !in->has_launch)
        grid = number_after(text, "grid.x of");
    if (grid <= 0 && !in->has_launch)
        grid = number_after(text, "grid.y of");
    if (grid <= 0 && !in->has_launch)
        grid = number_after(text, "grid.z of");
    launch_kind k = LK_UNKNOWN;
    if (find(text, "must be a positive integer") ||
        (in->has_launch && (in->block_threads <= 0 || in->grid_blocks <= 0)))
        k = LK_ZERO;
    else if (find(text, "too many resources") || find(text, "LaunchOutOfResources") ||
             find(text, "can run at most"))
        k = LK_RESOURCES;
    else if (find(text, "shared memory") || shared > max_shared)
        k = LK_SHARED;
    else if (find(text, "grid.") || find(text, "blocks: the limit") || grid > 2147483647LL)
        k = LK_GRID;
    else if (find(text, "threads") || find(text, "block.") || threads > max_threads)
        k = LK_THREADS;

    switch (k) {
    case LK_THREADS:
        if (threads > 0)
            explain(d, "You asked for %lld threads in one block; a block may hold at most %lld "
                       "threads on this GPU.",
                    threads, limit > 0 ? limit : (long long)max_threads);
        else
            explain(d, "The block has more threads than the GPU allows: at most %d in one block "
                       "(x*y*z together), and at most 64 along z.",
                    max_threads);
        suggest(d, "Use a block of 128 to 512 threads (a multiple of 32, the warp size) and "
                   "more blocks: grid = (n + block - 1) / block.");
        break;
    case LK_SHARED:
        if (shared > 0)
            explain(d, "Your launch asks for %lld bytes of shared memory per block; this GPU gives "
                       "a block at most %lld bytes.",
                    shared, limit > 0 ? limit : max_shared);
        else
            explain(d, "Your launch asks for more shared memory per block than the GPU has (%lld "
                       "bytes unless the kernel opts in to more).",
                    max_shared);
        explain(d, " The 'shared' value of gpu.launch is in bytes: a block of 256 floats needs "
                   "256 * 4 = 1024.");
        suggest(d, "Ask for block * 4 bytes (one float a thread) or whatever your kernel's "
                   "extern __shared__ array really needs, not a number of elements times 1024.");
        break;
    case LK_RESOURCES: {
        long long fit = number_after(text, "can run at most");
        if (fit <= 0 && regs > 0)
            fit = (regs_sm / regs) / 32 * 32;
        if (regs > 0 && threads > 0)
            explain(d,
                "Each thread of your kernel uses %lld registers: %lld threads x %lld = %lld "
                "registers, more than the %d a multiprocessor has, so at most %lld threads fit "
                "in a block.",
                regs, threads, regs, threads * regs, regs_sm, fit);
        else if (regs > 0)
            explain(d,
                "Each thread of your kernel uses %lld registers, and a multiprocessor has %d, "
                "so at most %lld threads fit in a block.",
                regs, regs_sm, fit);
        else
            explain(d, "The launch needs more registers or shared memory than one multiprocessor "
                       "has: the block's threads times the registers each uses must fit in %d "
                       "registers.",
                    regs_sm);
        suggest(d, "Launch smaller blocks (256 threads), or add __launch_bounds__(256) before "
                   "the kernel so the compiler keeps it within the register budget.");
        break;
    }
    case LK_GRID:
        if (grid > 0)
            explain(d, "Your grid has %lld blocks along one axis; the limit is %lld (2147483647 "
                       "along x, 65535 along y and z).",
                    grid, limit > 0 ? limit : 2147483647LL);
        else
            explain(d, "The grid is larger than the GPU allows: up to 2147483647 blocks along x, "
                       "65535 along y and z.");
        suggest(d, "Cap the grid (for example at a few blocks per multiprocessor) and let each "
                   "thread loop over several elements with a grid-stride loop: for (i = ...; "
                   "i < n; i += blockDim.x * gridDim.x).");
        break;
    case LK_ZERO:
        explain(d, "A grid or a block with 0 (or a negative number of) threads is not a launch.  "
                   "This usually comes from integer division rounding down to zero, e.g. grid = "
                   "n / block when n < block.");
        suggest(d, "Round up: grid = (n + block - 1) // block in the launcher (Lua's // is "
                   "integer division).");
        break;
    case LK_UNKNOWN:
        explain(d, "CUDA reported %s: the grid, the block or the shared memory of the launch is "
                   "outside what this GPU allows (at most %d threads a block, %lld bytes of shared "
                   "memory, 65535 blocks along y and z).",
                what ? what : "an invalid launch configuration", max_threads, max_shared);
        suggest(d, "Print the numbers your launcher computes (print() shows in the log) and "
                   "compare them with these limits.");
        break;
    }
    if (!empty(text))
        explain(d, "  (Reported: %s)", text);
}

static void diag_memory(const diag_input *in, const char *what, diagnosis *d)
{
    set(d, DIAG_MEMORY_ACCESS, "Your kernel read or wrote outside its buffers");
    if (what && strcmp(what, "misaligned address") == 0) {
        snprintf(d->title, sizeof d->title, "Your kernel used a misaligned address");
        explain(d, "A load or store used an address that is not a multiple of its size: a float4 "
                   "must start on a 16-byte boundary, a float on 4 bytes.  Casting a float pointer "
                   "that is not at the start of a group of four to float4 does this.");
        suggest(d, "Only cast to float4 at indices that are multiples of 4 and handle the "
                   "leftover elements with plain float loads.");
        return;
    }
    explain(d, "The GPU stopped your kernel (%s): some thread used an address outside the "
               "memory it was given.",
            what ? what : "illegal address");
    const char *bufs = buffers_text(in->problem);
    if (bufs)
        explain(d, "  Here %s.", bufs);
    explain(d, "  The usual causes: the grid has more threads than elements and the kernel has "
               "no bounds check, an index formula that goes past the end (row * N + col with "
               "the wrong width), or the launcher passing arguments in a different order than "
               "the kernel's parameters.  Shared memory counts too: an index past the end of a "
               "__shared__ array, or more dynamic shared memory used than the launch gave.");
    suggest(d, "Guard every access with a bounds check such as if (i < n), check each index "
               "formula at the last thread of the last block, and compare the launcher's "
               "arguments with the kernel's parameter list.");
}

static void diag_kernel_fault(const char *what, const char *text, diagnosis *d)
{
    set(d, DIAG_KERNEL_FAULT, "Your kernel stopped with an error on the GPU");
    if (what && strcmp(what, "device-side assert") == 0) {
        explain(d, "An assert() inside your kernel failed, so the GPU stopped it.");
        suggest(d, "Find the assert that fails: its condition names what went wrong.");
    } else if (what && strcmp(what, "hardware stack error") == 0) {
        explain(d, "The kernel overflowed its call stack: deep or endless recursion, or very large "
                   "local arrays.");
        suggest(d, "Replace recursion with a loop and move big arrays to shared or global memory.");
    } else {
        explain(d, "The GPU hit %s while running your kernel, which usually follows from "
                   "corrupted memory or a bad function pointer.",
                what ? what : "an error");
        suggest(d, "Check the kernel for writes outside its buffers; they can corrupt what "
                   "runs afterwards.");
    }
    if (!empty(text))
        explain(d, "  (Reported: %s)", text);
}

static void diag_timeout(const diag_input *in, diagnosis *d)
{
    set(d, DIAG_TIMEOUT, "Your kernel did not finish in time");
    if (in->time_limit_s > 0)
        explain(d,
            "The run was still going after %.0f s, so cudalab stopped it.", in->time_limit_s);
    else
        explain(d, "The run went on past its time limit, so cudalab stopped it.");
    explain(d, "  Two causes are common.  An endless loop: a loop whose condition never changes, "
               "such as a grid-stride loop that adds 0 or a counter of the wrong type.  A barrier "
               "deadlock: __syncthreads() waits until every thread of the block arrives, so one "
               "inside an if that only some threads enter (if (tid < s) { ... __syncthreads(); }) "
               "waits for threads that never come.");
    suggest(d, "Check that every loop's variable moves toward its end, and move each "
               "__syncthreads() out of branches so all threads of the block reach it.");
}

static void list_mismatches(const diag_input *in, diagnosis *d, bool unwritten)
{
    if (in->nmismatch <= 0)
        return;
    explain(d, unwritten ? "  First unwritten: " : "  First differences: ");
    int n = in->nmismatch < DIAG_MAX_MISMATCH ? in->nmismatch : DIAG_MAX_MISMATCH;
    for (int i = 0; i < n; i++) {
        const mismatch *m = &in->mismatches[i];
        if (unwritten)
            explain(d, "%s[%lld]", i ? ", " : "",
                    (long long)m->index);
        else
            explain(d, "%s[%lld] yours %.9g, expected %.9g",
                    i ? "; " : "", (long long)m->index, m->got, m->expected);
    }
    explain(d, ".");
}

static void diag_wrong(const diag_input *in, diagnosis *d)
{
    set(d, DIAG_WRONG, "Your kernel ran, but its results are wrong");
    explain(d, "The output differs from the double-precision reference beyond the tolerance");
    if (in->rel_err > 0.0)
        explain(d, " (relative error %.3g)", in->rel_err);
    explain(d, ".");
    list_mismatches(in, d, false);
    explain(d, "  Look for: an off-by-one in a bound or a loop (< versus <=, starting at 1); a "
               "missing __syncthreads() between threads writing shared memory and other threads "
               "reading it; a sum over blocks without atomicAdd.");
    const char *hint = wrong_hint(in->problem);
    if (hint)
        explain(d, "  %s", hint);
    suggest(d, "Work out by hand which thread computes the first wrong index and what it "
               "reads; compare your index formulas with the problem's layout.");
}

static void diag_unwritten(const diag_input *in, diagnosis *d)
{
    set(d, DIAG_UNWRITTEN, "Part of the output was never written");
    explain(d, "Before each run cudalab fills the output with a marker value (a NaN with a known "
               "pattern); some elements still hold it, so no thread wrote them.");
    list_mismatches(in, d, true);
    explain(d, "  Usually the grid is too small (grid = n / block rounds down: use (n + block - 1) "
               "// block), the grid covers the wrong count (rows instead of rows x columns), "
               "threads return early before writing, or an index skips elements.");
    suggest(d, "Count the threads your launch starts (grid x block) and the elements each "
               "writes: together they must cover every output element.");
}

static void diag_nan(const diag_input *in, diagnosis *d)
{
    set(d, DIAG_NAN, "Your output contains NaN or Inf");
    explain(d, "Some results are NaN or infinite where the reference is finite.");
    list_mismatches(in, d, false);
    explain(d, "  The usual causes: reading shared memory that no thread wrote (it holds "
               "leftovers, not zeros), reading past the end of an input, or accumulating into an "
               "output that was never zeroed - cudalab fills outputs with NaN before each run, and "
               "NaN + anything stays NaN.");
    if (in->problem && strcmp(in->problem, "reduce_sum") == 0)
        suggest(d, "If your kernel adds into the output with atomicAdd, zero it first in the "
                   "launcher: args.output:fill(0) before gpu.launch.  Also make threads past "
                   "the end put 0 into shared memory instead of skipping the write.");
    else
        suggest(d, "Make every thread write its shared-memory slot (0 past the end) before the "
                   "__syncthreads() that precedes reading it, and zero any output you "
                   "accumulate into.");
}

static void diag_oom(const char *text, diagnosis *d)
{
    set(d, DIAG_OUT_OF_MEMORY, "The GPU ran out of memory");
    explain(d,
        "An allocation did not fit in the GPU's free memory.  gpu.alloc counts elements, not "
        "bytes (gpu.alloc(n) is 4*n bytes), and a launcher that allocates on every call "
        "keeps asking for more.");
    if (find(text, "host memory"))
        snprintf(d->title, sizeof d->title, "The computer ran out of memory");
    if (!empty(text))
        explain(d, "  (Reported: %s)", text);
    suggest(d, "Allocate scratch buffers once, outside the function your launcher returns, "
               "sized in elements; try a smaller size to confirm.");
}

static void diag_launcher(const char *err, diagnosis *d)
{
    set(d, DIAG_LAUNCHER, "Your launcher (Lua) raised an error");
    const char *msg = err;
    lua_location(err, d->where, sizeof d->where, &msg);
    if (d->where[0])
        explain(d, "%s: %s", d->where, msg);
    else
        explain(d, "%s", msg);
    if (find(msg, "attempt to call a nil value"))
        explain(d, "  The launcher calls a function that does not exist: check its spelling "
                   "(gpu.launch, gpu.alloc, buffer:fill).");
    else if (find(msg, "attempt to index a nil value"))
        explain(d, "  The launcher reads a field of something that is nil: a misspelt name such "
                   "as args.inptu, or a kernel your file does not define.");
    else if (find(msg, "attempt to perform arithmetic"))
        explain(d, "  The launcher computes with something that is not a number, often a misspelt "
                   "field of args.");
    else if (find(msg, "takes") && find(msg, "argument"))
        explain(d, "  gpu.launch passes the arguments after the configuration table to the "
                   "kernel, one for each of its parameters, in order.");
    suggest(d, "Open %s and fix the line shown.",
            d->where[0] ? d->where : "your launcher");
}

static void diag_no_device(const char *text, diagnosis *d)
{
    set(d, DIAG_NO_DEVICE, "No CUDA device found");
    explain(d, "%s",
            empty(text) ? "This machine has no usable NVIDIA GPU." : text);
    explain(d, "  Your kernel still compiles and its errors are shown, but it can only run, be "
               "checked and be timed on a GPU.");
    suggest(d, "Run cudalab on a machine with an NVIDIA GPU and driver (cudalab doctor shows "
               "what it finds), for example with srun --gpus=1 on a cluster.");
}

static void diag_crash(const diag_input *in, diagnosis *d)
{
    set(d, DIAG_CRASH, "The measuring process stopped unexpectedly");
    explain(d, "%s.",
            empty(in->fault_message) ? "The worker process ended without saying why"
            : in->fault_message);
    explain(d, "  No CUDA error was reported.  cudalab starts a fresh worker for the next run; "
               "nothing is lost.");
    suggest(d, "Run again.  If it happens every time, try a smaller size and look at the "
               "worker's output in the log (a launcher that allocates a lot of host memory "
               "can cause this).");
}

static void diag_other(const char *text, diagnosis *d)
{
    set(d, DIAG_OTHER, "Something went wrong");
    explain(d, "%s", empty(text) ? "No details were given." : text);
    suggest(d, "Read the message above; run again to see "
               "whether it repeats.");
}

/* Diagnoses from a message text alone; false when nothing matched. */
static bool diag_text(const diag_input *in, const char *text, diagnosis *d)
{
    const pattern *p = classify(text);
    if (!p)
        return false;
    switch (p->cause) {
    case DIAG_KERNEL_MISSING:
        diag_missing(text, d);
        break;
    case DIAG_MEMORY_ACCESS:
        diag_memory(in, p->what, d);
        break;
    case DIAG_KERNEL_FAULT:
        diag_kernel_fault(p->what, text, d);
        break;
    case DIAG_TIMEOUT:
        diag_timeout(in, d);
        break;
    case DIAG_LAUNCH_CONFIG:
        diag_launch(in, text, p->what, d);
        break;
    case DIAG_OUT_OF_MEMORY:
        diag_oom(text, d);
        break;
    case DIAG_NO_DEVICE:
        diag_no_device(text, d);
        break;
    default:
        return false;
    }
    return true;
}

/* True when the launch numbers given are outside the device's limits. */
static bool launch_out_of_range(const diag_input *in)
{
    if (!in->has_launch)
        return false;
    int max_threads = in->max_threads_per_block > 0 ? in->max_threads_per_block
                                                    : DEFAULT_MAX_THREADS;
    long long max_shared = in->max_shared_per_block > 0 ? in->max_shared_per_block
                                                        : DEFAULT_MAX_SHARED;
    return in->block_threads <= 0 || in->grid_blocks <= 0 || in->block_threads > max_threads ||
           in->shared_bytes > max_shared || in->grid_blocks > 2147483647LL;
}

/* ---- public --------------------------------------------------------------------- */

void diag_input_init(diag_input *in)
{
    memset(in, 0, sizeof *in);
}

void diag_input_from_result(diag_input *in, const run_result *r)
{
    in->has_result = true;
    in->status = r->status;
    in->message = r->message;
    in->rel_err = r->rel_err;
    in->nmismatch = r->nmismatch < DIAG_MAX_MISMATCH ? r->nmismatch : DIAG_MAX_MISMATCH;
    if (in->nmismatch < 0)
        in->nmismatch = 0;
    for (int i = 0; i < in->nmismatch; i++)
        in->mismatches[i] = r->mismatches[i];
}

void diag_input_from_fault(diag_input *in, const run_fault *f)
{
    in->fault_cause = f->cause;
    in->fault_message = f->message;
}

void diagnose(const diag_input *in, diagnosis *out)
{
    memset(out, 0, sizeof *out);
    if (in->compile_errors > 0) {
        diag_compile(in, out);
        return;
    }
    if (!empty(in->fault_cause)) {
        const char *c = in->fault_cause;
        if (strcmp(c, "timeout") == 0) {
            diag_timeout(in, out);
        } else if (strcmp(c, "cancelled") == 0) {
            set(out, DIAG_CANCELLED, "You stopped the run");
            explain(out, "The run was cancelled before it finished; nothing was measured.");
            suggest(out, "Start it again when ready.");
        } else if (!diag_text(in, in->fault_message, out)) {
            if (strcmp(c, "signal") == 0 || strcmp(c, "exit") == 0)
                diag_crash(in, out);
            else
                diag_other(in->fault_message, out);
        }
        return;
    }
    if (!empty(in->launcher_error)) {
        if (diag_text(in, in->launcher_error, out)) {
            if (!out->where[0] && out->cause != DIAG_KERNEL_MISSING) {
                const char *msg;
                lua_location(in->launcher_error, out->where, sizeof out->where, &msg);
            }
            return;
        }
        if (launch_out_of_range(in)) {
            diag_launch(in, in->launcher_error, NULL, out);
            const char *msg;
            lua_location(in->launcher_error, out->where, sizeof out->where, &msg);
            return;
        }
        diag_launcher(in->launcher_error, out);
        return;
    }
    if (!in->has_result) {
        set(out, DIAG_NONE, "Nothing to report");
        return;
    }
    switch (in->status) {
    case RS_CORRECT:
        set(out, DIAG_NONE, "Your kernel is correct");
        explain(out, "Its output matches the double-precision reference.");
        suggest(out, "Make it faster.");
        return;
    case RS_WRONG:
        diag_wrong(in, out);
        return;
    case RS_UNWRITTEN:
        diag_unwritten(in, out);
        return;
    case RS_NAN:
        diag_nan(in, out);
        return;
    case RS_ERROR:
    case RS_FAULT:
        if (find(in->message, "timed out") || find(in->message, "time limit")) {
            diag_timeout(in, out);
            return;
        }
        if (!diag_text(in, in->message, out)) {
            if (launch_out_of_range(in))
                diag_launch(in, in->message, NULL, out);
            else if (find(in->message, ".lua:"))
                diag_launcher(in->message, out);
            else
                diag_other(in->message, out);
        }
        return;
    }
    diag_other(in->message, out);
}

const char *diag_cause_name(diag_cause c)
{
    switch (c) {
    case DIAG_NONE:
        return "none";
    case DIAG_COMPILE:
        return "compile";
    case DIAG_KERNEL_MISSING:
        return "kernel_missing";
    case DIAG_LAUNCH_CONFIG:
        return "launch_config";
    case DIAG_MEMORY_ACCESS:
        return "memory_access";
    case DIAG_KERNEL_FAULT:
        return "kernel_fault";
    case DIAG_TIMEOUT:
        return "timeout";
    case DIAG_WRONG:
        return "wrong";
    case DIAG_UNWRITTEN:
        return "unwritten";
    case DIAG_NAN:
        return "nan";
    case DIAG_OUT_OF_MEMORY:
        return "out_of_memory";
    case DIAG_LAUNCHER:
        return "launcher";
    case DIAG_NO_DEVICE:
        return "no_device";
    case DIAG_CRASH:
        return "crash";
    case DIAG_CANCELLED:
        return "cancelled";
    case DIAG_OTHER:
        return "other";
    }
    return "other";
}

int diagnosis_format(const diagnosis *d, char *buf, size_t n)
{
    if (d->where[0])
        return snprintf(buf, n, "%s\n  at %s\n%s\nNext: %s\n", d->title, d->where,
                        d->explanation, d->next_step);
    return snprintf(buf, n, "%s\n%s\nNext: %s\n", d->title, d->explanation, d->next_step);
}

/* How each cause is explained: a title, the place, a paragraph a beginner
 * can follow (with the numbers involved) and a next step, and the helpers
 * that write them. */
#include "supervise/diagnose_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/collective.h"
#include "catalog/problem_spec.h"
#include "core/paths.h"
#include "core/strfmt.h"

/* ---- text helpers --------------------------------------------------------- */

const char *diag_find(const char *hay, const char *needle)
{
    if (!hay || !needle)
        return NULL;
    size_t nl = strlen(needle);
    for (const char *p = hay; *p; p++)
        if (strncasecmp(p, needle, nl) == 0)
            return p;
    return NULL;
}

void diag_explain(diagnosis *diag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)strfmt_vappend(diag->explanation, sizeof diag->explanation, strlen(diag->explanation),
                         fmt, ap);
    va_end(ap);
}

void diag_suggest(diagnosis *diag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(diag->next_step, sizeof diag->next_step, fmt, ap);
    va_end(ap);
}

bool diag_empty(const char *text)
{
    return !text || !text[0];
}

long long diag_number_after(const char *text, const char *needle)
{
    const char *p = diag_find(text, needle);
    if (!p)
        return -1;
    p += strlen(needle);
    while (*p == ' ')
        p++;
    if (!isdigit((unsigned char)*p))
        return -1;
    return strtoll(p, NULL, 10);
}

void diag_lua_location(const char *err, char *where, size_t where_size, const char **msg)
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
        snprintf(where, where_size, "%s:%.*s", paths_base_name(file), (int)(q - p - 1), p + 1);
        q++;
        while (*q == ' ')
            q++;
        *msg = q;
        return;
    }
}

void diag_set(diagnosis *diag, diag_cause cause, const char *title)
{
    diag->cause = cause;
    snprintf(diag->title, sizeof diag->title, "%s", title);
}

/* ---- the problem's hints (catalog/problem_spec.h) ----------------------------- */

static const char *buffers_text(const problem_spec *spec)
{
    return spec ? spec->buffers_hint : NULL;
}

static const char *wrong_hint(const problem_spec *spec)
{
    return spec ? spec->wrong_hint : NULL;
}

/* ---- one paragraph a cause ---------------------------------------------------- */

void diag_compile(const diag_input *in, diagnosis *diag)
{
    diag_set(diag, DIAG_COMPILE, "Your kernel does not compile");
    const char *file = in->compile_file ? paths_base_name(in->compile_file) : "";
    if (file[0] && in->compile_line > 0 && in->compile_col > 0)
        snprintf(diag->where, sizeof diag->where, "%s:%d:%d", file, in->compile_line,
                 in->compile_col);
    else if (file[0] && in->compile_line > 0)
        snprintf(diag->where, sizeof diag->where, "%s:%d", file, in->compile_line);
    else if (file[0])
        snprintf(diag->where, sizeof diag->where, "%s", file);
    const char *msg = in->compile_message ? in->compile_message : "(no message)";
    if (diag->where[0])
        diag_explain(diag, "%s: error: %s", diag->where, msg);
    else
        diag_explain(diag, "error: %s", msg);
    if (in->compile_errors > 1)
        diag_explain(diag, " (and %d more error%s)",
                     in->compile_errors - 1, in->compile_errors > 2 ? "s" : "");
    diag_explain(diag, ".");
    if (diag_find(msg, "is undefined")) {
        diag_explain(diag,
            " The compiler does not know this name: it is misspelt or used before it is "
            "declared.  CUDA's built-ins are threadIdx.x, blockIdx.x, blockDim.x and gridDim.x.");
    } else if (diag_find(msg, "expected a")) {
        diag_explain(diag,
                     " Something is missing just before the place shown, often a ';' at the end of "
                     "the previous line or a closing bracket.");
    } else if (diag_find(msg, "too much shared data")) {
        diag_explain(diag,
                     " The static __shared__ arrays of one kernel may hold at most 48 KiB (49152 "
                     "bytes) together.");
    } else if (diag_find(msg, "cannot open source file") || diag_find(msg, "could not open source file")) {
        diag_explain(diag, " An #include names a file the compiler cannot find.");
    } else if (diag_find(msg, "too many registers") || diag_find(msg, "uses too much")) {
        diag_explain(diag,
            " ptxas, the last compiler stage, found the kernel needs more of a resource than "
            "the GPU has.");
    }
    if (diag->where[0])
        diag_suggest(diag,
                     "Open your kernel at %s and fix the first error (later ones often follow "
                     "from it); when you save, it is compiled again.",
                     diag->where);
    else
        diag_suggest(diag, "Fix the first error in your kernel file (later ones often follow from "
                        "it); when you save, it is compiled again.");
}

void diag_missing(const char *text, diagnosis *diag)
{
    diag_set(diag, DIAG_KERNEL_MISSING, "The launcher asks for a kernel your file does not define");
    diag_explain(diag, "%s.", text);
    if (diag_find(text, "renamed it to")) {
        diag_explain(diag,
                     " C++ adds the parameter types to a function's name (name mangling), so the "
                     "launcher cannot find it under the name you wrote.");
        diag_suggest(diag,
                     "Write the kernel as extern \"C\" __global__ void name(...), as the starter "
                     "does.");
    } else {
        diag_suggest(diag,
                     "Use the same name in the launcher (k.<name>) as in the kernel file, and "
                     "declare the kernel extern \"C\" __global__.");
    }
}

void diag_not_own(const diag_input *in, const char *text, diagnosis *diag)
{
    diag_set(diag, DIAG_NOT_OWN, "The row is not your kernel's work");
    const char *msg = text;
    if (in && text)
        diag_lua_location(text, diag->where, sizeof diag->where, &msg);
    diag_explain(diag, "%s.", msg);
    diag_explain(diag, "  cudalab measures, judges and grades only what your own kernels compute: "
                    "an exercise launcher may launch the kernels of your starter.cu (k.<name>), "
                    "not cudalab's shipped ones, and every call must launch at least one of "
                    "yours.");
    diag_suggest(diag, "Launch your kernel with gpu.launch(k.<name>, ...) and let it compute the "
                    "output.");
}

void diag_memory(const diag_input *in, const char *what, diagnosis *diag)
{
    diag_set(diag, DIAG_MEMORY_ACCESS, "Your kernel read or wrote outside its buffers");
    if (what && strcmp(what, "misaligned address") == 0) {
        snprintf(diag->title, sizeof diag->title, "Your kernel used a misaligned address");
        diag_explain(
            diag, "A load or store used an address that is not a multiple of its size: a float4 "
                  "must start on a 16-byte boundary, a float on 4 bytes.  Casting a float pointer "
                  "that is not at the start of a group of four to float4 does this.");
        diag_suggest(diag, "Only cast to float4 at indices that are multiples of 4 and handle the "
                        "leftover elements with plain float loads.");
        return;
    }
    diag_explain(diag, "The GPU stopped your kernel (%s): some thread used an address outside the "
                    "memory it was given.",
                 what ? what : "illegal address");
    const char *bufs = buffers_text(in->spec);
    if (bufs)
        diag_explain(diag, "  Here %s.", bufs);
    diag_explain(diag,
                 "  The usual causes: the grid has more threads than elements and the kernel has "
                 "no bounds check, an index formula that goes past the end (row * N + col with "
                 "the wrong width), or the launcher passing arguments in a different order than "
                 "the kernel's parameters.  Shared memory counts too: an index past the end of a "
                 "__shared__ array, or more dynamic shared memory used than the launch gave.");
    diag_suggest(diag,
                 "Guard every access with a bounds check such as if (i < n), check each index "
                 "formula at the last thread of the last block, and compare the launcher's "
                 "arguments with the kernel's parameter list.");
}

void diag_kernel_fault(const diag_input *in, const char *what, const char *text, diagnosis *diag)
{
    char where[256], expr[256];
    diag_set(diag, DIAG_KERNEL_FAULT, "Your kernel stopped with an error on the GPU");
    if (what && strcmp(what, "device-side assert") == 0 && in &&
        diag_device_assert(in->device_output, where, sizeof where, expr, sizeof expr)) {
        diag_set(diag, DIAG_KERNEL_FAULT, "An assert in your kernel failed");
        snprintf(diag->where, sizeof diag->where, "%s", where);
        diag_explain(diag, "assert(%s) at %s was false for at least one thread, so the GPU stopped "
                        "the kernel; what the device printed names the block and thread.",
                     expr, where);
        diag_suggest(diag, "Find out why %s does not hold there: print the values involved with "
                        "printf for one thread, or check the indexing that leads to it.",
                     expr);
    } else if (what && strcmp(what, "device-side assert") == 0) {
        diag_explain(diag, "An assert() inside your kernel failed, so the GPU stopped it.");
        diag_suggest(diag, "Find the assert that fails: its condition names what went wrong.");
    } else if (what && strcmp(what, "hardware stack error") == 0) {
        diag_explain(
            diag, "The kernel overflowed its call stack: deep or endless recursion, or very large "
                  "local arrays.");
        diag_suggest(
            diag, "Replace recursion with a loop and move big arrays to shared or global memory.");
    } else {
        diag_explain(diag, "The GPU hit %s while running your kernel, which usually follows from "
                        "corrupted memory or a bad function pointer.",
                     what ? what : "an error");
        diag_suggest(diag, "Check the kernel for writes outside its buffers; they can corrupt what "
                        "runs afterwards.");
    }
    if (!diag_empty(text))
        diag_explain(diag, "  (Reported: %s)", text);
}

void diag_timeout(const diag_input *in, diagnosis *diag)
{
    const char *v = in->fault_variant;
    if (v && v[0] && strncmp(v, "exercise", 8) != 0) {
        /* Not the learner's kernel: a shipped row or a CPU baseline. */
        diag_set(diag, DIAG_TIMEOUT, "The run did not finish in time");
        if (diag_empty(in->fault_message))
            diag_explain(diag, "The run went on past its time limit, so cudalab stopped it.");
        else
            diag_explain(diag, "cudalab stopped the run: %s.", in->fault_message);
        diag_explain(diag, "  The rows that finished before it are kept.");
        diag_suggest(diag, "Give the run more time with --time-limit SECONDS, or run a smaller "
                        "--size.");
        return;
    }
    diag_set(diag, DIAG_TIMEOUT, "Your kernel did not finish in time");
    if (in->time_limit_s > 0)
        diag_explain(diag,
            "The run was still going after %.0f s, so cudalab stopped it.", in->time_limit_s);
    else
        diag_explain(diag, "The run went on past its time limit, so cudalab stopped it.");
    diag_explain(
        diag, "  Two causes are common.  An endless loop: a loop whose condition never changes, "
              "such as a grid-stride loop that adds 0 or a counter of the wrong type.  A barrier "
              "deadlock: __syncthreads() waits until every thread of the block arrives, so one "
              "inside an if that only some threads enter (if (tid < s) { ... __syncthreads(); }) "
              "waits for threads that never come.");
    diag_suggest(diag, "Check that every loop's variable moves toward its end, and move each "
                    "__syncthreads() out of branches so all threads of the block reach it.");
}

static void list_mismatches(const diag_input *in, diagnosis *d, bool unwritten)
{
    if (in->nmismatch <= 0)
        return;
    diag_explain(d, unwritten ? "  First unwritten: " : "  First differences: ");
    int n = in->nmismatch < DIAG_MAX_MISMATCH ? in->nmismatch : DIAG_MAX_MISMATCH;
    for (int i = 0; i < n; i++) {
        const mismatch *m = &in->mismatches[i];
        if (unwritten)
            diag_explain(d, "%s[%lld]", i ? ", " : "",
                         (long long)m->index);
        else
            diag_explain(d, "%s[%lld] yours %.9g, expected %.9g",
                         i ? "; " : "", (long long)m->index, m->got, m->expected);
    }
    diag_explain(d, ".");
}

/* A row refused for what its timed runs did (engine/engine_canary.h,
 * engine/roofline.h): the reason is in its message; true when explained. */
static bool timing_refusal(const diag_input *in, diagnosis *diag)
{
    const char *m = in->message ? in->message : "";
    if (diag_find(m, "during timing")) {
        diag_set(diag, DIAG_WRONG, "Your kernel was right when checked, wrong while timed");
        diag_explain(diag, "cudalab gives one timed run, chosen at random, new inputs and checks "
                           "it: %s", m);
        diag_suggest(diag, "Compute the answer on every call from the inputs of that call: keep "
                           "nothing from earlier calls but scratch space, and do not write into "
                           "the inputs.");
        return true;
    }
    if (diag_find(m, "faster than this GPU") || diag_find(m, "no measurable time")) {
        diag_set(diag, DIAG_WRONG, "Your timed runs did not do the work");
        diag_explain(diag, "%s.", m);
        diag_suggest(diag, "Launch all of the work on the launcher's stream (or join your streams "
                           "to it) and compute the answer on every call.");
        return true;
    }
    return false;
}

void diag_wrong(const diag_input *in, diagnosis *diag)
{
    if (timing_refusal(in, diag))
        return;
    diag_set(diag, DIAG_WRONG, "Your kernel ran, but its results are wrong");
    diag_explain(diag,
                 "The output differs from the double-precision reference beyond the tolerance");
    if (in->rel_err > 0.0)
        diag_explain(diag, " (relative error %.3g)", in->rel_err);
    diag_explain(diag, ".");
    list_mismatches(in, diag, false);
    diag_explain(diag,
                 "  Look for: an off-by-one in a bound or a loop (< versus <=, starting at 1); a "
                 "missing __syncthreads() between threads writing shared memory and other threads "
                 "reading it; a sum over blocks without atomicAdd.");
    const char *hint = wrong_hint(in->spec);
    if (hint)
        diag_explain(diag, "  %s", hint);
    diag_suggest(diag, "Work out by hand which thread computes the first wrong index and what it "
                    "reads; compare your index formulas with the problem's layout.");
}

void diag_unwritten(const diag_input *in, diagnosis *diag)
{
    diag_set(diag, DIAG_UNWRITTEN, "Part of the output was never written");
    diag_explain(diag,
                 "Before each run cudalab fills the output with a marker value (a NaN with a known "
                 "pattern); some elements still hold it, so no thread wrote them.");
    list_mismatches(in, diag, true);
    diag_explain(
        diag, "  Usually the grid is too small (grid = n / block rounds down: use (n + block - 1) "
              "// block), the grid covers the wrong count (rows instead of rows x columns), "
              "threads return early before writing, or an index skips elements.");
    diag_suggest(diag, "Count the threads your launch starts (grid x block) and the elements each "
                    "writes: together they must cover every output element.");
}

void diag_nan(const diag_input *in, diagnosis *diag)
{
    diag_set(diag, DIAG_NAN, "Your output contains NaN or Inf");
    diag_explain(diag, "Some results are NaN or infinite where the reference is finite.");
    list_mismatches(in, diag, false);
    diag_explain(diag, "  The usual causes: reading shared memory that no thread wrote (it holds "
                    "leftovers, not zeros), reading past the end of an input, or accumulating into an "
                    "output that was never zeroed - cudalab fills outputs with NaN before each run, and "
                    "NaN + anything stays NaN.");
    if (in->spec && in->spec->nan_hint)
        diag_suggest(diag, "%s", in->spec->nan_hint);
    else
        diag_suggest(diag,
                     "Make every thread write its shared-memory slot (0 past the end) before the "
                     "__syncthreads() that precedes reading it, and zero any output you "
                     "accumulate into.");
}

void diag_oom(const char *text, diagnosis *diag)
{
    diag_set(diag, DIAG_OUT_OF_MEMORY, "The GPU ran out of memory");
    diag_explain(diag,
        "An allocation did not fit in the GPU's free memory.  gpu.alloc counts elements, not "
        "bytes (gpu.alloc(n) is 4*n bytes), and a launcher that allocates on every call "
        "keeps asking for more.");
    if (diag_find(text, "host memory"))
        snprintf(diag->title, sizeof diag->title, "The computer ran out of memory");
    if (!diag_empty(text))
        diag_explain(diag, "  (Reported: %s)", text);
    diag_suggest(diag, "Allocate scratch buffers once, outside the function your launcher returns, "
                    "sized in elements; try a smaller size to confirm.");
}

void diag_launcher(const char *err, diagnosis *diag)
{
    diag_set(diag, DIAG_LAUNCHER, "Your launcher (Lua) raised an error");
    const char *msg = err;
    diag_lua_location(err, diag->where, sizeof diag->where, &msg);
    if (diag->where[0])
        diag_explain(diag, "%s: %s", diag->where, msg);
    else
        diag_explain(diag, "%s", msg);
    if (diag_find(msg, "attempt to call a nil value"))
        diag_explain(diag,
                     "  The launcher calls a function that does not exist: check its spelling "
                     "(gpu.launch, gpu.alloc, buffer:fill).");
    else if (diag_find(msg, "attempt to index a nil value"))
        diag_explain(diag,
                     "  The launcher reads a field of something that is nil: a misspelt name such "
                     "as args.inptu, or a kernel your file does not define.");
    else if (diag_find(msg, "attempt to perform arithmetic"))
        diag_explain(
            diag, "  The launcher computes with something that is not a number, often a misspelt "
                  "field of args.");
    else if (diag_find(msg, "takes") && diag_find(msg, "argument"))
        diag_explain(diag, "  gpu.launch passes the arguments after the configuration table to the "
                        "kernel, one for each of its parameters, in order.");
    diag_suggest(diag, "Open %s and fix the line shown.",
                 diag->where[0] ? diag->where : "your launcher");
}

void diag_no_device(const char *text, diagnosis *diag)
{
    if (!diag_empty(text) && diag_find(text, COLL_TOO_FEW_GPUS)) {
        diag_set(diag, DIAG_NO_DEVICE, "Too few GPUs");
        diag_explain(diag, "%s.", text);
        diag_suggest(diag,
                     "Run this lab on a machine with two or more NVIDIA GPUs (cudalab doctor "
                     "lists what it finds), for example with srun --gpus=2 on a cluster; every "
                     "other lab runs on one.");
        return;
    }
    diag_set(diag, DIAG_NO_DEVICE, "No CUDA device found");
    diag_explain(diag, "%s",
                 diag_empty(text) ? "This machine has no usable NVIDIA GPU." : text);
    diag_explain(diag,
                 "  Your kernel still compiles and its errors are shown, but it can only run, be "
                 "checked and be timed on a GPU.");
    diag_suggest(diag,
                 "Run cudalab on a machine with an NVIDIA GPU and driver (cudalab doctor shows "
                 "what it finds), for example with srun --gpus=1 on a cluster.");
}

void diag_crash(const diag_input *in, diagnosis *diag)
{
    diag_set(diag, DIAG_CRASH, "The measuring process stopped unexpectedly");
    diag_explain(diag, "%s.",
                 diag_empty(in->fault_message) ? "The worker process ended without saying why"
                 : in->fault_message);
    diag_explain(diag,
                 "  No CUDA error was reported.  cudalab starts a fresh worker for the next run; "
                 "nothing is lost.");
    diag_suggest(diag, "Run again.  If it happens every time, try a smaller size and look at the "
                    "worker's output in the log (a launcher that allocates a lot of host memory "
                    "can cause this).");
}

void diag_lab(const diag_input *in, diagnosis *diag)
{
    const char *text = in->fault_message;
    if (!diag_empty(in->fault_cause) && strcmp(in->fault_cause, "timeout") == 0) {
        diag_set(diag, DIAG_LAB, "The lab's reference did not finish in time");
        diag_explain(diag, "The lab computes the right answer with a reference of its own, and "
                        "it was still running when the time limit came; your kernel had not "
                        "run yet at this size.");
    } else {
        diag_set(diag, DIAG_LAB, "The lab's reference failed");
        diag_explain(diag, "The lab computes the right answer with a reference of its own, and "
                        "that reference failed before your kernel ran; nothing your kernel "
                        "does can cause this.");
    }
    if (!diag_empty(text))
        diag_explain(diag, "  (Reported: %s)", text);
    diag_suggest(diag, "Try a smaller --size or more --time-limit; if it persists, tell the lab's "
                    "author, with the message above (`cudalab check` on the lab folder shows "
                    "the problem's file and line).");
}

void diag_other(const char *text, diagnosis *diag)
{
    if (!diag_empty(text) && strncmp(text, "unavailable: ", 13) == 0 && strstr(text, "python3")) {
        /* a Python row whose python3 lacks CuPy or Numba: nothing to fix
         * in the code, something to install */
        diag_set(diag, DIAG_OTHER, "Python cannot run this row here");
        diag_explain(diag, "%s", text + 13);
        diag_explain(diag, "  The row is a Python file (CuPy or Numba), which cudalab runs with "
                        "python3; that python3 lacks a package it needs.");
        diag_suggest(diag, "Install what the message names into the python3 cudalab uses "
                        "(cudalab doctor shows which one and what it has; CUDALAB_PYTHON "
                        "picks another), then run again.");
        return;
    }
    diag_set(diag, DIAG_OTHER, "Something went wrong");
    diag_explain(diag, "%s", diag_empty(text) ? "No details were given." : text);
    diag_suggest(diag, "Read the message above; run again to see "
                    "whether it repeats.");
}

bool diag_device_assert(const char *text, char *where, size_t wn, char *expr, size_t en)
{
    /* The device prints "file:line: function: block: [..], thread: [..]
     * Assertion `expr` failed." once per failing thread; the last one. */
    const char *hit = NULL, *p = text;
    if (diag_empty(text))
        return false;
    while ((p = strstr(p, "Assertion `")) != NULL) {
        hit = p;
        p++;
    }
    if (!hit)
        return false;
    const char *e = hit + strlen("Assertion `");
    const char *close = strstr(e, "` failed");
    if (!close)
        return false;
    snprintf(expr, en, "%.*s", (int)(close - e), e);
    const char *line = hit;
    while (line > text && line[-1] != '\n')
        line--;
    char file[192];
    int ln = 0;
    if (sscanf(line, "%191[^:\n]:%d:", file, &ln) == 2 && ln > 0)
        snprintf(where, wn, "%s:%d", paths_base_name(file), ln);
    else
        snprintf(where, wn, "your kernel");
    return true;
}

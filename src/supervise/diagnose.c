/* Naming the cause: which report wins (a compile error, then a fault, then
 * the launcher's error, then the row's status) and which words in a
 * message point to which cause; the paragraphs are diagnose_causes.c's
 * (a refused launch's diagnose_launch.c's). */
#include "supervise/diagnose.h"

#include <stdio.h>
#include <string.h>

#include "result/cuda_codes.h"
#include "supervise/diagnose_internal.h"

typedef struct pattern {
    const char *needle;
    diag_cause cause;
    const char *what;        /* short name of the CUDA error, or NULL */
} pattern;

static const pattern patterns[] = {
    {"is one of cudalab's shipped kernels", DIAG_NOT_OWN, NULL},
    {"launched none of your kernels", DIAG_NOT_OWN, NULL},
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

/* CUDA's error codes, decided on by number: the numbers travel with rows
 * and faults (result/cuda_codes.h). */
typedef struct coded {
    int code;
    diag_cause cause;
    const char *what;
} coded;

static const coded codes[] = {
    {CUDA_CODE_ILLEGAL_ADDRESS, DIAG_MEMORY_ACCESS, "illegal address"},
    {CUDA_CODE_MISALIGNED_ADDRESS, DIAG_MEMORY_ACCESS, "misaligned address"},
    {CUDA_CODE_INVALID_ADDRESS_SPACE, DIAG_MEMORY_ACCESS, "invalid address space"},
    {CUDA_CODE_LAUNCH_FAILURE, DIAG_MEMORY_ACCESS, "unspecified launch failure"},
    {CUDA_CODE_ASSERT, DIAG_KERNEL_FAULT, "device-side assert"},
    {CUDA_CODE_HARDWARE_STACK_ERROR, DIAG_KERNEL_FAULT, "hardware stack error"},
    {CUDA_CODE_ILLEGAL_INSTRUCTION, DIAG_KERNEL_FAULT, "illegal instruction"},
    {CUDA_CODE_INVALID_PC, DIAG_KERNEL_FAULT, "invalid program counter"},
    {CUDA_CODE_LAUNCH_TIMEOUT, DIAG_TIMEOUT, "launch timeout"},
    {CUDA_CODE_INVALID_CONFIGURATION, DIAG_LAUNCH_CONFIG, "invalid configuration"},
    {CUDA_CODE_LAUNCH_OUT_OF_RESOURCES, DIAG_LAUNCH_CONFIG, "too many resources"},
    {CUDA_CODE_MEMORY_ALLOCATION, DIAG_OUT_OF_MEMORY, "out of memory"},
    {CUDA_CODE_NO_DEVICE, DIAG_NO_DEVICE, NULL},
    {CUDA_CODE_INSUFFICIENT_DRIVER, DIAG_NO_DEVICE, NULL},
};

/* The pattern a CUDA error code stands for, as a pattern; NULL for 0 or a
 * code not told apart. */
static const pattern *classify_code(int code, pattern *out)
{
    for (size_t i = 0; code && i < sizeof codes / sizeof codes[0]; i++) {
        if (codes[i].code == code) {
            *out = (pattern){NULL, codes[i].cause, codes[i].what};
            return out;
        }
    }
    return NULL;
}

static const pattern *classify(const char *text)
{
    if (diag_empty(text))
        return NULL;
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++)
        if (diag_find(text, patterns[i].needle))
            return &patterns[i];
    return NULL;
}

/* Diagnoses from a CUDA error code when there is one, else from the
 * words of cudalab's own messages; false when nothing matched. */
static bool diag_text(const diag_input *in, int code, const char *text, diagnosis *d)
{
    pattern by_code;
    const pattern *p = classify_code(code, &by_code);
    if (!p)
        p = classify(text);
    if (!p)
        return false;
    switch (p->cause) {
    case DIAG_KERNEL_MISSING:
        diag_missing(text, d);
        break;
    case DIAG_NOT_OWN:
        diag_not_own(in, text, d);
        break;
    case DIAG_MEMORY_ACCESS:
        diag_memory(in, p->what, d);
        break;
    case DIAG_KERNEL_FAULT:
        diag_kernel_fault(in, p->what, text, d);
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

void diag_input_from_result(diag_input *in, const run_result *result)
{
    in->has_result = true;
    in->status = result->status;
    in->message = result->message;
    in->code = result->code;
    in->rel_err = result->rel_err;
    in->nmismatch = result->nmismatch < DIAG_MAX_MISMATCH ? result->nmismatch : DIAG_MAX_MISMATCH;
    if (in->nmismatch < 0)
        in->nmismatch = 0;
    for (int i = 0; i < in->nmismatch; i++)
        in->mismatches[i] = result->mismatches[i];
}

void diag_input_from_fault(diag_input *in, const run_fault *fault)
{
    in->fault_cause = fault->cause;
    in->fault_message = fault->message;
    in->fault_code = fault->code;
    in->fault_variant = fault->variant;
}

/* A fault that ended the run: the lab's reference, the time limit, a
 * cancel, the words of its message, or a crash. */
static void diagnose_fault(const diag_input *in, diagnosis *out)
{
    const char *c = in->fault_cause;
    if (in->fault_variant && strcmp(in->fault_variant, RUN_FAULT_REFERENCE) == 0) {
        diag_lab(in, out);
    } else if (strcmp(c, "timeout") == 0) {
        diag_timeout(in, out);
    } else if (strcmp(c, "cancelled") == 0) {
        diag_set(out, DIAG_CANCELLED, "You stopped the run");
        diag_explain(out, "The run was cancelled before it finished; the rows that finished before "
                          "it are kept.");
        diag_suggest(out, "Start it again when ready.");
    } else if (!diag_text(in, in->fault_code, in->fault_message, out)) {
        if (strcmp(c, "signal") == 0 || strcmp(c, "exit") == 0)
            diag_crash(in, out);
        else
            diag_other(in->fault_message, out);
    }
}

/* The launcher's error: the words of its message, a launch out of range,
 * or the launcher's own mistake, at the launcher's line. */
static void diagnose_launcher(const diag_input *in, diagnosis *out)
{
    const char *msg;
    if (diag_text(in, 0, in->launcher_error, out)) {
        if (!out->where[0] && out->cause != DIAG_KERNEL_MISSING)
            diag_lua_location(in->launcher_error, out->where, sizeof out->where, &msg);
        return;
    }
    if (launch_out_of_range(in)) {
        diag_launch(in, in->launcher_error, NULL, out);
        diag_lua_location(in->launcher_error, out->where, sizeof out->where, &msg);
        return;
    }
    diag_launcher(in->launcher_error, out);
}

/* A row's status: correct, wrong, unwritten, NaN, no device, or an error
 * read from its message. */
static void diagnose_status(const diag_input *in, diagnosis *out)
{
    switch (in->status) {
    case RS_CORRECT:
        diag_set(out, DIAG_NONE, "Your kernel is correct");
        diag_explain(out, "Its output matches the double-precision reference.");
        diag_suggest(out, "Make it faster.");
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
    case RS_NO_DEVICE:
        diag_no_device(in->message, out);
        return;
    case RS_ERROR:
    case RS_FAULT:
        if (diag_find(in->message, "timed out") || diag_find(in->message, "time limit")) {
            diag_timeout(in, out);
            return;
        }
        if (!diag_text(in, in->code, in->message, out)) {
            if (launch_out_of_range(in))
                diag_launch(in, in->message, NULL, out);
            else if (diag_find(in->message, ".lua:"))
                diag_launcher(in->message, out);
            else
                diag_other(in->message, out);
        }
        return;
    }
    diag_other(in->message, out);
}

void diagnose(const diag_input *in, diagnosis *out)
{
    memset(out, 0, sizeof *out);
    if (in->compile_errors > 0)
        diag_compile(in, out);
    else if (!diag_empty(in->fault_cause))
        diagnose_fault(in, out);
    else if (!diag_empty(in->launcher_error))
        diagnose_launcher(in, out);
    else if (!in->has_result)
        diag_set(out, DIAG_NONE, "Nothing to report");
    else
        diagnose_status(in, out);
}

const char *diag_cause_name(diag_cause cause)
{
    switch (cause) {
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
    case DIAG_NOT_OWN:
        return "not_own";
    case DIAG_LAB:
        return "lab";
    case DIAG_OTHER:
        return "other";
    }
    return "other";
}

int diagnosis_format(const diagnosis *diag, char *buf, size_t buf_size)
{
    if (diag->where[0])
        return snprintf(buf, buf_size, "%s\n  at %s\n%s\nNext: %s\n", diag->title, diag->where,
                        diag->explanation, diag->next_step);
    return snprintf(buf, buf_size, "%s\n%s\nNext: %s\n", diag->title, diag->explanation,
                    diag->next_step);
}

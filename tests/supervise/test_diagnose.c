/* Diagnosis: every cause, from the inputs the compiler, the engine, the GPU
 * API and the supervisor really produce, gives a title, an explanation with
 * the numbers and a next step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "gpu/nvrtc.h"
#include "support.h"
#include "result/cuda_codes.h"
#include "supervise/diagnose.h"

/* Every diagnosis has all three texts. */
static void complete(const diagnosis *d)
{
    assert_true(d->title[0]);
    assert_true(d->explanation[0]);
    assert_true(d->next_step[0]);
}

static diagnosis from_launcher(const char *err, const char *problem)
{
    diag_input in;
    diag_input_init(&in);
    in.launcher_error = err;
    in.spec = problem ? ts_shipped_spec(problem) : NULL;
    diagnosis d;
    diagnose(&in, &d);
    complete(&d);
    return d;
}

static diagnosis from_fault(const char *cause, const char *msg, const char *problem)
{
    run_fault f;
    memset(&f, 0, sizeof f);
    snprintf(f.cause, sizeof f.cause, "%s", cause);
    snprintf(f.message, sizeof f.message, "%s", msg);
    diag_input in;
    diag_input_init(&in);
    diag_input_from_fault(&in, &f);
    in.spec = problem ? ts_shipped_spec(problem) : NULL;
    in.time_limit_s = 10.0;
    diagnosis d;
    diagnose(&in, &d);
    complete(&d);
    return d;
}

static diagnosis from_result(result_status st, const char *msg, const char *problem)
{
    run_result r;
    run_result_init(&r);
    r.status = st;
    snprintf(r.message, sizeof r.message, "%s", msg);
    r.rel_err = 0.25;
    r.nmismatch = 2;
    r.mismatches[0] = (mismatch){17, 1.5, 2.0};
    r.mismatches[1] = (mismatch){4096, 0.0, 3.25};
    diag_input in;
    diag_input_init(&in);
    diag_input_from_result(&in, &r);
    in.spec = problem ? ts_shipped_spec(problem) : NULL;
    diagnosis d;
    diagnose(&in, &d);
    complete(&d);
    return d;
}

/* A Python exercise whose python3 lacks its packages: what to install, not
 * "something went wrong". */
static void test_python_unavailable(void **state)
{
    (void)state;
    diagnosis d = from_result(RS_ERROR,
                              "unavailable: python3 cannot import cupy (pip install cupy-cuda13x "
                              "'numba-cuda[cu13]')",
                              NULL);
    assert_string_equal(d.title, "Python cannot run this row here");
    assert_non_null(strstr(d.explanation, "pip install cupy-cuda13x"));
    assert_non_null(strstr(d.next_step, "cudalab doctor"));
}

static void test_compile_error(void **state)
{
    (void)state;
    nvrtc_output out;
    memset(&out, 0, sizeof out);
    nvrtc_diag diags[3];
    memset(diags, 0, sizeof diags);
    diags[0].severity = NVRTC_SEV_WARNING;
    snprintf(diags[0].message, sizeof diags[0].message, "variable \"x\" was declared but never referenced");
    for (int i = 1; i < 3; i++) {
        diags[i].severity = NVRTC_SEV_ERROR;
        snprintf(diags[i].file, sizeof diags[i].file, "/home/me/cudalab-workspace/reduction/starter.cu");
        diags[i].line = 12 + i;
        diags[i].col = 5;
    }
    snprintf(diags[1].message, sizeof diags[1].message, "identifier \"blockDim_x\" is undefined");
    snprintf(diags[2].message, sizeof diags[2].message, "expected a \";\"");
    out.compile_error = true;
    out.diags = diags;
    out.ndiags = 3;

    diag_input in;
    diag_input_init(&in);
    ts_diag_from_compile(&in, &out);
    assert_int_equal(in.compile_errors, 2);
    /* A fault as well: the compile error comes first. */
    in.fault_cause = "timeout";
    diagnosis d;
    diagnose(&in, &d);
    complete(&d);
    assert_int_equal(d.cause, DIAG_COMPILE);
    assert_string_equal(d.where, "starter.cu:13:5");
    assert_true(ts_contains(d.explanation, "starter.cu:13:5: error: identifier \"blockDim_x\" is undefined"));
    assert_true(ts_contains(d.explanation, "and 1 more error"));
    assert_true(ts_contains(d.explanation, "blockDim.x"));
    assert_true(ts_contains(d.next_step, "starter.cu:13:5"));
}

static void test_compile_error_from_real_nvrtc(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    ts_data_path(path, sizeof path, "features/exercises/broken/compile_error/starter.cu");
    nvrtc_output out;
    cl_err e = {{0}};
    nvrtc_opts o = {.arch = "sm_90", .no_cache = true};
    assert_false(nvrtc_compile_opts(path, &o, &out, &e));
    diag_input in;
    diag_input_init(&in);
    ts_diag_from_compile(&in, &out);
    diagnosis d;
    diagnose(&in, &d);
    assert_int_equal(d.cause, DIAG_COMPILE);
    assert_string_equal(d.where, "starter.cu:12:41");
    nvrtc_output_free(&out);
}

static void test_kernel_missing(void **state)
{
    (void)state;
    char path[CL_PATH_MAX];
    ts_data_path(path, sizeof path, "features/exercises/broken/missing_extern_c/starter.cu");
    nvrtc_output out;
    cl_err e = {{0}};
    nvrtc_opts o = {.arch = "sm_90", .no_cache = true};
    assert_true(nvrtc_compile_opts(path, &o, &out, &e));
    char msg[512], err[600];
    nvrtc_kernel_missing(&out, "reduce_sum", msg, sizeof msg);
    snprintf(err, sizeof err, "/ws/reduction/starter.lua:31: %s", msg);
    diagnosis d = from_launcher(err, "reduce_sum");
    assert_int_equal(d.cause, DIAG_KERNEL_MISSING);
    assert_true(ts_contains(d.explanation, "_Z10reduce_sumPKfPfi"));
    assert_true(ts_contains(d.explanation, "mangling"));
    assert_true(ts_contains(d.next_step, "extern \"C\" __global__"));
    nvrtc_output_free(&out);

    d = from_launcher("starter.lua:5: starter.cu has no kernel named reduce; it defines: "
                      "reduce_sum", NULL);
    assert_int_equal(d.cause, DIAG_KERNEL_MISSING);
    assert_true(ts_contains(d.next_step, "same name"));
}

static void test_launch_config_threads(void **state)
{
    (void)state;
    diagnosis d = from_launcher("/ws/reduction/starter.lua:24: block of 2048 threads: the "
                                "limit is 1024 per block", "reduce_sum");
    assert_int_equal(d.cause, DIAG_LAUNCH_CONFIG);
    assert_string_equal(d.where, "starter.lua:24");
    assert_true(ts_contains(d.explanation, "You asked for 2048 threads in one block"));
    assert_true(ts_contains(d.explanation, "at most 1024"));
    assert_true(ts_contains(d.next_step, "multiple of 32"));

    /* Numbers from the engine, CUDA's own words. */
    diag_input in;
    diag_input_init(&in);
    in.has_result = true;
    in.status = RS_ERROR;
    in.message = "gpu.launch(reduce_sum): invalid configuration argument";
    in.has_launch = true;
    in.block_threads = 1536;
    in.grid_blocks = 4;
    in.max_threads_per_block = 1024;
    diagnose(&in, &d);
    complete(&d);
    assert_int_equal(d.cause, DIAG_LAUNCH_CONFIG);
    assert_true(ts_contains(d.explanation, "1536 threads"));
    assert_true(ts_contains(d.explanation, "1024"));
}

static void test_launch_config_shared(void **state)
{
    (void)state;
    diagnosis d = from_launcher("starter.lua:25: shared memory of 1048576 bytes (plus 0 "
                                "static): the limit is 232448 per block", "reduce_sum");
    assert_int_equal(d.cause, DIAG_LAUNCH_CONFIG);
    assert_true(ts_contains(d.explanation, "1048576 bytes of shared memory"));
    assert_true(ts_contains(d.explanation, "232448"));
    assert_true(ts_contains(d.explanation, "in bytes"));
}

static void test_launch_config_grid_zero_resources(void **state)
{
    (void)state;
    diagnosis d = from_launcher("starter.lua:6: grid.y of 100000 blocks: the limit is 65535",
                                "embedding");
    assert_int_equal(d.cause, DIAG_LAUNCH_CONFIG);
    assert_true(ts_contains(d.explanation, "100000 blocks"));
    assert_true(ts_contains(d.explanation, "65535"));
    assert_true(ts_contains(d.next_step, "grid-stride"));

    d = from_launcher("starter.lua:9: gpu.launch: grid.x must be a positive integer",
                      "embedding");
    assert_int_equal(d.cause, DIAG_LAUNCH_CONFIG);
    assert_true(ts_contains(d.explanation, "0"));
    assert_true(ts_contains(d.next_step, "(n + block - 1) // block"));

    diag_input in;
    diag_input_init(&in);
    in.fault_cause = "cuda";
    in.fault_message = "too many resources requested for launch";
    in.has_launch = true;
    in.block_threads = 1024;
    in.grid_blocks = 64;
    in.regs_per_thread = 128;
    diagnose(&in, &d);
    complete(&d);
    assert_int_equal(d.cause, DIAG_LAUNCH_CONFIG);
    assert_true(ts_contains(d.explanation, "128 registers"));
    assert_true(ts_contains(d.explanation, "65536"));
    assert_true(ts_contains(d.explanation, "at most 512 threads"));
    assert_true(ts_contains(d.next_step, "__launch_bounds__"));

    d = from_launcher("starter.lua:20: block of 1024 threads: kernel reduce_sum can run at "
                      "most 640 per block (it uses 96 registers per thread)", NULL);
    assert_int_equal(d.cause, DIAG_LAUNCH_CONFIG);
    assert_true(ts_contains(d.explanation, "96 registers"));
    assert_true(ts_contains(d.explanation, "1024 threads x 96 = 98304"));
    assert_true(ts_contains(d.explanation, "at most 640 threads"));
}

static void test_memory_access(void **state)
{
    (void)state;
    diagnosis d = from_fault("cuda", "the kernel read or wrote memory outside its buffers "
                                     "(illegal address)", "embedding");
    assert_int_equal(d.cause, DIAG_MEMORY_ACCESS);
    assert_true(ts_contains(d.explanation, "illegal address"));
    assert_true(ts_contains(d.explanation, "W holds V*D floats"));
    assert_true(ts_contains(d.next_step, "if (i < n)"));

    d = from_result(RS_ERROR, "cudaErrorIllegalAddress: an illegal memory access was "
                              "encountered", "sgemm");
    assert_int_equal(d.cause, DIAG_MEMORY_ACCESS);
    assert_true(ts_contains(d.explanation, "A holds M*K floats"));

    d = from_fault("cuda", "the kernel accessed memory at an address not aligned for its type "
                           "(misaligned address)", "reduce_sum");
    assert_int_equal(d.cause, DIAG_MEMORY_ACCESS);
    assert_true(ts_contains(d.title, "misaligned"));
    assert_true(ts_contains(d.explanation, "16-byte boundary"));

    d = from_fault("cuda", "unspecified launch failure", NULL);
    assert_int_equal(d.cause, DIAG_MEMORY_ACCESS);
}

static void test_kernel_fault(void **state)
{
    (void)state;
    diagnosis d = from_fault("cuda", "an assert() inside the kernel failed (device-side assert)",
                             NULL);
    assert_int_equal(d.cause, DIAG_KERNEL_FAULT);
    assert_true(ts_contains(d.explanation, "assert()"));
    d = from_fault("cuda", "cudaErrorHardwareStackError", NULL);
    assert_int_equal(d.cause, DIAG_KERNEL_FAULT);
    assert_true(ts_contains(d.explanation, "recursion"));
    d = from_fault("cuda", "the kernel executed an invalid instruction (illegal instruction)",
                   NULL);
    assert_int_equal(d.cause, DIAG_KERNEL_FAULT);
}

/* A fault while the lab's own reference ran (a declared problem's
 * reference kernel, or a reference that hung) is the lab's. */
static void test_reference_fault(void **state)
{
    (void)state;
    run_fault f;
    memset(&f, 0, sizeof f);
    snprintf(f.variant, sizeof f.variant, "%s", RUN_FAULT_REFERENCE);
    snprintf(f.cause, sizeof f.cause, "cuda");
    snprintf(f.message, sizeof f.message, "labs/x/lab.lua:6: problem x: the reference kernel: "
                                          "illegal memory access (illegal address)");
    diag_input in;
    diag_input_init(&in);
    diag_input_from_fault(&in, &f);
    diagnosis d;
    diagnose(&in, &d);
    complete(&d);
    assert_int_equal(d.cause, DIAG_LAB);
    assert_string_equal(diag_cause_name(d.cause), "lab");
    assert_true(ts_contains(d.explanation, "labs/x/lab.lua:6"));
    assert_false(ts_contains(d.title, "Your kernel"));
    snprintf(f.cause, sizeof f.cause, "timeout");
    diag_input_from_fault(&in, &f);
    diagnose(&in, &d);
    assert_int_equal(d.cause, DIAG_LAB);
    assert_true(ts_contains(d.title, "did not finish"));
}

static void test_device_assert(void **state)
{
    (void)state;
    char where[256], expr[256];
    const char *printed =
        "hello from block 0\n"
        "/tmp/x/exercise.cu:17: void sum(const float *, float *, int): block: [3,0,0], "
        "thread: [5,0,0] Assertion `i < n` failed.\n"
        "/tmp/x/exercise.cu:21: void sum(const float *, float *, int): block: [4,0,0], "
        "thread: [0,0,0] Assertion `out[0] == 0.0f` failed.\n";
    assert_true(diag_device_assert(printed, where, sizeof where, expr, sizeof expr));
    assert_string_equal(where, "exercise.cu:21");
    assert_string_equal(expr, "out[0] == 0.0f");
    assert_false(diag_device_assert("no asserts here\n", where, sizeof where, expr, sizeof expr));
    assert_false(diag_device_assert(NULL, where, sizeof where, expr, sizeof expr));
    assert_false(diag_device_assert("Assertion `unterminated", where, sizeof where, expr,
                                    sizeof expr));
    assert_true(diag_device_assert("Assertion `x` failed.", where, sizeof where, expr, sizeof expr));
    assert_string_equal(where, "your kernel");

    run_fault f;
    memset(&f, 0, sizeof f);
    snprintf(f.cause, sizeof f.cause, "cuda");
    snprintf(f.message, sizeof f.message, "an assert() inside the kernel failed (device-side assert)");
    diag_input in;
    diag_input_init(&in);
    diag_input_from_fault(&in, &f);
    in.device_output = printed;
    diagnosis d;
    diagnose(&in, &d);
    complete(&d);
    assert_int_equal(d.cause, DIAG_KERNEL_FAULT);
    assert_string_equal(d.where, "exercise.cu:21");
    assert_true(ts_contains(d.explanation, "out[0] == 0.0f"));
}

static void test_timeout(void **state)
{
    (void)state;
    diagnosis d = from_fault("timeout", "the run took longer than 10 s; the worker was stopped",
                             "reduce_sum");
    assert_int_equal(d.cause, DIAG_TIMEOUT);
    assert_true(ts_contains(d.explanation, "after 10 s"));
    assert_true(ts_contains(d.explanation, "__syncthreads()"));
    assert_true(ts_contains(d.explanation, "deadlock"));
    assert_true(ts_contains(d.next_step, "out of branches"));

    d = from_fault("cuda", "the kernel ran too long and the driver stopped it (launch timeout)",
                   NULL);
    assert_int_equal(d.cause, DIAG_TIMEOUT);
}

/* A time limit that struck a CPU baseline or a shipped row is no fault of
 * the learner's kernel. */
static void test_timeout_elsewhere(void **state)
{
    (void)state;
    run_fault f;
    memset(&f, 0, sizeof f);
    snprintf(f.cause, sizeof f.cause, "timeout");
    snprintf(f.variant, sizeof f.variant, "cpu");
    snprintf(f.message, sizeof f.message,
             "the CPU baseline (cpu) at size 2^28 was still running after 1 s: give the run "
             "more time (--time-limit) or pick a smaller size");
    diag_input in;
    diag_input_init(&in);
    diag_input_from_fault(&in, &f);
    in.time_limit_s = 1.0;
    diagnosis d;
    diagnose(&in, &d);
    complete(&d);
    assert_int_equal(d.cause, DIAG_TIMEOUT);
    assert_string_equal(d.title, "The run did not finish in time");
    assert_true(ts_contains(d.explanation, "CPU baseline (cpu) at size 2^28"));
    assert_null(strstr(d.explanation, "__syncthreads"));
    assert_true(ts_contains(d.next_step, "--time-limit"));
    snprintf(f.variant, sizeof f.variant, "exercise");
    diag_input_from_fault(&in, &f);
    diagnose(&in, &d);
    assert_string_equal(d.title, "Your kernel did not finish in time");
}

static void test_wrong(void **state)
{
    (void)state;
    diagnosis d = from_result(RS_WRONG, "wrong: 2 of 1 checked differ", "reduce_sum");
    assert_int_equal(d.cause, DIAG_WRONG);
    assert_true(ts_contains(d.explanation, "[17] yours 1.5, expected 2"));
    assert_true(ts_contains(d.explanation, "[4096] yours 0, expected 3.25"));
    assert_true(ts_contains(d.explanation, "relative error 0.25"));
    assert_true(ts_contains(d.explanation, "off-by-one"));
    assert_true(ts_contains(d.explanation, "__syncthreads()"));
    assert_true(ts_contains(d.explanation, "atomicAdd"));

    d = from_result(RS_WRONG, "wrong", "sgemm");
    assert_true(ts_contains(d.explanation, "A[row * K + k]"));
    d = from_result(RS_WRONG, "wrong", "embedding");
    assert_true(ts_contains(d.explanation, "W[idx[t] * D + d]"));
}

static void test_unwritten(void **state)
{
    (void)state;
    diagnosis d = from_result(RS_UNWRITTEN, "unwritten: 258048 of 262144", "embedding");
    assert_int_equal(d.cause, DIAG_UNWRITTEN);
    assert_true(ts_contains(d.explanation, "First unwritten: [17], [4096]"));
    assert_true(ts_contains(d.explanation, "grid is too small"));
    assert_true(ts_contains(d.next_step, "grid x block"));
}

static void test_nan(void **state)
{
    (void)state;
    diagnosis d = from_result(RS_NAN, "nonfinite: 1 NaN", "reduce_sum");
    assert_int_equal(d.cause, DIAG_NAN);
    assert_true(ts_contains(d.explanation, "never zeroed"));
    assert_true(ts_contains(d.next_step, "args.output:fill(0)"));
    d = from_result(RS_NAN, "nonfinite", "sgemm");
    assert_true(ts_contains(d.explanation, "shared memory that no thread wrote"));
    assert_true(ts_contains(d.next_step, "__syncthreads()"));
}

static void test_out_of_memory(void **state)
{
    (void)state;
    diagnosis d = from_launcher("/ws/reduction/starter.lua:10: gpu.alloc(1099511627776, "
                                "'f32'): out of memory", "reduce_sum");
    assert_int_equal(d.cause, DIAG_OUT_OF_MEMORY);
    assert_true(ts_contains(d.explanation, "counts elements, not bytes"));
    assert_string_equal(d.where, "starter.lua:10");
    /* gpu/buffer.c checks the free memory before asking CUDA. */
    d = from_launcher("starter.lua:10: gpu.alloc(1099511627776, 'f32'): needs 4.0 TiB, device "
                      "has 79.1 GiB free", NULL);
    assert_int_equal(d.cause, DIAG_OUT_OF_MEMORY);
    assert_true(ts_contains(d.explanation, "4.0 TiB"));
    d = from_result(RS_ERROR, "cudaErrorMemoryAllocation", NULL);
    assert_int_equal(d.cause, DIAG_OUT_OF_MEMORY);
    d = from_result(RS_ERROR, "out of host memory for the reference", NULL);
    assert_int_equal(d.cause, DIAG_OUT_OF_MEMORY);
    assert_true(ts_contains(d.title, "computer"));
}

static void test_launcher_error(void **state)
{
    (void)state;
    diagnosis d = from_launcher("/home/me/cudalab-workspace/reduction/starter.lua:9: attempt "
                                "to perform arithmetic on a nil value (field 'count')",
                                "reduce_sum");
    assert_int_equal(d.cause, DIAG_LAUNCHER);
    assert_string_equal(d.where, "starter.lua:9");
    assert_true(ts_contains(d.explanation, "starter.lua:9: attempt to perform arithmetic on a nil "
                                        "value (field 'count')"));
    assert_true(ts_contains(d.explanation, "misspelt field of args"));
    assert_true(ts_contains(d.next_step, "starter.lua:9"));

    d = from_launcher("starter.lua:3: attempt to call a nil value (field 'lanch')", NULL);
    assert_true(ts_contains(d.explanation, "does not exist"));
    d = from_launcher("starter.lua:4: reduce_sum takes 3 arguments (ppi), got 2", NULL);
    assert_int_equal(d.cause, DIAG_LAUNCHER);
    assert_true(ts_contains(d.explanation, "one for each of its parameters"));

    /* The engine may report the launcher's error as the row's message. */
    d = from_result(RS_ERROR, "starter.lua:7: attempt to index a nil value (local 'k')", NULL);
    assert_int_equal(d.cause, DIAG_LAUNCHER);
    assert_string_equal(d.where, "starter.lua:7");
}

static void test_no_device_crash_cancel_other(void **state)
{
    (void)state;
    diagnosis d = from_result(RS_ERROR, "no CUDA device found: CUDA driver is not installed",
                              "reduce_sum");
    assert_int_equal(d.cause, DIAG_NO_DEVICE);
    assert_true(ts_contains(d.explanation, "CUDA driver is not installed"));
    assert_true(ts_contains(d.explanation, "still compiles"));

    /* One GPU where the multigpu lab needs two: a GPU is there, so the
     * headline and the next step ask for more of them, not for one. */
    d = from_result(RS_NO_DEVICE,
                    "one GPU found (NVIDIA H100 80GB HBM3): the multigpu lab needs two or more "
                    "GPUs in this machine",
                    "reduce_sum");
    assert_int_equal(d.cause, DIAG_NO_DEVICE);
    assert_string_equal(d.title, "Too few GPUs");
    assert_true(ts_contains(d.explanation, "one GPU found (NVIDIA H100 80GB HBM3)"));
    assert_false(ts_contains(d.explanation, "No CUDA device"));
    assert_true(ts_contains(d.next_step, "--gpus=2"));

    d = from_fault("signal", "the worker was killed by SIGSEGV (segmentation fault)", NULL);
    assert_int_equal(d.cause, DIAG_CRASH);
    assert_true(ts_contains(d.explanation, "SIGSEGV"));
    d = from_fault("exit", "the worker exited with status 3", NULL);
    assert_int_equal(d.cause, DIAG_CRASH);
    /* A dying worker that printed a CUDA error is that error. */
    d = from_fault("exit", "the worker exited with status 1; the worker printed: "
                           "an illegal memory access was encountered", NULL);
    assert_int_equal(d.cause, DIAG_MEMORY_ACCESS);

    d = from_fault("cancelled", "cancelled", NULL);
    assert_int_equal(d.cause, DIAG_CANCELLED);

    d = from_result(RS_ERROR, "the moon is in the wrong phase", NULL);
    assert_int_equal(d.cause, DIAG_OTHER);
    assert_true(ts_contains(d.explanation, "the moon is in the wrong phase"));
    d = from_fault("protocol", "the worker printed a line that is not JSON", NULL);
    assert_int_equal(d.cause, DIAG_OTHER);
}

static void test_correct_and_nothing(void **state)
{
    (void)state;
    diagnosis d = from_result(RS_CORRECT, "", "reduce_sum");
    assert_int_equal(d.cause, DIAG_NONE);
    diag_input in;
    diag_input_init(&in);
    diagnose(&in, &d);
    assert_int_equal(d.cause, DIAG_NONE);
}

/* The CUDA error code decides, whatever the words say; cudalab's own
 * refusals of a launcher that runs no kernel of the learner's are named. */
static void test_codes_and_not_own(void **state)
{
    (void)state;
    diag_input in;
    diagnosis d;
    run_result r;
    run_result_init(&r);
    r.kind = RK_EXERCISE;
    r.status = RS_ERROR;
    snprintf(r.message, sizeof r.message, "gpu.launch(k): a message in another language");
    r.code = CUDA_CODE_MISALIGNED_ADDRESS;
    diag_input_init(&in);
    diag_input_from_result(&in, &r);
    diagnose(&in, &d);
    assert_int_equal(d.cause, DIAG_MEMORY_ACCESS);
    assert_true(ts_contains(d.title, "misaligned"));

    run_fault f;
    memset(&f, 0, sizeof f);
    snprintf(f.cause, sizeof f.cause, "cuda");
    snprintf(f.message, sizeof f.message, "something went wrong");
    f.code = CUDA_CODE_ASSERT;
    diag_input_init(&in);
    diag_input_from_fault(&in, &f);
    diagnose(&in, &d);
    assert_int_equal(d.cause, DIAG_KERNEL_FAULT);
    assert_true(ts_contains(d.explanation, "assert()"));

    r.code = 0;
    snprintf(r.message, sizeof r.message, "starter.lua:7: 'reduce_vectorized' is one of cudalab's "
                                          "shipped kernels: an exercise launcher runs only the "
                                          "kernels of your own file (k.<name>)");
    diag_input_init(&in);
    diag_input_from_result(&in, &r);
    diagnose(&in, &d);
    assert_int_equal(d.cause, DIAG_NOT_OWN);
    assert_string_equal(diag_cause_name(d.cause), "not_own");
    assert_string_equal(d.where, "starter.lua:7");
    snprintf(r.message, sizeof r.message,
             "starter.lua launched none of your kernels: a row counts only when your own "
             "kernel computes it");
    diag_input_init(&in);
    diag_input_from_result(&in, &r);
    diagnose(&in, &d);
    assert_int_equal(d.cause, DIAG_NOT_OWN);
}

static void test_names_and_format(void **state)
{
    (void)state;
    const char *names[] = {"none", "compile", "kernel_missing", "launch_config",
                           "memory_access", "kernel_fault", "timeout", "wrong", "unwritten",
                           "nan", "out_of_memory", "launcher", "no_device", "crash",
                           "cancelled", "not_own", "lab", "other"};
    for (int c = DIAG_NONE; c <= DIAG_OTHER; c++)
        assert_string_equal(diag_cause_name((diag_cause)c), names[c]);
    diagnosis d = from_launcher("starter.lua:9: attempt to perform arithmetic on a nil value",
                                NULL);
    char buf[4096];
    int n = diagnosis_format(&d, buf, sizeof buf);
    assert_true(n > 0 && (size_t)n < sizeof buf);
    assert_true(ts_contains(buf, "Your launcher (Lua) raised an error\n  at starter.lua:9\n"));
    assert_true(ts_contains(buf, "\nNext: Open starter.lua:9"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compile_error),
        cmocka_unit_test(test_compile_error_from_real_nvrtc),
        cmocka_unit_test(test_kernel_missing),
        cmocka_unit_test(test_launch_config_threads),
        cmocka_unit_test(test_launch_config_shared),
        cmocka_unit_test(test_launch_config_grid_zero_resources),
        cmocka_unit_test(test_memory_access),
        cmocka_unit_test(test_kernel_fault),
        cmocka_unit_test(test_reference_fault),
        cmocka_unit_test(test_device_assert),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_timeout_elsewhere),
        cmocka_unit_test(test_wrong),
        cmocka_unit_test(test_unwritten),
        cmocka_unit_test(test_nan),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_launcher_error),
        cmocka_unit_test(test_no_device_crash_cancel_other),
        cmocka_unit_test(test_correct_and_nothing),
        cmocka_unit_test(test_python_unavailable),
        cmocka_unit_test(test_codes_and_not_own),
        cmocka_unit_test(test_names_and_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

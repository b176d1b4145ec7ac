/* Unit tests for src/proto/protocol.c: JSON-lines encoding and decoding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/protocol.h"

/* Encodes m, checks the line shape, decodes it into out. */
static void round_trip(const proto_msg *m, proto_msg *out)
{
    char *line = proto_encode(m);
    assert_non_null(line);
    size_t len = strlen(line);
    assert_true(len > 2 && line[len - 1] == '\n');
    assert_null(memchr(line, '\n', len - 1));
    assert_true(len <= PROTO_LINE_MAX);
    cl_err e = {{0}};
    memset(out, 0xA5, sizeof *out);
    bool ok = proto_decode(line, out, &e);
    if (!ok)
        fail_msg("decode failed: %s\nline: %s", e.msg, line);
    assert_int_equal(out->type, m->type);
    free(line);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(result_status_name(RS_CORRECT), "correct");
    assert_string_equal(result_status_name(RS_WRONG), "wrong");
    assert_string_equal(result_status_name(RS_UNWRITTEN), "unwritten");
    assert_string_equal(result_status_name(RS_NAN), "nan");
    assert_string_equal(result_status_name(RS_ERROR), "error");
    assert_string_equal(result_status_name(RS_FAULT), "fault");
    assert_string_equal(result_kind_name(RK_KERNEL), "kernel");
    assert_string_equal(result_kind_name(RK_LIBRARY), "library");
    assert_string_equal(result_kind_name(RK_CPU), "cpu");
    assert_string_equal(result_kind_name(RK_CPU_MT), "cpu_mt");
    assert_string_equal(result_kind_name(RK_EXERCISE), "exercise");
    assert_string_equal(result_status_name((result_status)99), "unknown");

    run_result r;
    memset(&r, 0x5A, sizeof r);
    run_result_init(&r);
    assert_true(r.gbps < 0 && r.tflops < 0 && r.pct_peak_measured < 0 && r.pct_peak_theory < 0);
    assert_true(r.speedup_cpu == 0.0 && r.median_ms == 0.0 && r.nmismatch == 0);
    assert_string_equal(r.variant, "");
}

static void test_hello(void **state)
{
    (void)state;
    proto_msg m, out;
    memset(&m, 0, sizeof m);
    m.type = MSG_HELLO;
    device_info *d = &m.u.hello;
    d->present = true;
    d->ordinal = 1;
    snprintf(d->name, sizeof d->name, "NVIDIA H100 80GB HBM3 \"quoted\" \\ back");
    d->cc_major = 9;
    d->cc_minor = 0;
    d->sm_count = 132;
    d->mem_total_gib = 79.18;
    d->mem_free_gib = 78.5;
    d->l2_mib = 50;
    d->sm_clock_mhz = 1980;
    d->mem_clock_mhz = 2619;
    d->bus_width_bits = 5120;
    d->driver_version = 13000;
    d->runtime_version = 13000;
    d->peak_bw_theory_gbs = 3352.32;
    d->peak_fp32_tflops = 66.9;
    d->peak_bw_measured_gbs = 0.1 + 0.2;
    d->peak_bw_cached = true;
    round_trip(&m, &out);
    assert_memory_equal(&out.u.hello, &m.u.hello, sizeof m.u.hello);

    memset(&m, 0, sizeof m);
    m.type = MSG_HELLO;
    snprintf(m.u.hello.reason, sizeof m.u.hello.reason,
             "no CUDA device found: CUDA driver version is insufficient");
    round_trip(&m, &out);
    assert_false(out.u.hello.present);
    assert_string_equal(out.u.hello.reason, m.u.hello.reason);
}

static void test_run_request(void **state)
{
    (void)state;
    proto_msg m, out;
    memset(&m, 0, sizeof m);
    m.type = MSG_RUN;
    run_request *r = &m.u.run;
    r->run = 42;
    snprintf(r->lab, sizeof r->lab, "reduction");
    snprintf(r->problem, sizeof r->problem, "reduce_sum");
    snprintf(r->library, sizeof r->library, "cub");
    r->nvariants = RUN_MAX_VARIANTS;
    for (int i = 0; i < r->nvariants; i++) {
        snprintf(r->variants[i].id, sizeof r->variants[i].id, "v%d", i);
        snprintf(r->variants[i].kernel, sizeof r->variants[i].kernel, "reduce_%d", i);
    }
    r->nsizes = 3;
    snprintf(r->sizes[0], sizeof r->sizes[0], "1M");
    snprintf(r->sizes[1], sizeof r->sizes[1], "16M");
    snprintf(r->sizes[2], sizeof r->sizes[2], "4096x4096");
    r->seed = UINT64_C(18446744073709551557);   /* far past 2^53 */
    r->budget_s = 0.25;
    r->cpu = true;
    snprintf(r->exercise_kernel, sizeof r->exercise_kernel, "/home/me/ws/reduction/starter.cu");
    snprintf(r->exercise_launcher, sizeof r->exercise_launcher, "/home/me/ws/reduction/starter.lua");
    round_trip(&m, &out);
    assert_memory_equal(&out.u.run, &m.u.run, sizeof m.u.run);

    r->check_only = true;
    round_trip(&m, &out);
    assert_true(out.u.run.check_only);
    assert_memory_equal(&out.u.run, &m.u.run, sizeof m.u.run);
    r->check_only = false;

    m.u.run.seed = (UINT64_C(1) << 53) + 1;
    round_trip(&m, &out);
    assert_true(out.u.run.seed == (UINT64_C(1) << 53) + 1);

    m.u.run.seed = 0;
    m.u.run.nvariants = 0;
    m.u.run.nsizes = 0;
    m.u.run.cpu = false;
    round_trip(&m, &out);
    assert_true(out.u.run.seed == 0 && out.u.run.nvariants == 0 && out.u.run.nsizes == 0);
    assert_false(out.u.run.cpu);
    assert_false(out.u.run.check_only);
}

static void test_quit_done_log(void **state)
{
    (void)state;
    proto_msg m, out;
    memset(&m, 0, sizeof m);
    m.type = MSG_QUIT;
    round_trip(&m, &out);

    m.type = MSG_DONE;
    m.u.done_run = 7;
    round_trip(&m, &out);
    assert_int_equal(out.u.done_run, 7);

    m.type = MSG_LOG;
    m.u.log.level = 2;
    snprintf(m.u.log.msg, sizeof m.u.log.msg, "line one\nline two\ttab \x01 ctrl, \xc3\xa9t\xc3\xa9");
    round_trip(&m, &out);
    assert_int_equal(out.u.log.level, 2);
    assert_string_equal(out.u.log.msg, m.u.log.msg);
}

static void test_progress_fault(void **state)
{
    (void)state;
    proto_msg m, out;
    memset(&m, 0, sizeof m);
    m.type = MSG_PROGRESS;
    m.u.progress.run = 3;
    snprintf(m.u.progress.variant, sizeof m.u.progress.variant, "warp_shuffle");
    snprintf(m.u.progress.size, sizeof m.u.progress.size, "256M");
    m.u.progress.rep = 17;
    m.u.progress.of = 200;
    snprintf(m.u.progress.phase, sizeof m.u.progress.phase, "timing");
    round_trip(&m, &out);
    assert_memory_equal(&out.u.progress, &m.u.progress, sizeof m.u.progress);

    memset(&m, 0, sizeof m);
    m.type = MSG_FAULT;
    m.u.fault.run = 9;
    snprintf(m.u.fault.variant, sizeof m.u.fault.variant, "exercise");
    snprintf(m.u.fault.cause, sizeof m.u.fault.cause, "cuda");
    snprintf(m.u.fault.message, sizeof m.u.fault.message,
             "cudaDeviceSynchronize: an illegal memory access was encountered");
    round_trip(&m, &out);
    assert_memory_equal(&out.u.fault, &m.u.fault, sizeof m.u.fault);
}

static void test_result(void **state)
{
    (void)state;
    proto_msg m, out;
    memset(&m, 0, sizeof m);
    m.type = MSG_RESULT;
    run_result *r = &m.u.result;
    run_result_init(r);
    r->run = 5;
    snprintf(r->variant, sizeof r->variant, "exercise");
    snprintf(r->label, sizeof r->label, "your kernel");
    snprintf(r->size, sizeof r->size, "16M");
    r->kind = RK_EXERCISE;
    r->status = RS_WRONG;
    snprintf(r->message, sizeof r->message, "3 of 16777216 elements differ");
    r->median_ms = 0.123456789012345;
    r->min_ms = 0.1;
    r->max_ms = 0.2;
    r->spread = 0.031;
    r->samples = 250;
    r->gbps = 2890.5;
    r->tflops = -1;            /* no FLOPs: travels as null */
    r->pct_peak_measured = 91.2;
    r->pct_peak_theory = -1;
    r->speedup_cpu = 123.4;
    r->speedup_cpu_mt = 12.3;
    r->speedup_lib = 0.97;
    r->speedup_starter = 4.25;
    r->has_report = true;
    r->rel_err = 1.5e-3;
    r->seed = UINT64_MAX;
    r->threads = 0;
    r->nmismatch = 3;
    r->mismatches[0] = (mismatch){.index = 12, .got = 1.5, .expected = 2.5};
    r->mismatches[1] = (mismatch){.index = 16777215, .got = NAN, .expected = 1.0};
    r->mismatches[2] = (mismatch){.index = 7, .got = -INFINITY, .expected = INFINITY};

    char *line = proto_encode(&m);
    assert_non_null(line);
    assert_non_null(strstr(line, "\"tflops\":null"));
    assert_non_null(strstr(line, "\"seed\":\"18446744073709551615\""));
    assert_non_null(strstr(line, "\"kind\":\"exercise\""));
    assert_non_null(strstr(line, "\"status\":\"wrong\""));
    free(line);

    round_trip(&m, &out);
    const run_result *o = &out.u.result;
    assert_int_equal(o->run, 5);
    assert_string_equal(o->variant, "exercise");
    assert_string_equal(o->label, "your kernel");
    assert_string_equal(o->size, "16M");
    assert_int_equal(o->kind, RK_EXERCISE);
    assert_int_equal(o->status, RS_WRONG);
    assert_string_equal(o->message, r->message);
    assert_true(o->median_ms == r->median_ms && o->min_ms == r->min_ms && o->max_ms == r->max_ms);
    assert_true(o->spread == r->spread && o->samples == 250);
    assert_true(o->gbps == r->gbps && o->tflops == -1.0);
    assert_true(o->pct_peak_measured == r->pct_peak_measured && o->pct_peak_theory == -1.0);
    assert_true(o->speedup_cpu == r->speedup_cpu && o->speedup_cpu_mt == r->speedup_cpu_mt);
    assert_true(o->speedup_lib == r->speedup_lib && o->rel_err == r->rel_err);
    assert_true(o->speedup_starter == r->speedup_starter && o->has_report);
    assert_true(o->seed == UINT64_MAX);
    assert_int_equal(o->nmismatch, 3);
    assert_true(o->mismatches[0].index == 12 && o->mismatches[0].got == 1.5);
    assert_true(o->mismatches[1].index == 16777215 && isnan(o->mismatches[1].got));
    assert_true(isinf(o->mismatches[2].got) && o->mismatches[2].got < 0);
    assert_true(isinf(o->mismatches[2].expected) && o->mismatches[2].expected > 0);

    /* every kind and status survives */
    for (int k = RK_KERNEL; k <= RK_EXERCISE; k++) {
        for (int s = RS_CORRECT; s <= RS_FAULT; s++) {
            r->kind = (result_kind)k;
            r->status = (result_status)s;
            r->rel_err = NAN;
            round_trip(&m, &out);
            assert_int_equal(out.u.result.kind, k);
            assert_int_equal(out.u.result.status, s);
            assert_true(isnan(out.u.result.rel_err));
        }
    }
}

/* Rates written as null, or left out, read back as -1. */
static void test_null_and_missing_rates(void **state)
{
    (void)state;
    proto_msg m;
    cl_err e = {{0}};
    assert_true(proto_decode("{\"type\":\"result\",\"run\":1,\"gbps\":null,\"tflops\":null,"
                             "\"pct_peak_measured\":null}\n", &m, &e));
    assert_true(m.u.result.gbps == -1.0 && m.u.result.tflops == -1.0);
    assert_true(m.u.result.pct_peak_measured == -1.0 && m.u.result.pct_peak_theory == -1.0);
    assert_int_equal(m.u.result.nmismatch, 0);
    assert_true(proto_decode("{\"type\":\"result\",\"run\":2,\"seed\":12345}", &m, &e));
    assert_true(m.u.result.seed == 12345);
    /* a worker that knows nothing of the starter: unknown, no report */
    assert_true(m.u.result.speedup_starter == 0.0 && !m.u.result.has_report);
    assert_false(proto_decode("{\"type\":\"result\",\"run\":3,\"has_report\":1}", &m, &e));
    assert_non_null(strstr(e.msg, "has_report"));
}

static void test_long_strings_truncated(void **state)
{
    (void)state;
    size_t n = 5000;
    char *big = malloc(n + 1);
    char *line = malloc(3 * n + 256);
    assert_non_null(big);
    assert_non_null(line);
    memset(big, 'x', n);
    big[n] = '\0';
    proto_msg m;
    cl_err e = {{0}};

    snprintf(line, 3 * n + 256, "{\"type\":\"fault\",\"run\":1,\"variant\":\"%s\",\"cause\":\"%s\",\"message\":\"%s\"}",
             big, big, big);
    assert_true(proto_decode(line, &m, &e));
    assert_int_equal(strlen(m.u.fault.variant), RUN_ID_MAX - 1);
    assert_int_equal(strlen(m.u.fault.cause), sizeof m.u.fault.cause - 1);
    assert_int_equal(strlen(m.u.fault.message), sizeof m.u.fault.message - 1);

    /* a multi-byte character straddling the limit is dropped whole */
    memset(big, 'a', n);
    memcpy(big + RUN_ID_MAX - 2, "\xc3\xa9", 2);
    big[RUN_ID_MAX + 10] = '\0';
    snprintf(line, 3 * n + 256, "{\"type\":\"progress\",\"run\":1,\"variant\":\"%s\"}", big);
    assert_true(proto_decode(line, &m, &e));
    assert_int_equal(strlen(m.u.progress.variant), RUN_ID_MAX - 2);

    /* counts out of range are clamped when encoding */
    proto_msg big_msg;
    memset(&big_msg, 0, sizeof big_msg);
    big_msg.type = MSG_RUN;
    big_msg.u.run.nvariants = 1000;   /* clamped on encoding */
    big_msg.u.run.nsizes = -3;
    char *enc = proto_encode(&big_msg);
    assert_non_null(enc);
    assert_true(proto_decode(enc, &m, &e));
    assert_int_equal(m.u.run.nvariants, RUN_MAX_VARIANTS);
    assert_int_equal(m.u.run.nsizes, 0);
    free(enc);
    free(line);
    free(big);
}

static void expect_reject(const char *line, const char *words)
{
    proto_msg m;
    cl_err e = {{0}};
    if (proto_decode(line, &m, &e))
        fail_msg("accepted: %s", line ? line : "(null)");
    assert_int_equal(m.type, MSG_INVALID);
    assert_true(e.msg[0] != '\0');
    if (words && !strstr(e.msg, words))
        fail_msg("message '%s' lacks '%s' for input %s", e.msg, words, line ? line : "(null)");
}

static void test_malformed(void **state)
{
    (void)state;
    expect_reject(NULL, NULL);
    expect_reject("", "not a JSON message");
    expect_reject("this is {not json", "not a JSON message");
    expect_reject("{\"type\":\"done\",\"run\":1", "not a JSON message");
    expect_reject("{\"type\":\"done\",\"run\":1} trailing", "text after");
    expect_reject("[1,2,3]", "object");
    expect_reject("{\"run\":1}", "type");
    expect_reject("{\"type\":7}", "type");
    expect_reject("{\"type\":\"launch_missiles\"}", "unknown message type 'launch_missiles'");
    expect_reject("{\"type\":\"done\"}", "run");
    expect_reject("{\"type\":\"done\",\"run\":\"one\"}", "run");
    expect_reject("{\"type\":\"done\",\"run\":1.5}", "run");
    expect_reject("{\"type\":\"done\",\"run\":1e30}", "run");
    expect_reject("{\"type\":\"hello\"}", "device");
    expect_reject("{\"type\":\"hello\",\"device\":[]}", "device");
    expect_reject("{\"type\":\"hello\",\"device\":{\"present\":\"yes\"}}", "present");
    expect_reject("{\"type\":\"result\",\"status\":\"great\"}", "status");
    expect_reject("{\"type\":\"result\",\"kind\":3}", "kind");
    expect_reject("{\"type\":\"result\",\"gbps\":\"fast\"}", "gbps");
    expect_reject("{\"type\":\"result\",\"seed\":\"-5\"}", "seed");
    expect_reject("{\"type\":\"result\",\"seed\":\"99999999999999999999999\"}", "seed");
    expect_reject("{\"type\":\"result\",\"seed\":1.5}", "seed");
    expect_reject("{\"type\":\"result\",\"mismatches\":[1]}", "mismatch");
    expect_reject("{\"type\":\"result\",\"mismatches\":[{},{},{},{},{}]}", "mismatches");
    expect_reject("{\"type\":\"run\",\"variants\":{}}", "variants");
    expect_reject("{\"type\":\"run\",\"variants\":[{\"id\":3}]}", "variant 1");
    expect_reject("{\"type\":\"run\",\"sizes\":[1]}", "size 1");
    expect_reject("{\"type\":\"run\",\"sizes\":[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\"]}",
                  "sizes");
    expect_reject("{\"type\":\"run\",\"cpu\":1}", "cpu");
    expect_reject("{\"type\":\"log\",\"msg\":5}", "msg");

    /* deep nesting is refused, not a stack overflow */
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 1);
    assert_non_null(deep);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    deep[2 * depth] = '\0';
    expect_reject(deep, NULL);
    free(deep);

    /* random bytes never crash the decoder */
    unsigned x = 12345;
    char junk[256];
    proto_msg m;
    for (int i = 0; i < 2000; i++) {
        size_t len = 1 + (size_t)(i % 200);
        for (size_t j = 0; j < len; j++) {
            x = x * 1103515245u + 12345u;
            junk[j] = "{}[]\":,0123456789.eE-+ truefalsnul\\type"[(x >> 16) % 39];
        }
        junk[len] = '\0';
        (void)proto_decode(junk, &m, NULL);
    }
}

static void test_lenient_shapes(void **state)
{
    (void)state;
    proto_msg m;
    cl_err e = {{0}};
    assert_true(proto_decode("  {\"type\":\"quit\"}  \r\n", &m, &e));
    assert_int_equal(m.type, MSG_QUIT);
    assert_true(proto_decode("{\"type\":\"log\",\"level\":9,\"msg\":\"x\",\"extra\":[1,2]}", &m, &e));
    assert_int_equal(m.u.log.level, 2);
    assert_true(proto_decode("{\"type\":\"run\",\"run\":4}", &m, &e));
    assert_int_equal(m.u.run.run, 4);
    assert_int_equal(m.u.run.nvariants, 0);
    assert_string_equal(m.u.run.lab, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_hello),
        cmocka_unit_test(test_run_request),
        cmocka_unit_test(test_quit_done_log),
        cmocka_unit_test(test_progress_fault),
        cmocka_unit_test(test_result),
        cmocka_unit_test(test_null_and_missing_rates),
        cmocka_unit_test(test_long_strings_truncated),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_lenient_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for src/proto/rankmsg.c: each message survives its line, and
 * a line that breaks the bounds (a part of an exchange too long or not
 * hex, too many parts, a row for too many ranks, an unknown type) is
 * refused with a reason, as the coordinator trusts nothing a rank writes
 * beyond its form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/rankmsg.h"

static rankmsg in, out;

static void round_trip(void)
{
    char *line = rankmsg_encode(&in);
    assert_non_null(line);
    size_t len = strlen(line);
    assert_true(line[len - 1] == '\n');
    assert_null(memchr(line, '\n', len - 1));
    cl_err e = {{0}};
    if (!rankmsg_decode(line, &out, &e))
        fail_msg("%s\n%s", e.msg, line);
    assert_int_equal(out.type, in.type);
    free(line);
}

static void test_exchange(void **state)
{
    (void)state;
    memset(&in, 0, sizeof in);
    in.type = RMSG_GATHER;
    snprintf(in.tag, sizeof in.tag, "x12");
    in.blob.len = RANKMSG_BLOB_MAX;
    for (size_t i = 0; i < in.blob.len; i++)
        in.blob.data[i] = (unsigned char)(i * 7);
    round_trip();
    assert_string_equal(out.tag, "x12");
    assert_int_equal(out.blob.len, RANKMSG_BLOB_MAX);
    assert_memory_equal(out.blob.data, in.blob.data, RANKMSG_BLOB_MAX);

    memset(&in, 0, sizeof in);
    in.type = RMSG_ALL;
    snprintf(in.tag, sizeof in.tag, "x3");
    in.nall = 3;
    in.all[1].len = 2;
    in.all[1].data[0] = 0xab;
    in.all[1].data[1] = 0x01;
    round_trip();
    assert_int_equal(out.nall, 3);
    assert_int_equal(out.all[0].len, 0);
    assert_int_equal(out.all[1].len, 2);
    assert_int_equal(out.all[1].data[0], 0xab);
}

static void test_row_probe_fail(void **state)
{
    (void)state;
    memset(&in, 0, sizeof in);
    in.type = RMSG_ROW;
    in.of = 2;
    run_result_init(&in.u.row);
    snprintf(in.u.row.variant, sizeof in.u.row.variant, "ar_ring");
    snprintf(in.u.row.size, sizeof in.u.row.size, "256 MiB");
    in.u.row.median_ms = 1.5;
    in.u.row.gbps = 357.9;
    round_trip();
    assert_int_equal(out.of, 2);
    assert_string_equal(out.u.row.variant, "ar_ring");
    assert_true(out.u.row.gbps == 357.9);

    memset(&in, 0, sizeof in);
    in.type = RMSG_PROBE;
    in.u.probe.dev.present = true;
    snprintf(in.u.probe.dev.name, sizeof in.u.probe.dev.name, "GPU");
    in.u.probe.ndevices = 2;
    in.u.probe.nccl = true;
    snprintf(in.u.probe.nccl_version, sizeof in.u.probe.nccl_version, "2.28.9");
    round_trip();
    assert_int_equal(out.u.probe.ndevices, 2);
    assert_true(out.u.probe.nccl);
    assert_string_equal(out.u.probe.nccl_version, "2.28.9");

    memset(&in, 0, sizeof in);
    in.type = RMSG_FAIL;
    in.code = 700;
    snprintf(in.text, sizeof in.text, "an illegal memory access");
    round_trip();
    assert_int_equal(out.code, 700);
    assert_string_equal(out.text, "an illegal memory access");
}

static void refused(const char *line, const char *why)
{
    cl_err e = {{0}};
    if (rankmsg_decode(line, &out, &e))
        fail_msg("accepted: %s", line);
    if (!strstr(e.msg, why))
        fail_msg("'%s' does not say '%s'", e.msg, why);
    assert_int_equal(out.type, RMSG_INVALID);
}

static void test_refuses(void **state)
{
    (void)state;
    refused("not json", "not a JSON message");
    refused("[1,2]", "one JSON object");
    refused("{\"type\":\"run\"}", "known 'type'");
    refused("{\"type\":\"gather\",\"tag\":\"x1\",\"data\":\"abc\"}", "even number");
    refused("{\"type\":\"gather\",\"tag\":\"x1\",\"data\":\"zz\"}", "not a hex digit");
    refused("{\"type\":\"gather\",\"tag\":\"x1\",\"data\":7}", "hex string");
    char big[2 * RANKMSG_BLOB_MAX + 100];
    int n = snprintf(big, sizeof big, "{\"type\":\"gather\",\"tag\":\"x1\",\"data\":\"");
    for (int i = 0; i < 2 * RANKMSG_BLOB_MAX + 2; i++)
        big[n++] = 'a';
    snprintf(big + n, sizeof big - (size_t)n, "\"}");
    refused(big, "at most");
    refused("{\"type\":\"all\",\"tag\":\"x\",\"data\":[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\"]}",
            "more than");
    refused("{\"type\":\"all\",\"tag\":\"x\",\"data\":[]}", "one part a rank");
    refused("{\"type\":\"row\",\"of\":9,\"result\":{}}", "'of' must be");
    refused("{\"type\":\"row\",\"of\":1}", "without 'result'");
    refused("{\"type\":\"probe\"}", "without 'device'");
    refused("{\"type\":\"log\",\"level\":0,\"msg\":\"hi\"} trailing", "one JSON object");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exchange),
        cmocka_unit_test(test_row_probe_fail),
        cmocka_unit_test(test_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

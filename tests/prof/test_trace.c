/* Chrome trace export: a timeline built by hand and the sample trace in
 * data/sample_trace.json (written by hand in the exporter's layout, with
 * figures of the size a PCIe Gen5 H100 shows) export, validate (sorted,
 * non-negative, every lane named) and read back; broken traces are refused
 * with a message naming the problem. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "prof/timeline.h"
#include "prof/trace.h"
#include "support.h"

/* An item tied to its runtime call by correlation id 7 (NVTX ranges by none). */
static void add(timeline *t, int lane, tl_kind kind, const char *name, uint64_t s, uint64_t e,
                uint64_t bytes, unsigned flags, uint32_t stream)
{
    int i = ts_tl_add(t, lane, kind, name, s, e, bytes, flags, stream);
    t->items[i].corr = kind == TL_RANGE ? 0 : 7;
}

/* A small copy-compute-copy picture, items added out of order. */
static void build(timeline *t)
{
    cl_err e;
    timeline_init(t);
    snprintf(t->title, sizeof t->title, "Test GPU \"X\"");
    int nvtx = timeline_lane(t, TL_LANE_NVTX, 0, &e);
    int api = timeline_lane(t, TL_LANE_API, 0, &e);
    int h2d = timeline_lane(t, TL_LANE_H2D, 0, &e);
    int s13 = timeline_lane(t, TL_LANE_STREAM, 13, &e);
    int d2h = timeline_lane(t, TL_LANE_D2H, 0, &e);
    add(t, d2h, TL_MEMCPY, "memcpy DtoH", 3000, 4000, 1 << 20, TL_PAGEABLE, 13);
    add(t, s13, TL_KERNEL, "prof_scale", 2000, 2999, 0, 0, 13);
    add(t, h2d, TL_MEMCPY, "memcpy HtoD", 1000, 2000, 1 << 20, TL_PINNED, 13);
    add(t, api, TL_API, "cudaMemcpyAsync", 900, 950, 0, 0, 0);
    add(t, nvtx, TL_RANGE, "phase", 800, 4100, 0, 0, 0);
    add(t, nvtx, TL_RANGE, "inner \\ \"quoted\"", 800, 1500, 0, 0, 0);
    add(t, s13, TL_MEMSET, "memset", 4100, 4100, 4096, 0, 13);
}

static void test_export_validates_and_reads_back(void **state)
{
    (void)state;
    timeline t, back;
    build(&t);
    cl_err e;
    char *json = trace_json(&t, &e);
    assert_non_null(json);
    if (!trace_validate(json, &e))
        fail_msg("%s", e.msg);
    assert_non_null(strstr(json, "\"displayTimeUnit\":\"ns\""));

    cJSON *root = cJSON_Parse(json);
    assert_non_null(root);
    const cJSON *evs = cJSON_GetObjectItem(root, "traceEvents");
    int nx = 0, nproc = 0, nthr = 0;
    double last = -1;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, evs) {
        const char *ph = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "ph"));
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "name"));
        if (strcmp(ph, "X") == 0) {
            nx++;
            double ts = cJSON_GetNumberValue(cJSON_GetObjectItem(ev, "ts"));
            assert_true(ts >= last);
            last = ts;
            if (strcmp(name, "memcpy HtoD") == 0) {
                const cJSON *args = cJSON_GetObjectItem(ev, "args");
                assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(args, "memory")),
                                    "pinned");
                assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(args, "bytes")) == 1048576.0);
                double gbps = cJSON_GetNumberValue(cJSON_GetObjectItem(args, "GB/s"));
                assert_true(gbps > 1048.57 && gbps < 1048.58);   /* 1 MiB in 1 us */
                assert_true(ts == 1.0);
                assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(ev, "dur")) == 1.0);
            }
        } else if (strcmp(name, "process_name") == 0) {
            nproc++;
        } else if (strcmp(name, "thread_name") == 0) {
            nthr++;
        }
    }
    assert_int_equal(nx, 7);
    assert_int_equal(nproc, 2);
    assert_int_equal(nthr, 5);
    cJSON_Delete(root);

    assert_true(trace_parse(json, &back, &e));
    assert_string_equal(back.title, t.title);
    assert_string_equal(back.note, "");
    assert_int_equal(back.nlanes, t.nlanes);
    for (size_t i = 0; i < t.nlanes; i++) {
        assert_int_equal(back.lanes[i].kind, t.lanes[i].kind);
        assert_string_equal(back.lanes[i].name, t.lanes[i].name);
        assert_int_equal(back.lanes[i].stream, t.lanes[i].stream);
    }
    timeline_sort(&t);
    assert_int_equal(back.nitems, t.nitems);
    for (size_t i = 0; i < t.nitems; i++) {
        assert_string_equal(back.items[i].name, t.items[i].name);
        assert_int_equal(back.items[i].kind, t.items[i].kind);
        assert_int_equal(back.items[i].lane, t.items[i].lane);
        assert_int_equal(back.items[i].start_ns, t.items[i].start_ns);
        assert_int_equal(back.items[i].end_ns, t.items[i].end_ns);
        assert_int_equal(back.items[i].bytes, t.items[i].bytes);
        assert_int_equal(back.items[i].flags, t.items[i].flags);
        assert_int_equal(back.items[i].stream, t.items[i].stream);
        assert_int_equal(back.items[i].corr, t.items[i].corr);
    }
    free(json);
    timeline_free(&t);
    timeline_free(&back);
}

static void test_write_and_load_file(void **state)
{
    (void)state;
    timeline t, back;
    build(&t);
    char dir[] = "/tmp/cudalab-trace-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/t.json", dir);
    cl_err e;
    assert_true(trace_write(&t, path, &e));
    size_t len = 0;
    char *txt = file_read_all(path, TRACE_MAX_BYTES, &len, &e);
    assert_non_null(txt);
    assert_true(trace_validate(txt, &e));
    free(txt);
    assert_true(trace_load(path, &back, &e));
    assert_int_equal(back.nitems, t.nitems);
    timeline_free(&back);

    char copy[300], bad[300];
    snprintf(copy, sizeof copy, "%s/copy.json", dir);
    snprintf(bad, sizeof bad, "%s/bad.json", dir);
    assert_true(trace_copy(path, copy, &e));
    assert_true(trace_load(copy, &back, &e));
    assert_int_equal(back.nitems, t.nitems);
    timeline_free(&back);
    assert_true(atomicfile_write(bad, "{\"traceEvents\":7}", 17, &e));
    unlink(copy);
    assert_false(trace_copy(bad, copy, &e));     /* refused: nothing written */
    assert_int_equal(access(copy, F_OK), -1);
    unlink(bad);
    unlink(path);
    rmdir(dir);
    assert_false(trace_load(path, &back, &e));
    assert_non_null(strstr(e.msg, path));
    timeline_free(&t);
}

/* A note (a sample recorded elsewhere) goes into otherData and back. */
static void test_note_round_trip(void **state)
{
    (void)state;
    timeline t, back;
    cl_err e;
    timeline_init(&t);
    snprintf(t.title, sizeof t.title, "NVIDIA H200");
    snprintf(t.note, sizeof t.note, "a sample recorded on NVIDIA H200 that ships with cudalab");
    char *json = trace_json(&t, &e);
    assert_non_null(json);
    assert_non_null(strstr(json, "\"note\":\"a sample recorded on NVIDIA H200"));
    assert_true(trace_parse(json, &back, &e));
    assert_string_equal(back.note, t.note);
    free(json);
    timeline_free(&back);
    timeline_free(&t);

    char path[CL_PATH_MAX];
    ts_home_path(path, sizeof path, "assets/timelines/h200-overlap.json");
    assert_true(trace_load(path, &back, &e));
    assert_non_null(strstr(back.note, "ships with cudalab"));
    timeline_free(&back);
}

static void test_empty_timeline(void **state)
{
    (void)state;
    timeline t;
    timeline_init(&t);
    cl_err e;
    char *json = trace_json(&t, &e);
    assert_non_null(json);
    assert_true(trace_validate(json, &e));
    timeline back;
    assert_true(trace_parse(json, &back, &e));
    assert_int_equal(back.nitems, 0);
    free(json);
}

static void expect_invalid(const char *json, const char *words)
{
    cl_err e;
    e.msg[0] = '\0';
    assert_false(trace_validate(json, &e));
    if (!strstr(e.msg, words))
        fail_msg("expected '%s' in: %s", words, e.msg);
}

#define META                                                                                \
    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"GPU\"}},"      \
    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"s\"}},"

static void test_validator_refuses_broken_traces(void **state)
{
    (void)state;
    expect_invalid("{\"traceEvents\":[", "not valid JSON");
    expect_invalid("{\"events\":[]}", "no traceEvents");
    expect_invalid("{\"traceEvents\":[" META
                   "{\"name\":\"a\",\"ph\":\"X\",\"ts\":5,\"dur\":1,\"pid\":1,\"tid\":1},"
                   "{\"name\":\"b\",\"ph\":\"X\",\"ts\":4,\"dur\":1,\"pid\":1,\"tid\":1}]}",
                   "not sorted");
    expect_invalid("{\"traceEvents\":[" META
                   "{\"name\":\"a\",\"ph\":\"X\",\"ts\":5,\"dur\":-1,\"pid\":1,\"tid\":1}]}",
                   "negative duration");
    expect_invalid("{\"traceEvents\":[" META
                   "{\"name\":\"a\",\"ph\":\"X\",\"ts\":5,\"dur\":1,\"pid\":1,\"tid\":2}]}",
                   "thread 2 of process 1 has events but no thread_name");
    expect_invalid("{\"traceEvents\":[" META
                   "{\"name\":\"a\",\"ph\":\"X\",\"ts\":5,\"dur\":1,\"pid\":3,\"tid\":1}]}",
                   "process 3 has events but no process_name");
    expect_invalid("{\"traceEvents\":[" META
                   "{\"name\":\"a\",\"ph\":\"X\",\"dur\":1,\"pid\":1,\"tid\":1}]}",
                   "no numeric ts");
    expect_invalid("{\"traceEvents\":[" META
                   "{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"pid\":1,\"tid\":1}]}",
                   "no numeric dur");
    expect_invalid("{\"traceEvents\":[" META "{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1}]}",
                   "has no name");
    expect_invalid("{\"traceEvents\":[{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1}]}",
                   "args.name");
    expect_invalid("{\"displayTimeUnit\":\"s\",\"traceEvents\":[]}", "displayTimeUnit");
    cl_err e;
    assert_false(trace_validate(NULL, &e));
    assert_true(trace_validate("{\"traceEvents\":[" META
                               "{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":0,\"pid\":1,\"tid\":1},"
                               "{\"name\":\"b\",\"ph\":\"X\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1}]}",
                               &e));
}

static void test_recorded_sample(void **state)
{
    (void)state;
    const char *root = getenv("CUDALAB_TEST_DATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/prof/data/sample_trace.json", root ? root : "tests");
    cl_err e;
    size_t len = 0;
    char *txt = file_read_all(path, TRACE_MAX_BYTES, &len, &e);
    if (!txt)
        fail_msg("%s", e.msg);
    if (!trace_validate(txt, &e))
        fail_msg("%s", e.msg);
    timeline t;
    assert_true(trace_parse(txt, &t, &e));
    assert_string_equal(t.title, "NVIDIA H100 80GB HBM3");
    assert_int_equal(t.nlanes, 6);
    assert_int_equal(t.lanes[0].kind, TL_LANE_NVTX);
    assert_int_equal(t.lanes[2].kind, TL_LANE_H2D);
    assert_int_equal(t.lanes[3].kind, TL_LANE_STREAM);
    assert_int_equal(t.lanes[3].stream, 14);
    assert_int_equal(t.nitems, 11);
    int pinned = 0, pageable = 0, kernels = 0;
    for (size_t i = 0; i < t.nitems; i++) {
        const tl_item *it = &t.items[i];
        pinned += (it->flags & TL_PINNED) != 0;
        pageable += (it->flags & TL_PAGEABLE) != 0;
        kernels += it->kind == TL_KERNEL;
        if (it->kind == TL_MEMCPY) {
            double gbps = timeline_item_gbps(it);
            assert_true(gbps > 50.0 && gbps < 54.0);
        }
    }
    assert_int_equal(pinned, 3);
    assert_int_equal(pageable, 1);
    assert_int_equal(kernels, 2);

    /* The copy of chunk 2 ran while chunk 1's kernel did: overlap shows as
     * little GPU idle time. */
    tl_gaps g;
    assert_true(timeline_gaps(&t, TL_GPU_LANES, 0, &g, &e));
    assert_int_equal(g.n, 0);
    assert_int_equal(g.first_ns, 6000);
    timeline_gaps_free(&g);

    char *again = trace_json(&t, &e);
    assert_non_null(again);
    assert_true(trace_validate(again, &e));
    free(again);
    timeline_free(&t);
    free(txt);
}

static void test_foreign_trace_without_lane_args(void **state)
{
    (void)state;
    const char *json =
        "{\"traceEvents\":["
        "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":7,\"args\":{\"name\":\"Stream 7\"}},"
        "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":9,\"tid\":1,\"args\":{\"name\":\"main\"}},"
        "{\"name\":\"k\",\"ph\":\"X\",\"ts\":2.5,\"dur\":1.5,\"pid\":1,\"tid\":7},"
        "{\"name\":\"call\",\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":9,\"tid\":1},"
        "{\"name\":\"orphan\",\"ph\":\"X\",\"ts\":3,\"dur\":1,\"pid\":1,\"tid\":8}]}";
    timeline t;
    cl_err e;
    assert_true(trace_parse(json, &t, &e));
    assert_int_equal(t.nlanes, 3);
    assert_int_equal(t.lanes[0].kind, TL_LANE_STREAM);
    assert_int_equal(t.lanes[1].kind, TL_LANE_API);
    assert_string_equal(t.lanes[2].name, "thread 8");
    assert_int_equal(t.nitems, 3);
    assert_string_equal(t.items[0].name, "call");
    assert_int_equal(t.items[0].kind, TL_API);
    assert_int_equal(t.items[1].start_ns, 2500);
    assert_int_equal(t.items[1].end_ns, 4000);
    assert_int_equal(t.items[1].kind, TL_KERNEL);
    timeline_free(&t);
    assert_false(trace_parse("[]", &t, &e));
    assert_false(trace_parse("{\"traceEvents\":[{\"name\":\"x\",\"ph\":\"X\",\"pid\":1}]}", &t, &e));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_validates_and_reads_back),
        cmocka_unit_test(test_write_and_load_file),
        cmocka_unit_test(test_note_round_trip),
        cmocka_unit_test(test_empty_timeline),
        cmocka_unit_test(test_validator_refuses_broken_traces),
        cmocka_unit_test(test_recorded_sample),
        cmocka_unit_test(test_foreign_trace_without_lane_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The CUPTI recorder without a device: activity records built by hand
 * (kernels, copies with their memory kinds, memsets, runtime calls, NVTX
 * markers) become a timeline with the right lanes, flags and names, times
 * normalised to the first event; host ranges stand in for markers when
 * none arrive; and starting a recording with no device says so plainly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cupti.h>

#include "prof/timeline.h"
#include "prof/trace.h"
#include "gpu/cupti.h"

#define T0 5000000000ull

static const tl_item *find(const timeline *t, const char *name, int nth)
{
    for (size_t i = 0; i < t->nitems; i++)
        if (strcmp(t->items[i].name, name) == 0 && nth-- == 0)
            return &t->items[i];
    return NULL;
}

static void add(cupti_rec *r, const void *rec)
{
    cl_err e;
    assert_true(cupti_rec_add(r, rec, &e));
}

static void memcpy_rec(cupti_rec *r, uint8_t kind, uint8_t src, uint8_t dst, uint64_t s,
                       uint64_t e, uint32_t stream)
{
    CUpti_ActivityMemcpy6 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = kind;
    m.srcKind = src;
    m.dstKind = dst;
    m.bytes = 1 << 20;
    m.start = s;
    m.end = e;
    m.streamId = stream;
    m.correlationId = 40 + kind;
    add(r, &m);
}

static void test_records_become_a_timeline(void **state)
{
    (void)state;
    cupti_rec *r = cupti_rec_new("Test GPU");
    assert_non_null(r);

    CUpti_ActivityMarker2 ms, me;
    memset(&ms, 0, sizeof ms);
    ms.kind = CUPTI_ACTIVITY_KIND_MARKER;
    ms.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
    ms.id = 3;
    ms.timestamp = T0;
    ms.name = "pageable vs pinned";
    me = ms;
    me.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
    me.timestamp = T0 + 90000;
    me.name = NULL;
    add(r, &me);   /* an end may arrive before its start */
    add(r, &ms);

    CUpti_ActivityAPI api;
    memset(&api, 0, sizeof api);
    api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    api.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
    api.start = T0 + 100;
    api.end = T0 + 4100;
    api.correlationId = 7;
    add(r, &api);

    memcpy_rec(r, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
               CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, T0 + 1000, T0 + 21000, 13);
    memcpy_rec(r, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
               CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, T0 + 22000, T0 + 62000, 13);
    memcpy_rec(r, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
               CUPTI_ACTIVITY_MEMORY_KIND_PINNED, T0 + 70000, T0 + 80000, 14);
    memcpy_rec(r, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
               CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, T0 + 80000, T0 + 81000, 14);

    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = T0 + 63000;
    k.end = T0 + 69000;
    k.streamId = 13;
    k.correlationId = 7;
    k.name = "prof_scale";
    add(r, &k);
    k.name = "_Z5saxpyifPKfPf";
    k.start = T0 + 69000;
    k.end = T0 + 69500;
    add(r, &k);

    CUpti_ActivityMemset4 st;
    memset(&st, 0, sizeof st);
    st.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    st.bytes = 4096;
    st.start = T0 + 500;
    st.end = T0 + 600;
    st.streamId = 13;
    st.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    add(r, &st);

    CUpti_Activity other;
    memset(&other, 0, sizeof other);
    other.kind = CUPTI_ACTIVITY_KIND_DEVICE;   /* not a timeline item */
    add(r, &other);
    cupti_rec_dropped(r, 2);

    timeline t;
    cl_err e;
    assert_true(cupti_rec_finish(r, &t, &e));
    cupti_rec_free(r);

    assert_string_equal(t.title, "Test GPU");
    assert_int_equal(t.dropped, 2);
    const char *lanes[] = {"NVTX", "runtime API", "copies H2D", "stream 13", "copies D2H",
                           "copies D2D"};
    assert_int_equal(t.nlanes, 6);
    for (int i = 0; i < 6; i++)
        assert_string_equal(t.lanes[i].name, lanes[i]);
    assert_int_equal(t.nitems, 9);
    uint64_t t0, t1;
    assert_true(timeline_span(&t, &t0, &t1));
    assert_int_equal(t0, 0);
    assert_int_equal(t1, 90000);

    const tl_item *range = find(&t, "pageable vs pinned", 0);
    assert_non_null(range);
    assert_int_equal(range->kind, TL_RANGE);
    assert_int_equal(range->end_ns - range->start_ns, 90000);

    const tl_item *pinned = find(&t, "memcpy HtoD", 0);
    const tl_item *pageable = find(&t, "memcpy HtoD", 1);
    assert_non_null(pinned);
    assert_non_null(pageable);
    assert_int_equal(pinned->flags, TL_PINNED);
    assert_int_equal(pageable->flags, TL_PAGEABLE);
    assert_int_equal(pinned->start_ns, 1000);
    assert_string_equal(t.lanes[pinned->lane].name, "copies H2D");
    assert_true(timeline_item_gbps(pinned) > timeline_item_gbps(pageable));
    const tl_item *d2h = find(&t, "memcpy DtoH", 0);
    assert_non_null(d2h);
    assert_int_equal(d2h->flags, TL_PINNED);
    assert_int_equal(d2h->stream, 14);
    const tl_item *d2d = find(&t, "memcpy DtoD", 0);
    assert_non_null(d2d);
    assert_int_equal(d2d->flags, 0);

    const tl_item *kern = find(&t, "prof_scale", 0);
    assert_non_null(kern);
    assert_int_equal(kern->kind, TL_KERNEL);
    assert_string_equal(t.lanes[kern->lane].name, "stream 13");
    assert_int_equal(kern->corr, 7);
    assert_non_null(find(&t, "saxpy", 0));
    const tl_item *ms_item = find(&t, "memset", 0);
    assert_non_null(ms_item);
    assert_int_equal(ms_item->bytes, 4096);

    const tl_item *call = NULL;
    for (size_t i = 0; i < t.nitems; i++)
        if (t.items[i].kind == TL_API)
            call = &t.items[i];
    assert_non_null(call);
    assert_int_equal(call->corr, 7);
    assert_true(strcmp(call->name, "cudaLaunchKernel") == 0 ||
                strncmp(call->name, "runtime call", 12) == 0);

    char *json = trace_json(&t, &e);
    assert_non_null(json);
    if (!trace_validate(json, &e))
        fail_msg("%s", e.msg);
    free(json);
    timeline_free(&t);
}

static void test_host_ranges_stand_in_for_markers(void **state)
{
    (void)state;
    cl_err e;
    cupti_rec *r = cupti_rec_new(NULL);
    assert_true(cupti_rec_range(r, "transfers", T0, T0 + 500, &e));
    assert_true(cupti_rec_range(r, "pageable", T0 + 10, T0 + 200, &e));
    assert_true(cupti_rec_range(r, "backwards", T0 + 300, T0 + 100, &e));
    timeline t;
    assert_true(cupti_rec_finish(r, &t, &e));
    assert_int_equal(t.nlanes, 1);
    assert_int_equal(t.lanes[0].kind, TL_LANE_NVTX);
    assert_int_equal(t.nitems, 3);
    assert_string_equal(t.items[0].name, "transfers");
    assert_int_equal(t.items[0].start_ns, 0);
    const tl_item *b = find(&t, "backwards", 0);
    assert_int_equal(b->end_ns, b->start_ns);
    timeline_free(&t);

    /* With marker records present, the host ranges are not duplicated. */
    CUpti_ActivityMarker2 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MARKER;
    m.flags = CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS;
    m.timestamp = T0;
    m.name = "mark";
    add(r, &m);
    assert_true(cupti_rec_range(r, "transfers", T0, T0 + 500, &e));
    assert_true(cupti_rec_finish(r, &t, &e));
    assert_int_equal(t.nitems, 1);
    assert_string_equal(t.items[0].name, "mark");
    timeline_free(&t);
    cupti_rec_free(r);
}

static void test_names(void **state)
{
    (void)state;
    char b[TL_NAME_MAX];
    static const struct {
        const char *raw, *shown;
    } apis[] = {
        {"cudaMemcpyAsync_v3020", "cudaMemcpyAsync"},
        {"cudaLaunchKernel", "cudaLaunchKernel"},
        {"cuda_vx", "cuda_vx"},
    }, kernels[] = {
        {"prof_transpose_padded", "prof_transpose_padded"},
        {"_Z5saxpyifPKfPf", "saxpy"},
        {"_Z3fooIiEvPf", "foo<int>"},
        {"_ZN12_GLOBAL__N_13barEv", "bar"},
    };
    for (size_t i = 0; i < sizeof apis / sizeof apis[0]; i++) {
        cupti_api_name(apis[i].raw, b, sizeof b);
        assert_string_equal(b, apis[i].shown);
    }
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        cupti_kernel_name(kernels[i].raw, b, sizeof b);
        assert_string_equal(b, kernels[i].shown);
    }
    cupti_kernel_name("_ZN4cuda3std3__48__detail21__bogus", b, sizeof b);
    assert_true(strlen(b) > 0);
    cupti_kernel_name(NULL, b, sizeof b);
    assert_string_equal(b, "kernel");
}

static void test_no_device(void **state)
{
    (void)state;
    cl_err e;
    e.msg[0] = '\0';
    assert_false(cupti_start("none", &e));
    assert_non_null(strstr(e.msg, "no CUDA device found"));
    assert_false(cupti_recording());
    timeline t;
    assert_false(cupti_stop(&t, &e));
    assert_int_equal(t.nitems, 0);
    cupti_range_begin("ignored");
    cupti_range_end();
    cupti_range_end();
}

int main(void)
{
    /* Hide any GPU so the no-device path is what runs, here and on GPU machines. */
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records_become_a_timeline),
        cmocka_unit_test(test_host_ranges_stand_in_for_markers),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_no_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The profiling lab on a real GPU (label gpu; skipped without one):
 *  - the CUPTI timeline captures the kernel and the copies of a small
 *    sequence, pinned and pageable copies marked as such, the runtime calls
 *    and the NVTX range around them, and exports a valid trace;
 *  - pinned host memory copies faster than pageable memory;
 *  - the chunked multi-stream pipeline beats the synchronous one;
 *  - every other experiment runs and its outputs check out against the CPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#include "core/devinfo.h"
#include "prof/timeline.h"
#include "prof/trace.h"
#include "gpu/cupti.h"
#include "gpu/device.h"
#include "gpu/nvtx.h"
#include "profiling.h"
#include "experiments/experiments.h"
#include "support.h"

typedef struct rows {
    run_result r[128];
    int n;
    char timeline[4096];
    char logs[8192];
} rows;

static void on_result(void *ud, const run_result *r)
{
    rows *rs = ud;
    if (rs->n < 128)
        rs->r[rs->n++] = *r;
}

static void on_log(void *ud, int level, const char *msg)
{
    rows *rs = ud;
    experiments_timeline_path(msg, rs->timeline, sizeof rs->timeline);
    size_t len = strlen(rs->logs);
    snprintf(rs->logs + len, sizeof rs->logs - len, "[%d] %s\n", level, msg);
}

static const run_result *row(const rows *rs, const char *variant)
{
    for (int i = 0; i < rs->n; i++)
        if (strcmp(rs->r[i].variant, variant) == 0)
            return &rs->r[i];
    fail_msg("no row '%s'", variant);
    return NULL;
}

static void run(rows *rs, const char *const *ids, int n, double budget)
{
    memset(rs, 0, sizeof *rs);
    run_request req;
    memset(&req, 0, sizeof req);
    snprintf(req.problem, sizeof req.problem, "%s", EXPERIMENTS_PROBLEM);
    req.budget_s = budget;
    for (int i = 0; i < n; i++)
        snprintf(req.variants[req.nvariants++].id, RUN_ID_MAX, "%s", ids[i]);
    engine_sink sink = {NULL, on_result, on_log, rs};
    run_fault f;
    memset(&f, 0, sizeof f);
    if (!experiments_run(&req, &sink, &f))
        fail_msg("fault (%s): %s", f.cause, f.message);
    for (int i = 0; i < rs->n; i++)
        if (rs->r[i].status != RS_CORRECT)
            fail_msg("%s: %s: %s", rs->r[i].variant, result_status_name(rs->r[i].status),
                     rs->r[i].message);
}

static const tl_item *find(const timeline *t, tl_kind kind, const char *name, unsigned flags)
{
    for (size_t i = 0; i < t->nitems; i++) {
        const tl_item *it = &t->items[i];
        if (it->kind == kind && (!name || strcmp(it->name, name) == 0) &&
            (it->flags & flags) == flags)
            return it;
    }
    return NULL;
}

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t st_ = (call);                                                    \
        if (st_ != cudaSuccess)                                                      \
            fail_msg("%s failed: %s", #call, cudaGetErrorString(st_));               \
    } while (0)

static void test_timeline_captures_copies_and_kernels(void **state)
{
    (void)state;
    const size_t bytes = 8u << 20, n = bytes / sizeof(float);
    float *pinned = NULL, *dev = NULL, *out = NULL;
    float *pageable = calloc(n, sizeof(float));
    assert_non_null(pageable);
    CHECK(cudaMallocHost((void **)&pinned, bytes));
    CHECK(cudaMalloc((void **)&dev, bytes));
    CHECK(cudaMalloc((void **)&out, bytes));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    cl_err e;
    if (!cupti_start("test", &e))
        fail_msg("%s", e.msg);
    assert_true(cupti_recording());
    nvtx_push("copies and a kernel");
    CHECK(cudaMemcpyAsync(dev, pinned, bytes, cudaMemcpyHostToDevice, s));
    CHECK(cudaMemcpyAsync(dev, pageable, bytes, cudaMemcpyHostToDevice, s));
    CHECK(profiling_scale(dev, out, n, 2.0f, 256, s));
    CHECK(cudaMemcpyAsync(pinned, out, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    nvtx_pop();
    timeline t;
    if (!cupti_stop(&t, &e))
        fail_msg("%s", e.msg);
    assert_false(cupti_recording());

    const tl_item *k = find(&t, TL_KERNEL, "prof_scale", 0);
    assert_non_null(k);
    assert_int_equal(t.lanes[k->lane].kind, TL_LANE_STREAM);
    const tl_item *hp = find(&t, TL_MEMCPY, NULL, TL_PINNED);
    const tl_item *hg = find(&t, TL_MEMCPY, NULL, TL_PAGEABLE);
    assert_non_null(hp);
    assert_non_null(hg);
    assert_int_equal(t.lanes[hp->lane].kind, TL_LANE_H2D);
    assert_int_equal(t.lanes[hg->lane].kind, TL_LANE_H2D);
    assert_int_equal(hp->bytes, bytes);
    bool d2h = false;
    for (size_t i = 0; i < t.nitems; i++)
        if (t.items[i].kind == TL_MEMCPY && t.lanes[t.items[i].lane].kind == TL_LANE_D2H &&
            (t.items[i].flags & TL_PINNED))
            d2h = true;
    assert_true(d2h);
    assert_non_null(find(&t, TL_API, "cudaMemcpyAsync", 0));
    bool launch = false;   /* cudaLaunchKernel, or a newer variant of it */
    for (size_t i = 0; i < t.nitems; i++)
        if (t.items[i].kind == TL_API && strncmp(t.items[i].name, "cudaLaunch", 10) == 0)
            launch = true;
    assert_true(launch);
    const tl_item *range = find(&t, TL_RANGE, "copies and a kernel", 0);
    assert_non_null(range);
    assert_true(range->start_ns <= hp->start_ns && range->end_ns >= k->end_ns);
    uint64_t t0, t1;
    assert_true(timeline_span(&t, &t0, &t1));
    assert_int_equal(t0, 0);
    assert_true(k->start_ns >= hg->end_ns);   /* one stream: in order */

    char *json = trace_json(&t, &e);
    assert_non_null(json);
    if (!trace_validate(json, &e))
        fail_msg("%s", e.msg);
    free(json);
    timeline_free(&t);
    cudaStreamDestroy(s);
    cudaFree(dev);
    cudaFree(out);
    cudaFreeHost(pinned);
    free(pageable);
}

static void test_pinned_beats_pageable(void **state)
{
    (void)state;
    static rows rs;
    const char *ids[] = {"transfers"};
    run(&rs, ids, 1, 0.25);
    const run_result *hp = row(&rs, "h2d_pinned"), *hg = row(&rs, "h2d_pageable");
    const run_result *dp = row(&rs, "d2h_pinned"), *dg = row(&rs, "d2h_pageable");
    print_message("H2D pinned %.1f GB/s, pageable %.1f GB/s; D2H pinned %.1f, pageable %.1f\n",
                  hp->gbps, hg->gbps, dp->gbps, dg->gbps);
    assert_true(hp->gbps > hg->gbps);
    assert_true(dp->gbps > dg->gbps);
    const run_result *small = row(&rs, "small_copies");
    assert_true(small->median_ms > hp->median_ms);
    assert_true(row(&rs, "compute_vs_copy")->median_ms < hp->median_ms);

    assert_true(rs.timeline[0] != '\0');
    timeline t;
    cl_err e;
    if (!trace_load(rs.timeline, &t, &e))
        fail_msg("%s", e.msg);
    assert_non_null(find(&t, TL_MEMCPY, NULL, TL_PINNED));
    assert_non_null(find(&t, TL_MEMCPY, NULL, TL_PAGEABLE));
    assert_non_null(find(&t, TL_RANGE, "transfers", 0));
    timeline_free(&t);
}

static void test_overlap_beats_sync(void **state)
{
    (void)state;
    static rows rs;
    const char *ids[] = {"overlap"};
    run(&rs, ids, 1, 0.25);
    const run_result *sync = row(&rs, "overlap_sync"), *ov = row(&rs, "overlap_streams");
    print_message("synchronous %.2f ms, overlapped %.2f ms\n", sync->median_ms, ov->median_ms);
    assert_true(ov->median_ms < sync->median_ms);

    timeline t;
    cl_err e;
    if (!trace_load(rs.timeline, &t, &e))
        fail_msg("%s", e.msg);
    size_t streams = 0;
    for (size_t i = 0; i < t.nlanes; i++)
        streams += t.lanes[i].kind == TL_LANE_STREAM;
    assert_true(streams >= 4);   /* the pipeline's four streams at least */
    timeline_free(&t);
}

static void test_every_experiment_checks_out(void **state)
{
    (void)state;
    static rows rs;
    const char *ids[] = {"stride", "gemv", "blocksize", "transpose", "timing", "roofline"};
    run(&rs, ids, 6, 0.05);
    for (int i = 0; i < rs.n; i++)
        print_message("%-22s %10.4f ms %9.1f GB/s  %s\n", rs.r[i].variant, rs.r[i].median_ms,
                      rs.r[i].gbps, rs.r[i].message);
    assert_true(row(&rs, "stride_1")->gbps > row(&rs, "stride_32")->gbps);
    /* Whether a thread per row of a row-major matrix loses to the
     * column-major copy depends on how much of each row stays in L1: the
     * lesson shows the learner's own numbers.  What holds everywhere is
     * that a warp reading a row together (coalesced) beats a thread per row. */
    assert_true(row(&rs, "gemv_row_warp")->median_ms < row(&rs, "gemv_row_thread")->median_ms);
    /* What the lesson claims of the transposes and launch shapes: the copy
     * with the transposes' blocks is their bound (2% for noise), padding
     * beats the bank-conflicted tile, which beats the naive stores; blocks
     * of 64 threads lose to 256 though both fill the SM on recent GPUs. */
    const run_result *copy = row(&rs, "transpose_copy"), *padded = row(&rs, "transpose_padded");
    print_message("transpose: padded %.1f GB/s of the copy's %.1f (%.3f)\n", padded->gbps,
                  copy->gbps, padded->gbps / copy->gbps);
    assert_true(padded->gbps <= 1.02 * copy->gbps);
    assert_true(padded->gbps > row(&rs, "transpose_tiled")->gbps);
    assert_true(row(&rs, "transpose_tiled")->gbps > row(&rs, "transpose_naive")->gbps);
    assert_true(row(&rs, "block_64")->median_ms > row(&rs, "block_256")->median_ms);
    assert_true(row(&rs, "block_32")->median_ms > row(&rs, "block_64")->median_ms);
    assert_true(row(&rs, "timing_host_nosync")->median_ms < row(&rs, "timing_events")->median_ms);
    assert_true(row(&rs, "roof_1024")->tflops > row(&rs, "roof_0")->tflops);
}

int main(void)
{
    device_info d;
    char note[256];
    if (!device_probe(0, &d, note, sizeof note)) {
        printf("SKIP: %s\n", d.reason[0] ? d.reason : "no CUDA device found");
        return 77;
    }
    char dir[] = "/tmp/cudalab-prof-gpu-XXXXXX";
    if (mkdtemp(dir))
        ts_data_home(dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timeline_captures_copies_and_kernels),
        cmocka_unit_test(test_pinned_beats_pageable),
        cmocka_unit_test(test_overlap_beats_sync),
        cmocka_unit_test(test_every_experiment_checks_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

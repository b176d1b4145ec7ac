/* compute-sanitizer support without the tool or a GPU: the log parser on
 * recorded memcheck, racecheck, synccheck and initcheck logs
 * (compute-sanitizer 2025 format, plus the older location form), merging
 * of repeated reports, the one-line
 * format, the choice of the smallest size, the message when the tool is
 * missing, and sanitize_run end to end with a stand-in tool script that
 * runs the real `cudalab worker` (no device: the row says so). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "core/which.h"
#include "catalog/problem_spec.h"
#include "lab/labmodel.h"
#include "lab/probdecl.h"
#include "lab/labproblem.h"
#include "support.h"
#include "supervise/sanitize.h"

static void parse_file(const char *name, sanitize_report *r)
{
    char path[CL_PATH_MAX];
    ts_data_path(path, sizeof path, "features/exercises/sanitizer/%s", name);
    char *log = ts_read(path);
    assert_non_null(log);
    assert_true(sanitize_parse_log(log, r));
    free(log);
}

static void dump(const sanitize_report *r)
{
    for (size_t i = 0; i < r->n; i++) {
        char line[1024];
        sanitize_finding_format(&r->findings[i], line, sizeof line);
        print_message("  finding %zu: %s\n", i, line);
    }
}

/* The learner's invalid write leads; the three "unspecified launch
 * failure" errors after it fold into one line, and the CUDA error before
 * it stays a finding of its own. */
static void test_consequences_fold(void **state)
{
    (void)state;
    sanitize_report r;
    parse_file("memcheck_followups.log", &r);
    dump(&r);
    assert_int_equal(r.errors, 5);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.findings[0].kind, SAN_INVALID_WRITE);
    assert_int_equal(r.findings[0].line, 22);
    assert_int_equal(r.findings[0].block[0], 1023);
    assert_true(ts_contains(r.findings[0].detail, "0 bytes after the nearest allocation"));
    /* the error before the kernel ran is a finding of its own */
    assert_int_equal(r.findings[1].kind, SAN_CUDA_ERROR);
    assert_true(ts_contains(r.findings[1].headline, "cudaFuncGetAttributes"));
    assert_int_equal(r.findings[2].kind, SAN_CUDA_ERROR);
    assert_int_equal(r.consequences, 3);
    char line[1024];
    sanitize_finding_format(&r.findings[2], line, sizeof line);
    assert_true(ts_contains(line, "3 later CUDA calls failed (unspecified launch failure, first "
                                  "in cudaStreamSynchronize)"));
    assert_true(ts_contains(line, "a consequence of the problem above"));
    sanitize_report_free(&r);

    /* CUDA errors alone are the findings, each its own */
    assert_true(sanitize_parse_log(
        "========= Program hit cudaErrorInvalidValue (error 1) due to \"invalid argument\" on "
        "CUDA API call to cudaMemcpy.\n"
        "========= Program hit cudaErrorInvalidDevicePointer (error 17) due to \"invalid device "
        "pointer\" on CUDA API call to cudaFree.\n",
        &r));
    assert_int_equal(r.n, 2);
    assert_int_equal(r.consequences, 0);
    assert_int_equal(r.findings[0].kind, SAN_CUDA_ERROR);
    sanitize_report_free(&r);
}

static void test_memcheck_out_of_bounds(void **state)
{
    (void)state;
    sanitize_report r;
    parse_file("memcheck_oob.log", &r);
    dump(&r);
    assert_int_equal(r.errors, 3);
    assert_int_equal(r.n, 2);

    const sanitize_finding *f = &r.findings[0];
    assert_int_equal(f->kind, SAN_INVALID_READ);
    assert_false(f->warning);
    assert_string_equal(f->space, "global");
    assert_int_equal(f->size, 4);
    assert_string_equal(f->kernel, "reduce_sum");
    assert_string_equal(f->file, "starter.cu");
    assert_int_equal(f->line, 14);
    assert_true(f->has_thread && f->has_block);
    assert_int_equal(f->thread[0], 232);
    assert_int_equal(f->thread[1], 0);
    assert_int_equal(f->block[0], 3);
    assert_true(f->has_address);
    assert_true(f->address == UINT64_C(0x7f3a5e000fa0));
    assert_int_equal(f->count, 2);
    assert_true(ts_contains(f->detail, "Access at 0x7f3a5e000fa0 is out of bounds"));
    assert_true(ts_contains(f->detail, "0 bytes after the nearest allocation"));
    assert_string_equal(f->headline, "Invalid __global__ read of size 4 bytes");

    f = &r.findings[1];
    assert_int_equal(f->kind, SAN_INVALID_WRITE);
    assert_string_equal(f->kernel, "scale");
    assert_int_equal(f->line, 31);
    assert_int_equal(f->count, 1);
    assert_true(f->address == UINT64_C(0x7f3a5e200010));

    char line[1024];
    sanitize_finding_format(&r.findings[0], line, sizeof line);
    assert_string_equal(line,
                        "invalid read of 4 bytes in global memory in reduce_sum at starter.cu:14, "
                        "thread (232,0,0) of block (3,0,0): Access at 0x7f3a5e000fa0 is out of "
                        "bounds; and is 0 bytes after the nearest allocation at 0x7f3a5e000000 "
                        "of size 4,000 bytes (2 reports)");
    sanitize_finding_format(&r.findings[1], line, sizeof line);
    assert_true(ts_contains(line, "invalid write of 4 bytes to global memory in scale at starter.cu:31"));
    sanitize_report_free(&r);
}

static void test_memcheck_misaligned_error_and_leak(void **state)
{
    (void)state;
    sanitize_report r;
    parse_file("memcheck_misaligned.log", &r);
    dump(&r);
    assert_int_equal(r.errors, 3);
    assert_int_equal(r.leaked_bytes, 1024);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.findings[0].kind, SAN_MISALIGNED);
    assert_int_equal(r.findings[0].size, 16);
    assert_int_equal(r.findings[0].line, 10);
    assert_true(ts_contains(r.findings[0].detail, "is misaligned"));
    assert_int_equal(r.findings[1].kind, SAN_CUDA_ERROR);
    assert_true(ts_contains(r.findings[1].headline, "cudaErrorLaunchFailure"));
    assert_string_equal(r.findings[1].kernel, "");
    assert_int_equal(r.findings[2].kind, SAN_LEAK);
    assert_true(r.findings[2].has_address);
    assert_true(r.findings[2].address == UINT64_C(0x7f3a5e400000));
    char line[1024];
    sanitize_finding_format(&r.findings[0], line, sizeof line);
    assert_true(ts_contains(line, "misaligned access of 16 bytes in global memory in reduce_sum at "
                               "starter.cu:10, thread (0,0,0) of block (0,0,0): Address "
                               "0x7f3a5e000004 is misaligned"));
    sanitize_finding_format(&r.findings[2], line, sizeof line);
    assert_string_equal(line, "leak: Leaked 1,024 bytes at 0x7f3a5e400000");
    sanitize_report_free(&r);
}

static void test_racecheck_hazards_and_analysis(void **state)
{
    (void)state;
    sanitize_report r;
    parse_file("racecheck_all.log", &r);
    dump(&r);
    assert_int_equal(r.errors, 3);
    assert_int_equal(r.warnings, 0);
    assert_int_equal(r.n, 2);

    const sanitize_finding *raw = &r.findings[0];
    assert_int_equal(raw->kind, SAN_RACE);
    assert_string_equal(raw->hazard, "RAW");
    assert_string_equal(raw->space, "shared");
    assert_string_equal(raw->kernel, "reduce_sum");
    assert_string_equal(raw->file, "starter.cu");
    assert_int_equal(raw->line, 16);
    assert_string_equal(raw->file2, "starter.cu");
    assert_int_equal(raw->line2, 16);
    assert_true(raw->has_thread && raw->has_block);
    assert_int_equal(raw->thread[0], 124);
    assert_true(raw->has_address && raw->address == 0x1f0);
    assert_int_equal(raw->count, 2);          /* the hazard report and the analysis */
    assert_int_equal(raw->hazards, 4032);

    const sanitize_finding *war = &r.findings[1];
    assert_string_equal(war->hazard, "WAR");
    assert_int_equal(war->block[0], 1);
    assert_int_equal(war->thread[0], 64);
    assert_true(ts_contains(war->detail, "Incoming Value : 1073741824"));

    char line[1024];
    sanitize_finding_format(raw, line, sizeof line);
    assert_true(ts_contains(line, "RAW race hazard on shared memory in reduce_sum at "
                               "starter.cu:16 (both accesses), thread (124,0,0) of block "
                               "(0,0,0)"));
    assert_true(ts_contains(line, "(4032 hazards)"));
    sanitize_report_free(&r);
}

static void test_racecheck_analysis_old_form_and_barrier(void **state)
{
    (void)state;
    sanitize_report r;
    parse_file("racecheck_analysis.log", &r);
    dump(&r);
    assert_int_equal(r.errors, 1);
    assert_int_equal(r.warnings, 2);
    assert_int_equal(r.n, 4);

    assert_int_equal(r.findings[0].kind, SAN_RACE);
    assert_true(r.findings[0].warning);
    assert_string_equal(r.findings[0].hazard, "WAR");
    assert_string_equal(r.findings[0].kernel, "transpose_tiled");
    assert_int_equal(r.findings[0].line, 41);
    assert_int_equal(r.findings[0].line2, 38);
    assert_int_equal(r.findings[0].hazards, 256);
    assert_int_equal(r.findings[1].line2, 39);
    assert_int_equal(r.findings[1].hazards, 32);

    assert_false(r.findings[2].warning);
    assert_string_equal(r.findings[2].hazard, "WAW");
    assert_string_equal(r.findings[2].kernel, "tile_load");
    assert_string_equal(r.findings[2].file, "starter.cu");
    assert_int_equal(r.findings[2].line, 13);
    assert_int_equal(r.findings[2].hazards, 992);

    assert_int_equal(r.findings[3].kind, SAN_BARRIER);
    assert_string_equal(r.findings[3].kernel, "tile_load");
    assert_int_equal(r.findings[3].line, 25);
    assert_int_equal(r.findings[3].block[1], 1);
    char line[1024];
    sanitize_finding_format(&r.findings[0], line, sizeof line);
    assert_true(ts_contains(line, "warning: WAR race hazard on shared memory in transpose_tiled "
                               "between starter.cu:41 and starter.cu:38"));
    sanitize_report_free(&r);
}

/* synccheck_divergent.log follows the report format compute-sanitizer
 * documents for synccheck (and prints, 2025.3): "Barrier error detected."
 * with "Divergent thread(s) in warp." or "... in block." or "Invalid
 * arguments", then the location and the thread.  It is the divergent_barrier
 * exercise's starter (labs/debugging): the lanes of the last block's split
 * warp at the barrier inside the branch (line 24), whole warps past n at the
 * tree's first barrier (line 30); and a __syncwarp mask elsewhere. */
static void test_synccheck_barriers(void **state)
{
    (void)state;
    sanitize_report r;
    parse_file("synccheck_divergent.log", &r);
    dump(&r);
    /* the first summary line counts; the "not printed" one does not */
    assert_int_equal(r.errors, 98);
    assert_int_equal(r.n, 3);
    const sanitize_finding *w = &r.findings[0], *b = &r.findings[1], *m = &r.findings[2];
    assert_int_equal(w->kind, SAN_BARRIER);
    assert_false(w->warning);
    assert_string_equal(w->kernel, "reduce_sum");
    assert_string_equal(w->file, "starter.cu");
    assert_int_equal(w->line, 24);
    assert_true(w->has_thread && w->has_block);
    assert_int_equal(w->thread[0], 160);
    assert_int_equal(w->block[0], 390);
    assert_int_equal(w->count, 3);
    assert_true(ts_contains(w->detail, "split"));
    assert_int_equal(b->kind, SAN_BARRIER);
    assert_int_equal(b->line, 30);
    assert_int_equal(b->thread[0], 192);
    assert_int_equal(b->count, 2);
    assert_true(ts_contains(b->detail, "not every thread of the block reached this barrier"));
    assert_int_equal(m->kind, SAN_BARRIER);
    assert_string_equal(m->kernel, "warp_total");
    assert_int_equal(m->line, 12);
    assert_true(ts_contains(m->detail, "mask"));

    char line[1024];
    sanitize_finding_format(b, line, sizeof line);
    assert_string_equal(line, "barrier error in reduce_sum at starter.cu:30, thread (192,0,0) of "
                              "block (390,0,0): not every thread of the block reached this "
                              "barrier: a __syncthreads() inside a branch that only some threads "
                              "take (2 reports)");
    sanitize_report_free(&r);

    /* Without the trailing period, the prefix or the word "detected". */
    assert_true(sanitize_parse_log("Barrier error. Divergent thread(s) in block\n"
                                   "    at k+0x10 in a.cu:7\n",
                                   &r));
    assert_int_equal(r.n, 1);
    assert_int_equal(r.findings[0].kind, SAN_BARRIER);
    assert_int_equal(r.findings[0].line, 7);
    assert_true(r.findings[0].detail[0] != '\0');
    sanitize_report_free(&r);
}

/* initcheck_uninit.log follows the documented initcheck formats: a kernel's
 * "Uninitialized __global__ memory read of size N bytes" (the uninit
 * exercise's pass 2 reading partials pass 1 never wrote), a copy to the
 * host of memory nothing wrote ("Host API memory access error ...
 * Uninitialized access at ..."), and --track-unused-memory's "Unused memory
 * in allocation". */
static void test_initcheck_uninitialised(void **state)
{
    (void)state;
    sanitize_report r;
    parse_file("initcheck_uninit.log", &r);
    dump(&r);
    assert_int_equal(r.errors, 977);
    assert_int_equal(r.n, 3);
    const sanitize_finding *k = &r.findings[0], *h = &r.findings[1], *u = &r.findings[2];
    assert_int_equal(k->kind, SAN_UNINIT);
    assert_string_equal(k->space, "global");
    assert_int_equal(k->size, 4);
    assert_string_equal(k->kernel, "final_sum");
    assert_string_equal(k->file, "starter.cu");
    assert_int_equal(k->line, 47);
    assert_int_equal(k->thread[0], 49);
    assert_int_equal(k->count, 3);
    assert_true(k->has_address);
    assert_true(k->address == 0x7f8414862cc4ULL);
    char line[1024];
    sanitize_finding_format(k, line, sizeof line);
    assert_true(ts_contains(line, "uninitialised read of 4 bytes of global memory in final_sum at "
                                  "starter.cu:47, thread (49,0,0) of block (0,0,0): read memory "
                                  "that nothing had written since it was allocated"));
    assert_true(ts_contains(line, "(3 reports)"));

    assert_int_equal(h->kind, SAN_UNINIT);
    assert_int_equal(h->size, 16);
    assert_true(h->address == 0x7f8414a00008ULL);
    assert_true(ts_contains(h->detail, "on access by cudaMemcopy source"));
    assert_string_equal(h->kernel, "");

    /* unused memory is reported last, like a leak */
    assert_int_equal(u->kind, SAN_UNUSED);
    assert_true(u->address == 0x7f8414b00000ULL);
    assert_true(ts_contains(u->detail, "Not written 3,900 bytes"));
    assert_true(ts_contains(u->detail, "95% of allocation were unused"));
    sanitize_finding_format(u, line, sizeof line);
    assert_true(ts_contains(line, "unused memory: Not written"));
    sanitize_report_free(&r);
}

static void test_clean_and_empty(void **state)
{
    (void)state;
    sanitize_report r;
    parse_file("clean.log", &r);
    assert_int_equal(r.n, 0);
    assert_int_equal(r.errors, 0);
    sanitize_report_free(&r);
    assert_true(sanitize_parse_log("", &r));
    assert_int_equal(r.n, 0);
    assert_int_equal(r.errors, -1);
    sanitize_report_free(&r);
    assert_true(sanitize_parse_log(NULL, &r));
    assert_int_equal(r.n, 0);
    /* Without the prefix, as a tool writing to its own log may. */
    assert_true(sanitize_parse_log("Invalid __shared__ write of size 8 bytes\n"
                                   "    at k+0x10 in a.cu:3\n"
                                   "    by thread (1, 2, 3) in block (4, 5, 6)\n",
                                   &r));
    assert_int_equal(r.n, 1);
    assert_string_equal(r.findings[0].space, "shared");
    assert_int_equal(r.findings[0].size, 8);
    assert_int_equal(r.findings[0].thread[2], 3);
    assert_int_equal(r.findings[0].block[1], 5);
    sanitize_report_free(&r);
}

static void test_names_and_sizes(void **state)
{
    (void)state;
    sanitize_tool t;
    assert_true(sanitize_tool_from_name("memcheck", &t) && t == SANITIZE_MEMCHECK);
    assert_true(sanitize_tool_from_name("racecheck", &t) && t == SANITIZE_RACECHECK);
    assert_true(sanitize_tool_from_name("synccheck", &t) && t == SANITIZE_SYNCCHECK);
    assert_true(sanitize_tool_from_name("initcheck", &t) && t == SANITIZE_INITCHECK);
    assert_false(sanitize_tool_from_name("helgrind", &t));
    assert_false(sanitize_tool_from_name(NULL, &t));
    assert_string_equal(sanitize_tool_name(SANITIZE_RACECHECK), "racecheck");
    assert_string_equal(sanitize_tool_name(SANITIZE_SYNCCHECK), "synccheck");
    assert_string_equal(sanitize_tool_name(SANITIZE_INITCHECK), "initcheck");
    for (int i = 0; i < SANITIZE_TOOLS; i++) {
        assert_true(ts_contains(SANITIZE_TOOL_LIST, sanitize_tool_name((sanitize_tool)i)));
        assert_true(sanitize_tool_finds((sanitize_tool)i)[0] != '\0');
    }
    assert_string_equal(sanitize_kind_name(SAN_UNINIT), "uninitialised read");

    cl_err e = {{0}};
    const char *reduce[] = {"2^28", "2^20", "2^24"};
    assert_int_equal(sanitize_smallest_size(ts_shipped_spec("reduce_sum"), reduce, 3, &e), 1);
    const char *gemm[] = {"4096", "1024x1024x1024", "512x4096x64"};
    assert_int_equal(sanitize_smallest_size(problem_spec_find("sgemm"), gemm, 3, &e), 2);
    const char *emb[] = {"16384x4096x32000", "4096x64x32000", "bad"};
    assert_int_equal(sanitize_smallest_size(ts_shipped_spec("embedding"), emb, 3, &e), 1);
    const char *bad[] = {"lots"};
    assert_int_equal(sanitize_smallest_size(ts_shipped_spec("reduce_sum"), bad, 1, &e), -1);
    assert_true(ts_contains(e.msg, "'lots' is not a count"));
    assert_int_equal(sanitize_smallest_size(problem_spec_find("scan"), bad, 1, &e), -1);
    assert_true(ts_contains(e.msg, "unknown problem"));
}

static void test_missing_tool(void **state)
{
    (void)state;
    char found[1024];
    if (which_tool("compute-sanitizer", found, sizeof found)) {
        print_message("compute-sanitizer is installed (%s): the missing-tool message is not "
                      "checked here\n",
                      found);
        return;
    }
    const char *sizes[] = {"2^20"};
    sanitize_opts o = {
        .tool = SANITIZE_MEMCHECK,
        .problem = "reduce_sum",
        .spec = ts_shipped_spec("reduce_sum"),
        .sizes = sizes,
        .nsizes = 1,
        .kernel = "starter.cu",
        .launcher = "starter.lua",
    };
    sanitize_result res;
    cl_err e = {{0}};
    assert_false(sanitize_run(&o, &res, &e));
    assert_true(ts_contains(e.msg, "compute-sanitizer was not found"));
    assert_true(ts_contains(e.msg, "CUDA toolkit"));
    sanitize_result_free(&res);
}

/* sanitize_run with the stand-in tool around the real worker. */
static void test_run_with_stand_in_tool(void **state)
{
    (void)state;
    const char *exe = getenv("CUDALAB_EXE");
    assert_non_null(exe);
    char tool[CL_PATH_MAX], log[CL_PATH_MAX], args[CL_PATH_MAX];
    ts_data_path(tool, sizeof tool, "features/exercises/sanitizer/fake-compute-sanitizer");
    ts_data_path(log, sizeof log, "features/exercises/sanitizer/racecheck_all.log");
    snprintf(args, sizeof args, "%s/args.txt", ts_tmp);
    setenv("FAKE_SANITIZER_LOG", log, 1);
    setenv("FAKE_SANITIZER_ARGS", args, 1);

    char cu[CL_PATH_MAX], lua[CL_PATH_MAX];
    ts_home_path(cu, sizeof cu, "labs/reduction/starter.cu");
    ts_home_path(lua, sizeof lua, "labs/reduction/starter.lua");
    const char *sizes[] = {"2^24", "2^20+3", "2^22"};
    sanitize_opts o = {
        .tool = SANITIZE_RACECHECK,
        .problem = "reduce_sum",
        .spec = ts_shipped_spec("reduce_sum"),
        .lab = "reduction",
        .sizes = sizes,
        .nsizes = 3,
        .kernel = cu,
        .launcher = lua,
        .time_limit_s = 120,
        .sanitizer = tool,
        .self = exe,
    };
    sanitize_result res;
    cl_err e = {{0}};
    bool ok = sanitize_run(&o, &res, &e);
    if (!ok)
        fail_msg("sanitize_run: %s", e.msg);
    if (res.faulted || !res.have_row)
        fail_msg("fault %s: %s\noutput:\n%s\nworker log:\n%s", res.fault.cause, res.fault.message,
                 res.output, res.worker_log);
    assert_string_equal(res.size, "2^20+3");
    assert_true(res.have_dev);
    assert_false(res.dev.present);
    assert_string_equal(res.row.variant, "exercise");
    assert_string_equal(res.row.size, "2^20+3");
    assert_int_equal(res.row.status, RS_NO_DEVICE);
    assert_true(ts_contains(res.row.message, "no CUDA device found"));
    assert_int_equal(res.exit_status, 0);
    assert_int_equal(res.report.n, 2);
    assert_string_equal(res.report.findings[0].hazard, "RAW");
    assert_true(ts_contains(res.worker_log, "registers a thread"));

    char *noted = ts_read(args);
    assert_non_null(noted);
    assert_true(ts_contains(noted, "--tool racecheck\n"));
    assert_true(ts_contains(noted, "--print-limit 50\n"));
    assert_true(ts_contains(noted, "--racecheck-report all\n"));
    assert_true(ts_contains(noted, "--log-file "));
    assert_true(ts_contains(noted, " worker\n"));
    free(noted);
    sanitize_result_free(&res);

    /* memcheck: no racecheck option; a launcher error is the row's message. */
    char bad[CL_PATH_MAX];
    snprintf(bad, sizeof bad, "%s/bad.lua", ts_tmp);
    assert_true(ts_write(bad, "return function(gpu, k, args)\n  local x = = 1\nend\n"));
    ts_data_path(log, sizeof log, "features/exercises/sanitizer/clean.log");
    setenv("FAKE_SANITIZER_LOG", log, 1);
    o.tool = SANITIZE_MEMCHECK;
    o.launcher = bad;
    ok = sanitize_run(&o, &res, &e);
    if (!ok)
        fail_msg("sanitize_run: %s", e.msg);
    assert_true(res.have_row);
    assert_true(ts_contains(res.row.message, "bad.lua:2:"));
    assert_int_equal(res.report.n, 0);
    assert_int_equal(res.report.errors, 0);
    noted = ts_read(args);
    assert_non_null(noted);
    assert_true(ts_contains(noted, "--tool memcheck\n"));
    assert_null(strstr(noted, "--racecheck-report"));
    free(noted);
    sanitize_result_free(&res);

    /* synccheck and initcheck: their own --tool, no racecheck option, and
     * their logs read into findings. */
    static const struct {
        sanitize_tool tool;
        const char *log;
        sanitize_kind kind;
    } more[] = {{SANITIZE_SYNCCHECK, "synccheck_divergent.log", SAN_BARRIER},
                {SANITIZE_INITCHECK, "initcheck_uninit.log", SAN_UNINIT}};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
        ts_data_path(log, sizeof log, "features/exercises/sanitizer/%s", more[i].log);
        setenv("FAKE_SANITIZER_LOG", log, 1);
        o.tool = more[i].tool;
        o.launcher = lua;
        ok = sanitize_run(&o, &res, &e);
        if (!ok)
            fail_msg("sanitize_run: %s", e.msg);
        assert_true(res.have_row);
        assert_int_equal(res.row.status, RS_NO_DEVICE);
        assert_true(res.report.n > 0);
        assert_int_equal(res.report.findings[0].kind, more[i].kind);
        noted = ts_read(args);
        assert_non_null(noted);
        char want[64];
        snprintf(want, sizeof want, "--tool %s\n", sanitize_tool_name(more[i].tool));
        assert_true(ts_contains(noted, want));
        assert_null(strstr(noted, "--racecheck-report"));
        free(noted);
        sanitize_result_free(&res);
    }
}

int main(void)
{
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_consequences_fold),
        cmocka_unit_test(test_memcheck_out_of_bounds),
        cmocka_unit_test(test_memcheck_misaligned_error_and_leak),
        cmocka_unit_test(test_racecheck_hazards_and_analysis),
        cmocka_unit_test(test_racecheck_analysis_old_form_and_barrier),
        cmocka_unit_test(test_synccheck_barriers),
        cmocka_unit_test(test_initcheck_uninitialised),
        cmocka_unit_test(test_clean_and_empty),
        cmocka_unit_test(test_names_and_sizes),
        cmocka_unit_test(test_missing_tool),
        cmocka_unit_test(test_run_with_stand_in_tool),
    };
    return cmocka_run_group_tests(tests, ts_tmp_setup, ts_tmp_teardown);
}

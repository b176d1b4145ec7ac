/* The learner's kernel on a real device.
 *
 *  1. Each lab's starter and reference solution (tests/features/exercises/solutions/)
 *     passes its checks through engine_run at the lab's sizes and at
 *     awkward sizes, and each solution is faster than its starter at the
 *     largest size.
 *  2. Every case of the broken corpus (tests/features/exercises/broken/cases.txt) runs
 *     through the supervisor in a real `cudalab worker` ($CUDALAB_EXE) and
 *     diagnose() names the expected cause; the parent survives every fault
 *     and the next run is correct.
 *  3. A launcher passes every kind of kernel parameter (pointer, 64-bit
 *     integer, float, double, short, bool) through gpu.launch, zeroes the
 *     output with an asynchronous fill before atomic adds, cannot free or
 *     keep the problem's Buffers past their size, and a launcher that never
 *     returns is stopped by the sandbox's budget while the next size runs.
 *  4. compute-sanitizer memcheck, racecheck, synccheck and initcheck,
 *     through sanitize_run, find the bugs planted in
 *     tests/features/exercises/sanitizer/{oob,race,sync,uninit}/ at the line marked
 *     "// PLANTED"; each of the debugging lab's four starters under its tool
 *     reports its bug at the line it is on, and each reference solution
 *     (tests/features/exercises/solutions/debugging/) is correct and clean under the
 *     same tool (skipped with a message when the tool is missing).
 *
 * Each part reports every failing case with what was expected and what came
 * back before failing, so one device run tells everything.  Skips (exit 77)
 * without a device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/paths.h"
#include "core/which.h"
#include "gpu/nvrtc.h"
#include "lab/labmodel.h"
#include "support.h"
#include "supervise/diagnose.h"
#include "engine/engine.h"
#include "supervise/sanitize.h"
#include "supervise/supervisor.h"

#define MAX_SIZES 8
#define REPORT_MAX 16384
#define LOG_SHOWN 8191      /* how much of a run's log a failure quotes */

static char g_tmp[CL_PATH_MAX];
static device_info g_dev;

/* ---- requests and rows ------------------------------------------------------- */

/* A request for the learner's kernel and launcher alone (no shipped rung,
 * no CPU rows); the caller adds the sizes. */
static void exercise_request(run_request *req, int run, const char *problem, double budget_s,
                             const char *kernel, const char *launcher)
{
    memset(req, 0, sizeof *req);
    req->run = run;
    snprintf(req->problem, sizeof req->problem, "%s", problem);
    req->budget_s = budget_s;
    req->cpu = false;
    snprintf(req->exercise_kernel, sizeof req->exercise_kernel, "%s", kernel);
    snprintf(req->exercise_launcher, sizeof req->exercise_launcher, "%s", launcher);
}

static const run_result *exercise_row(const ts_rows *c, const char *size)
{
    return ts_row_of_kind(c, RK_EXERCISE, size);
}

/* A report of failures, printed in one piece. */
typedef struct report {
    char text[REPORT_MAX];
    int failures;
} report;

static void fail_case(report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail_case(report *r, const char *fmt, ...)
{
    size_t len = strlen(r->text);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->text + len, sizeof r->text - len, fmt, ap);
    va_end(ap);
    len = strlen(r->text);
    snprintf(r->text + len, sizeof r->text - len, "\n");
    r->failures++;
}

static void finish(const report *r, const char *part)
{
    if (r->failures) {
        print_error("%s: %d failure%s\n%s", part, r->failures, r->failures == 1 ? "" : "s",
                    r->text);
        fail();
    }
}

/* ---- 1. starters and solutions ------------------------------------------------ */

typedef struct lab_spec {
    const char *lab, *problem;
    const char *fallback[MAX_SIZES];     /* when labs/<lab>/lab.lua cannot be read */
    const char *awkward[MAX_SIZES];
    const char *exercise;   /* a listed exercise's id (its sizes); NULL: the lab's own */
    const char *starter;    /* the starter's file stem in labs/<lab>; NULL: "starter" */
    const char *solution;   /* the folder under features/exercises/solutions; NULL: <lab> */
} lab_spec;

static const lab_spec LABS[] = {
    {"reduction", "reduce_sum", {"2^20", "2^24", "2^28"}, {"1", "3", "1000003", "2^20+3"},
     NULL, NULL, NULL},
    {"matmul", "sgemm", {"1024x1024x1024", "2048x2048x2048", "4096x4096x4096"},
     {"1x1x1", "1000x333x77", "129x127x131"}, NULL, NULL, NULL},
    {"matmul", "gemm_bf16", {"1000x999x1001", "4096x4096x4096"},
     {"1x1x1", "129x127x131", "64x72x40"}, "wmma", "wmma_starter", "matmul_wmma"},
    {"embedding", "embedding", {"4096x1024x32000", "16384x4096x32000"},
     {"3x50x10", "1001x37x999", "1001x36x999"}, NULL, NULL, NULL},
};

/* The lab's sizes from its lab.lua, else the fallback list; returns how many. */
static int lab_sizes(const lab_spec *s, char sizes[][RUN_SIZE_MAX])
{
    char path[CL_PATH_MAX], home[CL_PATH_MAX];
    ts_home_path(path, sizeof path, "labs/%s/lab.lua", s->lab);
    ts_home_path(home, sizeof home, "%s", "");
    lab_diags d = {0};
    lab *l = lab_load(path, home, &d);
    int n = 0;
    const lab_exercise *x = l && s->exercise ? lab_exercise_find(l, s->exercise) : NULL;
    if (l && s->exercise && !x)
        print_message("note: %s has no exercise '%s'; using the sizes built into the test\n", path,
                      s->exercise);
    if (l && (x || !s->exercise)) {
        char *const *v = x ? x->sizes : l->sizes;
        size_t nv = x ? x->nsizes : l->nsizes;
        for (size_t i = 0; i < nv && n < MAX_SIZES; i++)
            snprintf(sizes[n++], RUN_SIZE_MAX, "%s", v[i]);
    }
    if (l) {
        lab_free(l);
    } else {
        print_message("note: %s could not be loaded (%s); using the sizes built into the test\n",
                      path, d.n ? d.v[0].msg : "no reason given");
    }
    lab_diags_free(&d);
    if (n == 0)
        for (int i = 0; i < MAX_SIZES && s->fallback[i]; i++)
            snprintf(sizes[n++], RUN_SIZE_MAX, "%s", s->fallback[i]);
    return n;
}

/* Runs kernel + launcher at sizes through engine_run; a failure of any row
 * goes to rep.  *largest_ms receives the median at sizes[nlab - 1]. */
static void run_exercise(report *rep, const lab_spec *s, const char *who, const char *kernel,
                         const char *launcher, char sizes[][RUN_SIZE_MAX], int n, int nlab,
                         double *largest_ms)
{
    static run_request req;
    exercise_request(&req, 5, s->problem, 0.05, kernel, launcher);
    for (int i = 0; i < n && i < RUN_MAX_SIZES; i++)
        ts_add_size(&req, sizes[i]);
    static ts_rows c;
    run_fault f;
    *largest_ms = 0.0;
    if (!ts_engine_run(&req, &c, &f)) {
        fail_case(rep, "lab %s, %s: the CUDA context broke (%s: %s)\n  log:\n%.*s", s->lab, who,
                  f.cause, f.message, LOG_SHOWN, c.log);
        engine_shutdown();
        return;
    }
    for (int i = 0; i < req.nsizes; i++) {
        const run_result *r = exercise_row(&c, req.sizes[i]);
        if (!r) {
            fail_case(rep, "lab %s, %s, size %s: no exercise row", s->lab, who, req.sizes[i]);
            continue;
        }
        print_message("  %-9s %-8s %-18s %-9s %10.4f ms  rel_err %.2e  %s\n", s->lab, who,
                      r->size, result_status_name(r->status), r->median_ms, r->rel_err,
                      r->status == RS_CORRECT ? "" : r->message);
        if (r->status != RS_CORRECT)
            fail_case(rep, "lab %s, %s, size %s: expected correct, got %s: %s\n  log:\n%.*s",
                      s->lab, who, r->size, result_status_name(r->status), r->message, LOG_SHOWN,
                      c.log);
        else if (!(r->median_ms > 0.0) || r->samples < 1)
            fail_case(rep, "lab %s, %s, size %s: correct but not timed (median %g ms, %d samples)",
                      s->lab, who, r->size, r->median_ms, r->samples);
        if (i == nlab - 1)
            *largest_ms = r->status == RS_CORRECT ? r->median_ms : 0.0;
    }
}

static void test_starters_and_solutions(void **state)
{
    (void)state;
    report *rep = calloc(1, sizeof *rep);
    assert_non_null(rep);
    for (size_t li = 0; li < sizeof LABS / sizeof LABS[0]; li++) {
        const lab_spec *s = &LABS[li];
        if (strcmp(s->problem, "gemm_bf16") == 0 && g_dev.cc_major < 8) {
            print_message("  %s %s: skipped, compute capability %d.%d has no BF16 tensor cores\n",
                          s->lab, s->exercise, g_dev.cc_major, g_dev.cc_minor);
            continue;
        }
        char sizes[2 * MAX_SIZES][RUN_SIZE_MAX];
        int nlab = lab_sizes(s, sizes);
        int n = nlab;
        for (int i = 0; i < MAX_SIZES && s->awkward[i] && n < RUN_MAX_SIZES; i++)
            snprintf(sizes[n++], RUN_SIZE_MAX, "%s", s->awkward[i]);
        /* The largest lab size last among the lab's own, awkward ones after. */
        char cu[CL_PATH_MAX], lua[CL_PATH_MAX];
        double starter_ms = 0.0, solution_ms = 0.0;
        const char *stem = s->starter ? s->starter : "starter";
        const char *sol = s->solution ? s->solution : s->lab;
        ts_home_path(cu, sizeof cu, "labs/%s/%s.cu", s->lab, stem);
        ts_home_path(lua, sizeof lua, "labs/%s/%s.lua", s->lab, stem);
        run_exercise(rep, s, "starter", cu, lua, sizes, n, nlab, &starter_ms);
        ts_data_path(cu, sizeof cu, "features/exercises/solutions/%s/solution.cu", sol);
        ts_data_path(lua, sizeof lua, "features/exercises/solutions/%s/solution.lua", sol);
        run_exercise(rep, s, "solution", cu, lua, sizes, n, nlab, &solution_ms);
        if (starter_ms > 0.0 && solution_ms > 0.0) {
            print_message("  %s at %s: starter %.3f ms, solution %.3f ms (%.1fx)\n", s->lab,
                          sizes[nlab - 1], starter_ms, solution_ms, starter_ms / solution_ms);
            if (!(solution_ms < starter_ms))
                fail_case(rep, "lab %s, size %s: the solution (%.3f ms) is not faster than the "
                               "starter (%.3f ms)",
                          s->lab, sizes[nlab - 1], solution_ms, starter_ms);
        }
    }
    finish(rep, "starters and solutions");
    free(rep);
}

/* ---- 2. the broken corpus through the supervisor ---------------------------------- */

typedef struct sup_run {
    ts_rows c;
    bool faulted;
    run_fault fault;
    bool done;
    device_info dev;
    bool have_dev;
} sup_run;

static void sup_hello(void *ud, const device_info *d)
{
    sup_run *r = ud;
    r->dev = *d;
    r->have_dev = true;
}

static void sup_result(void *ud, const run_result *res)
{
    ts_rows_result(&((sup_run *)ud)->c, res);
}

static void sup_log(void *ud, int level, const char *msg)
{
    ts_rows_log(&((sup_run *)ud)->c, level, msg);
}

static void sup_fault(void *ud, const run_fault *f)
{
    sup_run *r = ud;
    r->faulted = true;
    r->fault = *f;
}

static void sup_done(void *ud, int run)
{
    (void)run;
    ((sup_run *)ud)->done = true;
}

static void sup_progress(void *ud, const run_progress *p)
{
    (void)ud;
    (void)p;
}

/* One exercise run in the worker; false when the parent-side call failed. */
static bool submit(supervisor *s, sup_run *sr, const char *problem, const char *size,
                   const char *kernel, const char *launcher, double limit_s, cl_err *e)
{
    ts_rows_clear(&sr->c);
    sr->faulted = false;
    memset(&sr->fault, 0, sizeof sr->fault);
    sr->done = false;
    static run_request req;
    exercise_request(&req, 0, problem, 0.02, kernel, launcher);
    ts_add_size(&req, size);
    if (!supervisor_submit(s, &req, limit_s, e))
        return false;
    return supervisor_wait(s, req.run);
}

typedef struct broken_case {
    char folder[64], problem[32], size[64], cause[32];
} broken_case;

static int read_cases(broken_case *v, int max)
{
    char path[CL_PATH_MAX];
    ts_data_path(path, sizeof path, "features/exercises/broken/cases.txt");
    char *text = ts_read(path);
    assert_non_null(text);
    int n = 0;
    for (char *line = strtok(text, "\n"); line && n < max; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || line[strspn(line, " \t")] == '\0')
            continue;
        broken_case *c = &v[n];
        if (sscanf(line, "%63s %31s %63s %31s", c->folder, c->problem, c->size, c->cause) == 4)
            n++;
    }
    free(text);
    return n;
}

static bool is_timeout_case(const broken_case *c)
{
    return strcmp(c->cause, "timeout") == 0;
}

static void test_broken_corpus(void **state)
{
    (void)state;
    const char *exe = getenv("CUDALAB_EXE");
    assert_non_null(exe);
    const char *argv[] = {exe, "worker", NULL};
    supervisor_callbacks cb = {sup_hello, sup_progress, sup_result, sup_log, sup_fault, sup_done};
    sup_run *sr = calloc(1, sizeof *sr);
    report *rep = calloc(1, sizeof *rep);
    assert_non_null(sr);
    assert_non_null(rep);
    supervisor_opts so = {.argv = argv, .time_limit_s = 120, .cb = &cb, .ud = sr};
    cl_err e = {{0}};
    supervisor *s = supervisor_new(&so, &e);
    if (!s)
        fail_msg("supervisor_new: %s", e.msg);

    broken_case cases[32];
    int n = read_cases(cases, 32);
    assert_true(n >= 10);
    char good_cu[CL_PATH_MAX], good_lua[CL_PATH_MAX];
    ts_home_path(good_cu, sizeof good_cu, "labs/reduction/starter.cu");
    ts_home_path(good_lua, sizeof good_lua, "labs/reduction/starter.lua");

    for (int i = 0; i < n; i++) {
        const broken_case *bc = &cases[i];
        char cu[CL_PATH_MAX], lua[CL_PATH_MAX];
        ts_data_path(cu, sizeof cu, "features/exercises/broken/%s/starter.cu", bc->folder);
        ts_data_path(lua, sizeof lua, "features/exercises/broken/%s/starter.lua", bc->folder);
        double limit = is_timeout_case(bc) ? 15.0 : 120.0;
        if (!submit(s, sr, bc->problem, bc->size, cu, lua, limit, &e)) {
            fail_case(rep, "case %s: the parent could not run it: %s", bc->folder, e.msg);
            continue;
        }
        const run_result *row = exercise_row(&sr->c, bc->size);
        diag_input in;
        diag_input_init(&in);
        in.spec = ts_shipped_spec(bc->problem);
        in.time_limit_s = limit;
        if (row)
            diag_input_from_result(&in, row);
        if (sr->faulted)
            diag_input_from_fault(&in, &sr->fault);
        nvrtc_output prog;
        char arch[16];
        snprintf(arch, sizeof arch, "sm_%d%d", g_dev.cc_major, g_dev.cc_minor);
        cl_err ce = {{0}};
        bool compiled = nvrtc_compile(cu, arch, &prog, &ce);
        if (!compiled && prog.compile_error)
            ts_diag_from_compile(&in, &prog);
        static char printed[16384];
        supervisor_output(s, printed, sizeof printed);
        in.device_output = printed;
        diagnosis d;
        diagnose(&in, &d);
        const char *got = diag_cause_name(d.cause);
        bool ok = strcmp(got, bc->cause) == 0 ||
                  (strcmp(bc->folder, "nan_unzeroed") == 0 && strcmp(got, "unwritten") == 0);
        /* A failed assert is named with its expression and line. */
        if (ok && strcmp(bc->folder, "assert_fails") == 0 &&
            (!strstr(d.where, "starter.cu:11") || !strstr(d.explanation, "i < n / 2"))) {
            fail_case(rep, "case assert_fails: where '%s', explanation '%s'", d.where,
                      d.explanation);
        }
        /* A write past the end of an output: the guard after the buffer saw it. */
        if (ok && strcmp(bc->folder, "write_past_end") == 0 &&
            (!row || !strstr(row->message, "wrote past the end of z"))) {
            fail_case(rep, "case write_past_end: the row does not say the kernel wrote past "
                           "the end of z: '%s'", row ? row->message : "(no row)");
        }
        /* A flood of printf: the first lines reach the log, the rest are counted. */
        if (ok && strcmp(bc->folder, "printf_flood") == 0 &&
            (!strstr(sr->c.log, "printed: thread") || !strstr(sr->c.log, "printed lines not shown"))) {
            fail_case(rep, "case printf_flood: the log has no printed lines or no count of "
                           "the rest:\n%.*s", LOG_SHOWN, sr->c.log);
        }
        print_message("  %-18s expected %-14s got %-14s %s%s%s\n", bc->folder, bc->cause, got,
                      sr->faulted ? sr->fault.cause : "",
                      sr->faulted ? ": " : "",
                      sr->faulted ? sr->fault.message : row ? row->message : "(no row)");
        if (!ok)
            fail_case(rep,
                      "case %s (%s %s): expected cause %s, got %s (%s)\n  row: %s%s%s\n  fault: "
                      "%s%s%s\n  worker log:\n%.*s",
                      bc->folder, bc->problem, bc->size, bc->cause, got, d.title,
                      row ? result_status_name(row->status) : "none", row ? ": " : "",
                      row ? row->message : "", sr->faulted ? sr->fault.cause : "none",
                      sr->faulted ? ": " : "", sr->faulted ? sr->fault.message : "", LOG_SHOWN,
                      sr->c.log);
        nvrtc_output_free(&prog);

        /* The parent survived; after a fault the next run gets a fresh worker. */
        if (sr->faulted) {
            if (!submit(s, sr, "reduce_sum", "2^20", good_cu, good_lua, 120.0, &e)) {
                fail_case(rep, "after case %s: the next run could not start: %s", bc->folder,
                          e.msg);
                continue;
            }
            const run_result *next = exercise_row(&sr->c, "2^20");
            if (sr->faulted || !next || next->status != RS_CORRECT)
                fail_case(rep, "after case %s: the next run was not correct (%s%s%s)", bc->folder,
                          sr->faulted ? sr->fault.message : "",
                          next ? result_status_name(next->status) : "no row",
                          next ? next->message : "");
        }
    }
    supervisor_free(s);
    finish(rep, "broken corpus");
    free(rep);
    free(sr);
}

/* ---- 3. the launcher API -------------------------------------------------------- */

static void test_launcher_api(void **state)
{
    (void)state;
    char cu[CL_PATH_MAX], lua[CL_PATH_MAX];
    ts_data_path(cu, sizeof cu, "features/exercises/gpuapi/starter.cu");
    ts_data_path(lua, sizeof lua, "features/exercises/gpuapi/starter.lua");
    static run_request req;
    exercise_request(&req, 9, "reduce_sum", 0.02, cu, lua);
    static const char *const sizes[] = {"1000", "2000", "3000", "5000", "4000"};
    for (int i = 0; i < 5; i++)
        ts_add_size(&req, sizes[i]);
    static ts_rows c;
    run_fault f;
    report *rep = calloc(1, sizeof *rep);
    assert_non_null(rep);
    if (!ts_engine_run(&req, &c, &f)) {
        print_error("the CUDA context broke: %s: %s\nlog:\n%.*s", f.cause, f.message, LOG_SHOWN,
                    c.log);
        fail();
    }
    static const struct {
        const char *size;
        result_status status;
        const char *text;
    } want[] = {
        {"1000", RS_CORRECT, ""},
        {"2000", RS_ERROR, "starter.lua:12: sum_scaled: argument 1 is a Buffer that was freed"},
        {"3000", RS_ERROR, "starter.lua:15: this Buffer belongs to cudalab"},
        {"5000", RS_ERROR, "starter.lua:17: script ran longer than 5000 ms"},
        {"4000", RS_CORRECT, ""},
    };
    for (int i = 0; i < 5; i++) {
        const run_result *r = exercise_row(&c, want[i].size);
        if (!r) {
            fail_case(rep, "size %s: no exercise row", want[i].size);
            continue;
        }
        print_message("  size %-5s %-8s %s\n", r->size, result_status_name(r->status), r->message);
        if (r->status != want[i].status || !strstr(r->message, want[i].text))
            fail_case(rep, "size %s: expected %s \"%s\", got %s \"%s\"", want[i].size,
                      result_status_name(want[i].status), want[i].text,
                      result_status_name(r->status), r->message);
    }
    if (rep->failures)
        print_error("log:\n%.*s", LOG_SHOWN, c.log);
    finish(rep, "launcher API");
    free(rep);
}

/* ---- 4. compute-sanitizer ---------------------------------------------------------- */

/* Line number of the line holding the marker "// PLANTED" in path, or 0. */
static int planted_line(const char *path)
{
    char *text = ts_read(path);
    assert_non_null(text);
    int line = 1, found = 0;
    for (const char *p = text; *p && !found; p++) {
        if (strncmp(p, "// PLANTED", 10) == 0)
            found = line;
        if (*p == '\n')
            line++;
    }
    free(text);
    return found;
}

/* Line number of the nth (1-based) line of path holding text, or 0. */
static int line_of(const char *path, const char *text, int nth)
{
    char *all = ts_read(path);
    assert_non_null(all);
    int line = 1, found = 0;
    for (const char *p = all; *p && !found; line++) {
        size_t len = strcspn(p, "\n");
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), p);
        if (strstr(buf, text) && --nth == 0)
            found = line;
        p += len;
        if (*p == '\n')
            p++;
    }
    free(all);
    return found;
}

/* A kernel and launcher under one tool, and what the tool must report. */
typedef struct san_case {
    sanitize_tool tool;
    const char *what;              /* for messages: "oob", "lab debugging/race" */
    const char *problem, *lab;
    const char *cu, *lua;
    const char *size;              /* the smallest size, the one that runs */
    const char *kernel;            /* the kernel the finding names */
    sanitize_kind kinds[2];        /* the finding's kind: one of these */
    int nkinds;
    int lines[2];                  /* its line (or its race partner's): one of these */
    int nlines;
    int slack;                     /* lines above each accepted too */
    bool clean;                    /* a fixed kernel: correct, and no finding at all */
} san_case;

static bool finding_matches(const san_case *k, const sanitize_finding *f)
{
    bool kind = false, at = false;
    for (int i = 0; i < k->nkinds; i++)
        kind |= f->kind == k->kinds[i];
    for (int i = 0; i < k->nlines; i++) {
        int l = k->lines[i];
        at |= (f->line <= l && f->line >= l - k->slack) ||
              (f->line2 <= l && f->line2 >= l - k->slack);
    }
    return kind && at && strcmp(f->file, "starter.cu") == 0 && strcmp(f->kernel, k->kernel) == 0;
}

static void sanitize_expect(report *rep, const san_case *k)
{
    const char *tool = sanitize_tool_name(k->tool);
    const char *sizes[] = {"2^20", k->size};
    sanitize_opts o = {
        .tool = k->tool,
        .problem = k->problem,
        .spec = ts_shipped_spec(k->problem),
        .lab = k->lab,
        .sizes = sizes,
        .nsizes = 2,
        .kernel = k->cu,
        .launcher = k->lua,
        .time_limit_s = 300,
        .self = getenv("CUDALAB_EXE"),
    };
    sanitize_result res;
    cl_err e = {{0}};
    if (!sanitize_run(&o, &res, &e)) {
        fail_case(rep, "%s on %s: could not run: %s", tool, k->what, e.msg);
        sanitize_result_free(&res);
        return;
    }
    print_message("  %s on %s (size %s): row %s%s%s; %zu finding(s), tool exit %d\n", tool,
                  k->what, res.size, res.have_row ? result_status_name(res.row.status) : "none",
                  res.faulted ? ", fault " : "", res.faulted ? res.fault.message : "",
                  res.report.n, res.exit_status);
    bool found = false;
    for (size_t i = 0; i < res.report.n; i++) {
        const sanitize_finding *f = &res.report.findings[i];
        char text[1024];
        sanitize_finding_format(f, text, sizeof text);
        print_message("    %s\n", text);
        found |= !k->clean && finding_matches(k, f);
    }
    if (strcmp(res.size, k->size) != 0)
        fail_case(rep, "%s on %s: ran size %s, expected the smallest, %s", tool, k->what,
                  res.size, k->size);
    if (k->clean && (res.report.n > 0 || !res.have_row || res.row.status != RS_CORRECT ||
                     res.faulted))
        fail_case(rep,
                  "%s on %s: expected a correct row and no finding, got row %s (%s), %zu "
                  "finding(s), fault %s\n  log:\n%s\n  worker log:\n%s",
                  tool, k->what, res.have_row ? result_status_name(res.row.status) : "none",
                  res.have_row ? res.row.message : "", res.report.n,
                  res.faulted ? res.fault.message : "(none)", res.log, res.worker_log);
    if (!k->clean && !found)
        fail_case(rep,
                  "%s on %s: no %s finding in %s at starter.cu:%d%s%.0d\n  tool: %s\n  row: "
                  "%s\n  fault: %s\n  log:\n%s\n  output:\n%s\n  worker log:\n%s",
                  tool, k->what, sanitize_kind_name(k->kinds[0]), k->kernel, k->lines[0],
                  k->nlines > 1 ? " or :" : "", k->nlines > 1 ? k->lines[1] : 0, res.tool_path,
                  res.have_row ? res.row.message : "(none)",
                  res.faulted ? res.fault.message : "(none)", res.log, res.output, res.worker_log);
    sanitize_result_free(&res);
}

/* A bug planted in tests/features/exercises/sanitizer/<folder>/ at the line marked
 * PLANTED.  slack: how many lines above the marked one are accepted too (a
 * load under an if may be attributed to the condition's line). */
static void sanitize_case(report *rep, sanitize_tool tool, const char *folder, const char *size,
                          sanitize_kind want, int slack, const char *kernel)
{
    char cu[CL_PATH_MAX], lua[CL_PATH_MAX];
    ts_data_path(cu, sizeof cu, "features/exercises/sanitizer/%s/starter.cu", folder);
    ts_data_path(lua, sizeof lua, "features/exercises/sanitizer/%s/starter.lua", folder);
    int line = planted_line(cu);
    assert_true(line > 0);
    san_case k = {.tool = tool, .what = folder, .problem = "reduce_sum", .lab = "reduction",
                  .cu = cu, .lua = lua, .size = size, .kernel = kernel,
                  .kinds = {want}, .nkinds = 1, .lines = {line}, .nlines = 1, .slack = slack};
    /* A barrier in a branch: synccheck names the planted barrier ("in
     * warp") or the next one, where the threads that skipped it waited ("in
     * block"); on an H100 one run gave both and the next only the second. */
    if (want == SAN_BARRIER) {
        k.lines[1] = line_of(cu, "__syncthreads();", 2);
        assert_true(k.lines[1] > line);
        k.nlines = 2;
    }
    sanitize_expect(rep, &k);
}

/* The debugging lab (labs/debugging): each exercise's starter under its
 * tool, the bug at the line it is on (found by its text, so the starters
 * carry no marker), then the reference solution, clean.  The lab runs the
 * smallest of its sizes, 100003: odd, so the last block is partly full. */
static void debugging_lab_cases(report *rep)
{
    static const struct {
        const char *id, *problem, *kernel;
        sanitize_tool tool;
        sanitize_kind kinds[2];
        int nkinds;
        const char *anchor[2];     /* the text of the accepted lines */
        int nth[2];                /* which occurrence of it */
        int nlines;
    } ex[] = {
        {"oob", "saxpy", "saxpy", SANITIZE_MEMCHECK, {SAN_INVALID_READ, SAN_INVALID_WRITE}, 2,
         {"z[i] = a * x[i] + y[i];"}, {1}, 1},
        {"race", "reduce_sum", "reduce_sum", SANITIZE_RACECHECK, {SAN_RACE}, 1,
         {"partial[tid] = i <", "partial[tid] += partial[tid + s];"}, {1, 1}, 2},
        /* the barrier inside the if ("in warp") or the tree's first one,
         * where the threads past n waited instead ("in block") */
        {"divergent_barrier", "reduce_sum", "reduce_sum", SANITIZE_SYNCCHECK, {SAN_BARRIER}, 1,
         {"__syncthreads();", "__syncthreads();"}, {1, 2}, 2},
        {"uninit", "reduce_sum", "final_sum", SANITIZE_INITCHECK, {SAN_UNINIT}, 1,
         {"partial[tid] = partials[tid];"}, {1}, 1},
    };
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        char cu[CL_PATH_MAX], lua[CL_PATH_MAX], what[128];
        ts_home_path(cu, sizeof cu, "labs/debugging/%s/starter.cu", ex[i].id);
        ts_home_path(lua, sizeof lua, "labs/debugging/%s/starter.lua", ex[i].id);
        snprintf(what, sizeof what, "debugging/%s (starter)", ex[i].id);
        san_case k = {.tool = ex[i].tool, .what = what, .problem = ex[i].problem,
                      .lab = "debugging", .cu = cu, .lua = lua, .size = "100003",
                      .kernel = ex[i].kernel, .nkinds = ex[i].nkinds, .nlines = ex[i].nlines};
        for (int j = 0; j < ex[i].nkinds; j++)
            k.kinds[j] = ex[i].kinds[j];
        for (int j = 0; j < ex[i].nlines; j++) {
            k.lines[j] = line_of(cu, ex[i].anchor[j], ex[i].nth[j]);
            assert_true(k.lines[j] > 0);
        }
        sanitize_expect(rep, &k);

        ts_data_path(cu, sizeof cu, "features/exercises/solutions/debugging/%s/solution.cu", ex[i].id);
        ts_data_path(lua, sizeof lua, "features/exercises/solutions/debugging/%s/solution.lua", ex[i].id);
        snprintf(what, sizeof what, "debugging/%s (solution)", ex[i].id);
        k.what = what;
        k.cu = cu;
        k.lua = lua;
        k.clean = true;
        sanitize_expect(rep, &k);
    }
}

static void test_sanitizer_finds_planted_bugs(void **state)
{
    (void)state;
    char tool[1024];
    if (!which_tool("compute-sanitizer", tool, sizeof tool)) {
        print_message("SKIP (this part): compute-sanitizer not found on PATH, $CUDA_HOME/bin or "
                      "/usr/local/cuda/bin\n");
        return;
    }
    report *rep = calloc(1, sizeof *rep);
    assert_non_null(rep);
    sanitize_case(rep, SANITIZE_MEMCHECK, "oob", "1000", SAN_INVALID_READ, 1, "reduce_sum");
    sanitize_case(rep, SANITIZE_RACECHECK, "race", "4096", SAN_RACE, 0, "reduce_sum");
    /* 4099: n % 256 = 3, so three lanes of the first warp of every block
     * wait at the planted barrier and the rest do not */
    sanitize_case(rep, SANITIZE_SYNCCHECK, "sync", "4099", SAN_BARRIER, 0, "reduce_sum");
    /* 4099 elements are 17 blocks: entries 17 to 255 of the scratch are read
     * unwritten */
    sanitize_case(rep, SANITIZE_INITCHECK, "uninit", "4099", SAN_UNINIT, 0, "total");
    debugging_lab_cases(rep);
    finish(rep, "compute-sanitizer");
    free(rep);
}

/* printf debugging as a learner starts it: every one of 2^20 threads prints
 * a line, run from the command line.  The run ends within 5 s (not at the
 * time limit), shows the first lines, counts the rest, and blames nothing:
 * the sum is right and the exit status 0. */
static void test_printf_flood_cli(void **state)
{
    (void)state;
    char ws[CL_PATH_MAX + 32], dir[CL_PATH_MAX + 48], cu[CL_PATH_MAX], lua[CL_PATH_MAX];
    snprintf(ws, sizeof ws, "%s/ws-printf", g_tmp);
    snprintf(dir, sizeof dir, "%s/reduction", ws);
    cl_err e = {{0}};
    assert_true(paths_mkdir_p(dir, &e));
    ts_data_path(cu, sizeof cu, "features/exercises/broken/printf_flood/starter.cu");
    ts_data_path(lua, sizeof lua, "features/exercises/broken/printf_flood/starter.lua");
    ts_output o = {0};
    assert_int_equal(ts_shell(&o, false, "cp '%s' '%s' '%s/'", cu, lua, dir), 0);
    ts_output_free(&o);
    double t0 = clock_now_s();
    int rc = ts_shell(&o, true, "'%s' --workspace '%s' run reduction --exercise --size 2^20 "
                      "--no-cpu --variant exercise", ts_exe(), ws);
    double took = clock_now_s() - t0;
    print_message("  printf from 2^20 threads: exit %d in %.2f s\n%s\n", rc, took,
                  o.out ? o.out : "");
    assert_int_equal(rc, 0);
    assert_true(took < 5.0);
    assert_true(ts_contains(o.out, "thread "));
    assert_true(ts_contains(o.out, "more printed lines not shown"));
    assert_false(ts_contains(o.out, "deadlock"));
    assert_false(ts_contains(o.out, "loop forever"));
    ts_output_free(&o);
}

static int setup(void **state)
{
    (void)state;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return 0;
}

int main(void)
{
    if (!ts_tmpdir(g_tmp, sizeof g_tmp, "ex"))
        return 1;
    ts_data_home(g_tmp);
    engine_probe(&g_dev);
    if (!g_dev.present) {
        printf("SKIP: %s\n", g_dev.reason);
        ts_rm_rf(g_tmp);
        return 77;
    }
    printf("%s, cc %d.%d, %d SMs\n", g_dev.name, g_dev.cc_major, g_dev.cc_minor, g_dev.sm_count);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_starters_and_solutions),
        cmocka_unit_test(test_broken_corpus),
        cmocka_unit_test(test_launcher_api),
        cmocka_unit_test(test_sanitizer_finds_planted_bugs),
        cmocka_unit_test(test_printf_flood_cli),
    };
    int rc = cmocka_run_group_tests(tests, setup, teardown);
    engine_shutdown();
    ts_rm_rf(g_tmp);
    return rc;
}

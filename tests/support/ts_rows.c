#include "support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

void ts_rows_progress(void *ud, const run_progress *p)
{
    ts_rows *c = ud;
    c->nprogress++;
    if (strcmp(p->phase, "cpu") == 0)
        c->cpu_progress++;
}

void ts_rows_result(void *ud, const run_result *r)
{
    ts_rows *c = ud;
    if (c->nrows < TS_MAX_ROWS)
        c->rows[c->nrows++] = *r;
}

void ts_rows_log(void *ud, int level, const char *msg)
{
    ts_rows *c = ud;
    size_t len = strlen(c->log);
    snprintf(c->log + len, sizeof c->log - len, "[%d] %s\n", level, msg);
    if (c->nlogs < TS_MAX_LOGS) {
        snprintf(c->logs[c->nlogs], sizeof c->logs[0], "%s", msg);
        c->levels[c->nlogs++] = level;
    }
    if (c->echo)
        print_message("log %d: %s\n", level, msg);
}

engine_sink ts_rows_sink(ts_rows *c)
{
    engine_sink sink = {ts_rows_progress, ts_rows_result, ts_rows_log, c};
    return sink;
}

void ts_rows_clear(ts_rows *c)
{
    bool echo = c->echo;
    memset(c, 0, sizeof *c);
    c->echo = echo;
}

bool ts_run(ts_run_fn run, const run_request *req, ts_rows *c, run_fault *fault)
{
    run_fault local;
    if (!fault)
        fault = &local;
    ts_rows_clear(c);
    engine_sink sink = ts_rows_sink(c);
    memset(fault, 0, sizeof *fault);
    return run(req, &sink, fault);
}

bool ts_engine_run(const run_request *req, ts_rows *c, run_fault *fault)
{
    return ts_run(dispatch_run, req, c, fault);
}

const run_result *ts_row(const ts_rows *c, const char *variant, const char *size)
{
    for (int i = 0; i < c->nrows; i++)
        if (strcmp(c->rows[i].variant, variant) == 0 &&
            (!size || strcmp(c->rows[i].size, size) == 0))
            return &c->rows[i];
    return NULL;
}

const run_result *ts_row_of_kind(const ts_rows *c, result_kind kind, const char *size)
{
    for (int i = 0; i < c->nrows; i++)
        if (c->rows[i].kind == kind && (!size || strcmp(c->rows[i].size, size) == 0))
            return &c->rows[i];
    return NULL;
}

void ts_rows_dump(const ts_rows *c)
{
    for (int i = 0; i < c->nrows; i++) {
        const run_result *r = &c->rows[i];
        print_message("  %-9s %-12s %-8s %10.3f ms  %8.2f GB/s  x cpu %6.2f  x starter %6.2f  %s\n",
                      r->variant, r->size, result_status_name(r->status), r->median_ms, r->gbps,
                      r->speedup_cpu, r->speedup_starter, r->message);
    }
    print_message("log:\n%s", c->log);
}

void ts_add_size(run_request *req, const char *size)
{
    assert_true(req->nsizes < RUN_MAX_SIZES);
    snprintf(req->sizes[req->nsizes++], RUN_SIZE_MAX, "%s", size);
}

void ts_add_variant(run_request *req, const char *id, const char *kernel)
{
    assert_true(req->nvariants < RUN_MAX_VARIANTS);
    run_variant *v = &req->variants[req->nvariants++];
    snprintf(v->id, sizeof v->id, "%s", id);
    if (kernel)
        snprintf(v->kernel, sizeof v->kernel, "%s", kernel);
}

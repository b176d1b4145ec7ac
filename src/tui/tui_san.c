#include "core/strfmt.h"
#include "tui/tui_san.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tui/tui_job.h"

static size_t finding(char *buf, size_t n, size_t at, size_t i, const sanitize_finding *f)
{
    bool pair = f->kind == SAN_RACE && f->file2[0] && f->line2 > 0 &&
                !(strcmp(f->file, f->file2) == 0 && f->line == f->line2);
    const char *detail = f->detail[0] ? f->detail : f->headline;
    at = strfmt_append(buf, n, at, "%zu. %s%s%s%s", i + 1, f->warning ? "warning: " : "", f->hazard[0] ? f->hazard : "",
              f->hazard[0] ? " " : "", sanitize_kind_name(f->kind));
    if (f->size > 0 && f->kind != SAN_LEAK && f->kind != SAN_RACE)
        at = strfmt_append(buf, n, at, " of %d byte%s", f->size, f->size == 1 ? "" : "s");
    if (f->space[0])
        at = strfmt_append(buf, n, at, " %s %s memory", f->kind == SAN_INVALID_WRITE ? "to" : f->kind == SAN_RACE ? "on" : "in",
                  f->space);
    if (f->kernel[0])
        at = strfmt_append(buf, n, at, " in %s", f->kernel);
    at = strfmt_append(buf, n, at, "\n");
    if (f->file[0] && f->line > 0) {
        at = strfmt_append(buf, n, at, "   at %s:%d", f->file, f->line);
        if (pair)
            at = strfmt_append(buf, n, at, " and %s:%d", f->file2, f->line2);
        if (f->has_thread && f->has_block)
            at = strfmt_append(buf, n, at, ", thread (%d,%d,%d) of block (%d,%d,%d)", f->thread[0], f->thread[1],
                      f->thread[2], f->block[0], f->block[1], f->block[2]);
        else if (f->has_block)
            at = strfmt_append(buf, n, at, ", block (%d,%d,%d)", f->block[0], f->block[1], f->block[2]);
        at = strfmt_append(buf, n, at, "\n");
    } else if (f->has_thread && f->has_block) {
        at = strfmt_append(buf, n, at, "   thread (%d,%d,%d) of block (%d,%d,%d)\n", f->thread[0], f->thread[1],
                  f->thread[2], f->block[0], f->block[1], f->block[2]);
    }
    if (detail[0])
        at = strfmt_append(buf, n, at, "   %s\n", detail);
    if (f->kind == SAN_RACE && f->hazards > 0)
        at = strfmt_append(buf, n, at, "   %lld hazard%s counted\n", f->hazards, f->hazards == 1 ? "" : "s");
    else if (f->count > 1)
        at = strfmt_append(buf, n, at, "   reported %d times\n", f->count);
    return at;
}

int tui_san_format(const sanitize_result *r, sanitize_tool tool, char *buf, size_t n)
{
    const char *name = sanitize_tool_name(tool);
    size_t at = 0;
    bool races = false;
    if (n > 0)
        buf[0] = '\0';
    at = strfmt_append(buf, n, at, "compute-sanitizer %s ran your kernel once%s%s (checked, not timed).\n", name,
              r->size[0] ? " at size " : "", r->size);
    if (r->have_dev && !r->dev.present)
        at = strfmt_append(buf, n, at, "%s\n", r->dev.reason[0] ? r->dev.reason : "no CUDA device found");
    if (r->have_row)
        at = strfmt_append(buf, n, at, "Result: %s%s%s\n", result_status_text(r->row.status), r->row.message[0] ? ": " : "",
                  r->row.message);
    if (r->faulted)
        at = strfmt_append(buf, n, at, "The worker failed (%s): %s\n", r->fault.cause, r->fault.message);
    for (size_t i = 0; i < r->report.n; i++)
        races |= r->report.findings[i].kind == SAN_RACE;
    if (r->report.n == 0) {
        bool ran = r->have_row && r->row.status != RS_ERROR && !r->faulted;
        at = strfmt_append(buf, n, at, "\n%s found no problems%s\n", name,
                  ran ? "." : ", but the kernel did not run, so there was nothing to check.");
    } else {
        at = strfmt_append(buf, n, at, "\n%s found %zu problem%s:\n\n", name, r->report.n, r->report.n == 1 ? "" : "s");
        for (size_t i = 0; i < r->report.n; i++) {
            at = finding(buf, n, at, i, &r->report.findings[i]);
            at = strfmt_append(buf, n, at, "\n");
        }
    }
    if (races && r->have_row && r->row.status == RS_CORRECT)
        at = strfmt_append(buf, n, at, "The result was correct this time. A race that happens to give the right "
                              "answer is still a race: the next run, size or GPU may not be as lucky.\n");
    if (r->report.errors > 0)
        at = strfmt_append(buf, n, at, "The tool counted %d error%s.\n", r->report.errors, r->report.errors == 1 ? "" : "s");
    if (r->report.leaked_bytes > 0)
        at = strfmt_append(buf, n, at, "%lld bytes were never freed.\n", r->report.leaked_bytes);
    return (int)at;
}

int tui_san_child(void *ud, int fd)
{
    tui_san_job *j = ud;
    const char *sizes[RUN_MAX_SIZES];
    sanitize_opts o;
    sanitize_result res;
    cl_err e = {{0}};
    static char text[32768];
    for (int i = 0; i < j->nsizes && i < RUN_MAX_SIZES; i++)
        sizes[i] = j->sizes[i];
    memset(&o, 0, sizeof o);
    o.tool = j->tool;
    o.problem = j->problem;
    o.spec = j->spec;
    o.lab = j->lab[0] ? j->lab : NULL;
    o.lab_file = j->lab_file[0] ? j->lab_file : NULL;
    o.sizes = sizes;
    o.nsizes = j->nsizes;
    o.kernel = j->kernel;
    o.launcher = j->launcher;
    o.time_limit_s = j->time_limit_s;
    if (!sanitize_run(&o, &res, &e)) {
        sanitize_result_free(&res);
        tui_job_write(fd, "ERR\n");
        tui_job_write(fd, e.msg);
        return 1;
    }
    tui_san_format(&res, j->tool, text, sizeof text);
    sanitize_result_free(&res);
    tui_job_write(fd, "OK\n");
    tui_job_write(fd, text);
    return 0;
}

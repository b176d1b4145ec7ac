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

int tui_san_format(const sanitize_result *result, sanitize_tool tool, char *buf, size_t buf_size)
{
    const char *name = sanitize_tool_name(tool);
    size_t at = 0;
    bool races = false;
    if (buf_size > 0)
        buf[0] = '\0';
    at = strfmt_append(buf, buf_size, at,
                       "compute-sanitizer %s ran your kernel once%s%s (checked, not timed).\n",
                       name, result->size[0] ? " at size " : "", result->size);
    if (result->have_dev && !result->dev.present)
        at = strfmt_append(buf, buf_size, at, "%s\n",
                           result->dev.reason[0] ? result->dev.reason : "no CUDA device found");
    if (result->have_row)
        at = strfmt_append(buf, buf_size, at, "Result: %s%s%s\n",
                           result_status_text(result->row.status),
                           result->row.message[0] ? ": " : "", result->row.message);
    if (result->faulted)
        at = strfmt_append(buf, buf_size, at, "The worker failed (%s): %s\n", result->fault.cause,
                           result->fault.message);
    for (size_t i = 0; i < result->report.n; i++)
        races |= result->report.findings[i].kind == SAN_RACE;
    if (result->report.n == 0) {
        bool ran = result->have_row && result->row.status != RS_ERROR && !result->faulted;
        at = strfmt_append(buf, buf_size, at, "\n%s found no problems%s\n", name,
                  ran ? "." : ", but the kernel did not run, so there was nothing to check.");
    } else {
        at = strfmt_append(buf, buf_size, at, "\n%s found %zu problem%s:\n\n", name,
                           result->report.n, result->report.n == 1 ? "" : "s");
        for (size_t i = 0; i < result->report.n; i++) {
            at = finding(buf, buf_size, at, i, &result->report.findings[i]);
            at = strfmt_append(buf, buf_size, at, "\n");
        }
    }
    if (races && result->have_row && result->row.status == RS_CORRECT)
        at = strfmt_append(
            buf, buf_size, at,
            "The result was correct this time. A race that happens to give the right "
            "answer is still a race: the next run, size or GPU may not be as lucky.\n");
    if (result->report.errors > 0)
        at = strfmt_append(buf, buf_size, at, "The tool counted %d error%s.\n",
                           result->report.errors, result->report.errors == 1 ? "" : "s");
    if (result->report.leaked_bytes > 0)
        at = strfmt_append(buf, buf_size, at, "%lld bytes were never freed.\n",
                           result->report.leaked_bytes);
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

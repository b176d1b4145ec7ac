/* engine_row.c - a result row's life and the messages about it, shared by
 * the engine and the experiments (engine/engine_row.h). */
#include "engine/engine_row.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "core/strfmt.h"
#include "gpu/cudacheck.h"

void engine_row_start(const row_channel *rows, run_result *row, const char *variant,
                      const char *label, result_kind kind)
{
    run_result_init(row);
    row->run = rows->run;
    snprintf(row->variant, sizeof row->variant, "%s", variant);
    snprintf(row->label, sizeof row->label, "%s", label);
    snprintf(row->size, sizeof row->size, "%s", rows->size);
    snprintf(row->exercise, sizeof row->exercise, "%s", rows->exercise);
    row->kind = kind;
    row->status = RS_ERROR;
}

void engine_row_error(run_result *row, const char *msg)
{
    row->status = RS_ERROR;
    snprintf(row->message, sizeof row->message, "%s", msg);
}

void engine_row_no_device(run_result *row, const char *why)
{
    row->status = RS_NO_DEVICE;
    snprintf(row->message, sizeof row->message, "%s", why);
}

void engine_row_note(run_result *row, const char *fmt, ...)
{
    size_t len = strlen(row->message);
    if (len && len + 2 < sizeof row->message)
        len = strfmt_append(row->message, sizeof row->message, len, "; ");
    va_list ap;
    va_start(ap, fmt);
    (void)strfmt_vappend(row->message, sizeof row->message, len, fmt, ap);
    va_end(ap);
}

void engine_row_emit(row_channel *rows, run_result *row)
{
    row->run = rows->run;
    if (rows->sink && rows->sink->result)
        rows->sink->result(rows->sink->ud, row);
    rows->variant = NULL;
}

/* Whether a progress message now would come too soon after the last one:
 * the same phase of the same row, within progress_every_s. */
static bool progress_too_soon(const row_channel *rows, const char *phase, const char *variant,
                              double now)
{
    return rows->progress_every_s > 0.0 && strcmp(phase, rows->last_phase) == 0 &&
           strcmp(variant, rows->last_variant) == 0 &&
           now - rows->last_sent < rows->progress_every_s;
}

void engine_row_progress(row_channel *rows, const char *phase, int rep, int of)
{
    if (!rows->sink || !rows->sink->progress)
        return;
    const char *variant = rows->variant ? rows->variant : "";
    double now = clock_now_s();
    if (progress_too_soon(rows, phase, variant, now))
        return;
    snprintf(rows->last_phase, sizeof rows->last_phase, "%s", phase);
    snprintf(rows->last_variant, sizeof rows->last_variant, "%s", variant);
    rows->last_sent = now;
    run_progress p;
    memset(&p, 0, sizeof p);
    p.run = rows->run;
    snprintf(p.variant, sizeof p.variant, "%s", variant);
    snprintf(p.size, sizeof p.size, "%s", rows->size ? rows->size : "");
    snprintf(p.exercise, sizeof p.exercise, "%s", rows->exercise);
    snprintf(p.phase, sizeof p.phase, "%s", phase);
    p.rep = rep;
    p.of = of;
    rows->sink->progress(rows->sink->ud, &p);
}

void engine_row_log(const row_channel *rows, int level, const char *msg)
{
    if (rows->sink && rows->sink->log)
        rows->sink->log(rows->sink->ud, level, msg);
}

cudaError_t engine_row_sticky_error(cudaError_t *failed)
{
    cudaError_t code = cudacheck_last();
    cudaError_t s1 = cudaDeviceSynchronize();
    cudaError_t s2 = cudaGetLastError();
    *failed = code;
    return cudacheck_is_sticky(code) ? code
           : cudacheck_is_sticky(s1) ? s1
           : cudacheck_is_sticky(s2) ? s2
                                      : cudaSuccess;
}

void engine_row_fault(const row_channel *rows, const char *variant, cudaError_t sticky,
                      const char *detail)
{
    run_fault *f = rows->fault;
    memset(f, 0, sizeof *f);
    f->run = rows->run;
    snprintf(f->variant, sizeof f->variant, "%s", variant);
    snprintf(f->cause, sizeof f->cause, "cuda");
    if (detail)
        snprintf(f->message, sizeof f->message, "%s (%s)", detail, cudacheck_plain(sticky));
    else
        snprintf(f->message, sizeof f->message, "%s", cudacheck_plain(sticky));
    f->code = (int)sticky;
}

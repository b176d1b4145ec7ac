#include "supervise/sanitize.h"

#include <stdio.h>
#include <string.h>

/* ---- names ------------------------------------------------------------- */

const char *sanitize_tool_name(sanitize_tool t)
{
    return t == SANITIZE_RACECHECK ? "racecheck" : "memcheck";
}

bool sanitize_tool_from_name(const char *name, sanitize_tool *t)
{
    if (name && strcmp(name, "memcheck") == 0)
        *t = SANITIZE_MEMCHECK;
    else if (name && strcmp(name, "racecheck") == 0)
        *t = SANITIZE_RACECHECK;
    else
        return false;
    return true;
}

const char *sanitize_kind_name(sanitize_kind k)
{
    switch (k) {
    case SAN_INVALID_READ:
        return "invalid read";
    case SAN_INVALID_WRITE:
        return "invalid write";
    case SAN_INVALID_ATOMIC:
        return "invalid atomic";
    case SAN_MISALIGNED:
        return "misaligned access";
    case SAN_RACE:
        return "race hazard";
    case SAN_BARRIER:
        return "barrier error";
    case SAN_LEAK:
        return "leak";
    case SAN_CUDA_ERROR:
        return "CUDA error";
    case SAN_OTHER:
        break;
    }
    return "error";
}

/* ---- one line a finding ------------------------------------------------------- */

int sanitize_finding_format(const sanitize_finding *f, char *buf, size_t n)
{
    char what[128];
    if (f->kind == SAN_RACE)
        snprintf(what, sizeof what, "%s%s%s", f->hazard[0] ? f->hazard : "", f->hazard[0] ? " " : "",
                 sanitize_kind_name(f->kind));
    else if (f->size > 0 && f->kind != SAN_LEAK)
        snprintf(what, sizeof what, "%s of %d byte%s", sanitize_kind_name(f->kind), f->size,
                 f->size == 1 ? "" : "s");
    else
        snprintf(what, sizeof what, "%s", sanitize_kind_name(f->kind));
    char space[48] = "";
    if (f->space[0])
        snprintf(space, sizeof space, " %s %s memory",
                 f->kind == SAN_INVALID_WRITE ? "to" : f->kind == SAN_RACE ? "on" : "in",
                 f->space);
    char where[640] = "";
    size_t wl = 0;
    if (f->kernel[0])
        wl += (size_t)snprintf(where + wl, sizeof where - wl, " in %s", f->kernel);
    bool pair = f->file[0] && f->line > 0 && f->kind == SAN_RACE && f->file2[0];
    if (pair && strcmp(f->file, f->file2) == 0 && f->line == f->line2)
        wl += (size_t)snprintf(where + wl, sizeof where - wl, " at %s:%d (both accesses)",
                               f->file, f->line);
    else if (pair)
        wl += (size_t)snprintf(where + wl, sizeof where - wl, " between %s:%d and %s:%d",
                               f->file, f->line, f->file2, f->line2);
    else if (f->file[0] && f->line > 0)
        wl += (size_t)snprintf(where + wl, sizeof where - wl, " at %s:%d", f->file, f->line);
    if (wl < sizeof where && f->has_thread && f->has_block)
        wl += (size_t)snprintf(where + wl, sizeof where - wl, ", thread (%d,%d,%d) of block (%d,%d,%d)",
                               f->thread[0], f->thread[1], f->thread[2], f->block[0], f->block[1],
                               f->block[2]);
    else if (wl < sizeof where && f->has_block)
        snprintf(where + wl, sizeof where - wl, ", block (%d,%d,%d)", f->block[0], f->block[1],
                 f->block[2]);
    char tail[96] = "";
    if (f->kind == SAN_RACE && f->hazards > 0)
        snprintf(tail, sizeof tail, " (%lld hazard%s)", f->hazards, f->hazards == 1 ? "" : "s");
    else if (f->count > 1)
        snprintf(tail, sizeof tail, " (%d reports)", f->count);
    const char *detail = f->detail[0] ? f->detail
                         : (f->kind == SAN_OTHER || f->kind == SAN_CUDA_ERROR ||
                            f->kind == SAN_LEAK || f->kind == SAN_BARRIER)
                             ? f->headline
                             : "";
    return snprintf(buf, n, "%s%s%s%s%s%s%s", f->warning ? "warning: " : "", what, space, where,
                    detail[0] ? ": " : "", detail, tail);
}

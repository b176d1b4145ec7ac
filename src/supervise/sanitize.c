#include "supervise/sanitize.h"

#include <stdio.h>
#include <string.h>

#include "core/strbuf.h"

/* ---- names ------------------------------------------------------------- */

static const char *const TOOL_NAMES[SANITIZE_TOOLS] = {
    [SANITIZE_MEMCHECK] = "memcheck",
    [SANITIZE_RACECHECK] = "racecheck",
    [SANITIZE_SYNCCHECK] = "synccheck",
    [SANITIZE_INITCHECK] = "initcheck",
};

const char *sanitize_tool_name(sanitize_tool t)
{
    return (int)t >= 0 && (int)t < SANITIZE_TOOLS ? TOOL_NAMES[t] : "memcheck";
}

bool sanitize_tool_from_name(const char *name, sanitize_tool *t)
{
    for (int i = 0; name && i < SANITIZE_TOOLS; i++) {
        if (strcmp(name, TOOL_NAMES[i]) == 0) {
            *t = (sanitize_tool)i;
            return true;
        }
    }
    return false;
}

const char *sanitize_tool_finds(sanitize_tool t)
{
    switch (t) {
    case SANITIZE_RACECHECK:
        return "shared-memory races";
    case SANITIZE_SYNCCHECK:
        return "barriers not every thread reaches";
    case SANITIZE_INITCHECK:
        return "reads of memory nothing wrote";
    case SANITIZE_MEMCHECK:
        break;
    }
    return "out-of-bounds and misaligned accesses";
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
    case SAN_UNINIT:
        return "uninitialised read";
    case SAN_UNUSED:
        return "unused memory";
    case SAN_LEAK:
        return "leak";
    case SAN_CUDA_ERROR:
        return "CUDA error";
    case SAN_OTHER:
        break;
    }
    return "error";
}

void sanitize_finding_explain(sanitize_finding *f)
{
    const char *t = f->headline, *why = NULL;
    if (f->kind == SAN_BARRIER && strstr(t, "Divergent") && strstr(t, "warp"))
        why = "the threads of one warp did not all reach this barrier together: it sits in a "
              "branch that splits the warp";
    else if (f->kind == SAN_BARRIER && strstr(t, "Divergent"))
        why = "not every thread of the block reached this barrier: a __syncthreads() inside a "
              "branch that only some threads take";
    else if (f->kind == SAN_BARRIER && strstr(t, "Invalid argument"))
        why = "a barrier was given a mask that does not name the threads that reach it "
              "(__syncwarp(mask) called by threads outside the mask, or missing some in it)";
    else if (f->kind == SAN_UNINIT)
        why = "read memory that nothing had written since it was allocated (cudaMalloc does "
              "not clear memory)";
    if (why)
        snprintf(f->detail, sizeof f->detail, "%s", why);
}

/* ---- one line a finding ------------------------------------------------------- */

int sanitize_finding_format(const sanitize_finding *f, char *buf, size_t n)
{
    strbuf b = STRBUF_INIT;
    if (f->warning)
        strbuf_str(&b, "warning: ");
    if (f->kind == SAN_RACE)
        strbuf_printf(&b, "%s%s%s", f->hazard, f->hazard[0] ? " " : "", sanitize_kind_name(f->kind));
    else if (f->size > 0 && f->kind != SAN_LEAK && f->kind != SAN_UNUSED)
        strbuf_printf(&b, "%s of %d byte%s", sanitize_kind_name(f->kind), f->size,
                      f->size == 1 ? "" : "s");
    else
        strbuf_str(&b, sanitize_kind_name(f->kind));
    if (f->space[0])
        strbuf_printf(&b, " %s %s memory",
                      f->kind == SAN_INVALID_WRITE ? "to"
                      : f->kind == SAN_RACE        ? "on"
                      : f->kind == SAN_UNINIT      ? "of"
                                                   : "in",
                      f->space);
    if (f->kernel[0])
        strbuf_printf(&b, " in %s", f->kernel);
    bool pair = f->file[0] && f->line > 0 && f->kind == SAN_RACE && f->file2[0];
    if (pair && strcmp(f->file, f->file2) == 0 && f->line == f->line2)
        strbuf_printf(&b, " at %s:%d (both accesses)", f->file, f->line);
    else if (pair)
        strbuf_printf(&b, " between %s:%d and %s:%d", f->file, f->line, f->file2, f->line2);
    else if (f->file[0] && f->line > 0)
        strbuf_printf(&b, " at %s:%d", f->file, f->line);
    if (f->has_thread && f->has_block)
        strbuf_printf(&b, ", thread (%d,%d,%d) of block (%d,%d,%d)", f->thread[0], f->thread[1],
                      f->thread[2], f->block[0], f->block[1], f->block[2]);
    else if (f->has_block)
        strbuf_printf(&b, ", block (%d,%d,%d)", f->block[0], f->block[1], f->block[2]);
    const char *detail = f->detail[0] ? f->detail
                         : (f->kind == SAN_OTHER || f->kind == SAN_CUDA_ERROR ||
                            f->kind == SAN_LEAK || f->kind == SAN_BARRIER ||
                            f->kind == SAN_UNUSED)
                             ? f->headline
                             : "";
    if (detail[0])
        strbuf_printf(&b, ": %s", detail);
    if (f->kind == SAN_RACE && f->hazards > 0)
        strbuf_printf(&b, " (%lld hazard%s)", f->hazards, f->hazards == 1 ? "" : "s");
    else if (f->count > 1)
        strbuf_printf(&b, " (%d reports)", f->count);
    int len = snprintf(buf, n, "%s", strbuf_text(&b));
    strbuf_free(&b);
    return len;
}

/* ---- the order findings are shown in --------------------------------------- */

static int rank(const sanitize_finding *f)
{
    return f->kind == SAN_LEAK || f->kind == SAN_UNUSED ? 2 : f->kind == SAN_CUDA_ERROR ? 1 : 0;
}

/* From "Program hit X (error N) due to "why" on CUDA API call to f.", why
 * and f; the whole headline when it does not read like that. */
static void failure_words(const char *headline, char *out, size_t n)
{
    const char *why = strstr(headline, "due to \""), *call = strstr(headline, "API call to ");
    if (!why) {
        snprintf(out, n, "%s", headline);
        return;
    }
    why += strlen("due to \"");
    int wl = (int)strcspn(why, "\"");
    if (call) {
        call += strlen("API call to ");
        snprintf(out, n, "%.*s, first in %.*s", wl, why, (int)strcspn(call, ". "), call);
    } else {
        snprintf(out, n, "%.*s", wl, why);
    }
}

void sanitize_report_arrange(sanitize_report *r)
{
    /* CUDA errors after the kernel's own first problem follow from it: one
     * finding stands for them all. */
    size_t out = 0, folded = r->n;
    bool own = false;
    r->consequences = 0;
    for (size_t i = 0; i < r->n; i++) {
        sanitize_finding *f = &r->findings[i];
        if (rank(f) == 0)
            own = true;
        if (own && f->kind == SAN_CUDA_ERROR) {
            r->consequences += f->count > 0 ? f->count : 1;
            if (folded != r->n)
                continue;
            folded = out;
        }
        r->findings[out++] = *f;
    }
    r->n = out;
    if (r->consequences > 0) {
        sanitize_finding *c = &r->findings[folded];
        char words[200];
        failure_words(c->headline, words, sizeof words);
        c->count = 1;
        c->kind = SAN_CUDA_ERROR;
        snprintf(c->detail, sizeof c->detail,
                 "%d later CUDA call%s failed (%s): a consequence of the problem above, "
                 "not a problem of its own",
                 r->consequences, r->consequences == 1 ? "" : "s", words);
    }
    /* The kernel's own problems first, in log order; a stable sort, as the
     * lists are short. */
    for (size_t i = 1; i < r->n; i++) {
        sanitize_finding f = r->findings[i];
        size_t j = i;
        while (j > 0 && rank(&r->findings[j - 1]) > rank(&f)) {
            r->findings[j] = r->findings[j - 1];
            j--;
        }
        r->findings[j] = f;
    }
}

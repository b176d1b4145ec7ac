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

const char *sanitize_tool_name(sanitize_tool tool)
{
    return (int)tool >= 0 && (int)tool < SANITIZE_TOOLS ? TOOL_NAMES[tool] : "memcheck";
}

bool sanitize_tool_from_name(const char *name, sanitize_tool *tool)
{
    for (int i = 0; name && i < SANITIZE_TOOLS; i++) {
        if (strcmp(name, TOOL_NAMES[i]) == 0) {
            *tool = (sanitize_tool)i;
            return true;
        }
    }
    return false;
}

const char *sanitize_tool_finds(sanitize_tool tool)
{
    switch (tool) {
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

const char *sanitize_kind_name(sanitize_kind kind)
{
    switch (kind) {
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

void sanitize_finding_explain(sanitize_finding *finding)
{
    const char *t = finding->headline, *why = NULL;
    if (finding->kind == SAN_BARRIER && strstr(t, "Divergent") && strstr(t, "warp"))
        why = "the threads of one warp did not all reach this barrier together: it sits in a "
              "branch that splits the warp";
    else if (finding->kind == SAN_BARRIER && strstr(t, "Divergent"))
        why = "not every thread of the block reached this barrier: a __syncthreads() inside a "
              "branch that only some threads take";
    else if (finding->kind == SAN_BARRIER && strstr(t, "Invalid argument"))
        why = "a barrier was given a mask that does not name the threads that reach it "
              "(__syncwarp(mask) called by threads outside the mask, or missing some in it)";
    else if (finding->kind == SAN_UNINIT)
        why = "read memory that nothing had written since it was allocated (cudaMalloc does "
              "not clear memory)";
    if (why)
        snprintf(finding->detail, sizeof finding->detail, "%s", why);
}

/* ---- one line a finding ------------------------------------------------------- */

int sanitize_finding_format(const sanitize_finding *finding, char *buf, size_t buf_size)
{
    strbuf b = STRBUF_INIT;
    if (finding->warning)
        strbuf_str(&b, "warning: ");
    if (finding->kind == SAN_RACE)
        strbuf_printf(&b, "%s%s%s", finding->hazard, finding->hazard[0] ? " " : "",
                      sanitize_kind_name(finding->kind));
    else if (finding->size > 0 && finding->kind != SAN_LEAK && finding->kind != SAN_UNUSED)
        strbuf_printf(&b, "%s of %d byte%s", sanitize_kind_name(finding->kind), finding->size,
                      finding->size == 1 ? "" : "s");
    else
        strbuf_str(&b, sanitize_kind_name(finding->kind));
    if (finding->space[0])
        strbuf_printf(&b, " %s %s memory",
                      finding->kind == SAN_INVALID_WRITE ? "to"
                      : finding->kind == SAN_RACE        ? "on"
                      : finding->kind == SAN_UNINIT      ? "of"
                                                   : "in",
                      finding->space);
    if (finding->kernel[0])
        strbuf_printf(&b, " in %s", finding->kernel);
    bool pair =
        finding->file[0] && finding->line > 0 && finding->kind == SAN_RACE && finding->file2[0];
    if (pair && strcmp(finding->file, finding->file2) == 0 && finding->line == finding->line2)
        strbuf_printf(&b, " at %s:%d (both accesses)", finding->file, finding->line);
    else if (pair)
        strbuf_printf(&b, " between %s:%d and %s:%d", finding->file, finding->line, finding->file2,
                      finding->line2);
    else if (finding->file[0] && finding->line > 0)
        strbuf_printf(&b, " at %s:%d", finding->file, finding->line);
    if (finding->has_thread && finding->has_block)
        strbuf_printf(&b, ", thread (%d,%d,%d) of block (%d,%d,%d)", finding->thread[0],
                      finding->thread[1], finding->thread[2], finding->block[0], finding->block[1],
                      finding->block[2]);
    else if (finding->has_block)
        strbuf_printf(&b, ", block (%d,%d,%d)", finding->block[0], finding->block[1],
                      finding->block[2]);
    const char *detail = finding->detail[0] ? finding->detail
                         : (finding->kind == SAN_OTHER || finding->kind == SAN_CUDA_ERROR ||
                            finding->kind == SAN_LEAK || finding->kind == SAN_BARRIER ||
                            finding->kind == SAN_UNUSED)
                             ? finding->headline
                             : "";
    if (detail[0])
        strbuf_printf(&b, ": %s", detail);
    if (finding->kind == SAN_RACE && finding->hazards > 0)
        strbuf_printf(&b, " (%lld hazard%s)", finding->hazards, finding->hazards == 1 ? "" : "s");
    else if (finding->count > 1)
        strbuf_printf(&b, " (%d reports)", finding->count);
    int len = snprintf(buf, buf_size, "%s", strbuf_text(&b));
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

void sanitize_report_arrange(sanitize_report *report)
{
    /* CUDA errors after the kernel's own first problem follow from it: one
     * finding stands for them all. */
    size_t out = 0, folded = report->n;
    bool own = false;
    report->consequences = 0;
    for (size_t i = 0; i < report->n; i++) {
        sanitize_finding *f = &report->findings[i];
        if (rank(f) == 0)
            own = true;
        if (own && f->kind == SAN_CUDA_ERROR) {
            report->consequences += f->count > 0 ? f->count : 1;
            if (folded != report->n)
                continue;
            folded = out;
        }
        report->findings[out++] = *f;
    }
    report->n = out;
    if (report->consequences > 0) {
        sanitize_finding *c = &report->findings[folded];
        char words[200];
        failure_words(c->headline, words, sizeof words);
        c->count = 1;
        c->kind = SAN_CUDA_ERROR;
        snprintf(c->detail, sizeof c->detail,
                 "%d later CUDA call%s failed (%s): a consequence of the problem above, "
                 "not a problem of its own",
                 report->consequences, report->consequences == 1 ? "" : "s", words);
    }
    /* The kernel's own problems first, in log order; a stable sort, as the
     * lists are short. */
    for (size_t i = 1; i < report->n; i++) {
        sanitize_finding f = report->findings[i];
        size_t j = i;
        while (j > 0 && rank(&report->findings[j - 1]) > rank(&f)) {
            report->findings[j] = report->findings[j - 1];
            j--;
        }
        report->findings[j] = f;
    }
}

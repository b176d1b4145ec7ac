/* sanitize_parse.c - compute-sanitizer's log read into findings: each
 * report's headline names its kind, the lines under it fill in the place,
 * thread, block and address; the summaries give the counts; then reports
 * at the same place are merged (sanitize.h). */
#include "supervise/sanitize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/strfmt.h"
#include "supervise/sanitize_internal.h"

#define PREFIX "========="

/* ---- small text helpers --------------------------------------------------- */

/* Appends text to dst (n bytes), after "; " when dst has some already;
 * nothing when dst is full. */
static void append(char *dst, size_t n, const char *text)
{
    size_t len = strlen(dst);
    if (len + 1 >= n)
        return;
    strfmt_append(dst, n, len, "%s%s", len ? "; " : "", text);
}

/* ---- the parser ------------------------------------------------------------- */

typedef struct parser {
    sanitize_report *r;
    size_t cap;
    bool oom;
    long cur;                 /* index of the finding being filled, -1 none */
    bool in_frames;           /* inside a backtrace */
    int race_threads;         /* hazard mode: thread lines seen */
    char race_first[8];       /* analysis mode: "Write" or "Read" of the headline */
    sanitize_location race_loc;        /* analysis mode: the headline's access */
    bool race_warning;
    bool race_open;           /* an analysis headline waits for its "and" lines */
    char race_headline[256];
} parser;

static sanitize_finding *add_finding(parser *ps, sanitize_kind kind, bool warning,
                                     const char *headline)
{
    sanitize_report *r = ps->r;
    if (!grow_one((void **)&r->findings, &ps->cap, r->n, sizeof *r->findings, 16)) {
        ps->oom = true;
        ps->cur = -1;
        return NULL;
    }
    sanitize_finding *f = &r->findings[r->n];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->warning = warning;
    f->count = 1;
    snprintf(f->headline, sizeof f->headline, "%s", headline);
    ps->cur = (long)r->n++;
    ps->in_frames = false;
    ps->race_threads = 0;
    return f;
}

static sanitize_finding *current(parser *ps)
{
    return ps->cur >= 0 ? &ps->r->findings[ps->cur] : NULL;
}

static void set_space(sanitize_finding *f, const char *s)
{
    if (strstr(s, "__global__"))
        snprintf(f->space, sizeof f->space, "global");
    else if (strstr(s, "__shared__"))
        snprintf(f->space, sizeof f->space, "shared");
    else if (strstr(s, "__local__"))
        snprintf(f->space, sizeof f->space, "local");
}

/* Headline of a memory access report: "Invalid __global__ write of size 4 bytes". */
static bool invalid_access(parser *ps, const char *t, bool warning)
{
    if (!sanitize_starts(t, "Invalid "))
        return false;
    sanitize_kind k = SAN_OTHER;
    if (strstr(t, " read "))
        k = SAN_INVALID_READ;
    else if (strstr(t, " write "))
        k = SAN_INVALID_WRITE;
    else if (strstr(t, " atomic"))
        k = SAN_INVALID_ATOMIC;
    sanitize_finding *f = add_finding(ps, k, warning, t);
    if (!f)
        return true;
    set_space(f, t);
    const char *sz = strstr(t, "of size ");
    if (sz)
        f->size = (int)sanitize_read_number(sz + 8);
    return true;
}

/* "Race reported between Write access at LOC" (analysis mode). */
static bool race_headline(parser *ps, const char *t, bool warning)
{
    if (!sanitize_starts(t, "Race reported between "))
        return false;
    const char *a = t + strlen("Race reported between ");
    size_t alen = strcspn(a, " ");
    strfmt_copy_n(ps->race_first, sizeof ps->race_first, a, alen);
    const char *at = strstr(a, " access at ");
    memset(&ps->race_loc, 0, sizeof ps->race_loc);
    if (at)
        sanitize_read_location(at + strlen(" access at "), &ps->race_loc);
    ps->race_warning = warning;
    ps->race_open = true;
    snprintf(ps->race_headline, sizeof ps->race_headline, "%s", t);
    ps->cur = -1;
    ps->in_frames = false;
    return true;
}

static void race_hazard_name(const char *first, const char *second, char *out, size_t n)
{
    bool w1 = sanitize_starts(first, "Write"), w2 = sanitize_starts(second, "Write");
    snprintf(out, n, "%s", w1 && w2 ? "WAW" : w1 ? "RAW" : w2 ? "WAR" : "");
}

/* "and Read access at LOC [N hazards]" after an analysis headline. */
static bool race_partner(parser *ps, const char *t)
{
    if (!ps->race_open || !sanitize_starts(t, "and ") || !strstr(t, " access at "))
        return false;
    const char *b = t + 4;
    char second[8];
    strfmt_copy_n(second, sizeof second, b, strcspn(b, " "));
    sanitize_finding *f = add_finding(ps, SAN_RACE, ps->race_warning, ps->race_headline);
    if (!f)
        return true;
    snprintf(f->space, sizeof f->space, "shared");
    race_hazard_name(ps->race_first, second, f->hazard, sizeof f->hazard);
    snprintf(f->kernel, sizeof f->kernel, "%s", ps->race_loc.kernel);
    snprintf(f->file, sizeof f->file, "%s", ps->race_loc.file);
    f->line = ps->race_loc.line;
    sanitize_location loc;
    if (sanitize_read_location(strstr(b, " access at ") + strlen(" access at "), &loc)) {
        snprintf(f->file2, sizeof f->file2, "%s", loc.file);
        f->line2 = loc.line;
        if (!f->kernel[0])
            snprintf(f->kernel, sizeof f->kernel, "%s", loc.kernel);
    }
    f->hazards = sanitize_read_hazards(t);
    return true;
}

/* "Potential RAW hazard detected at __shared__ 0x4 in block (0,0,0) :" */
static bool hazard_headline(parser *ps, const char *t, bool warning)
{
    const char *p = strstr(t, "Potential ");
    if (!p || !strstr(t, " hazard detected"))
        return false;
    sanitize_finding *f = add_finding(ps, SAN_RACE, warning, t);
    if (!f)
        return true;
    p += strlen("Potential ");
    strfmt_copy_n(f->hazard, sizeof f->hazard, p, strcspn(p, " "));
    set_space(f, t);
    const char *at = strstr(t, " detected at ");
    if (at && sanitize_read_hex(at, &f->address))
        f->has_address = true;
    const char *blk = strstr(t, "in block");
    if (blk && sanitize_read_triple(blk, f->block))
        f->has_block = true;
    return true;
}

/* "Write Thread (1,0,0) at LOC" in hazard mode. */
static bool hazard_thread(parser *ps, sanitize_finding *f, const char *t)
{
    if (!f || f->kind != SAN_RACE || !strstr(t, "Thread (") ||
        !(sanitize_starts(t, "Write") || sanitize_starts(t, "Read") || sanitize_starts(t, "Atomic")))
        return false;
    sanitize_location loc;
    const char *at = strstr(t, ") at ");
    bool have = at && sanitize_read_location(at + 2, &loc);
    if (ps->race_threads == 0) {
        f->has_thread = sanitize_read_triple(strstr(t, "Thread ("), f->thread);
        if (have) {
            snprintf(f->kernel, sizeof f->kernel, "%s", loc.kernel);
            snprintf(f->file, sizeof f->file, "%s", loc.file);
            f->line = loc.line;
        }
    } else if (have && !f->file2[0]) {
        snprintf(f->file2, sizeof f->file2, "%s", loc.file);
        f->line2 = loc.line;
    }
    ps->race_threads++;
    return true;
}

/* synccheck: "Barrier error detected. Divergent thread(s) in block." (or
 * "in warp", or "Invalid arguments"), matched on its stable words. */
static bool barrier_headline(parser *ps, const char *t, bool warning)
{
    if (!sanitize_starts(t, "Barrier error") && !(sanitize_starts(t, "Invalid") && strstr(t, "barrier")))
        return false;
    sanitize_finding *f = add_finding(ps, SAN_BARRIER, warning, t);
    if (f)
        sanitize_finding_explain(f);
    return true;
}

/* initcheck: "Uninitialized __global__ memory read of size 4 bytes" (a
 * kernel's read), "Host API memory access error at host access to 0x... of
 * size N bytes" (a copy; its "Uninitialized access at ..." line makes it an
 * uninitialised read), "Unused memory in allocation 0x... of size N bytes"
 * (with --track-unused-memory). */
static bool uninit_headline(parser *ps, const char *t, bool warning)
{
    int k = sanitize_starts(t, "Unused memory")                          ? SAN_UNUSED
            : sanitize_starts(t, "Uninitialized ") && strstr(t, " read") ? SAN_UNINIT
            : sanitize_starts(t, "Host API memory access error")         ? SAN_OTHER
                                                                : -1;
    if (k < 0)
        return false;
    sanitize_finding *f = add_finding(ps, (sanitize_kind)k, warning, t);
    if (!f)
        return true;
    const char *sz = strstr(t, "of size ");
    if (sz)
        f->size = (int)sanitize_read_number(sz + 8);
    if (k == SAN_UNUSED && sanitize_read_hex(t, &f->address))
        f->has_address = true;
    set_space(f, t);
    sanitize_finding_explain(f);
    return true;
}

/* A line of a report being read (location, thread, address, ...). */
static void detail_line(parser *ps, const char *t)
{
    sanitize_finding *f = current(ps);
    if (!f)
        return;
    if (hazard_thread(ps, f, t))
        return;
    if (sanitize_starts(t, "at ")) {
        sanitize_location loc;
        if (!f->kernel[0] && sanitize_read_location(t, &loc)) {
            snprintf(f->kernel, sizeof f->kernel, "%s", loc.kernel);
            snprintf(f->file, sizeof f->file, "%s", loc.file);
            f->line = loc.line;
        }
        return;
    }
    if (sanitize_starts(t, "by thread")) {
        f->has_thread = sanitize_read_triple(t, f->thread);
        const char *b = strstr(t, "in block");
        if (b)
            f->has_block = sanitize_read_triple(b, f->block);
        return;
    }
    if (sanitize_starts(t, "Address ") || sanitize_starts(t, "Access at ") || sanitize_starts(t, "Access to ")) {
        if (sanitize_read_hex(t, &f->address))
            f->has_address = true;
        if (strstr(t, "misaligned"))
            f->kind = SAN_MISALIGNED;
        append(f->detail, sizeof f->detail, t);
        return;
    }
    if (sanitize_starts(t, "Uninitialized access")) {
        f->kind = SAN_UNINIT;
        if (sanitize_read_hex(t, &f->address))
            f->has_address = true;
        append(f->detail, sizeof f->detail, t);
        return;
    }
    if (sanitize_starts(t, "and is ") || sanitize_starts(t, "Current Value") || sanitize_starts(t, "Incoming Value") ||
        (f->kind == SAN_UNUSED && (sanitize_starts(t, "Not written") || strstr(t, "% of allocation"))))
        append(f->detail, sizeof f->detail, t);
}

/* Lines the tool prints about itself, not about the program. */
static bool tool_status(const char *t)
{
    static const char *const quiet[] = {
        "process didn't terminate successfully", "Target application returned an error",
        "No fatal errors", "Maximum number of hazards reached", "Too many errors",
        "Not all",
    };
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
        if (sanitize_starts(t, quiet[i]))
            return true;
    return false;
}

/* The tool's own lines: its banner, the summaries (their counts into the
 * report) and host or device backtraces; true when t is one. */
static bool summary_line(parser *ps, const char *t)
{
    if (sanitize_starts(t, "COMPUTE-SANITIZER"))
        return true;
    if (sanitize_starts(t, "ERROR SUMMARY:")) {
        /* "ERROR SUMMARY: 972 errors were not printed. Use --print-limit ..."
         * follows the count when the print limit was reached. */
        if (!strstr(t, "not printed"))
            ps->r->errors = (int)sanitize_read_number(t + strlen("ERROR SUMMARY:"));
        return true;
    }
    if (sanitize_starts(t, "RACECHECK SUMMARY:")) {
        const char *open = strchr(t, '(');
        if (open) {
            ps->r->errors = (int)sanitize_read_number(open + 1);
            const char *comma = strchr(open, ',');
            if (comma)
                ps->r->warnings = (int)sanitize_read_number(comma + 1);
        }
        return true;
    }
    if (sanitize_starts(t, "LEAK SUMMARY:")) {
        long long v = sanitize_read_number(t + strlen("LEAK SUMMARY:"));
        ps->r->leaked_bytes = v > 0 ? v : 0;
        return true;
    }
    if (sanitize_starts(t, "Saved host backtrace") || sanitize_starts(t, "Host Frame:") ||
        sanitize_starts(t, "Device Frame:") || (ps->in_frames && sanitize_starts(t, "in "))) {
        ps->in_frames = true;
        return true;
    }
    return false;
}

/* Skips a severity prefix ("Error: ", "Warning: ", "WARN:(racecheck)") at
 * *t; true when there was one, *warning when it says warning. */
static bool severity_prefix(const char **t, bool *warning)
{
    bool severity = false;
    *warning = false;
    if (sanitize_starts(*t, "Error: ") || sanitize_starts(*t, "ERROR: ")) {
        *t += 7;
        severity = true;
    } else if (sanitize_starts(*t, "Warning: ")) {
        *t += 9;
        *warning = severity = true;
    } else if (sanitize_starts(*t, "WARN:")) {
        *t += 5;
        if (**t == '(') {
            const char *close = strchr(*t, ')');
            if (close)
                *t = close + 1;
        }
        *warning = severity = true;
    }
    *t = sanitize_skip_space(*t);
    return severity;
}

/* The headlines with nothing to read beyond their kind: misaligned and
 * out-of-range shared or local addresses, CUDA errors, leaks; true when t
 * is one. */
static bool plain_headline(parser *ps, const char *t, bool warning)
{
    if (sanitize_starts(t, "Misaligned Shared or Local Address")) {
        add_finding(ps, SAN_MISALIGNED, warning, t);
        return true;
    }
    if (sanitize_starts(t, "Out-of-range Shared or Local Address")) {
        sanitize_finding *f = add_finding(ps, SAN_OTHER, warning, t);
        if (f)
            snprintf(f->space, sizeof f->space, "shared/local");
        return true;
    }
    if (sanitize_starts(t, "Program hit ")) {
        add_finding(ps, SAN_CUDA_ERROR, warning, t);
        return true;
    }
    if (sanitize_starts(t, "Leaked ")) {
        sanitize_finding *f = add_finding(ps, SAN_LEAK, warning, t);
        if (f && sanitize_read_hex(t, &f->address))
            f->has_address = true;
        return true;
    }
    return false;
}

static void parse_line(parser *ps, const char *line, size_t len)
{
    char buf[1024];
    strfmt_copy_n(buf, sizeof buf, line, len);
    size_t bl = strlen(buf);
    while (bl > 0 && (buf[bl - 1] == '\r' || buf[bl - 1] == ' '))
        buf[--bl] = '\0';
    const char *t = sanitize_skip_space(buf);
    if (sanitize_starts(t, PREFIX)) {
        t += strlen(PREFIX);
        t = sanitize_skip_space(t);
    }
    if (!*t) {
        ps->cur = -1;
        ps->race_open = false;
        ps->in_frames = false;
        return;
    }
    if (summary_line(ps, t))
        return;

    bool warning;
    bool severity = severity_prefix(&t, &warning);
    if (invalid_access(ps, t, warning) || race_headline(ps, t, warning) ||
        hazard_headline(ps, t, warning) || race_partner(ps, t))
        return;
    if (plain_headline(ps, t, warning) || barrier_headline(ps, t, warning) ||
        uninit_headline(ps, t, warning))
        return;
    if (severity) {
        if (!tool_status(t))
            add_finding(ps, SAN_OTHER, warning, t);
        else
            ps->cur = -1;
        return;
    }
    detail_line(ps, t);
}

static bool same_place(const sanitize_finding *a, const sanitize_finding *b)
{
    return a->kind == b->kind && a->warning == b->warning && a->line == b->line &&
           a->line2 == b->line2 && a->size == b->size && strcmp(a->hazard, b->hazard) == 0 &&
           strcmp(a->kernel, b->kernel) == 0 && strcmp(a->file, b->file) == 0 &&
           strcmp(a->file2, b->file2) == 0 && strcmp(a->space, b->space) == 0 &&
           (a->kind != SAN_CUDA_ERROR || strcmp(a->headline, b->headline) == 0) &&
           (a->kind != SAN_OTHER || strcmp(a->headline, b->headline) == 0) &&
           (a->kind != SAN_BARRIER || strcmp(a->headline, b->headline) == 0) &&
           a->kind != SAN_LEAK && a->kind != SAN_UNUSED;
}

/* Folds reports of the same kind at the same place into the first one. */
static void merge(sanitize_report *r)
{
    size_t out = 0;
    for (size_t i = 0; i < r->n; i++) {
        size_t j = 0;
        while (j < out && !same_place(&r->findings[j], &r->findings[i]))
            j++;
        if (j < out) {
            r->findings[j].count += r->findings[i].count;
            r->findings[j].hazards += r->findings[i].hazards;
            continue;
        }
        if (out != i)
            r->findings[out] = r->findings[i];
        out++;
    }
    r->n = out;
}

bool sanitize_parse_log(const char *log, sanitize_report *out)
{
    memset(out, 0, sizeof *out);
    out->errors = -1;
    out->warnings = -1;
    parser ps = {.r = out, .cur = -1};
    for (const char *p = log ? log : ""; *p;) {
        size_t len = strcspn(p, "\n");
        parse_line(&ps, p, len);
        p += len;
        if (*p == '\n')
            p++;
    }
    if (ps.oom) {
        sanitize_report_free(out);
        return false;
    }
    merge(out);
    sanitize_report_arrange(out);
    return true;
}

void sanitize_report_free(sanitize_report *report)
{
    if (!report)
        return;
    free(report->findings);
    report->findings = NULL;
    report->n = 0;
}

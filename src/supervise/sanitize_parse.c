#define _GNU_SOURCE   /* memrchr */
#include "supervise/sanitize.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/strfmt.h"

#define PREFIX "========="

/* ---- small text helpers --------------------------------------------------- */

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static void append(char *dst, size_t n, const char *text)
{
    size_t len = strlen(dst);
    if (len + 1 >= n)
        return;
    snprintf(dst + len, n - len, "%s%s", len ? "; " : "", text);
}

/* "(1,2,3)" or "(1, 2, 3)" at s into v; true when read. */
static bool read_triple(const char *s, int v[3])
{
    const char *p = strchr(s, '(');
    if (!p)
        return false;
    p++;
    for (int i = 0; i < 3; i++) {
        p = skip_space(p);
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p)
            return false;
        v[i] = (int)x;
        p = skip_space(end);
        if (i < 2) {
            if (*p != ',')
                return false;
            p++;
        }
    }
    return *p == ')';
}

/* The first "0x..." in s. */
static bool read_hex(const char *s, uint64_t *v)
{
    const char *p = strstr(s, "0x");
    if (!p)
        return false;
    char *end;
    unsigned long long x = strtoull(p + 2, &end, 16);
    if (end == p + 2)
        return false;
    *v = (uint64_t)x;
    return true;
}

/* A number that may carry thousands separators ("33,036,889,217"). */
static long long read_number(const char *s)
{
    long long v = 0;
    bool any = false;
    s = skip_space(s);
    for (; *s; s++) {
        if (isdigit((unsigned char)*s)) {
            v = v * 10 + (*s - '0');
            any = true;
        } else if (*s != ',' || !any || !isdigit((unsigned char)s[1])) {
            break;
        }
    }
    return any ? v : -1;
}

/* ---- locations -------------------------------------------------------------- */

typedef struct location {
    char kernel[128];
    char file[256];
    int line;
} location;

/* Reads "FILE:LINE" from s[0..len) (a trailing " [N hazards]" allowed). */
static bool read_file_line(const char *s, size_t len, char *file, size_t fn, int *line)
{
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\r'))
        len--;
    const char *br = memchr(s, '[', len);
    if (br) {
        len = (size_t)(br - s);
        while (len > 0 && s[len - 1] == ' ')
            len--;
    }
    size_t i = len;
    while (i > 0 && isdigit((unsigned char)s[i - 1]))
        i--;
    if (i == len || i == 0 || s[i - 1] != ':')
        return false;
    *line = atoi(s + i);
    const char *slash = memrchr(s, '/', i - 1);
    const char *b = slash ? slash + 1 : s;
    strfmt_copy_n(file, fn, b, (size_t)(s + i - 1 - b));
    return true;
}

/* The kernel's name from a function as the tool prints it: "reduce_sum",
 * "reduce(const float *, float *, int)", "void f<int>(int)". */
static void kernel_name(const char *fn, size_t len, char *out, size_t n)
{
    const char *p = fn;
    const char *end = fn + len;
    if (len > 5 && strncmp(p, "void ", 5) == 0)
        p += 5;
    const char *paren = memchr(p, '(', (size_t)(end - p));
    if (paren && paren > p)
        end = paren;
    while (end > p && end[-1] == ' ')
        end--;
    strfmt_copy_n(out, n, p, (size_t)(end - p));
}

/* "at reduce_sum+0x1b0 in /x/starter.cu:12", "at f(int)+0x40" (no line
 * information), or the older "at 0x1b0 in /x/starter.cu:12:reduce_sum". */
static bool read_location(const char *s, location *loc)
{
    memset(loc, 0, sizeof *loc);
    s = skip_space(s);
    if (starts(s, "at "))
        s += 3;
    s = skip_space(s);
    size_t len = strcspn(s, "\r\n");
    const char *in = NULL;
    for (const char *q = s; q + 4 <= s + len; q++)
        if (memcmp(q, " in ", 4) == 0)
            in = q;
    if (starts(s, "0x")) {
        if (!in)
            return false;
        const char *f = in + 4;
        size_t flen = len - (size_t)(f - s);
        /* FILE:LINE:FUNC */
        for (size_t i = 0; i + 1 < flen; i++) {
            if (f[i] != ':' || !isdigit((unsigned char)f[i + 1]))
                continue;
            size_t j = i + 1;
            while (j < flen && isdigit((unsigned char)f[j]))
                j++;
            if (j < flen && f[j] == ':') {
                if (!read_file_line(f, j, loc->file, sizeof loc->file, &loc->line))
                    return false;
                kernel_name(f + j + 1, flen - j - 1, loc->kernel, sizeof loc->kernel);
                return true;
            }
        }
        return read_file_line(f, flen, loc->file, sizeof loc->file, &loc->line);
    }
    const char *plus = NULL;
    const char *limit = in ? in : s + len;
    for (const char *q = s; q + 3 <= limit; q++)
        if (memcmp(q, "+0x", 3) == 0)
            plus = q;
    kernel_name(s, (size_t)((plus ? plus : limit) - s), loc->kernel, sizeof loc->kernel);
    if (in)
        read_file_line(in + 4, len - (size_t)(in + 4 - s), loc->file, sizeof loc->file,
                       &loc->line);
    return loc->kernel[0] != '\0';
}

static long long hazards_of(const char *s)
{
    const char *br = strrchr(s, '[');
    if (!br || !strstr(br, "hazard"))
        return 0;
    long long v = read_number(br + 1);
    return v > 0 ? v : 0;
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
    location race_loc;        /* analysis mode: the headline's access */
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
    if (!starts(t, "Invalid "))
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
        f->size = (int)read_number(sz + 8);
    return true;
}

/* "Race reported between Write access at LOC" (analysis mode). */
static bool race_headline(parser *ps, const char *t, bool warning)
{
    if (!starts(t, "Race reported between "))
        return false;
    const char *a = t + strlen("Race reported between ");
    size_t alen = strcspn(a, " ");
    strfmt_copy_n(ps->race_first, sizeof ps->race_first, a, alen);
    const char *at = strstr(a, " access at ");
    memset(&ps->race_loc, 0, sizeof ps->race_loc);
    if (at)
        read_location(at + strlen(" access at "), &ps->race_loc);
    ps->race_warning = warning;
    ps->race_open = true;
    snprintf(ps->race_headline, sizeof ps->race_headline, "%s", t);
    ps->cur = -1;
    ps->in_frames = false;
    return true;
}

static void race_hazard_name(const char *first, const char *second, char *out, size_t n)
{
    bool w1 = starts(first, "Write"), w2 = starts(second, "Write");
    snprintf(out, n, "%s", w1 && w2 ? "WAW" : w1 ? "RAW" : w2 ? "WAR" : "");
}

/* "and Read access at LOC [N hazards]" after an analysis headline. */
static bool race_partner(parser *ps, const char *t)
{
    if (!ps->race_open || !starts(t, "and ") || !strstr(t, " access at "))
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
    location loc;
    if (read_location(strstr(b, " access at ") + strlen(" access at "), &loc)) {
        snprintf(f->file2, sizeof f->file2, "%s", loc.file);
        f->line2 = loc.line;
        if (!f->kernel[0])
            snprintf(f->kernel, sizeof f->kernel, "%s", loc.kernel);
    }
    f->hazards = hazards_of(t);
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
    if (at && read_hex(at, &f->address))
        f->has_address = true;
    const char *blk = strstr(t, "in block");
    if (blk && read_triple(blk, f->block))
        f->has_block = true;
    return true;
}

/* "Write Thread (1,0,0) at LOC" in hazard mode. */
static bool hazard_thread(parser *ps, sanitize_finding *f, const char *t)
{
    if (!f || f->kind != SAN_RACE || !strstr(t, "Thread (") ||
        !(starts(t, "Write") || starts(t, "Read") || starts(t, "Atomic")))
        return false;
    location loc;
    const char *at = strstr(t, ") at ");
    bool have = at && read_location(at + 2, &loc);
    if (ps->race_threads == 0) {
        f->has_thread = read_triple(strstr(t, "Thread ("), f->thread);
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
    if (!starts(t, "Barrier error") && !(starts(t, "Invalid") && strstr(t, "barrier")))
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
    int k = starts(t, "Unused memory")                          ? SAN_UNUSED
            : starts(t, "Uninitialized ") && strstr(t, " read") ? SAN_UNINIT
            : starts(t, "Host API memory access error")         ? SAN_OTHER
                                                                : -1;
    if (k < 0)
        return false;
    sanitize_finding *f = add_finding(ps, (sanitize_kind)k, warning, t);
    if (!f)
        return true;
    const char *sz = strstr(t, "of size ");
    if (sz)
        f->size = (int)read_number(sz + 8);
    if (k == SAN_UNUSED && read_hex(t, &f->address))
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
    if (starts(t, "at ")) {
        location loc;
        if (!f->kernel[0] && read_location(t, &loc)) {
            snprintf(f->kernel, sizeof f->kernel, "%s", loc.kernel);
            snprintf(f->file, sizeof f->file, "%s", loc.file);
            f->line = loc.line;
        }
        return;
    }
    if (starts(t, "by thread")) {
        f->has_thread = read_triple(t, f->thread);
        const char *b = strstr(t, "in block");
        if (b)
            f->has_block = read_triple(b, f->block);
        return;
    }
    if (starts(t, "Address ") || starts(t, "Access at ") || starts(t, "Access to ")) {
        if (read_hex(t, &f->address))
            f->has_address = true;
        if (strstr(t, "misaligned"))
            f->kind = SAN_MISALIGNED;
        append(f->detail, sizeof f->detail, t);
        return;
    }
    if (starts(t, "Uninitialized access")) {
        f->kind = SAN_UNINIT;
        if (read_hex(t, &f->address))
            f->has_address = true;
        append(f->detail, sizeof f->detail, t);
        return;
    }
    if (starts(t, "and is ") || starts(t, "Current Value") || starts(t, "Incoming Value") ||
        (f->kind == SAN_UNUSED && (starts(t, "Not written") || strstr(t, "% of allocation"))))
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
        if (starts(t, quiet[i]))
            return true;
    return false;
}

static void parse_line(parser *ps, const char *line, size_t len)
{
    char buf[1024];
    strfmt_copy_n(buf, sizeof buf, line, len);
    size_t bl = strlen(buf);
    while (bl > 0 && (buf[bl - 1] == '\r' || buf[bl - 1] == ' '))
        buf[--bl] = '\0';
    const char *t = skip_space(buf);
    if (starts(t, PREFIX)) {
        t += strlen(PREFIX);
        t = skip_space(t);
    }
    if (!*t) {
        ps->cur = -1;
        ps->race_open = false;
        ps->in_frames = false;
        return;
    }
    if (starts(t, "COMPUTE-SANITIZER"))
        return;
    if (starts(t, "ERROR SUMMARY:")) {
        /* "ERROR SUMMARY: 972 errors were not printed. Use --print-limit ..."
         * follows the count when the print limit was reached. */
        if (!strstr(t, "not printed"))
            ps->r->errors = (int)read_number(t + strlen("ERROR SUMMARY:"));
        return;
    }
    if (starts(t, "RACECHECK SUMMARY:")) {
        const char *open = strchr(t, '(');
        if (open) {
            ps->r->errors = (int)read_number(open + 1);
            const char *comma = strchr(open, ',');
            if (comma)
                ps->r->warnings = (int)read_number(comma + 1);
        }
        return;
    }
    if (starts(t, "LEAK SUMMARY:")) {
        long long v = read_number(t + strlen("LEAK SUMMARY:"));
        ps->r->leaked_bytes = v > 0 ? v : 0;
        return;
    }
    if (starts(t, "Saved host backtrace") || starts(t, "Host Frame:") ||
        starts(t, "Device Frame:") || (ps->in_frames && starts(t, "in "))) {
        ps->in_frames = true;
        return;
    }

    bool warning = false, severity = false;
    if (starts(t, "Error: ") || starts(t, "ERROR: ")) {
        t += 7;
        severity = true;
    } else if (starts(t, "Warning: ")) {
        t += 9;
        warning = severity = true;
    } else if (starts(t, "WARN:")) {
        t += 5;
        if (*t == '(') {
            const char *close = strchr(t, ')');
            if (close)
                t = close + 1;
        }
        warning = severity = true;
    }
    t = skip_space(t);

    if (invalid_access(ps, t, warning) || race_headline(ps, t, warning) ||
        hazard_headline(ps, t, warning) || race_partner(ps, t))
        return;
    if (starts(t, "Misaligned Shared or Local Address")) {
        add_finding(ps, SAN_MISALIGNED, warning, t);
        return;
    }
    if (starts(t, "Out-of-range Shared or Local Address")) {
        sanitize_finding *f = add_finding(ps, SAN_OTHER, warning, t);
        if (f)
            snprintf(f->space, sizeof f->space, "shared/local");
        return;
    }
    if (barrier_headline(ps, t, warning) || uninit_headline(ps, t, warning))
        return;
    if (starts(t, "Program hit ")) {
        add_finding(ps, SAN_CUDA_ERROR, warning, t);
        return;
    }
    if (starts(t, "Leaked ")) {
        sanitize_finding *f = add_finding(ps, SAN_LEAK, warning, t);
        if (f && read_hex(t, &f->address))
            f->has_address = true;
        return;
    }
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

void sanitize_report_free(sanitize_report *r)
{
    if (!r)
        return;
    free(r->findings);
    r->findings = NULL;
    r->n = 0;
}

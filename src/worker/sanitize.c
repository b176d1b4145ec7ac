#define _GNU_SOURCE
#include "worker/sanitize.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "core/which.h"
#include "worker/engine.h"
#include "worker/problem.h"

extern char **environ;

#define PREFIX "========="
#define OUTPUT_MAX ((size_t)64 << 10)
#define LOG_MAX ((size_t)16 << 20)
#define PROTO_FD 3

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

static void copy_n(char *dst, size_t n, const char *src, size_t len)
{
    if (n == 0)
        return;
    if (len >= n)
        len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

static void append(char *dst, size_t n, const char *text)
{
    size_t len = strlen(dst);
    if (len + 1 >= n)
        return;
    snprintf(dst + len, n - len, "%s%s", len ? "; " : "", text);
}

static const char *base_name(const char *path, size_t len, size_t *blen)
{
    const char *b = path;
    for (size_t i = 0; i < len; i++)
        if (path[i] == '/')
            b = path + i + 1;
    *blen = len - (size_t)(b - path);
    return b;
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
    size_t blen;
    const char *b = base_name(s, i - 1, &blen);
    copy_n(file, fn, b, blen);
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
    copy_n(out, n, p, (size_t)(end - p));
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
    if (r->n == ps->cap) {
        size_t cap = ps->cap ? ps->cap * 2 : 16;
        sanitize_finding *nv = realloc(r->findings, cap * sizeof *nv);
        if (!nv) {
            ps->oom = true;
            ps->cur = -1;
            return NULL;
        }
        r->findings = nv;
        ps->cap = cap;
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
    copy_n(ps->race_first, sizeof ps->race_first, a, alen);
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
    copy_n(second, sizeof second, b, strcspn(b, " "));
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
    copy_n(f->hazard, sizeof f->hazard, p, strcspn(p, " "));
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
    if (starts(t, "and is ") || starts(t, "Current Value") || starts(t, "Incoming Value"))
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
    copy_n(buf, sizeof buf, line, len);
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
    if (starts(t, "Barrier error") || (starts(t, "Invalid") && strstr(t, "barrier"))) {
        add_finding(ps, SAN_BARRIER, warning, t);
        return;
    }
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
           a->kind != SAN_LEAK;
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

/* ---- the size to run ---------------------------------------------------------- */

/* Elements the problem's inputs and output hold at d (pure arithmetic). */
static double size_weight(const problem_dims *d)
{
    double M = d->M, N = d->N, K = d->K, T = d->T, D = d->D, V = d->V;
    return (double)d->n + M * K + K * N + M * N + T * D + T + V * D +
           2.0 * (double)d->rows * (double)d->feats;
}

int sanitize_smallest_size(const char *problem, const char *const *sizes, int n, cl_err *e)
{
    const problem_ops *ops = problem_of_exercise(problem);
    if (!ops) {
        err_set(e, "unknown problem '%s'", problem ? problem : "");
        return -1;
    }
    int best = -1;
    double best_w = 0.0;
    cl_err first = {{0}};
    for (int i = 0; i < n; i++) {
        problem_dims d;
        cl_err pe = {{0}};
        if (!problem_parse_size(ops, sizes[i], &d, &pe)) {
            if (!first.msg[0])
                first = pe;
            continue;
        }
        double w = size_weight(&d);
        if (best < 0 || w < best_w) {
            best = i;
            best_w = w;
        }
    }
    if (best < 0) {
        if (first.msg[0])
            err_set(e, "%s", first.msg);
        else
            err_set(e, "no size to run");
    }
    return best;
}

/* ---- running the tool ----------------------------------------------------------- */

typedef struct text {
    char *p;
    size_t len;
    size_t max;
} text;

static void text_add(text *t, const char *s, size_t n)
{
    if (t->len >= t->max)
        return;
    if (n > t->max - t->len)
        n = t->max - t->len;
    char *np = realloc(t->p, t->len + n + 1);
    if (!np)
        return;
    t->p = np;
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

static char *text_take(text *t)
{
    char *p = t->p ? t->p : strdup("");
    t->p = NULL;
    t->len = 0;
    return p;
}

/* One stream from the child: bytes are split into lines; lines that decode
 * as protocol messages are handled, the rest kept as output. */
typedef struct stream {
    int fd;
    char line[PROTO_LINE_MAX + 1];
    size_t len;
    bool overflow;
} stream;

typedef struct run_state {
    sanitize_result *out;
    text output, logs;
    bool done;
    proto_msg msg;
} run_state;

static void handle_line(run_state *st, const char *line)
{
    cl_err e = {{0}};
    if (line[0] == '{' && proto_decode(line, &st->msg, &e)) {
        const proto_msg *m = &st->msg;
        sanitize_result *out = st->out;
        switch (m->type) {
        case MSG_HELLO:
            out->have_dev = true;
            out->dev = m->u.hello;
            return;
        case MSG_RESULT:
            if (m->u.result.kind == RK_EXERCISE) {
                out->have_row = true;
                out->row = m->u.result;
            }
            return;
        case MSG_LOG:
            text_add(&st->logs, m->u.log.msg, strlen(m->u.log.msg));
            text_add(&st->logs, "\n", 1);
            return;
        case MSG_FAULT:
            out->faulted = true;
            out->fault = m->u.fault;
            return;
        case MSG_DONE:
            st->done = true;
            return;
        default:
            return;
        }
    }
    text_add(&st->output, line, strlen(line));
    text_add(&st->output, "\n", 1);
}

/* Reads what is there; false at end of file. */
static bool pump(run_state *st, stream *s)
{
    char buf[4096];
    ssize_t n = read(s->fd, buf, sizeof buf);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN;
    if (n == 0) {
        if (s->len > 0) {
            s->line[s->len] = '\0';
            handle_line(st, s->line);
            s->len = 0;
        }
        return false;
    }
    for (ssize_t i = 0; i < n; i++) {
        if (buf[i] == '\n') {
            s->line[s->len] = '\0';
            if (!s->overflow)
                handle_line(st, s->line);
            s->len = 0;
            s->overflow = false;
        } else if (s->len < PROTO_LINE_MAX) {
            s->line[s->len++] = buf[i];
        } else {
            s->overflow = true;
        }
    }
    return true;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* environ plus CUDALAB_NO_PEAK=1 (malloc'd array of borrowed strings). */
static char **child_env(void)
{
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    size_t nl = strlen(ENGINE_NO_PEAK_ENV);
    for (size_t i = 0; i < n; i++)
        if (!(strncmp(environ[i], ENGINE_NO_PEAK_ENV, nl) == 0 && environ[i][nl] == '='))
            env[k++] = environ[i];
    env[k++] = (char *)ENGINE_NO_PEAK_ENV "=1";
    env[k] = NULL;
    return env;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* The request line and a quit line. */
static char *request_text(const sanitize_opts *o, const char *size)
{
    proto_msg *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->type = MSG_RUN;
    run_request *r = &m->u.run;
    r->run = 1;
    snprintf(r->lab, sizeof r->lab, "%s", o->lab ? o->lab : "");
    snprintf(r->problem, sizeof r->problem, "%s", o->problem);
    snprintf(r->sizes[0], sizeof r->sizes[0], "%s", size);
    r->nsizes = 1;
    r->seed = o->seed;
    r->cpu = false;
    r->check_only = true;
    snprintf(r->exercise_kernel, sizeof r->exercise_kernel, "%s", o->kernel);
    snprintf(r->exercise_launcher, sizeof r->exercise_launcher, "%s", o->launcher);
    char *line = proto_encode(m);
    free(m);
    if (!line)
        return NULL;
    static const char quit[] = "{\"type\":\"quit\"}\n";
    char *all = malloc(strlen(line) + sizeof quit);
    if (all) {
        memcpy(all, line, strlen(line));
        memcpy(all + strlen(line), quit, sizeof quit);
    }
    free(line);
    return all;
}

/* An absolute path for p (relative to the current folder). */
static void absolute(const char *p, char *out, size_t n)
{
    char cwd[1024];
    if (p[0] == '/' || !getcwd(cwd, sizeof cwd))
        snprintf(out, n, "%s", p);
    else
        snprintf(out, n, "%s/%s", cwd, p);
}

static bool spawn_tool(const char *const *argv, int in_fd, int out_fd, int proto_fd, pid_t *pid,
                       cl_err *e)
{
    char **env = child_env();
    if (!env)
        return err_set(e, "out of memory");
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc != 0) {
        free(env);
        return err_set(e, "cannot start %s: %s", argv[0], strerror(rc));
    }
    rc = posix_spawnattr_init(&attr);
    if (rc != 0) {
        posix_spawn_file_actions_destroy(&fa);
        free(env);
        return err_set(e, "cannot start %s: %s", argv[0], strerror(rc));
    }
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    const int reset[] = {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD};
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++)
        sigaddset(&defaults, reset[i]);
    if ((rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                                  POSIX_SPAWN_SETSIGDEF)) != 0 ||
        (rc = posix_spawnattr_setpgroup(&attr, 0)) != 0 ||
        (rc = posix_spawnattr_setsigmask(&attr, &none)) != 0 ||
        (rc = posix_spawnattr_setsigdefault(&attr, &defaults)) != 0 ||
        (rc = posix_spawn_file_actions_adddup2(&fa, in_fd, STDIN_FILENO)) != 0 ||
        (rc = posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO)) != 0 ||
        (rc = posix_spawn_file_actions_adddup2(&fa, out_fd, STDERR_FILENO)) != 0 ||
        (rc = posix_spawn_file_actions_adddup2(&fa, proto_fd, PROTO_FD)) != 0) {
        err_set(e, "cannot start %s: %s", argv[0], strerror(rc));
    } else if ((rc = posix_spawn(pid, argv[0], &fa, &attr, (char *const *)argv, env)) != 0) {
        err_set(e, "cannot start %s: %s", argv[0], strerror(rc));
    }
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    free(env);
    return rc == 0;
}

/* Moves fd to 10 or above (close-on-exec), clear of the child's 0..3. */
static bool move_high(int *fd)
{
    int nfd = fcntl(*fd, F_DUPFD_CLOEXEC, 10);
    if (nfd < 0)
        return false;
    close(*fd);
    *fd = nfd;
    return true;
}

bool sanitize_run(const sanitize_opts *o, sanitize_result *out, cl_err *e)
{
    memset(out, 0, sizeof *out);
    out->exit_status = -1;
    out->report.errors = out->report.warnings = -1;
    bool ok = false;
    char dir[512] = "", log_path[600] = "";
    char *request = NULL;
    int in[2] = {-1, -1}, outp[2] = {-1, -1}, proto[2] = {-1, -1};
    pid_t pid = 0;
    run_state *st = calloc(1, sizeof *st);
    stream *s_out = calloc(1, sizeof *s_out), *s_proto = calloc(1, sizeof *s_proto);
    if (!st || !s_out || !s_proto) {
        err_set(e, "out of memory");
        goto cleanup;
    }
    s_out->fd = s_proto->fd = -1;
    st->out = out;
    st->output.max = OUTPUT_MAX;
    st->logs.max = OUTPUT_MAX;

    if (o->sanitizer && o->sanitizer[0]) {
        snprintf(out->tool_path, sizeof out->tool_path, "%s", o->sanitizer);
    } else if (!which_tool("compute-sanitizer", out->tool_path, sizeof out->tool_path)) {
        err_set(e, "compute-sanitizer was not found: it comes with the CUDA toolkit (its bin "
                   "folder, e.g. /usr/local/cuda/bin); install the toolkit (or its "
                   "cuda-sanitizer package), or put that folder on PATH or set CUDA_HOME");
        goto cleanup;
    }
    if (!o->kernel || !o->kernel[0] || !o->launcher || !o->launcher[0]) {
        err_set(e, "no exercise to check: the kernel and launcher files are needed");
        goto cleanup;
    }
    int pick = sanitize_smallest_size(o->problem, o->sizes, o->nsizes, e);
    if (pick < 0)
        goto cleanup;
    snprintf(out->size, sizeof out->size, "%s", o->sizes[pick]);

    char self[1024];
    if (o->self && o->self[0]) {
        snprintf(self, sizeof self, "%s", o->self);
    } else {
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0) {
            err_set(e, "cannot find the cudalab executable: %s", strerror(errno));
            goto cleanup;
        }
        self[n] = '\0';
    }
    char kernel[1024], launcher[1024];
    absolute(o->kernel, kernel, sizeof kernel);
    absolute(o->launcher, launcher, sizeof launcher);
    sanitize_opts ro = *o;
    ro.kernel = kernel;
    ro.launcher = launcher;
    request = request_text(&ro, out->size);
    if (!request) {
        err_set(e, "out of memory");
        goto cleanup;
    }

    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/cudalab-sanitizer-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        err_set(e, "cannot make a folder for the tool's log in %s: %s", tmp && tmp[0] ? tmp : "/tmp",
                strerror(errno));
        dir[0] = '\0';
        goto cleanup;
    }
    snprintf(log_path, sizeof log_path, "%s/%s.log", dir, sanitize_tool_name(o->tool));

    const char *argv[16];
    int a = 0;
    char limit[16];
    snprintf(limit, sizeof limit, "%d", SANITIZE_PRINT_LIMIT);
    argv[a++] = out->tool_path;
    argv[a++] = "--tool";
    argv[a++] = sanitize_tool_name(o->tool);
    argv[a++] = "--log-file";
    argv[a++] = log_path;
    argv[a++] = "--print-limit";
    argv[a++] = limit;
    if (o->tool == SANITIZE_RACECHECK) {
        argv[a++] = "--racecheck-report";
        argv[a++] = "all";
    }
    argv[a++] = self;
    argv[a++] = "worker";
    argv[a] = NULL;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0 ||
        pipe2(outp, O_CLOEXEC) != 0 || pipe2(proto, O_CLOEXEC) != 0) {
        err_set(e, "cannot start %s: %s", out->tool_path, strerror(errno));
        goto cleanup;
    }
    if (!move_high(&in[1]) || !move_high(&outp[1]) || !move_high(&proto[1])) {
        err_set(e, "cannot start %s: %s", out->tool_path, strerror(errno));
        goto cleanup;
    }
    if (!spawn_tool(argv, in[1], outp[1], proto[1], &pid, e)) {
        pid = 0;
        goto cleanup;
    }
    close_fd(&in[1]);
    close_fd(&outp[1]);
    close_fd(&proto[1]);

    size_t rlen = strlen(request), off = 0;
    while (off < rlen) {
        ssize_t n = send(in[0], request + off, rlen - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    shutdown(in[0], SHUT_WR);

    double limit_s = o->time_limit_s > 0 ? o->time_limit_s : SANITIZE_DEFAULT_LIMIT_S;
    double deadline = now_s() + limit_s;
    s_out->fd = outp[0];
    s_proto->fd = proto[0];
    bool timed_out = false;
    while (s_out->fd >= 0 || s_proto->fd >= 0) {
        double left = deadline - now_s();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd pf[2];
        int np = 0;
        if (s_out->fd >= 0)
            pf[np++] = (struct pollfd){.fd = s_out->fd, .events = POLLIN};
        if (s_proto->fd >= 0)
            pf[np++] = (struct pollfd){.fd = s_proto->fd, .events = POLLIN};
        int wait_ms = left > 1.0 ? 1000 : (int)(left * 1000.0) + 1;
        int r = poll(pf, (nfds_t)np, wait_ms);
        if (r < 0 && errno != EINTR) {
            err_set(e, "poll: %s", strerror(errno));
            goto cleanup;
        }
        for (int i = 0; i < np && r > 0; i++) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            stream *s = pf[i].fd == s_out->fd ? s_out : s_proto;
            if (!pump(st, s))
                close_fd(&s->fd);
        }
    }
    int status = 0;
    if (timed_out) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
    }
    pid_t w;
    do
        w = waitpid(pid, &status, 0);
    while (w < 0 && errno == EINTR);
    pid = 0;
    if (w > 0 && WIFEXITED(status))
        out->exit_status = WEXITSTATUS(status);

    if (timed_out && !out->faulted) {
        out->faulted = true;
        snprintf(out->fault.cause, sizeof out->fault.cause, "timeout");
        snprintf(out->fault.variant, sizeof out->fault.variant, "exercise");
        snprintf(out->fault.message, sizeof out->fault.message,
                 "the run under %s did not finish within %.0f s", sanitize_tool_name(o->tool),
                 limit_s);
    } else if (!st->done && !out->faulted) {
        out->faulted = true;
        snprintf(out->fault.variant, sizeof out->fault.variant, "exercise");
        if (w > 0 && WIFSIGNALED(status)) {
            snprintf(out->fault.cause, sizeof out->fault.cause, "signal");
            snprintf(out->fault.message, sizeof out->fault.message,
                     "the worker under %s was killed by signal %d", sanitize_tool_name(o->tool),
                     WTERMSIG(status));
        } else {
            snprintf(out->fault.cause, sizeof out->fault.cause, "exit");
            snprintf(out->fault.message, sizeof out->fault.message,
                     "the worker under %s stopped before finishing (exit status %d)%s",
                     sanitize_tool_name(o->tool), out->exit_status,
                     st->out->have_dev ? "" : ": it never said hello (see the tool's output)");
        }
    }

    size_t llen = 0;
    out->log = file_read_all(log_path, LOG_MAX, &llen, NULL);
    if (!out->log)
        out->log = strdup("");
    if (!out->log || !sanitize_parse_log(out->log, &out->report)) {
        err_set(e, "out of memory reading the tool's log");
        goto cleanup;
    }
    ok = true;

cleanup:
    if (pid > 0) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    close_fd(&in[0]);
    close_fd(&in[1]);
    close_fd(&outp[0]);
    close_fd(&outp[1]);
    close_fd(&proto[0]);
    close_fd(&proto[1]);
    if (s_out)
        close_fd(&s_out->fd);
    if (s_proto)
        close_fd(&s_proto->fd);
    if (st) {
        out->output = text_take(&st->output);
        out->worker_log = text_take(&st->logs);
    }
    if (log_path[0])
        unlink(log_path);
    if (dir[0])
        rmdir(dir);
    free(request);
    free(st);
    free(s_out);
    free(s_proto);
    return ok;
}

void sanitize_result_free(sanitize_result *r)
{
    if (!r)
        return;
    sanitize_report_free(&r->report);
    free(r->log);
    free(r->output);
    free(r->worker_log);
    r->log = r->output = r->worker_log = NULL;
}

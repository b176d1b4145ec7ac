/* nvrtc_log.c - reading NVRTC's and ptxas's log into diagnostics: file,
 * line, column, severity, message and the source line they point at. */
#include "gpu/nvrtc.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/fsguard.h"
#include "core/grow.h"
#include "core/paths.h"
#include "gpu/nvrtc_internal.h"

/* Text of line `line` (1-based) of text into out, without its newline. */
static bool line_of(const char *text, int line, char *out, size_t n)
{
    if (!text || line < 1)
        return false;
    const char *p = text;
    for (int l = 1; l < line; l++) {
        p = strchr(p, '\n');
        if (!p)
            return false;
        p++;
    }
    size_t len = strcspn(p, "\r\n");
    if (!*p && line > 1)
        return false;
    strfmt_copy_n(out, n, p, len);
    return true;
}

/* ---- log parsing ---------------------------------------------------------- */

static const struct {
    const char *word;
    nvrtc_severity sev;
} severity_words[] = {
    {"catastrophic error", NVRTC_SEV_ERROR},
    {"internal error", NVRTC_SEV_ERROR},
    {"fatal error", NVRTC_SEV_ERROR},
    {"error", NVRTC_SEV_ERROR},
    {"warning", NVRTC_SEV_WARNING},
    {"remark", NVRTC_SEV_REMARK},
};

/* Reads "<severity>[ #<number>[-D]]: " at s; returns the message start. */
static const char *read_severity(const char *s, nvrtc_severity *sev)
{
    for (size_t i = 0; i < sizeof severity_words / sizeof severity_words[0]; i++) {
        size_t wl = strlen(severity_words[i].word);
        if (strncmp(s, severity_words[i].word, wl) != 0)
            continue;
        const char *p = s + wl;
        if (*p == ' ' && p[1] == '#') {
            p += 2;
            while (isalnum((unsigned char)*p) || *p == '-')
                p++;
        }
        if (*p != ':')
            continue;
        p++;
        while (*p == ' ')
            p++;
        *sev = severity_words[i].sev;
        return p;
    }
    return NULL;
}

/* Matches "<file>(<line>): <severity>: <message>" in the line [s, s+len). */
static bool match_located(const char *s, size_t len, nvrtc_diag *d)
{
    for (size_t i = 1; i + 3 < len; i++) {
        if (s[i] != ')' || s[i + 1] != ':' || s[i + 2] != ' ')
            continue;
        size_t j = i;
        while (j > 0 && isdigit((unsigned char)s[j - 1]))
            j--;
        if (j == i || j < 2 || s[j - 1] != '(')
            continue;
        nvrtc_severity sev;
        const char *msg = read_severity(s + i + 3, &sev);
        if (!msg || msg > s + len)
            continue;
        memset(d, 0, sizeof *d);
        strfmt_copy_n(d->file, sizeof d->file, s, j - 1);
        d->line = atoi(s + j);
        d->severity = sev;
        strfmt_copy_n(d->message, sizeof d->message, msg, (size_t)(s + len - msg));
        return true;
    }
    return false;
}

/* Matches tool-level messages: "ptxas error   : ...", "nvrtc: error: ...",
 * "error: ...", "warning: ...". */
static bool match_tool(const char *s, size_t len, nvrtc_diag *d)
{
    static const char *const tools[] = {"ptxas", "nvlink", "nvrtc:", "nvvm"};
    const char *p = s;
    bool tool = false;
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        if (starts_with(s, tools[i])) {
            p = s + strlen(tools[i]);
            tool = true;
            break;
        }
    }
    while (*p == ' ')
        p++;
    nvrtc_severity sev;
    const char *word_end;
    if (starts_with(p, "error") || starts_with(p, "fatal")) {
        sev = NVRTC_SEV_ERROR;
        word_end = p + 5;
    } else if (starts_with(p, "warning")) {
        sev = NVRTC_SEV_WARNING;
        word_end = p + 7;
    } else {
        return false;
    }
    if (!tool && p != s)
        return false;
    const char *q = word_end;
    while (*q == ' ')
        q++;
    if (*q != ':')
        return false;
    q++;
    while (*q == ' ')
        q++;
    if (q > s + len)
        return false;
    memset(d, 0, sizeof *d);
    d->severity = sev;
    if (starts_with(s, "ptxas"))
        snprintf(d->message, sizeof d->message, "ptxas: %.*s", (int)(s + len - q), q);
    else
        strfmt_copy_n(d->message, sizeof d->message, q, (size_t)(s + len - q));
    return true;
}

static bool is_caret_line(const char *s, size_t len)
{
    bool caret = false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '^' && !caret)
            caret = true;
        else if (s[i] != ' ' && s[i] != '\t')
            return false;
    }
    return caret;
}

/* Line of the definition of kernel name in text: a line holding "name(" or
 * "name (" whose own or preceding line says __global__. */
static int locate_kernel(const char *text, const char *name)
{
    if (!text || !name[0])
        return 0;
    size_t nl = strlen(name);
    int line = 1;
    bool prev_global = false;
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        bool global = false;
        for (size_t i = 0; i + 10 <= len; i++)
            if (memcmp(p + i, "__global__", 10) == 0)
                global = true;
        for (size_t i = 0; i + nl < len; i++) {
            if (memcmp(p + i, name, nl) != 0)
                continue;
            if (i > 0 && (isalnum((unsigned char)p[i - 1]) || p[i - 1] == '_'))
                continue;
            size_t k = i + nl;
            while (k < len && p[k] == ' ')
                k++;
            if (k < len && p[k] == '(' && (global || prev_global))
                return line;
        }
        prev_global = global;
        p += len;
        if (*p == '\n')
            p++;
        line++;
    }
    return 0;
}

/* The kernel a ptxas message is about: "... function 'name' ...". */
static bool ptxas_kernel_name(const char *msg, char *name, size_t n)
{
    const char *p = strstr(msg, "unction '");
    if (!p)
        return false;
    p += 9;
    size_t len = strcspn(p, "'");
    if (p[len] != '\'')
        return false;
    strfmt_copy_n(name, n, p, len);
    return true;
}

/* The text of d's source line: from main_text for the main file, from disk
 * for a local header of inc; no other file is ever read. */
static void attach_source(nvrtc_diag *d, const char *main_path, const char *main_text,
                          const nvrtc_includes *inc)
{
    if (d->line < 1 || !d->file[0])
        return;
    if (main_path && strcmp(d->file, main_path) == 0) {
        line_of(main_text, d->line, d->source, sizeof d->source);
        return;
    }
    if (!inc)
        return;
    char path[NVRTC_FILE_MAX * 2], dir[NVRTC_FILE_MAX], real[PATH_MAX];
    if (d->file[0] == '/' || !main_path || !strchr(main_path, '/')
        || !paths_dir_name(main_path, dir, sizeof dir))
        snprintf(path, sizeof path, "%s", d->file);
    else
        paths_join(path, sizeof path, dir, d->file);
    if (!realpath(path, real) || !nvrtc_includes_allowed(inc, main_path, real))
        return;
    char *text = fsguard_read(real, inc->root, NVRTC_SOURCE_MAX, NULL, NULL);
    if (text) {
        line_of(text, d->line, d->source, sizeof d->source);
        free(text);
    }
}

bool nvrtc_parse_log(const char *log, const char *main_path, const char *main_text,
                     nvrtc_diag **diags, size_t *count)
{
    return nvrtc_parse_log_in(log, main_path, main_text, NULL, diags, count);
}

/* The diagnostics read so far, and what the lines after one add to it. */
typedef struct log_parse {
    nvrtc_diag *v;
    size_t n, cap;
    size_t cur_i;                  /* the diagnostic the lines below belong to */
    bool have_cur;                 /* ... when it has a file and line */
    char echoed[NVRTC_TEXT_MAX];   /* the source line the log echoed below it */
    const char *main_path, *main_text;
} log_parse;

/* Adds d, a new diagnostic (located: with a file and line); a ptxas message
 * about a kernel points at the kernel's definition in the main file.  false
 * when out of memory. */
static bool add_diag(log_parse *lp, nvrtc_diag *d, bool located)
{
    if (!grow_one((void **)&lp->v, &lp->cap, lp->n, sizeof *lp->v, 8))
        return false;
    char kname[NVRTC_NAME_MAX];
    if (!located && starts_with(d->message, "ptxas") &&
        ptxas_kernel_name(d->message, kname, sizeof kname) && lp->main_path) {
        snprintf(d->file, sizeof d->file, "%s", lp->main_path);
        d->line = locate_kernel(lp->main_text, kname);
    }
    lp->v[lp->n] = *d;
    lp->have_cur = located;
    lp->cur_i = lp->n;
    lp->n++;
    lp->echoed[0] = '\0';
    return true;
}

/* Whether q (an indented line's text) names the template instantiation
 * the diagnostic above happened in. */
static bool is_context(const char *q)
{
    return starts_with(q, "detected during") || starts_with(q, "instantiation of");
}

/* Appends " (<q up to end>)" to cur's message. */
static void add_context(nvrtc_diag *cur, const char *q, const char *end)
{
    size_t ml = strlen(cur->message);
    snprintf(cur->message + ml, sizeof cur->message - ml, " (%.*s)", (int)(end - q), q);
}

/* A line of the log that is no diagnostic, [p, p+tlen): the caret under
 * the column, the source line echoed above it, or the instantiation
 * context; an empty line forgets the echoed line. */
static void continue_diag(log_parse *lp, const char *p, size_t tlen)
{
    nvrtc_diag *cur = lp->have_cur ? &lp->v[lp->cur_i] : NULL;
    if (cur && is_caret_line(p, tlen)) {
        const char *caret = memchr(p, '^', tlen);
        size_t idx = (size_t)(caret - p);
        cur->col = idx >= 2 ? (int)(idx - 2) + 1 : 1;
        if (!cur->source[0] && lp->echoed[0])
            snprintf(cur->source, sizeof cur->source, "%s", lp->echoed);
    } else if (cur && tlen >= 2 && p[0] == ' ' && p[1] == ' ' && !cur->col &&
               !lp->echoed[0]) {
        size_t skip = 2;
        const char *q = p + skip;
        while (q < p + tlen && *q == ' ')
            q++;
        if (is_context(q))
            add_context(cur, q, p + tlen);
        else
            strfmt_copy_n(lp->echoed, sizeof lp->echoed, p + skip, tlen - skip);
    } else if (cur && tlen > 0 && p[0] == ' ') {
        const char *q = p;
        while (q < p + tlen && *q == ' ')
            q++;
        if (is_context(q))
            add_context(cur, q, p + tlen);
    } else if (tlen == 0) {
        lp->echoed[0] = '\0';
    }
}

bool nvrtc_parse_log_in(const char *log, const char *main_path, const char *main_text,
                        const nvrtc_includes *inc, nvrtc_diag **diags, size_t *count)
{
    *diags = NULL;
    *count = 0;
    if (!log)
        return true;
    log_parse lp = {.main_path = main_path, .main_text = main_text};
    const char *p = log;
    while (*p) {
        size_t len = strcspn(p, "\n");
        size_t tlen = len;
        while (tlen > 0 && p[tlen - 1] == '\r')
            tlen--;
        nvrtc_diag d;
        bool located = match_located(p, tlen, &d);
        if (located || match_tool(p, tlen, &d)) {
            if (!add_diag(&lp, &d, located)) {
                free(lp.v);
                *count = lp.n;
                return false;
            }
        } else {
            continue_diag(&lp, p, tlen);
        }
        p += len;
        if (*p == '\n')
            p++;
    }
    for (size_t i = 0; i < lp.n; i++)
        attach_source(&lp.v[i], main_path, main_text, inc);
    *diags = lp.v;
    *count = lp.n;
    return true;
}

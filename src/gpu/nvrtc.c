#define _GNU_SOURCE
#include "gpu/nvrtc.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nvrtc.h>

#include "core/atomicfile.h"
#include "core/paths.h"

#define CACHE_MAGIC "CLNVRTC1"
#define CACHE_MAX_BYTES ((size_t)256 << 20)
#define INCLUDE_DEPTH_MAX 8
#define INCLUDE_FILES_MAX 64
#define MAX_OPTS 12

/* ---- small text helpers ------------------------------------------------- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

static void sb_add(sbuf *b, const void *data, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_str(sbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

static void sb_u64(sbuf *b, uint64_t v)
{
    unsigned char le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (unsigned char)(v >> (8 * i));
    sb_add(b, le, sizeof le);
}

static void copy_text(char *dst, size_t n, const char *src, size_t len)
{
    if (n == 0)
        return;
    if (len >= n)
        len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

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
    copy_text(out, n, p, len);
    return true;
}

/* ---- log parsing ---------------------------------------------------------- */

const char *nvrtc_severity_name(nvrtc_severity s)
{
    switch (s) {
    case NVRTC_SEV_ERROR:
        return "error";
    case NVRTC_SEV_WARNING:
        return "warning";
    case NVRTC_SEV_REMARK:
        return "remark";
    }
    return "error";
}

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
        copy_text(d->file, sizeof d->file, s, j - 1);
        d->line = atoi(s + j);
        d->severity = sev;
        copy_text(d->message, sizeof d->message, msg, (size_t)(s + len - msg));
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
        copy_text(d->message, sizeof d->message, q, (size_t)(s + len - q));
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
    copy_text(name, n, p, len);
    return true;
}

/* The text of d's source line, from main_text or from the file on disk. */
static void attach_source(nvrtc_diag *d, const char *main_path, const char *main_text)
{
    if (d->line < 1 || !d->file[0])
        return;
    if (main_path && strcmp(d->file, main_path) == 0) {
        if (line_of(main_text, d->line, d->source, sizeof d->source))
            return;
    }
    char path[NVRTC_FILE_MAX * 2];
    if (d->file[0] == '/' || !main_path || !strchr(main_path, '/')) {
        snprintf(path, sizeof path, "%s", d->file);
    } else {
        const char *slash = strrchr(main_path, '/');
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - main_path), main_path, d->file);
    }
    char *text = file_read_all(path, NVRTC_SOURCE_MAX, NULL, NULL);
    if (text) {
        line_of(text, d->line, d->source, sizeof d->source);
        free(text);
    }
}

bool nvrtc_parse_log(const char *log, const char *main_path, const char *main_text,
                     nvrtc_diag **diags, size_t *n)
{
    *diags = NULL;
    *n = 0;
    if (!log)
        return true;
    size_t cap = 0;
    nvrtc_diag *v = NULL;
    size_t cur_i = 0;
    bool have_cur = false;
    char echoed[NVRTC_TEXT_MAX] = "";
    const char *p = log;
    while (*p) {
        nvrtc_diag *cur = have_cur ? &v[cur_i] : NULL;
        size_t len = strcspn(p, "\n");
        size_t tlen = len;
        while (tlen > 0 && p[tlen - 1] == '\r')
            tlen--;
        nvrtc_diag d;
        bool located = match_located(p, tlen, &d);
        if (located || match_tool(p, tlen, &d)) {
            if (*n == cap) {
                size_t ncap = cap ? cap * 2 : 8;
                nvrtc_diag *nv = realloc(v, ncap * sizeof *nv);
                if (!nv) {
                    free(v);
                    return false;
                }
                v = nv;
                cap = ncap;
            }
            char kname[NVRTC_NAME_MAX];
            if (!located && starts_with(d.message, "ptxas") &&
                ptxas_kernel_name(d.message, kname, sizeof kname) && main_path) {
                snprintf(d.file, sizeof d.file, "%s", main_path);
                d.line = locate_kernel(main_text, kname);
            }
            v[*n] = d;
            have_cur = located;
            cur_i = *n;
            (*n)++;
            echoed[0] = '\0';
        } else if (cur && is_caret_line(p, tlen)) {
            const char *caret = memchr(p, '^', tlen);
            size_t idx = (size_t)(caret - p);
            cur->col = idx >= 2 ? (int)(idx - 2) + 1 : 1;
            if (!cur->source[0] && echoed[0])
                snprintf(cur->source, sizeof cur->source, "%s", echoed);
        } else if (cur && tlen >= 2 && p[0] == ' ' && p[1] == ' ' && !cur->col &&
                   !echoed[0]) {
            size_t skip = 2;
            const char *q = p + skip;
            while (q < p + tlen && *q == ' ')
                q++;
            if (starts_with(q, "detected during") || starts_with(q, "instantiation of")) {
                size_t ml = strlen(cur->message);
                snprintf(cur->message + ml, sizeof cur->message - ml, " (%.*s)",
                         (int)(p + tlen - q), q);
            } else {
                copy_text(echoed, sizeof echoed, p + skip, tlen - skip);
            }
        } else if (cur && tlen > 0 && p[0] == ' ') {
            const char *q = p;
            while (q < p + tlen && *q == ' ')
                q++;
            if (starts_with(q, "detected during") || starts_with(q, "instantiation of")) {
                size_t ml = strlen(cur->message);
                snprintf(cur->message + ml, sizeof cur->message - ml, " (%.*s)",
                         (int)(p + tlen - q), q);
            }
        } else if (tlen == 0) {
            echoed[0] = '\0';
        }
        p += len;
        if (*p == '\n')
            p++;
    }
    for (size_t i = 0; i < *n; i++)
        attach_source(&v[i], main_path, main_text);
    *diags = v;
    return true;
}

const nvrtc_diag *nvrtc_first_error(const nvrtc_output *out)
{
    for (size_t i = 0; i < out->ndiags; i++)
        if (out->diags[i].severity == NVRTC_SEV_ERROR)
            return &out->diags[i];
    return NULL;
}

int nvrtc_diag_headline(const nvrtc_diag *d, char *buf, size_t n)
{
    const char *sev = nvrtc_severity_name(d->severity);
    const char *file = d->file[0] ? base_name(d->file) : "";
    if (!file[0])
        return snprintf(buf, n, "%s: %s", sev, d->message);
    if (d->line < 1)
        return snprintf(buf, n, "%s: %s: %s", file, sev, d->message);
    if (d->col < 1)
        return snprintf(buf, n, "%s:%d: %s: %s", file, d->line, sev, d->message);
    return snprintf(buf, n, "%s:%d:%d: %s: %s", file, d->line, d->col, sev, d->message);
}

int nvrtc_diag_format(const nvrtc_diag *d, char *buf, size_t n)
{
    sbuf b = {0};
    char head[NVRTC_TEXT_MAX + NVRTC_FILE_MAX + 64];
    nvrtc_diag_headline(d, head, sizeof head);
    sb_str(&b, head);
    sb_str(&b, "\n");
    if (d->source[0]) {
        sb_str(&b, d->source);
        sb_str(&b, "\n");
        if (d->col > 0) {
            size_t src_len = strlen(d->source);
            for (int i = 0; i < d->col - 1; i++)
                sb_add(&b, (size_t)i < src_len && d->source[i] == '\t' ? "\t" : " ", 1);
            sb_str(&b, "^\n");
        }
    }
    int len;
    if (b.oom) {
        len = snprintf(buf, n, "%s\n", head);
    } else {
        len = (int)b.len;
        if (n > 0)
            copy_text(buf, n, b.p, b.len);
    }
    free(b.p);
    return len;
}

/* ---- PTX entries and ptxas usage ------------------------------------------- */

static char param_letter(const char *p, size_t len)
{
    if (memchr(p, '[', len))
        return 'b';
    static const struct {
        const char *t;
        char c;
    } types[] = {
        {".u64", 'x'}, {".s64", 'x'}, {".b64", 'x'}, {".u32", 'i'}, {".s32", 'i'},
        {".b32", 'i'}, {".f32", 'f'}, {".f64", 'd'}, {".u16", 'h'}, {".s16", 'h'},
        {".b16", 'h'}, {".f16", 'h'}, {".u8", 'c'}, {".s8", 'c'}, {".b8", 'c'},
    };
    for (size_t i = 0; i + 3 <= len; i++) {
        if (p[i] != '.')
            continue;
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            size_t tl = strlen(types[t].t);
            if (i + tl <= len && memcmp(p + i, types[t].t, tl) == 0 &&
                (i + tl == len || !isalnum((unsigned char)p[i + tl])))
                return types[t].c;
        }
    }
    return 'b';
}

/* Plain name of a mangled global function "_Z<len><name>...". */
static void demangle_base(const char *name, char *base, size_t n, bool *mangled)
{
    *mangled = false;
    snprintf(base, n, "%s", name);
    if (!starts_with(name, "_Z"))
        return;
    *mangled = true;
    const char *p = name + 2;
    if (!isdigit((unsigned char)*p))
        return;
    char *end;
    long len = strtol(p, &end, 10);
    if (len <= 0 || (size_t)len > strlen(end))
        return;
    copy_text(base, n, end, (size_t)len);
}

static void kernel_init(nvrtc_kernel *k)
{
    memset(k, 0, sizeof *k);
    k->registers = k->barriers = k->shared_bytes = -1;
    k->stack_bytes = k->spill_stores = k->spill_loads = -1;
}

bool nvrtc_parse_ptx(const char *ptx, nvrtc_kernel **kernels, size_t *n)
{
    *kernels = NULL;
    *n = 0;
    size_t cap = 0;
    nvrtc_kernel *v = NULL;
    for (const char *p = ptx ? strstr(ptx, ".entry ") : NULL; p; p = strstr(p, ".entry ")) {
        bool line_start = p == ptx;
        for (const char *q = p; q > ptx; q--) {
            if (q[-1] == '\n') {
                line_start = true;
                break;
            }
            if (q[-1] == '/')
                break;
        }
        p += 7;
        if (!line_start)
            continue;
        while (*p == ' ')
            p++;
        size_t nl = strcspn(p, "( \t\r\n");
        if (nl == 0)
            continue;
        if (*n == cap) {
            size_t ncap = cap ? cap * 2 : 4;
            nvrtc_kernel *nv = realloc(v, ncap * sizeof *nv);
            if (!nv) {
                free(v);
                return false;
            }
            v = nv;
            cap = ncap;
        }
        nvrtc_kernel *k = &v[(*n)++];
        kernel_init(k);
        copy_text(k->name, sizeof k->name, p, nl);
        demangle_base(k->name, k->base, sizeof k->base, &k->mangled);
        p += nl;
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (*p != '(')
            continue;
        const char *close = strchr(p, ')');
        if (!close)
            break;
        const char *q = p + 1;
        while (q < close) {
            size_t plen = strcspn(q, ",)");
            const char *param = strstr(q, ".param");
            if (param && param < q + plen && k->nparams < NVRTC_MAX_PARAMS) {
                k->params[k->nparams++] = param_letter(param + 6, (size_t)(q + plen - param - 6));
                k->params[k->nparams] = '\0';
            }
            q += plen + 1;
        }
        p = close;
    }
    *kernels = v;
    return true;
}

static nvrtc_kernel *kernel_named(nvrtc_kernel *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return &v[i];
    return NULL;
}

/* The number before `word` in s ("10 registers" -> 10), or -1. */
static int number_before(const char *s, const char *word)
{
    const char *w = strstr(s, word);
    if (!w || w == s)
        return -1;
    const char *p = w;
    while (p > s && p[-1] == ' ')
        p--;
    const char *end = p;
    while (p > s && isdigit((unsigned char)p[-1]))
        p--;
    if (p == end)
        return -1;
    return atoi(p);
}

void nvrtc_parse_usage(const char *log, nvrtc_kernel *kernels, size_t n)
{
    if (!log)
        return;
    nvrtc_kernel *cur = NULL;
    char line[1024];
    for (const char *p = log; *p;) {
        size_t len = strcspn(p, "\n");
        copy_text(line, sizeof line, p, len);
        p += len;
        if (*p == '\n')
            p++;
        if (!starts_with(line, "ptxas"))
            continue;
        const char *fn = strstr(line, "Compiling entry function '");
        if (!fn)
            fn = strstr(line, "Function properties for ");
        if (fn) {
            const char *name = strchr(fn, '\'');
            char kname[NVRTC_NAME_MAX];
            if (name && starts_with(fn, "Compiling")) {
                name++;
                copy_text(kname, sizeof kname, name, strcspn(name, "'"));
            } else {
                name = fn + strlen("Function properties for ");
                copy_text(kname, sizeof kname, name, strcspn(name, " \r"));
            }
            cur = kernel_named(kernels, n, kname);
            continue;
        }
        if (!cur)
            continue;
        int v;
        if ((v = number_before(line, "registers")) >= 0)
            cur->registers = v;
        if ((v = number_before(line, "barriers")) >= 0)
            cur->barriers = v;
        if ((v = number_before(line, "bytes smem")) >= 0)
            cur->shared_bytes = v;
        else if (strstr(line, "registers") && cur->shared_bytes < 0)
            cur->shared_bytes = 0;
        if ((v = number_before(line, "bytes stack frame")) >= 0)
            cur->stack_bytes = v;
        if ((v = number_before(line, "bytes spill stores")) >= 0)
            cur->spill_stores = v;
        if ((v = number_before(line, "bytes spill loads")) >= 0)
            cur->spill_loads = v;
    }
}

const nvrtc_kernel *nvrtc_find_kernel(const nvrtc_output *out, const char *name)
{
    for (size_t i = 0; i < out->nkernels; i++)
        if (strcmp(out->kernels[i].name, name) == 0)
            return &out->kernels[i];
    return NULL;
}

void nvrtc_kernel_missing(const nvrtc_output *out, const char *name, char *buf, size_t n)
{
    const char *file = out->path[0] ? base_name(out->path) : "your file";
    for (size_t i = 0; i < out->nkernels; i++) {
        const nvrtc_kernel *k = &out->kernels[i];
        if (k->mangled && strcmp(k->base, name) == 0) {
            snprintf(buf, n,
                     "%s defines %s, but C++ renamed it to %s: declare it "
                     "extern \"C\" __global__ so it keeps its name",
                     file, name, k->name);
            return;
        }
    }
    if (out->nkernels == 0) {
        snprintf(buf, n, "%s defines no __global__ kernel; the launcher asked for %s", file,
                 name);
        return;
    }
    sbuf b = {0};
    for (size_t i = 0; i < out->nkernels; i++) {
        if (i)
            sb_str(&b, ", ");
        sb_str(&b, out->kernels[i].base);
    }
    snprintf(buf, n, "%s has no kernel named %s; it defines: %s", file, name,
             b.oom ? "(out of memory)" : b.p);
    free(b.p);
}

/* ---- compiling -------------------------------------------------------------- */

#define NVRTC_TRY(call, what)                                                       \
    do {                                                                            \
        nvrtcResult nvrtc_st_ = (call);                                             \
        if (nvrtc_st_ != NVRTC_SUCCESS) {                                           \
            err_set(e, "NVRTC: %s failed: %s", what, nvrtcGetErrorString(nvrtc_st_)); \
            goto cleanup;                                                           \
        }                                                                           \
    } while (0)

bool nvrtc_version_text(char *buf, size_t n, cl_err *e)
{
    int major = 0, minor = 0;
    nvrtcResult st = nvrtcVersion(&major, &minor);
    if (st != NVRTC_SUCCESS)
        return err_set(e, "NVRTC: nvrtcVersion failed: %s", nvrtcGetErrorString(st));
    snprintf(buf, n, "%d.%d", major, minor);
    return true;
}

/* "sm_90" -> 90 (with an optional 'a' or 'f' suffix); -1 when malformed. */
static int arch_number(const char *arch)
{
    if (!starts_with(arch, "sm_"))
        return -1;
    const char *p = arch + 3;
    if (!isdigit((unsigned char)*p))
        return -1;
    char *end;
    long v = strtol(p, &end, 10);
    if ((*end == 'a' || *end == 'f') && end[1] == '\0')
        end++;
    if (*end || v <= 0 || v > 10000)
        return -1;
    return (int)v;
}

static bool check_arch(const char *arch, cl_err *e)
{
    int num = arch_number(arch);
    if (num < 0)
        return err_set(e, "'%s' is not a real GPU architecture: use the form sm_90", arch);
    int count = 0;
    nvrtcResult st = nvrtcGetNumSupportedArchs(&count);
    if (st != NVRTC_SUCCESS)
        return err_set(e, "NVRTC: nvrtcGetNumSupportedArchs failed: %s",
                       nvrtcGetErrorString(st));
    if (count <= 0 || count > 4096)
        return true;
    int *archs = malloc((size_t)count * sizeof *archs);
    if (!archs)
        return err_set(e, "out of memory");
    st = nvrtcGetSupportedArchs(archs);
    if (st != NVRTC_SUCCESS) {
        free(archs);
        return err_set(e, "NVRTC: nvrtcGetSupportedArchs failed: %s", nvrtcGetErrorString(st));
    }
    bool found = false;
    for (int i = 0; i < count; i++)
        if (archs[i] == num)
            found = true;
    char list[512] = "";
    size_t used = 0;
    for (int i = 0; i < count && !found && used + 16 < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%ssm_%d", i ? " " : "",
                                 archs[i]);
    free(archs);
    char ver[32] = "?";
    if (!found) {
        nvrtc_version_text(ver, sizeof ver, NULL);
        return err_set(e, "this NVRTC (%s) cannot compile for %s; it supports %s", ver, arch,
                       list);
    }
    return true;
}

static bool dir_has(const char *dir, const char *file)
{
    char p[CL_PATH_MAX];
    return paths_join(p, sizeof p, dir, file) && paths_is_file(p);
}

/* The toolkit's include folder: beside the loaded libnvrtc first, then
 * $CUDA_HOME, $CUDA_PATH and /usr/local/cuda.  false when none is found. */
static bool toolkit_include(char *out, size_t n)
{
    Dl_info info;
    if (dladdr((void *)nvrtcVersion, &info) && info.dli_fname) {
        char real[PATH_MAX];
        if (realpath(info.dli_fname, real)) {
            char *dir = dirname(real);
            char inc[CL_PATH_MAX];
            snprintf(inc, sizeof inc, "%s/../include", dir);
            char rinc[PATH_MAX];
            if (realpath(inc, rinc) && dir_has(rinc, "cuda_runtime.h")) {
                snprintf(out, n, "%s", rinc);
                return true;
            }
        }
    }
    const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        if (!roots[i] || !roots[i][0])
            continue;
        char inc[CL_PATH_MAX];
        snprintf(inc, sizeof inc, "%s/include", roots[i]);
        if (dir_has(inc, "cuda_runtime.h")) {
            snprintf(out, n, "%s", inc);
            return true;
        }
    }
    return false;
}

typedef struct compile_opts {
    char arch_opt[32];
    char inc_src[CL_PATH_MAX + 8];
    char inc_cuda[CL_PATH_MAX + 8];
    char inc_cccl[CL_PATH_MAX + 16];
    const char *v[MAX_OPTS];
    int n;
} compile_opts;

static void build_opts(compile_opts *o, const char *arch, const char *src_dir, bool verbose)
{
    o->n = 0;
    snprintf(o->arch_opt, sizeof o->arch_opt, "-arch=%s", arch);
    o->v[o->n++] = o->arch_opt;
    o->v[o->n++] = "-std=c++17";
    o->v[o->n++] = "-lineinfo";
    if (verbose)
        o->v[o->n++] = "--ptxas-options=-v";
    snprintf(o->inc_src, sizeof o->inc_src, "-I%s", src_dir);
    o->v[o->n++] = o->inc_src;
    char inc[CL_PATH_MAX];
    if (toolkit_include(inc, sizeof inc)) {
        snprintf(o->inc_cuda, sizeof o->inc_cuda, "-I%s", inc);
        o->v[o->n++] = o->inc_cuda;
        char cccl[CL_PATH_MAX];
        if (paths_join(cccl, sizeof cccl, inc, "cccl") && paths_is_dir(cccl)) {
            snprintf(o->inc_cccl, sizeof o->inc_cccl, "-I%s", cccl);
            o->v[o->n++] = o->inc_cccl;
        }
    }
}

/* Adds the text of every local header that text includes with quotes
 * (resolved in dir, recursively) to the cache key. */
static void key_add_includes(sbuf *key, const char *text, const char *dir, int depth,
                             int *files)
{
    if (depth > INCLUDE_DEPTH_MAX)
        return;
    for (const char *p = text; p && *p;) {
        size_t len = strcspn(p, "\n");
        const char *q = p;
        while (q < p + len && (*q == ' ' || *q == '\t'))
            q++;
        if (q < p + len && *q == '#') {
            q++;
            while (q < p + len && (*q == ' ' || *q == '\t'))
                q++;
            if ((size_t)(p + len - q) > 8 && strncmp(q, "include", 7) == 0) {
                q += 7;
                while (q < p + len && (*q == ' ' || *q == '\t'))
                    q++;
                const char *close = *q == '"' ? memchr(q + 1, '"', (size_t)(p + len - q - 1)) : NULL;
                if (close && *files < INCLUDE_FILES_MAX) {
                    char name[CL_PATH_MAX], path[CL_PATH_MAX * 2];
                    copy_text(name, sizeof name, q + 1, (size_t)(close - q - 1));
                    if (name[0] == '/')
                        snprintf(path, sizeof path, "%s", name);
                    else
                        snprintf(path, sizeof path, "%s/%s", dir, name);
                    size_t hl = 0;
                    char *htext = file_read_all(path, NVRTC_SOURCE_MAX, &hl, NULL);
                    (*files)++;
                    sb_str(key, "\ninclude ");
                    sb_str(key, path);
                    sb_str(key, "\n");
                    if (htext) {
                        sb_u64(key, hl);
                        sb_add(key, htext, hl);
                        char hdir[CL_PATH_MAX * 2];
                        snprintf(hdir, sizeof hdir, "%s", path);
                        char *slash = strrchr(hdir, '/');
                        if (slash)
                            *slash = '\0';
                        key_add_includes(key, htext, hdir, depth + 1, files);
                        free(htext);
                    } else {
                        sb_str(key, "(missing)");
                    }
                }
            }
        }
        p += len;
        if (*p == '\n')
            p++;
    }
}

static uint64_t fnv1a64(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static bool cache_file(const nvrtc_opts *o, const sbuf *key, char *out, size_t n, cl_err *e)
{
    char dir[CL_PATH_MAX];
    if (o->cache_dir) {
        snprintf(dir, sizeof dir, "%s", o->cache_dir);
    } else {
        char data[CL_PATH_MAX];
        if (!paths_data_dir(data, sizeof data, e))
            return false;
        if (!paths_join(dir, sizeof dir, data, "nvrtc-cache"))
            return err_set(e, "cache path too long");
    }
    char name[32];
    snprintf(name, sizeof name, "%016llx.bin", (unsigned long long)fnv1a64(key->p, key->len));
    if (!paths_join(out, n, dir, name))
        return err_set(e, "cache path too long");
    return true;
}

static bool read_u64(const char **p, const char *end, uint64_t *v)
{
    if ((size_t)(end - *p) < 8)
        return false;
    uint64_t x = 0;
    for (int i = 0; i < 8; i++)
        x |= (uint64_t)(unsigned char)(*p)[i] << (8 * i);
    *p += 8;
    *v = x;
    return true;
}

/* One length-prefixed blob of [*p, end); false when it does not fit. */
static bool read_blob(const char **p, const char *end, const char **blob, size_t *len)
{
    uint64_t l;
    if (!read_u64(p, end, &l) || l > (uint64_t)(end - *p))
        return false;
    *blob = *p;
    *len = (size_t)l;
    *p += l;
    return true;
}

/* Kernel list as cached: "name params\n" a kernel ('-' for no parameters). */
static void kernels_serialize(const nvrtc_output *out, sbuf *b)
{
    for (size_t i = 0; i < out->nkernels; i++) {
        sb_str(b, out->kernels[i].name);
        sb_str(b, " ");
        sb_str(b, out->kernels[i].nparams ? out->kernels[i].params : "-");
        sb_str(b, "\n");
    }
}

static bool kernels_deserialize(const char *text, size_t len, nvrtc_output *out)
{
    size_t count = 0;
    for (size_t i = 0; i < len; i++)
        count += text[i] == '\n';
    out->kernels = count ? calloc(count, sizeof *out->kernels) : NULL;
    if (count && !out->kernels)
        return false;
    const char *p = text, *end = text + len;
    while (p < end && out->nkernels < count) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return false;
        const char *sp = memchr(p, ' ', (size_t)(nl - p));
        if (!sp)
            return false;
        nvrtc_kernel *k = &out->kernels[out->nkernels++];
        kernel_init(k);
        copy_text(k->name, sizeof k->name, p, (size_t)(sp - p));
        demangle_base(k->name, k->base, sizeof k->base, &k->mangled);
        if (!(nl - sp == 2 && sp[1] == '-')) {
            copy_text(k->params, sizeof k->params, sp + 1, (size_t)(nl - sp - 1));
            k->nparams = (int)strlen(k->params);
        }
        p = nl + 1;
    }
    return true;
}

/* Fills out from a cache entry when its key matches exactly. */
static bool cache_load(const char *file, const sbuf *key, nvrtc_output *out)
{
    size_t len = 0;
    char *data = file_read_all(file, CACHE_MAX_BYTES, &len, NULL);
    if (!data)
        return false;
    bool ok = false;
    const char *p = data, *end = data + len;
    const char *k, *cubin, *log, *kern;
    size_t kl, cl, ll, nl;
    if (len < 8 || memcmp(p, CACHE_MAGIC, 8) != 0)
        goto cleanup;
    p += 8;
    if (!read_blob(&p, end, &k, &kl) || kl != key->len || memcmp(k, key->p, kl) != 0)
        goto cleanup;
    if (!read_blob(&p, end, &cubin, &cl) || !read_blob(&p, end, &log, &ll) ||
        !read_blob(&p, end, &kern, &nl) || cl == 0)
        goto cleanup;
    out->cubin = malloc(cl);
    out->log = malloc(ll + 1);
    if (!out->cubin || !out->log)
        goto cleanup;
    memcpy(out->cubin, cubin, cl);
    out->cubin_size = cl;
    memcpy(out->log, log, ll);
    out->log[ll] = '\0';
    ok = kernels_deserialize(kern, nl, out);
cleanup:
    if (!ok) {
        free(out->cubin);
        free(out->log);
        free(out->kernels);
        out->cubin = NULL;
        out->log = NULL;
        out->kernels = NULL;
        out->cubin_size = 0;
        out->nkernels = 0;
    }
    free(data);
    return ok;
}

static void cache_store(const char *file, const sbuf *key, const nvrtc_output *out)
{
    sbuf kern = {0}, b = {0};
    kernels_serialize(out, &kern);
    sb_add(&b, CACHE_MAGIC, 8);
    sb_u64(&b, key->len);
    sb_add(&b, key->p, key->len);
    sb_u64(&b, out->cubin_size);
    sb_add(&b, out->cubin, out->cubin_size);
    size_t ll = out->log ? strlen(out->log) : 0;
    sb_u64(&b, ll);
    sb_add(&b, out->log ? out->log : "", ll);
    sb_u64(&b, kern.len);
    sb_add(&b, kern.p ? kern.p : "", kern.len);
    if (!b.oom && !kern.oom) {
        char dir[CL_PATH_MAX];
        snprintf(dir, sizeof dir, "%s", file);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        if (paths_mkdir_p(dir, NULL))
            atomicfile_write(file, b.p, b.len, NULL);
    }
    free(kern.p);
    free(b.p);
}

/* Runs NVRTC on text; fills cubin, log and kernels, or sets compile_error. */
static bool run_nvrtc(const char *text, const compile_opts *co, nvrtc_output *out, cl_err *e)
{
    nvrtcProgram prog = NULL;
    bool ok = false;
    char *ptx = NULL;
    double t0 = now_ms();
    NVRTC_TRY(nvrtcCreateProgram(&prog, text, out->path, 0, NULL, NULL), "nvrtcCreateProgram");
    nvrtcResult st = nvrtcCompileProgram(prog, co->n, co->v);
    out->compile_ms = now_ms() - t0;
    size_t log_size = 0;
    NVRTC_TRY(nvrtcGetProgramLogSize(prog, &log_size), "nvrtcGetProgramLogSize");
    out->log = malloc(log_size + 1);
    if (!out->log) {
        err_set(e, "out of memory for the compiler log");
        goto cleanup;
    }
    out->log[0] = '\0';
    if (log_size > 0)
        NVRTC_TRY(nvrtcGetProgramLog(prog, out->log), "nvrtcGetProgramLog");
    out->log[log_size] = '\0';
    if (st == NVRTC_ERROR_COMPILATION) {
        out->compile_error = true;
        ok = true;
        goto cleanup;
    }
    if (st != NVRTC_SUCCESS) {
        err_set(e, "NVRTC: nvrtcCompileProgram failed: %s%s%s", nvrtcGetErrorString(st),
                out->log[0] ? ": " : "", out->log);
        goto cleanup;
    }
    size_t cubin_size = 0;
    NVRTC_TRY(nvrtcGetCUBINSize(prog, &cubin_size), "nvrtcGetCUBINSize");
    if (cubin_size == 0) {
        err_set(e, "NVRTC produced no CUBIN for %s", out->arch);
        goto cleanup;
    }
    out->cubin = malloc(cubin_size);
    if (!out->cubin) {
        err_set(e, "out of memory for the compiled program");
        goto cleanup;
    }
    NVRTC_TRY(nvrtcGetCUBIN(prog, out->cubin), "nvrtcGetCUBIN");
    out->cubin_size = cubin_size;
    size_t ptx_size = 0;
    NVRTC_TRY(nvrtcGetPTXSize(prog, &ptx_size), "nvrtcGetPTXSize");
    ptx = malloc(ptx_size + 1);
    if (!ptx) {
        err_set(e, "out of memory for the PTX");
        goto cleanup;
    }
    NVRTC_TRY(nvrtcGetPTX(prog, ptx), "nvrtcGetPTX");
    ptx[ptx_size] = '\0';
    if (!nvrtc_parse_ptx(ptx, &out->kernels, &out->nkernels)) {
        err_set(e, "out of memory listing the kernels");
        goto cleanup;
    }
    ok = true;
cleanup:
    free(ptx);
    if (prog) {
        nvrtcResult dst = nvrtcDestroyProgram(&prog);
        if (dst != NVRTC_SUCCESS && ok) {
            err_set(e, "NVRTC: nvrtcDestroyProgram failed: %s", nvrtcGetErrorString(dst));
            ok = false;
        }
    }
    return ok;
}

bool nvrtc_compile(const char *path, const char *arch, nvrtc_output *out, cl_err *e)
{
    nvrtc_opts o = {.arch = arch};
    return nvrtc_compile_opts(path, &o, out, e);
}

bool nvrtc_compile_opts(const char *path, const nvrtc_opts *o, nvrtc_output *out, cl_err *e)
{
    static const nvrtc_opts defaults = {0};
    if (!o)
        o = &defaults;
    memset(out, 0, sizeof *out);
    const char *arch = o->arch && o->arch[0] ? o->arch : NVRTC_DEFAULT_ARCH;
    snprintf(out->arch, sizeof out->arch, "%s", arch);
    bool ok = false;
    char *text = NULL;
    sbuf key = {0};
    char cache_path[CL_PATH_MAX] = "";

    char real[PATH_MAX];
    if (!realpath(path, real))
        return err_set(e, "cannot open %s: %s", path, strerror(errno));
    snprintf(out->path, sizeof out->path, "%s", real);
    if (!check_arch(arch, e))
        return false;
    size_t len = 0;
    text = file_read_all(real, NVRTC_SOURCE_MAX, &len, e);
    if (!text)
        return false;
    if (strlen(text) != len) {
        err_set(e, "%s is not a text file (it holds a NUL byte)", path);
        goto cleanup;
    }
    char src_dir[CL_PATH_MAX];
    snprintf(src_dir, sizeof src_dir, "%s", real);
    char *slash = strrchr(src_dir, '/');
    if (slash)
        *slash = '\0';
    compile_opts co;
    build_opts(&co, arch, src_dir, true);

    if (!o->no_cache) {
        char ver[32];
        if (!nvrtc_version_text(ver, sizeof ver, e))
            goto cleanup;
        sb_str(&key, "cudalab nvrtc cache 1\nnvrtc ");
        sb_str(&key, ver);
        sb_str(&key, "\npath ");
        sb_str(&key, real);
        for (int i = 0; i < co.n; i++) {
            sb_str(&key, "\nopt ");
            sb_str(&key, co.v[i]);
        }
        sb_str(&key, "\nsource\n");
        sb_u64(&key, len);
        sb_add(&key, text, len);
        int files = 0;
        key_add_includes(&key, text, src_dir, 1, &files);
        if (key.oom) {
            err_set(e, "out of memory");
            goto cleanup;
        }
        if (cache_file(o, &key, cache_path, sizeof cache_path, NULL) &&
            cache_load(cache_path, &key, out)) {
            out->cache_hit = true;
            nvrtc_parse_usage(out->log, out->kernels, out->nkernels);
            if (!nvrtc_parse_log(out->log, real, text, &out->diags, &out->ndiags)) {
                err_set(e, "out of memory reading the compiler log");
                goto cleanup;
            }
            ok = true;
            goto cleanup;
        }
    }

    if (!run_nvrtc(text, &co, out, e))
        goto cleanup;
    if (!nvrtc_parse_log(out->log, real, text, &out->diags, &out->ndiags)) {
        err_set(e, "out of memory reading the compiler log");
        goto cleanup;
    }
    if (out->compile_error && !nvrtc_first_error(out)) {
        /* With ptxas -v, NVRTC drops ptxas's own error line (too much shared
         * data, ...): compile once more without it to have the reason. */
        compile_opts quiet;
        build_opts(&quiet, arch, src_dir, false);
        free(out->log);
        free(out->diags);
        out->log = NULL;
        out->diags = NULL;
        out->ndiags = 0;
        out->compile_error = false;
        double first_ms = out->compile_ms;
        if (!run_nvrtc(text, &quiet, out, e))
            goto cleanup;
        out->compile_ms += first_ms;
        if (!nvrtc_parse_log(out->log, real, text, &out->diags, &out->ndiags)) {
            err_set(e, "out of memory reading the compiler log");
            goto cleanup;
        }
    }
    if (out->compile_error) {
        const nvrtc_diag *d = nvrtc_first_error(out);
        if (d) {
            char head[NVRTC_TEXT_MAX + NVRTC_FILE_MAX + 64];
            nvrtc_diag_headline(d, head, sizeof head);
            err_set(e, "%s", head);
        } else {
            err_set(e, "%s did not compile: %s", base_name(real),
                    out->log[0] ? out->log : "NVRTC gave no reason");
        }
        goto cleanup;
    }
    nvrtc_parse_usage(out->log, out->kernels, out->nkernels);
    if (cache_path[0])
        cache_store(cache_path, &key, out);
    ok = true;
cleanup:
    free(text);
    free(key.p);
    return ok;
}

void nvrtc_output_free(nvrtc_output *out)
{
    if (!out)
        return;
    free(out->cubin);
    free(out->log);
    free(out->diags);
    free(out->kernels);
    out->cubin = NULL;
    out->log = NULL;
    out->diags = NULL;
    out->kernels = NULL;
    out->cubin_size = out->ndiags = out->nkernels = 0;
}

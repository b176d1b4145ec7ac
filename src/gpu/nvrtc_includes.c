/* nvrtc_includes.c - which files a kernel source may include
 * (gpu/nvrtc_includes.h).
 *
 * The scan errs on the side of looking: wherever the preprocessor's reading
 * and this one could differ (a raw string whose delimiter is malformed, a
 * comment that spans lines before a '#'), this one treats more text as
 * code, so that no directive the compiler obeys goes unseen. */
#include "gpu/nvrtc_includes.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsguard.h"
#include "core/grow.h"
#include "gpu/nvrtc_internal.h"

#define NAME_MAX_SCAN 48   /* longer identifiers cannot be one of the watched names */

/* One file being scanned: its text with line splices removed. */
typedef struct src {
    const char *path;     /* real path, as diagnostics name it */
    const char *text;     /* as on disk */
    char *s;              /* spliced */
    size_t n;
    size_t *splices;      /* offsets in s where a backslash-newline was removed */
    size_t nsplices;
} src;

typedef struct lexer {
    const src *f;
    size_t i;
    bool line_start;      /* no token yet since the last newline */
} lexer;

typedef struct scanner {
    nvrtc_includes *inc;
    char main_dir[CL_PATH_MAX];
    nvrtc_diag *refusal;
} scanner;

/* ---- positions and refusals ------------------------------------------------- */

static void where(const src *f, size_t off, int *line, int *col)
{
    int ln = 1;
    size_t last = 0, k = 0;
    for (size_t i = 0; i <= off && i <= f->n; i++) {
        while (k < f->nsplices && f->splices[k] <= i) {
            ln++;
            last = f->splices[k++];
        }
        if (i < off && i < f->n && f->s[i] == '\n') {
            ln++;
            last = i + 1;
        }
    }
    *line = ln;
    *col = (int)(off - last) + 1;
}

/* Line `line` (1-based) of text into out, without its newline. */
static void source_line(const char *text, int line, char *out, size_t n)
{
    out[0] = '\0';
    const char *p = text;
    for (int l = 1; p && l < line; l++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p)
        return;
    size_t len = strcspn(p, "\r\n");
    if (len >= n)
        len = n - 1;
    memcpy(out, p, len);
    out[len] = '\0';
}

static bool refuse_at(scanner *sc, const src *f, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static bool refuse_at(scanner *sc, const src *f, int line, int col, const char *fmt, ...)
{
    nvrtc_diag *d = sc->refusal;
    memset(d, 0, sizeof *d);
    snprintf(d->file, sizeof d->file, "%s", f->path);
    d->line = line;
    d->col = col;
    d->severity = NVRTC_SEV_ERROR;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
    source_line(f->text, line, d->source, sizeof d->source);
    return false;
}

#define REFUSE(sc, lx, off, ...)                                                   \
    do {                                                                           \
        int l_, c_;                                                                \
        where((lx)->f, (off), &l_, &c_);                                           \
        return refuse_at((sc), (lx)->f, l_, c_, __VA_ARGS__);                      \
    } while (0)

static bool out_of_memory(scanner *sc)
{
    memset(sc->refusal, 0, sizeof *sc->refusal);
    snprintf(sc->refusal->message, sizeof sc->refusal->message,
             "out of memory checking the includes");
    return false;
}

/* ---- phase 2: line splices ---------------------------------------------------- */

/* f->s from f->text without its backslash-newlines; refuses a backslash
 * followed by spaces and a newline. */
static bool splice(scanner *sc, src *f)
{
    size_t len = strlen(f->text);
    f->s = malloc(len + 1);
    size_t cap = 0;
    f->splices = NULL;
    if (!f->s)
        return out_of_memory(sc);
    int line = 1;
    size_t line_begin = 0;
    const char *t = f->text;
    for (size_t i = 0; i < len; i++) {
        if (t[i] == '\n') {
            line++;
            line_begin = i + 1;
        }
        if (t[i] != '\\') {
            f->s[f->n++] = t[i];
            continue;
        }
        size_t j = i + 1;
        while (j < len && (t[j] == ' ' || t[j] == '\t'))
            j++;
        size_t nl = j < len && t[j] == '\n' ? 1 : j + 1 < len && t[j] == '\r' && t[j + 1] == '\n'
                                                       ? 2 : 0;
        if (nl && j > i + 1)
            return refuse_at(sc, f, line, (int)(i - line_begin) + 1,
                             "a backslash followed by spaces ends this line: remove the spaces "
                             "(compilers disagree on whether it joins the lines)");
        if (!nl) {
            f->s[f->n++] = t[i];
            continue;
        }
        if (!grow_one((void **)&f->splices, &cap, f->nsplices, sizeof *f->splices, 16))
            return out_of_memory(sc);
        f->splices[f->nsplices++] = f->n;
        i = j + nl - 1;
        line++;
        line_begin = i + 1;
    }
    f->s[f->n] = '\0';
    return true;
}

/* ---- the lexer ------------------------------------------------------------------ */

static int ch(const lexer *lx, size_t k)
{
    size_t j = lx->i + k;
    return j < lx->f->n ? (unsigned char)lx->f->s[j] : -1;
}

static bool is_nl(int c)
{
    return c == '\n' || c == '\r';
}

static bool is_hspace(int c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

static bool is_idstart(int c)
{
    return (c >= 0 && (isalpha(c) || c == '_' || c == '$')) || c >= 0x80;
}

static bool is_idchar(int c)
{
    return is_idstart(c) || (c >= '0' && c <= '9');
}

/* Length of a universal character name at lx (\uXXXX or \UXXXXXXXX), its
 * value in *v; 0 when there is none. */
static size_t ucn_at(const lexer *lx, size_t k, unsigned long *v)
{
    if (ch(lx, k) != '\\' || (ch(lx, k + 1) != 'u' && ch(lx, k + 1) != 'U'))
        return 0;
    size_t digits = ch(lx, k + 1) == 'u' ? 4 : 8;
    unsigned long val = 0;
    for (size_t d = 0; d < digits; d++) {
        int c = ch(lx, k + 2 + d);
        if (c < 0 || !isxdigit(c))
            return 0;
        val = val * 16 + (unsigned long)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
    }
    *v = val;
    return 2 + digits;
}

/* Reads an identifier; name receives its spelling with universal
 * character names decoded ('?' for what is not ASCII), "" when too long. */
static void read_ident(lexer *lx, char *name, size_t n)
{
    size_t len = 0;
    bool too_long = false;
    for (;;) {
        int c = ch(lx, 0);
        unsigned long v = 0;
        size_t u = 0;
        if (is_idchar(c)) {
            lx->i++;
        } else if ((u = ucn_at(lx, 0, &v)) > 0) {
            c = v < 0x80 ? (int)v : '?';
            lx->i += u;
        } else {
            break;
        }
        if (len + 1 < n)
            name[len++] = (char)(c < 0x80 ? c : '?');
        else
            too_long = true;
    }
    name[too_long ? 0 : len] = '\0';
}

/* Skips a comment from its first slash (a line or a block comment); a
 * block comment that holds a newline counts as one for what follows. */
static void skip_comment(lexer *lx)
{
    if (ch(lx, 1) == '/') {
        while (ch(lx, 0) >= 0 && !is_nl(ch(lx, 0)))
            lx->i++;
        return;
    }
    lx->i += 2;
    while (ch(lx, 0) >= 0 && !(ch(lx, 0) == '*' && ch(lx, 1) == '/')) {
        if (is_nl(ch(lx, 0)))
            lx->line_start = true;
        lx->i++;
    }
    if (ch(lx, 0) >= 0)
        lx->i += 2;
}

static bool at_comment(const lexer *lx)
{
    return ch(lx, 0) == '/' && (ch(lx, 1) == '/' || ch(lx, 1) == '*');
}

/* A string or character literal from its quote to the closing one, or to
 * the end of the line when it has none. */
static void skip_quoted(lexer *lx)
{
    int q = ch(lx, 0);
    lx->i++;
    for (int c; (c = ch(lx, 0)) >= 0 && !is_nl(c);) {
        if (c == '\\' && ch(lx, 1) >= 0 && !is_nl(ch(lx, 1))) {
            lx->i += 2;
            continue;
        }
        lx->i++;
        if (c == q)
            return;
    }
}

/* A raw string literal from its opening quote; one whose delimiter is
 * malformed or that never closes is read as an ordinary string. */
static void skip_raw(lexer *lx)
{
    size_t k = 1;
    for (; k <= 17; k++) {
        int c = ch(lx, k);
        if (c == '(' || c < 0 || c == ' ' || c == ')' || c == '\\' || c == '\t' || c == '\v'
            || c == '\f' || is_nl(c))
            break;
    }
    if (ch(lx, k) != '(' || k > 17) {
        skip_quoted(lx);
        return;
    }
    const char *delim = lx->f->s + lx->i + 1;
    size_t dlen = k - 1;
    for (size_t j = lx->i + k + 1; j + dlen + 1 < lx->f->n; j++) {
        const char *p = lx->f->s + j;
        if (p[0] == ')' && memcmp(p + 1, delim, dlen) == 0 && p[1 + dlen] == '"') {
            lx->i = j + dlen + 2;
            return;
        }
    }
    skip_quoted(lx);
}

/* A preprocessing number: a digit (or '.' and a digit), then letters,
 * digits, '.', digit separators and exponent signs. */
static void skip_number(lexer *lx)
{
    lx->i++;
    for (;;) {
        int c = ch(lx, 0);
        unsigned long v;
        size_t u;
        if ((c == 'e' || c == 'E' || c == 'p' || c == 'P') && (ch(lx, 1) == '+' || ch(lx, 1) == '-'))
            lx->i += 2;
        else if (is_idchar(c) || c == '.')
            lx->i++;
        else if (c == '\'' && is_idchar(ch(lx, 1)))
            lx->i += 2;
        else if ((u = ucn_at(lx, 0, &v)) > 0)
            lx->i += u;
        else
            return;
    }
}

/* Spaces and comments inside a directive: a block comment may span lines
 * (it is one space), a line comment ends the directive. */
static void skip_dspace(lexer *lx)
{
    for (;;) {
        int c = ch(lx, 0);
        if (is_hspace(c))
            lx->i++;
        else if (c == '/' && ch(lx, 1) == '*')
            skip_comment(lx);
        else
            return;
    }
}

static bool name_in(const char *name, const char *const *set)
{
    for (; *set; set++)
        if (strcmp(name, *set) == 0)
            return true;
    return false;
}

/* ---- the header names of directives ------------------------------------------- */

static bool known(const nvrtc_includes *inc, const char *main_real, const char *real)
{
    return nvrtc_includes_allowed(inc, main_real, real);
}

/* Checks the header name at lx (its opening '"' or '<'), which a directive
 * or __has_include at off names; a local file joins the list when queue.
 * lx moves past the name. */
static bool header_name(scanner *sc, lexer *lx, size_t off, const char *what, const char *dir,
                        const char *main_real, bool queue)
{
    int open = ch(lx, 0);
    int close = open == '<' ? '>' : '"';
    size_t start = lx->i + 1, end = start;
    while (end < lx->f->n && lx->f->s[end] != close && !is_nl((unsigned char)lx->f->s[end]))
        end++;
    if (end >= lx->f->n || lx->f->s[end] != close)
        REFUSE(sc, lx, off, "%s has no closing %c", what, close);
    char name[PATH_MAX];
    size_t len = end - start;
    if (len >= sizeof name)
        REFUSE(sc, lx, off, "%s names a path that is too long", what);
    memcpy(name, lx->f->s + start, len);
    name[len] = '\0';
    lx->i = end + 1;
    char real[PATH_MAX], why[256];
    nvrtc_found w;
    if (!nvrtc_resolve_include(sc->inc, sc->main_dir, name, open == '"', dir, &w, real,
                               sizeof real, why, sizeof why))
        REFUSE(sc, lx, off, "%s %c%s%c: %s", what, open, name, close, why);
    if (w != NVRTC_FOUND_LOCAL || !queue || known(sc->inc, main_real, real))
        return true;
    if (sc->inc->nfiles == NVRTC_INCLUDES_MAX)
        REFUSE(sc, lx, off, "more than %d local headers are included", NVRTC_INCLUDES_MAX);
    snprintf(sc->inc->files[sc->inc->nfiles++], CL_PATH_MAX, "%s", real);
    return true;
}

/* After "#": the directive's name, and for #include its file. */
static bool directive(scanner *sc, lexer *lx, const char *dir, const char *main_real)
{
    size_t off = lx->i;
    skip_dspace(lx);
    if (!is_idstart(ch(lx, 0))) {
        unsigned long v;
        if (!ucn_at(lx, 0, &v))
            return true;
    }
    char name[NAME_MAX_SCAN];
    read_ident(lx, name, sizeof name);
    static const char *const refused[] = {"include_next", "import", "embed", NULL};
    if (name_in(name, refused))
        REFUSE(sc, lx, off, "#%s is not allowed in a kernel%s", name,
               strcmp(name, "embed") == 0 ? "" : ": use #include");
    if (strcmp(name, "include") != 0)
        return true;
    skip_dspace(lx);
    if (ch(lx, 0) != '"' && ch(lx, 0) != '<')
        REFUSE(sc, lx, off, "#include must name its file in quotes or angle brackets: cudalab "
                            "does not follow a file name built by a macro");
    return header_name(sc, lx, off, "#include", dir, main_real, true);
}

/* An identifier: the __has_include family is checked like #include. */
static bool identifier(scanner *sc, lexer *lx, const char *name, size_t off, const char *dir,
                       const char *main_real)
{
    static const char *const refused[] = {"__has_include_next", "__has_embed", NULL};
    if (name_in(name, refused))
        REFUSE(sc, lx, off, "%s is not allowed in a kernel", name);
    if (strcmp(name, "__has_include") != 0)
        return true;
    lexer look = *lx;
    for (;;) {
        int c = ch(&look, 0);
        if (is_hspace(c) || is_nl(c))
            look.i++;
        else if (at_comment(&look))
            skip_comment(&look);
        else
            break;
    }
    bool paren = ch(&look, 0) == '(';
    if (paren)
        look.i++;
    while (is_hspace(ch(&look, 0)) || is_nl(ch(&look, 0)))
        look.i++;
    if (!paren || (ch(&look, 0) != '"' && ch(&look, 0) != '<'))
        REFUSE(sc, lx, off, "__has_include must name its file directly, as "
                            "__has_include(\"file\") or __has_include(<file>)");
    return header_name(sc, &look, off, "__has_include", dir, main_real, false);
}

/* Every directive and identifier of f, a file in dir. */
static bool scan(scanner *sc, const src *f, const char *dir, const char *main_real)
{
    lexer lx = {.f = f, .i = 0, .line_start = true};
    static const char *const raw[] = {"R", "u8R", "uR", "UR", "LR", NULL};
    static const char *const enc[] = {"u8", "u", "U", "L", NULL};
    while (lx.i < f->n) {
        int c = ch(&lx, 0);
        unsigned long v;
        if (is_nl(c)) {
            lx.line_start = true;
            lx.i++;
        } else if (is_hspace(c)) {
            lx.i++;
        } else if (at_comment(&lx)) {
            skip_comment(&lx);
        } else if (lx.line_start && (c == '#' || (c == '%' && ch(&lx, 1) == ':')
                                     || (c == '?' && ch(&lx, 1) == '?' && ch(&lx, 2) == '='))) {
            lx.i += c == '#' ? 1 : c == '%' ? 2 : 3;
            lx.line_start = false;
            if (!directive(sc, &lx, dir, main_real))
                return false;
        } else if (c == '"' || c == '\'') {
            lx.line_start = false;
            skip_quoted(&lx);
        } else if ((c >= '0' && c <= '9') || (c == '.' && ch(&lx, 1) >= '0' && ch(&lx, 1) <= '9')) {
            lx.line_start = false;
            skip_number(&lx);
        } else if (is_idstart(c) || ucn_at(&lx, 0, &v)) {
            lx.line_start = false;
            size_t off = lx.i;
            char name[NAME_MAX_SCAN];
            read_ident(&lx, name, sizeof name);
            int q = ch(&lx, 0);
            if (q == '"' && name_in(name, raw))
                skip_raw(&lx);
            else if ((q == '"' || q == '\'') && name_in(name, enc))
                skip_quoted(&lx);
            else if (!identifier(sc, &lx, name, off, dir, main_real))
                return false;
        } else {
            lx.line_start = false;
            lx.i++;
        }
    }
    return true;
}

static void src_free(src *f)
{
    free(f->s);
    free(f->splices);
}

/* Splices and scans one file. */
static bool scan_file(scanner *sc, const char *path, const char *text, const char *main_real)
{
    src f = {.path = path, .text = text};
    char dir[PATH_MAX];
    bool ok = splice(sc, &f) && paths_dir_name(path, dir, sizeof dir)
              && scan(sc, &f, dir, main_real);
    src_free(&f);
    return ok;
}

bool nvrtc_includes_check(const char *main_real, const char *main_text, nvrtc_includes *inc,
                          nvrtc_diag *refusal)
{
    scanner sc = {.inc = inc, .refusal = refusal};
    inc->nfiles = 0;
    paths_dir_name(main_real, sc.main_dir, sizeof sc.main_dir);
    if (!scan_file(&sc, main_real, main_text, main_real))
        return false;
    for (size_t k = 0; k < inc->nfiles; k++) {
        cl_err e = {{0}};
        char *text = fsguard_read(inc->files[k], inc->root, NVRTC_SOURCE_MAX, NULL, &e);
        if (!text) {
            memset(refusal, 0, sizeof *refusal);
            snprintf(refusal->file, sizeof refusal->file, "%s", inc->files[k]);
            refusal->severity = NVRTC_SEV_ERROR;
            snprintf(refusal->message, sizeof refusal->message, "%s", e.msg);
            return false;
        }
        bool ok = scan_file(&sc, inc->files[k], text, main_real);
        free(text);
        if (!ok)
            return false;
    }
    return true;
}

bool nvrtc_includes_allowed(const nvrtc_includes *inc, const char *main_real, const char *path)
{
    if (main_real && strcmp(path, main_real) == 0)
        return true;
    for (size_t k = 0; k < inc->nfiles; k++)
        if (strcmp(path, inc->files[k]) == 0)
            return true;
    return false;
}

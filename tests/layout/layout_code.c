/* layout_code.c - the functions each source file defines and the names it uses.
 *
 * A small C/C++ tokenizer, enough for this tree's style: comments, string
 * and character literals and numbers are skipped; a preprocessor line adds
 * the identifiers it names (a macro's body may call a function) but none of
 * its braces.  A function definition is a `{` at file scope (outside any
 * function or initialiser; struct, namespace and extern "C" blocks are
 * looked through) right after a `)`: the identifier before the matching `(`
 * is its name, and "static" among the declaration's words makes it static.
 * A variable definition is a declaration at file scope that ends in `;`,
 * neither a prototype nor extern nor a typedef: the identifier before its
 * `=`, `[` or `;` is its name.  Every other identifier not after `.` or
 * `->` is a use. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "layout.h"

/* ---- interned identifiers ------------------------------------------------ */

#define INTERN_CAP (1 << 18)

static char **intern_names;    /* by id */
static int *intern_slots;      /* hash slot -> id + 1 */
static int intern_count;

static unsigned hash_name(const char *s, size_t n)
{
    unsigned h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static int intern(const char *s, size_t n)
{
    unsigned slot = hash_name(s, n) & (INTERN_CAP - 1);
    while (intern_slots[slot]) {
        const char *have = intern_names[intern_slots[slot] - 1];
        if (strncmp(have, s, n) == 0 && have[n] == '\0')
            return intern_slots[slot] - 1;
        slot = (slot + 1) & (INTERN_CAP - 1);
    }
    assert_true(intern_count < INTERN_CAP / 2);
    intern_names[intern_count] = strndup(s, n);
    intern_slots[slot] = intern_count + 1;
    return intern_count++;
}

const char *layout_ident(int id) { return intern_names[id]; }

int layout_nidents(void) { return intern_count; }

/* ---- tokens -------------------------------------------------------------- */

enum { TOK_IDENT = 'i', TOK_LITERAL = 's', TOK_NUMBER = 'n' };

typedef struct token {
    int kind;                  /* TOK_* or the punctuation character */
    int line;
    int start, len;
} token;

typedef struct scan {
    const char *text;
    int len;
    token *toks;
    int ntoks, cap;
    int *seen;                 /* per identifier id: the last file that named it, + 1 */
    source *src;
    int file;
} scan;

static void push_token(scan *sc, int kind, int line, int start, int len)
{
    if (sc->ntoks == sc->cap) {
        sc->cap = sc->cap ? sc->cap * 2 : 4096;
        sc->toks = realloc(sc->toks, (size_t)sc->cap * sizeof *sc->toks);
        assert_non_null(sc->toks);
    }
    sc->toks[sc->ntoks++] = (token){.kind = kind, .line = line, .start = start, .len = len};
}

/* Records a use of the identifier text[start, start + len) on line. */
static void add_ref(scan *sc, int start, int len, int line)
{
    int id = intern(sc->text + start, (size_t)len);
    if (sc->seen[id] == sc->file + 1)
        return;
    sc->seen[id] = sc->file + 1;
    source *s = sc->src;
    if (s->nrefs == 0 || (s->nrefs >= 64 && (s->nrefs & (s->nrefs - 1)) == 0)) {
        size_t cap = s->nrefs ? (size_t)s->nrefs * 2 : 64;
        s->refs = realloc(s->refs, cap * sizeof *s->refs);
        assert_non_null(s->refs);
    }
    s->refs[s->nrefs++] = (ident_ref){.id = id, .line = line};
}

static bool ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The end of the literal that opens at i with quote q. */
static int skip_literal(const char *t, int len, int i, char q, int *line)
{
    for (i++; i < len && t[i] != q; i++) {
        if (t[i] == '\\' && i + 1 < len)
            i++;
        if (t[i] == '\n')
            (*line)++;
    }
    return i < len ? i + 1 : len;
}

/* A preprocessor line from i (at its '#'): adds the identifiers of
 * directives other than #include as uses; returns where it ends. */
static int skip_directive(scan *sc, int i, int *line)
{
    const char *t = sc->text;
    int j = i + 1;
    while (j < sc->len && (t[j] == ' ' || t[j] == '\t'))
        j++;
    bool is_include = strncmp(t + j, "include", 7) == 0;
    for (; i < sc->len && t[i] != '\n'; i++) {
        if (t[i] == '\\' && i + 1 < sc->len && t[i + 1] == '\n') {
            (*line)++;
            i++;
        } else if (t[i] == '/' && i + 1 < sc->len && t[i + 1] == '*') {
            const char *end = strstr(t + i + 2, "*/");
            int stop = end ? (int)(end - t) + 1 : sc->len;
            for (; i < stop; i++)
                if (t[i] == '\n')
                    (*line)++;
        } else if (t[i] == '/' && i + 1 < sc->len && t[i + 1] == '/') {
            while (i < sc->len && t[i] != '\n')
                i++;
            break;
        } else if (t[i] == '"' || t[i] == '\'') {
            i = skip_literal(t, sc->len, i, t[i], line) - 1;
        } else if (ident_start(t[i]) && !is_include) {
            int s = i;
            while (i < sc->len && ident_char(t[i]))
                i++;
            add_ref(sc, s, i - s, *line);
            i--;
        }
    }
    return i;
}

/* Splits the file into tokens (sc->toks); preprocessor lines become uses only. */
static void tokenize(scan *sc)
{
    const char *t = sc->text;
    int line = 1;
    bool line_start = true;
    for (int i = 0; i < sc->len;) {
        char c = t[i];
        if (c == '\n') {
            line++;
            line_start = true;
            i++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            i++;
        } else if (c == '#' && line_start) {
            i = skip_directive(sc, i, &line);
        } else if (c == '/' && i + 1 < sc->len && t[i + 1] == '/') {
            while (i < sc->len && t[i] != '\n')
                i++;
        } else if (c == '/' && i + 1 < sc->len && t[i + 1] == '*') {
            const char *end = strstr(t + i + 2, "*/");
            int stop = end ? (int)(end - t) + 2 : sc->len;
            for (; i < stop; i++)
                if (t[i] == '\n')
                    line++;
        } else {
            line_start = false;
            int s = i, l = line;
            if (c == '"' || c == '\'') {
                i = skip_literal(t, sc->len, i, c, &line);
                push_token(sc, TOK_LITERAL, l, s, i - s);
            } else if (ident_start(c)) {
                while (i < sc->len && ident_char(t[i]))
                    i++;
                push_token(sc, TOK_IDENT, l, s, i - s);
            } else if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)t[i + 1]))) {
                while (i < sc->len && (ident_char(t[i]) || t[i] == '.' || t[i] == '\'' ||
                                       ((t[i] == '+' || t[i] == '-') &&
                                        strchr("eEpP", t[i - 1]))))
                    i++;
                push_token(sc, TOK_NUMBER, l, s, i - s);
            } else {
                push_token(sc, (unsigned char)c, l, s, 1);
                i++;
            }
        }
    }
}

/* ---- definitions --------------------------------------------------------- */

static bool tok_is(const scan *sc, int k, const char *word)
{
    const token *tk = &sc->toks[k];
    return tk->kind == TOK_IDENT && (int)strlen(word) == tk->len &&
           strncmp(sc->text + tk->start, word, (size_t)tk->len) == 0;
}

/* The index of the '(' matching the ')' at k, or -1. */
static int match_open(const scan *sc, int k)
{
    int depth = 0;
    for (; k >= 0; k--) {
        if (sc->toks[k].kind == ')')
            depth++;
        else if (sc->toks[k].kind == '(' && --depth == 0)
            return k;
    }
    return -1;
}

/* Whether name is an attribute between a function's parameters and its
 * body (__attribute__((...)), or a macro in capitals that stands for one). */
static bool attribute_word(const scan *sc, int k)
{
    const token *tk = &sc->toks[k];
    if (tk->kind != TOK_IDENT)
        return false;
    if (tok_is(sc, k, "__attribute__"))
        return true;
    for (int i = 0; i < tk->len; i++)
        if (islower((unsigned char)sc->text[tk->start + i]))
            return false;
    return true;
}

/* The index of the function name for a '{' at k whose previous token is
 * ')', or -1 when the brace does not open a function body. */
static int function_name(const scan *sc, int k)
{
    int close = k - 1;
    while (close >= 0 && sc->toks[close].kind == ')') {
        int open = match_open(sc, close);
        if (open < 1 || sc->toks[open - 1].kind != TOK_IDENT)
            return -1;
        if (!attribute_word(sc, open - 1) || open < 2 || sc->toks[open - 2].kind != ')')
            return open - 1;
        close = open - 2;
    }
    return -1;
}

/* Line `line` of the file (1-based) and its length, or NULL past the end. */
static const char *line_at(const scan *sc, int line, int *len)
{
    const char *p = sc->text;
    for (int l = 1; l < line && p; l++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p)
        return NULL;
    const char *e = strchr(p, '\n');
    *len = e ? (int)(e - p) : (int)strlen(p);
    return p;
}

static bool comment_line(const char *p, int len)
{
    while (len > 0 && (*p == ' ' || *p == '\t')) {
        p++;
        len--;
    }
    if (len >= 2 && (strncmp(p, "//", 2) == 0 || strncmp(p, "/*", 2) == 0))
        return true;
    if (len >= 1 && *p == '*')
        return true;
    return false;
}

/* Whether the comment lines right above line decl say "instruction mix". */
static bool mix_note_above(const scan *sc, int decl)
{
    char words[4096];
    size_t at = sizeof words - 1;
    words[at] = '\0';
    for (int l = decl - 1; l >= 1; l--) {
        int len = 0;
        const char *p = line_at(sc, l, &len);
        if (!p || !comment_line(p, len) || (size_t)len + 1 > at)
            break;
        at -= (size_t)len + 1;
        for (int i = 0; i < len; i++)
            words[at + (size_t)i] = isalpha((unsigned char)p[i]) ? (char)tolower((unsigned char)p[i]) : ' ';
        words[at + (size_t)len] = ' ';
    }
    char squeezed[4096];
    size_t n = 0;
    for (const char *p = words + at; *p; p++)
        if (*p != ' ' || (n > 0 && squeezed[n - 1] != ' '))
            squeezed[n++] = *p;
    squeezed[n] = '\0';
    return strstr(squeezed, "instruction mix") != NULL;
}

static func_def *new_def(scan *sc, int name, int stmt)
{
    source *s = sc->src;
    if ((s->nfuncs % 64) == 0) {
        s->funcs = realloc(s->funcs, (size_t)(s->nfuncs + 64) * sizeof *s->funcs);
        assert_non_null(s->funcs);
    }
    func_def *f = &s->funcs[s->nfuncs++];
    memset(f, 0, sizeof *f);
    const token *tk = &sc->toks[name];
    snprintf(f->name, sizeof f->name, "%.*s", tk->len, sc->text + tk->start);
    f->id = intern(sc->text + tk->start, (size_t)tk->len);
    f->name_line = tk->line;
    for (int k = stmt; k < name; k++)
        if (tok_is(sc, k, "static"))
            f->is_static = true;
    f->decl_line = sc->toks[stmt].line;
    return f;
}

static void add_func(scan *sc, int name, int stmt, int open)
{
    func_def *f = new_def(sc, name, stmt);
    f->open_line = sc->toks[open].line;
    f->mix_note = mix_note_above(sc, f->decl_line);
}

/* The declaration in tokens [stmt, end) (end at its ';'), if it defines a
 * variable. */
static void add_variable(scan *sc, int stmt, int end)
{
    int name = -1, braces = 0;
    for (int k = stmt; k < end; k++) {
        int kind = sc->toks[k].kind;
        braces += (kind == '{') - (kind == '}');
        if (braces > 0 || kind == '}')
            continue;   /* a struct's body: its fields are not variables */
        if (tok_is(sc, k, "typedef") || tok_is(sc, k, "extern") || kind == '(')
            return;
        if (kind == '=' || kind == '[' || kind == ',')
            break;
        if (kind == TOK_IDENT)
            name = k;
    }
    bool tag = name > stmt && (tok_is(sc, name - 1, "struct") || tok_is(sc, name - 1, "union") ||
                               tok_is(sc, name - 1, "enum"));
    if (name > stmt && !tag)
        new_def(sc, name, stmt)->is_data = true;
}

/* Where the walk over a file's tokens is: the braces open around it (a
 * namespace or extern "C" block, a struct, union or enum body, a function
 * body, an initialiser) and where the current declaration began. */
enum { BLOCK_SCOPE, BLOCK_TYPE, BLOCK_OPAQUE, BLOCK_FUNC };

typedef struct walk {
    char kind[256];
    int saved_stmt[256];       /* a type body: where its declaration began */
    int depth, opaque, types;  /* braces open; of them function bodies or initialisers; types */
    int stmt;                  /* the token the current declaration starts at */
    int last_func;
} walk;

/* Whether the declaration from w->stmt to token k names a struct, union,
 * enum or class. */
static bool declares_type(const scan *sc, const walk *w, int k)
{
    for (int i = w->stmt; i < k; i++)
        if (tok_is(sc, i, "struct") || tok_is(sc, i, "union") || tok_is(sc, i, "enum") ||
            tok_is(sc, i, "class"))
            return true;
    return false;
}

static void open_brace(scan *sc, walk *w, int k)
{
    char kind = BLOCK_OPAQUE;
    if (w->opaque == 0) {
        int prev = k > 0 ? sc->toks[k - 1].kind : 0;
        int name = prev == ')' ? function_name(sc, k) : -1;
        if (name >= 0) {
            add_func(sc, name, w->stmt, k);
            w->last_func = sc->src->nfuncs - 1;
            kind = BLOCK_FUNC;
        } else if (prev != '=' && prev != ',' && prev != '(' && prev != '[') {
            kind = declares_type(sc, w, k) ? BLOCK_TYPE : BLOCK_SCOPE;
            w->saved_stmt[w->depth] = w->stmt;
            w->stmt = k + 1;
        }
    }
    assert_true(w->depth < (int)sizeof w->kind);
    w->kind[w->depth++] = kind;
    w->opaque += kind == BLOCK_OPAQUE || kind == BLOCK_FUNC;
    w->types += kind == BLOCK_TYPE;
}

static void close_brace(scan *sc, walk *w, int k)
{
    char kind = w->kind[--w->depth];
    w->opaque -= kind == BLOCK_OPAQUE || kind == BLOCK_FUNC;
    w->types -= kind == BLOCK_TYPE;
    if (kind == BLOCK_FUNC && w->opaque == 0)
        sc->src->funcs[w->last_func].close_line = sc->toks[k].line;
    if (kind == BLOCK_TYPE)
        w->stmt = w->saved_stmt[w->depth];   /* "struct s {...} name;" is one declaration */
    else if (w->opaque == 0 && kind != BLOCK_OPAQUE)
        w->stmt = k + 1;
}

/* Walks the tokens: definitions at file scope, and uses. */
static void find_definitions(scan *sc)
{
    walk w = {.last_func = -1};
    for (int k = 0; k < sc->ntoks; k++) {
        const token *tk = &sc->toks[k];
        if (tk->kind == TOK_IDENT) {
            int prev = k > 0 ? sc->toks[k - 1].kind : 0;
            bool member = prev == '.' || (prev == '>' && k > 1 && sc->toks[k - 2].kind == '-' &&
                                          sc->toks[k - 2].start + 1 == sc->toks[k - 1].start);
            if (!member)
                add_ref(sc, tk->start, tk->len, tk->line);
        } else if (tk->kind == '{') {
            open_brace(sc, &w, k);
        } else if (tk->kind == '}' && w.depth > 0) {
            close_brace(sc, &w, k);
        } else if (tk->kind == ';' && w.opaque == 0) {
            if (w.types == 0)
                add_variable(sc, w.stmt, k);
            w.stmt = k + 1;
        }
    }
}

static char *read_all(const char *path, int *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    assert_non_null(text);
    size_t got = fread(text, 1, (size_t)n, f);
    fclose(f);
    text[got] = '\0';
    *len = (int)got;
    return text;
}

void layout_read_code(void)
{
    intern_names = calloc(INTERN_CAP / 2, sizeof *intern_names);
    intern_slots = calloc(INTERN_CAP, sizeof *intern_slots);
    int *seen = calloc(INTERN_CAP / 2, sizeof *seen);
    assert_true(intern_names && intern_slots && seen);
    scan sc = {.seen = seen};
    for (int i = 0; i < layout_nfiles; i++) {
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", layout_home, layout_files[i].rel);
        sc.text = read_all(path, &sc.len);
        sc.src = &layout_files[i];
        sc.file = i;
        sc.ntoks = 0;
        tokenize(&sc);
        find_definitions(&sc);
        free((char *)sc.text);
    }
    free(sc.toks);
    free(seen);
}

void layout_free(void)
{
    for (int i = 0; i < layout_nfiles; i++) {
        free(layout_files[i].funcs);
        free(layout_files[i].refs);
    }
    free(layout_files);
    layout_files = NULL;
    for (int i = 0; i < intern_count; i++)
        free(intern_names[i]);
    free(intern_names);
    free(intern_slots);
    intern_count = 0;
}

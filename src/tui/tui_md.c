#include "tui/tui_md.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tui/tui_text.h"

typedef struct rstr {
    char *t;
    unsigned char *s;
    size_t len, cap;
} rstr;

typedef struct mdctx {
    md_doc *doc;
    int width;
    bool ascii;
    bool oom;
} mdctx;

typedef enum { PARA_NONE, PARA_TEXT, PARA_ITEM, PARA_QUOTE } para_kind;

typedef struct para {
    para_kind kind;
    char *raw;
    size_t len, cap;
    rstr first, cont;
} para;

static bool grow(mdctx *c, void **p, size_t *cap, size_t need, size_t elem)
{
    size_t ncap;
    void *np;
    if (need <= *cap)
        return true;
    ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    np = realloc(*p, ncap * elem);
    if (!np) {
        c->oom = true;
        return false;
    }
    *p = np;
    *cap = ncap;
    return true;
}

static void rs_put(mdctx *c, rstr *r, const char *p, size_t n, unsigned char st)
{
    size_t cap = r->cap;
    void *t = r->t, *s = r->s;
    if (n == 0 || c->oom)
        return;
    if (r->len + n + 1 > cap) {
        size_t ncap = cap ? cap : 64;
        while (ncap < r->len + n + 1)
            ncap *= 2;
        t = realloc(r->t, ncap);
        if (!t) {
            c->oom = true;
            return;
        }
        r->t = t;
        s = realloc(r->s, ncap);
        if (!s) {
            c->oom = true;
            return;
        }
        r->s = s;
        r->cap = ncap;
    }
    memcpy(r->t + r->len, p, n);
    memset(r->s + r->len, st, n);
    r->len += n;
    r->t[r->len] = '\0';
}

static void rs_puts(mdctx *c, rstr *r, const char *p, unsigned char st)
{
    rs_put(c, r, p, strlen(p), st);
}

static void rs_cat(mdctx *c, rstr *r, const rstr *a)
{
    if (c->oom)
        return;
    for (size_t i = 0; i < a->len; i++)
        rs_put(c, r, a->t + i, 1, a->s[i]);
}

static void rs_repeat(mdctx *c, rstr *r, const char *g, int times, unsigned char st)
{
    for (int i = 0; i < times; i++)
        rs_puts(c, r, g, st);
}

static void rs_clear(rstr *r)
{
    r->len = 0;
    if (r->t)
        r->t[0] = '\0';
}

static void rs_free(rstr *r)
{
    free(r->t);
    free(r->s);
    memset(r, 0, sizeof *r);
}

static int rs_width(const rstr *r)
{
    return tui_text_width(r->t, r->len);
}

static bool line_is_blank(const md_line *l)
{
    for (size_t i = 0; i < l->len; i++)
        if (l->text[i] != ' ')
            return false;
    return true;
}

static void emit(mdctx *c, const rstr *r)
{
    md_doc *d = c->doc;
    md_line *l;
    size_t len = r->len;
    if (c->oom)
        return;
    while (len > 0 && r->t[len - 1] == ' ' && !(r->s[len - 1] & (MD_BLOCK | MD_CODE)))
        len--;
    if (!grow(c, (void **)&d->v, &d->cap, d->n + 1, sizeof *d->v))
        return;
    l = &d->v[d->n];
    l->text = malloc(len + 1);
    l->style = malloc(len + 1);
    if (!l->text || !l->style) {
        free(l->text);
        free(l->style);
        c->oom = true;
        return;
    }
    if (len)
        memcpy(l->text, r->t, len);
    if (len)
        memcpy(l->style, r->s, len);
    l->text[len] = '\0';
    l->style[len] = 0;
    l->len = len;
    d->n++;
}

static void emit_blank(mdctx *c)
{
    rstr empty = {0};
    if (c->doc->n == 0 || line_is_blank(&c->doc->v[c->doc->n - 1]))
        return;
    emit(c, &empty);
}

/* ---- inline spans ------------------------------------------------------ */

static size_t skip_code(const char *p, size_t n, size_t k)
{
    size_t e = k + 1;
    while (e < n && p[e] != '`')
        e++;
    return e < n ? e : k;
}

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t';
}

static bool is_alnum(char ch)
{
    return isalnum((unsigned char)ch) != 0;
}

/* Closing delimiter (one or two ch) for an emphasis opened before `from`. */
static size_t find_close(const char *p, size_t n, size_t from, char ch, bool twice)
{
    for (size_t k = from; k < n; k++) {
        if (p[k] == '\\') {
            k++;
            continue;
        }
        if (p[k] == '`') {
            k = skip_code(p, n, k);
            continue;
        }
        if (p[k] != ch || k == from || is_space(p[k - 1]))
            continue;
        if (twice) {
            if (k + 1 < n && p[k + 1] == ch)
                return k;
        } else {
            if (p[k - 1] == ch || (k + 1 < n && p[k + 1] == ch))
                continue;
            if (ch == '_' && k + 1 < n && is_alnum(p[k + 1]))
                continue;
            return k;
        }
    }
    return (size_t)-1;
}

static void inl(mdctx *c, rstr *out, const char *p, size_t n, unsigned char base)
{
    size_t i = 0;
    while (i < n && !c->oom) {
        char ch = p[i];
        if (ch == '\\' && i + 1 < n && ispunct((unsigned char)p[i + 1])) {
            rs_put(c, out, p + i + 1, 1, base);
            i += 2;
            continue;
        }
        if (ch == '`') {
            size_t k = skip_code(p, n, i);
            if (k != i) {
                rs_put(c, out, p + i + 1, k - i - 1, base | MD_CODE);
                i = k + 1;
                continue;
            }
        }
        if ((ch == '*' || ch == '_') && (ch == '*' || i == 0 || !is_alnum(p[i - 1]))) {
            bool twice = i + 1 < n && p[i + 1] == ch;
            size_t open = twice ? 2 : 1;
            if (i + open < n && !is_space(p[i + open])) {
                size_t k = find_close(p, n, i + open, ch, twice);
                if (k != (size_t)-1) {
                    inl(c, out, p + i + open, k - i - open,
                        (unsigned char)(base | (twice ? MD_BOLD : MD_ITALIC)));
                    i = k + open;
                    continue;
                }
            }
        }
        if (ch == '[') {
            size_t k = i + 1;
            while (k < n && p[k] != ']')
                k++;
            if (k + 1 < n && p[k + 1] == '(') {
                size_t u = k + 2;
                while (u < n && p[u] != ')')
                    u++;
                if (u < n) {
                    size_t tlen = k - i - 1, ulen = u - k - 2;
                    inl(c, out, p + i + 1, tlen, (unsigned char)(base | MD_LINK));
                    if (ulen > 0 && !(ulen == tlen && memcmp(p + i + 1, p + k + 2, ulen) == 0)) {
                        rs_puts(c, out, " (", MD_MARK);
                        rs_put(c, out, p + k + 2, ulen, MD_MARK);
                        rs_puts(c, out, ")", MD_MARK);
                    }
                    i = u + 1;
                    continue;
                }
            }
        }
        rs_put(c, out, p + i, 1, base);
        i++;
    }
}

/* ---- wrapping ------------------------------------------------------------ */

static void wrap(mdctx *c, const rstr *txt, const rstr *first, const rstr *cont)
{
    rstr line = {0};
    int col;
    bool empty = true;
    size_t i = 0;

    rs_cat(c, &line, first);
    col = rs_width(first);
    while (i < txt->len && !c->oom) {
        size_t j, a;
        int ww;
        while (i < txt->len && txt->t[i] == ' ')
            i++;
        if (i >= txt->len)
            break;
        j = i;
        while (j < txt->len && txt->t[j] != ' ')
            j++;
        ww = tui_text_width(txt->t + i, j - i);
        if (!empty && col + 1 + ww > c->width) {
            emit(c, &line);
            rs_clear(&line);
            rs_cat(c, &line, cont);
            col = rs_width(cont);
            empty = true;
        }
        if (!empty) {
            rs_put(c, &line, " ", 1, txt->s[i - 1]);
            col++;
        }
        a = i;
        while (col + tui_text_width(txt->t + a, j - a) > c->width && !c->oom) {
            size_t take = tui_text_fit(txt->t + a, j - a, c->width - col, NULL);
            if (take == 0)
                take = tui_text_next(txt->t + a, j - a, 0, NULL);
            for (size_t k = 0; k < take; k++)
                rs_put(c, &line, txt->t + a + k, 1, txt->s[a + k]);
            a += take;
            emit(c, &line);
            rs_clear(&line);
            rs_cat(c, &line, cont);
            col = rs_width(cont);
            if (a >= j)
                break;
        }
        for (size_t k = a; k < j; k++)
            rs_put(c, &line, txt->t + k, 1, txt->s[k]);
        col += tui_text_width(txt->t + a, j - a);
        empty = a >= j;
        i = j;
    }
    if (!empty || (first->len > 0 && line.len > 0 && txt->len == 0))
        emit(c, &line);
    rs_free(&line);
}

/* ---- blocks ------------------------------------------------------------- */

static void para_flush(mdctx *c, para *pa)
{
    rstr txt = {0};
    if (pa->kind == PARA_NONE)
        return;
    inl(c, &txt, pa->raw ? pa->raw : "", pa->len, 0);
    wrap(c, &txt, &pa->first, &pa->cont);
    rs_free(&txt);
    pa->kind = PARA_NONE;
    pa->len = 0;
    rs_clear(&pa->first);
    rs_clear(&pa->cont);
}

static void para_add(mdctx *c, para *pa, const char *p, size_t n)
{
    if (!grow(c, (void **)&pa->raw, &pa->cap, pa->len + n + 2, 1))
        return;
    if (pa->len > 0)
        pa->raw[pa->len++] = ' ';
    memcpy(pa->raw + pa->len, p, n);
    pa->len += n;
    pa->raw[pa->len] = '\0';
}

static size_t lead_spaces(const char *p, size_t n)
{
    size_t k = 0;
    while (k < n && is_space(p[k]))
        k++;
    return k;
}

static bool is_blank(const char *p, size_t n)
{
    return lead_spaces(p, n) == n;
}

static bool is_fence(const char *p, size_t n)
{
    size_t k = lead_spaces(p, n);
    return n - k >= 3 && (memcmp(p + k, "```", 3) == 0 || memcmp(p + k, "~~~", 3) == 0);
}

static bool is_rule(const char *p, size_t n)
{
    size_t k = lead_spaces(p, n);
    char ch;
    int count = 0;
    if (k >= n)
        return false;
    ch = p[k];
    if (ch != '-' && ch != '*' && ch != '_')
        return false;
    for (; k < n; k++) {
        if (p[k] == ch)
            count++;
        else if (!is_space(p[k]))
            return false;
    }
    return count >= 3;
}

static int heading_level(const char *p, size_t n, size_t *text_at)
{
    size_t k = 0;
    while (k < n && k < 7 && p[k] == '#')
        k++;
    if (k == 0 || k > 6 || (k < n && p[k] != ' '))
        return 0;
    while (k < n && p[k] == ' ')
        k++;
    *text_at = k;
    return (int)k;
}

/* "- x", "* x", "+ x" or "12. x" / "12) x" after indentation. */
static bool list_marker(const char *p, size_t n, size_t *mlen, bool *numbered)
{
    size_t k = 0;
    if (n >= 2 && (p[0] == '-' || p[0] == '*' || p[0] == '+') && p[1] == ' ') {
        *mlen = 1;
        *numbered = false;
        return true;
    }
    while (k < n && k < 9 && isdigit((unsigned char)p[k]))
        k++;
    if (k > 0 && k + 1 < n && (p[k] == '.' || p[k] == ')') && p[k + 1] == ' ') {
        *mlen = k + 1;
        *numbered = true;
        return true;
    }
    return false;
}

static bool is_table_row(const char *p, size_t n)
{
    size_t k = lead_spaces(p, n);
    return k < n && p[k] == '|';
}

static void code_line(mdctx *c, const char *p, size_t n)
{
    rstr r = {0};
    int col = 2;
    rs_puts(c, &r, "  ", MD_BLOCK);
    for (size_t i = 0; i < n && !c->oom;) {
        int w;
        size_t j;
        if (p[i] == '\t') {
            int sp = 4 - ((col - 2) % 4);
            if (col + sp > c->width) {
                emit(c, &r);
                rs_clear(&r);
                rs_puts(c, &r, "  ", MD_BLOCK);
                col = 2;
                continue;
            }
            rs_repeat(c, &r, " ", sp, MD_BLOCK);
            col += sp;
            i++;
            continue;
        }
        j = tui_text_next(p, n, i, &w);
        if (col + w > c->width && col > 2) {
            emit(c, &r);
            rs_clear(&r);
            rs_puts(c, &r, "  ", MD_BLOCK);
            col = 2;
        }
        rs_put(c, &r, p + i, j - i, MD_BLOCK);
        col += w;
        i = j;
    }
    emit(c, &r);
    rs_free(&r);
}

static void rule_line(mdctx *c)
{
    rstr r = {0};
    rs_repeat(c, &r, c->ascii ? "-" : "\xE2\x94\x80", c->width, MD_MARK);
    emit(c, &r);
    rs_free(&r);
}

/* ---- tables -------------------------------------------------------------- */

#define MD_MAX_COLS 16

typedef struct trow {
    rstr cell[MD_MAX_COLS];
    int ncell;
    bool sep;
} trow;

static bool cell_is_sep(const char *p, size_t n, bool *right)
{
    size_t a = lead_spaces(p, n), b = n;
    bool dash = false;
    while (b > a && is_space(p[b - 1]))
        b--;
    if (a == b)
        return false;
    *right = p[b - 1] == ':';
    for (size_t k = a; k < b; k++) {
        if (p[k] == '-')
            dash = true;
        else if (p[k] != ':')
            return false;
    }
    return dash;
}

static void table_parse_row(mdctx *c, const char *p, size_t n, trow *row, bool *right)
{
    size_t k = lead_spaces(p, n) + 1, e = n;
    bool sep = true, any = false;
    const char *cells[MD_MAX_COLS];
    size_t clen[MD_MAX_COLS];
    int nc = 0;
    while (e > k && is_space(p[e - 1]))
        e--;
    if (e > k && p[e - 1] == '|' && !(e >= 2 && p[e - 2] == '\\'))
        e--;
    while (k <= e && nc < MD_MAX_COLS) {
        size_t s = k;
        while (k < e && p[k] != '|') {
            if (p[k] == '\\')
                k++;
            else if (p[k] == '`')
                k = skip_code(p, e, k);
            k++;
        }
        if (k > e)
            k = e;
        cells[nc] = p + s;
        clen[nc] = k - s;
        nc++;
        k++;
    }
    for (int j = 0; j < nc; j++) {
        bool r = false;
        if (!cell_is_sep(cells[j], clen[j], &r))
            sep = false;
        else {
            any = true;
            if (right)
                right[j] = r;
        }
    }
    row->sep = sep && any;
    row->ncell = nc;
    if (row->sep)
        return;
    for (int j = 0; j < nc; j++) {
        size_t a = lead_spaces(cells[j], clen[j]), b = clen[j];
        while (b > a && is_space(cells[j][b - 1]))
            b--;
        inl(c, &row->cell[j], cells[j] + a, b - a, 0);
    }
}

static void table_emit(mdctx *c, trow *rows, int nrows, const bool *right)
{
    int ncols = 0, widths[MD_MAX_COLS] = {0}, total;
    bool header = nrows >= 2 && rows[1].sep;
    const char *bar = c->ascii ? " | " : " \xE2\x94\x82 ";
    const char *dash = c->ascii ? "-" : "\xE2\x94\x80";
    const char *cross = c->ascii ? "-+-" : "\xE2\x94\x80\xE2\x94\xBC\xE2\x94\x80";

    for (int r = 0; r < nrows; r++) {
        if (rows[r].sep)
            continue;
        if (rows[r].ncell > ncols)
            ncols = rows[r].ncell;
        for (int j = 0; j < rows[r].ncell; j++) {
            int w = rs_width(&rows[r].cell[j]);
            if (w > widths[j])
                widths[j] = w;
        }
    }
    if (ncols == 0)
        return;
    for (;;) {
        int widest = 0;
        total = 3 * (ncols - 1);
        for (int j = 0; j < ncols; j++) {
            total += widths[j];
            if (widths[j] > widths[widest])
                widest = j;
        }
        if (total <= c->width || widths[widest] <= 3)
            break;
        widths[widest]--;
    }
    for (int r = 0; r < nrows && !c->oom; r++) {
        rstr line = {0};
        if (rows[r].sep) {
            if (r != 1)
                continue;
            for (int j = 0; j < ncols; j++) {
                if (j > 0)
                    rs_puts(c, &line, cross, MD_MARK);
                rs_repeat(c, &line, dash, widths[j], MD_MARK);
            }
        } else {
            for (int j = 0; j < ncols; j++) {
                rstr *cell = &rows[r].cell[j];
                int w = j < rows[r].ncell ? rs_width(cell) : 0, pad;
                size_t take = j < rows[r].ncell ? cell->len : 0;
                bool cut = false;
                if (j > 0)
                    rs_puts(c, &line, bar, MD_MARK);
                if (w > widths[j]) {
                    take = tui_text_fit(cell->t, cell->len, widths[j] - 1, &w);
                    cut = true;
                }
                pad = widths[j] - w - (cut ? 1 : 0);
                if (right && right[j] && pad > 0)
                    rs_repeat(c, &line, " ", pad, 0);
                for (size_t k = 0; k < take; k++)
                    rs_put(c, &line, cell->t + k, 1,
                           (unsigned char)(cell->s[k] | (header && r == 0 ? MD_BOLD : 0)));
                if (cut)
                    rs_puts(c, &line, c->ascii ? "~" : "\xE2\x80\xA6", MD_MARK);
                if (!(right && right[j]) && pad > 0 && j + 1 < ncols)
                    rs_repeat(c, &line, " ", pad, 0);
            }
        }
        if (rs_width(&line) > c->width) {
            size_t keep = tui_text_fit(line.t, line.len, c->width, NULL);
            line.len = keep;
            line.t[keep] = '\0';
        }
        emit(c, &line);
        rs_free(&line);
    }
}

static size_t do_table(mdctx *c, const char *const *lp, const size_t *ll, size_t nlines, size_t at)
{
    size_t end = at;
    int nrows = 0;
    trow *rows;
    bool right[MD_MAX_COLS] = {false};
    while (end < nlines && is_table_row(lp[end], ll[end]))
        end++;
    rows = calloc(end - at, sizeof *rows);
    if (!rows) {
        c->oom = true;
        return end;
    }
    for (size_t k = at; k < end; k++) {
        table_parse_row(c, lp[k], ll[k], &rows[nrows], nrows == 1 ? right : NULL);
        nrows++;
    }
    table_emit(c, rows, nrows, right);
    for (int r = 0; r < nrows; r++)
        for (int j = 0; j < MD_MAX_COLS; j++)
            rs_free(&rows[r].cell[j]);
    free(rows);
    return end;
}

/* ---- driver -------------------------------------------------------------- */

static void start_item(mdctx *c, para *pa, size_t indent, const char *marker, size_t mlen, bool numbered)
{
    int w;
    pa->kind = PARA_ITEM;
    if ((int)indent > c->width / 3)
        indent = (size_t)(c->width / 3);
    rs_repeat(c, &pa->first, " ", (int)indent, 0);
    if (numbered)
        rs_put(c, &pa->first, marker, mlen, MD_MARK);
    else
        rs_puts(c, &pa->first, c->ascii ? "-" : "\xE2\x80\xA2", MD_MARK);
    rs_puts(c, &pa->first, " ", 0);
    w = rs_width(&pa->first);
    rs_repeat(c, &pa->cont, " ", w, 0);
}

static void render(mdctx *c, const char *src)
{
    size_t nlines = 1, dedent = (size_t)-1, i = 0;
    const char **lp;
    size_t *ll;
    para pa = {0};
    bool fence = false;

    for (const char *q = src; *q; q++)
        if (*q == '\n')
            nlines++;
    lp = calloc(nlines, sizeof *lp);
    ll = calloc(nlines, sizeof *ll);
    if (!lp || !ll) {
        c->oom = true;
        goto cleanup;
    }
    nlines = 0;
    for (const char *q = src;;) {
        const char *e = strchr(q, '\n');
        size_t n = e ? (size_t)(e - q) : strlen(q);
        if (n > 0 && q[n - 1] == '\r')
            n--;
        lp[nlines] = q;
        ll[nlines] = n;
        nlines++;
        if (!e)
            break;
        q = e + 1;
    }
    for (size_t k = 0; k < nlines; k++) {
        if (!is_blank(lp[k], ll[k])) {
            size_t s = lead_spaces(lp[k], ll[k]);
            if (s < dedent)
                dedent = s;
        }
    }
    if (dedent == (size_t)-1)
        dedent = 0;
    for (size_t k = 0; k < nlines; k++) {
        size_t s = lead_spaces(lp[k], ll[k]);
        size_t cut = s < dedent ? s : dedent;
        lp[k] += cut;
        ll[k] -= cut;
    }

    while (i < nlines && !c->oom) {
        const char *p = lp[i];
        size_t n = ll[i], ind = lead_spaces(p, n), mlen, at;
        bool numbered;
        int level;

        if (fence) {
            if (is_fence(p, n)) {
                fence = false;
                emit_blank(c);
            } else {
                code_line(c, p, n);
            }
            i++;
            continue;
        }
        if (is_blank(p, n)) {
            para_flush(c, &pa);
            emit_blank(c);
            i++;
            continue;
        }
        if (is_fence(p, n)) {
            para_flush(c, &pa);
            emit_blank(c);
            fence = true;
            i++;
            continue;
        }
        if ((level = heading_level(p + ind, n - ind, &at)) > 0) {
            rstr txt = {0}, none = {0};
            para_flush(c, &pa);
            inl(c, &txt, p + ind + at, n - ind - at, level <= 2 ? MD_HEAD | MD_BOLD : MD_BOLD);
            wrap(c, &txt, &none, &none);
            rs_free(&txt);
            i++;
            continue;
        }
        if (is_rule(p, n)) {
            para_flush(c, &pa);
            rule_line(c);
            i++;
            continue;
        }
        if (is_table_row(p, n)) {
            para_flush(c, &pa);
            i = do_table(c, lp, ll, nlines, i);
            continue;
        }
        if (list_marker(p + ind, n - ind, &mlen, &numbered)) {
            para_flush(c, &pa);
            start_item(c, &pa, ind, p + ind, mlen, numbered);
            para_add(c, &pa, p + ind + mlen + 1, n - ind - mlen - 1);
            i++;
            continue;
        }
        if (p[ind] == '>') {
            size_t t = ind + 1;
            if (t < n && p[t] == ' ')
                t++;
            if (pa.kind != PARA_QUOTE) {
                para_flush(c, &pa);
                pa.kind = PARA_QUOTE;
                rs_puts(c, &pa.first, c->ascii ? "| " : "\xE2\x94\x82 ", MD_MARK);
                rs_puts(c, &pa.cont, c->ascii ? "| " : "\xE2\x94\x82 ", MD_MARK);
            }
            para_add(c, &pa, p + t, n - t);
            i++;
            continue;
        }
        if (pa.kind == PARA_NONE)
            pa.kind = PARA_TEXT;
        para_add(c, &pa, p + ind, n - ind);
        i++;
    }
    para_flush(c, &pa);
    while (c->doc->n > 0 && line_is_blank(&c->doc->v[c->doc->n - 1])) {
        c->doc->n--;
        free(c->doc->v[c->doc->n].text);
        free(c->doc->v[c->doc->n].style);
    }

cleanup:
    free(pa.raw);
    rs_free(&pa.first);
    rs_free(&pa.cont);
    free(lp);
    free(ll);
}

bool tui_md_render(const char *src, int width, bool ascii, md_doc *out, cl_err *e)
{
    mdctx c = {out, width < 8 ? 8 : width, ascii, false};
    memset(out, 0, sizeof *out);
    render(&c, src ? src : "");
    if (c.oom) {
        tui_md_free(out);
        return err_set(e, "out of memory laying out the lesson");
    }
    return true;
}

void tui_md_free(md_doc *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->v[i].text);
        free(d->v[i].style);
    }
    free(d->v);
    memset(d, 0, sizeof *d);
}

#include "tui/tui_mdout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/tui_text.h"

#define GLYPH(o, utf8, plain) ((o)->ascii ? (plain) : (utf8))

void tui_mdout_put(md_out *o, md_str *r, const char *p, size_t n, unsigned char st)
{
    if (n == 0 || o->oom)
        return;
    if (r->len + n + 1 > r->cap) {
        size_t ncap = r->cap ? r->cap : 64;
        char *t;
        unsigned char *s;
        while (ncap < r->len + n + 1)
            ncap *= 2;
        if ((t = realloc(r->t, ncap)) != NULL)
            r->t = t;
        if (!t || !(s = realloc(r->s, ncap))) {
            o->oom = true;
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

void tui_mdout_puts(md_out *o, md_str *r, const char *p, unsigned char st)
{
    tui_mdout_put(o, r, p, strlen(p), st);
}

void tui_mdout_free(md_str *r)
{
    free(r->t);
    free(r->s);
    memset(r, 0, sizeof *r);
}

static void repeat(md_out *o, md_str *r, const char *g, int times, unsigned char st)
{
    for (int i = 0; i < times; i++)
        tui_mdout_puts(o, r, g, st);
}

static int width_of(const md_str *r)
{
    return tui_text_width(r->t, r->len);
}

/* ---- lines ----------------------------------------------------------------- */

/* Moves r into the document as a display line (r is left empty), without
 * trailing spaces outside code; text marks the open levels' first lines as
 * out, else the line is a blank one. */
static void emit(md_out *o, md_str *r, bool text)
{
    md_doc *d = o->doc;
    while (r->len > 0 && r->t[r->len - 1] == ' ' && !(r->s[r->len - 1] & (MD_BLOCK | MD_CODE)))
        r->len--;
    if (!r->t) {
        tui_mdout_put(o, r, " ", 1, 0);
        r->len = 0;
    }
    if (!o->oom && d->n == d->cap) {
        md_line *nv = realloc(d->v, (d->cap ? d->cap * 2 : 64) * sizeof *nv);
        d->cap = nv ? (d->cap ? d->cap * 2 : 64) : d->cap;
        d->v = nv ? nv : d->v;
        o->oom = !nv;
    }
    if (o->oom)
        return;
    r->t[r->len] = '\0';
    d->v[d->n++] = (md_line){r->t, r->s, r->len};
    memset(r, 0, sizeof *r);
    o->blank = !text;
    for (int k = 0; text && k < o->depth && k < MD_MAX_DEPTH; k++)
        o->lv[k].used = true;
}

/* Starts line with the open levels' prefix: a quote's bar, an item's
 * marker on its first line and spaces under it after that (on every line
 * when cont).  Outer levels past a third of the width are left out, so deep
 * lists keep room.  Returns the prefix's width. */
static int prefix(md_out *o, md_str *line, bool cont)
{
    int n = o->depth < MD_MAX_DEPTH ? o->depth : MD_MAX_DEPTH, col = 0;
    line->len = 0;
    for (int k = 0; k < n; k++) {
        const char *mark = o->lv[k].mark[0] ? o->lv[k].mark : GLYPH(o, "\xE2\x94\x82", "|");
        int w = tui_text_swidth(mark) + 1;
        if (k + 1 < n && col + w > o->width / 3)
            continue;
        if (!o->lv[k].mark[0] || !(cont || o->lv[k].used)) {
            tui_mdout_puts(o, line, mark, MD_MARK);
            tui_mdout_puts(o, line, " ", 0);
        } else {
            repeat(o, line, " ", w, 0);
        }
        col += w;
    }
    return col;
}

void tui_mdout_gap(md_out *o)
{
    md_str line = {0};
    if (o->gap && o->doc->n > 0 && !o->blank) {
        prefix(o, &line, true);
        emit(o, &line, false);
        tui_mdout_free(&line);
    }
    o->gap = false;
}

void tui_mdout_push(md_out *o, const char *mark)
{
    if (o->depth < MD_MAX_DEPTH) {
        snprintf(o->lv[o->depth].mark, sizeof o->lv[0].mark, "%s", mark ? mark : "");
        o->lv[o->depth].used = false;
    }
    o->depth++;
}

void tui_mdout_pop(md_out *o)
{
    md_str line = {0};
    if (o->depth == 0)
        return;
    if (o->depth <= MD_MAX_DEPTH && !o->lv[o->depth - 1].used) {
        prefix(o, &line, false);
        emit(o, &line, true);
        tui_mdout_free(&line);
    }
    o->depth--;
}

/* ---- paragraphs, code and rules -------------------------------------------- */

void tui_mdout_wrap(md_out *o, const md_str *txt)
{
    md_str line = {0};
    int base = prefix(o, &line, false), col = base;
    size_t i = 0, j;

    while (i < txt->len && !o->oom) {
        while (i < txt->len && txt->t[i] == ' ')
            i++;
        for (j = i; j < txt->len && txt->t[j] != ' ' && txt->t[j] != '\n'; j++)
            ;
        if (i < txt->len && (txt->t[i] == '\n' ||
                             (col > base && col + 1 + tui_text_width(txt->t + i, j - i) > o->width))) {
            emit(o, &line, true);
            col = base = prefix(o, &line, false);
            i += txt->t[i] == '\n';
            continue;
        }
        if (col > base && i < j) {
            tui_mdout_put(o, &line, " ", 1, txt->s[i - 1]);
            col++;
        }
        /* a word wider than the line is cut where the line ends */
        for (size_t e; i < j; i = e) {
            int w;
            e = tui_text_next(txt->t, j, i, &w);
            if (col + w > o->width && col > base) {
                emit(o, &line, true);
                col = base = prefix(o, &line, false);
            }
            for (size_t k = i; k < e; k++)
                tui_mdout_put(o, &line, txt->t + k, 1, txt->s[k]);
            col += w;
        }
    }
    if (col > base)
        emit(o, &line, true);
    tui_mdout_free(&line);
}

/* Starts a code line: the levels' prefix and two columns of indentation. */
static int code_start(md_out *o, md_str *line)
{
    int col = prefix(o, line, false);
    tui_mdout_puts(o, line, "  ", MD_BLOCK);
    return col + 2;
}

void tui_mdout_code(md_out *o, const char *p, size_t n)
{
    md_str r = {0};
    int base = code_start(o, &r), col = base;
    for (size_t i = 0; i < n && !o->oom;) {
        int w = 4 - ((col - base) % 4);
        size_t j = p[i] == '\t' || p[i] == '\n' ? i + 1 : tui_text_next(p, n, i, &w);
        if (p[i] == '\n' || (col + w > o->width && col > base)) {
            emit(o, &r, true);
            col = code_start(o, &r);
            i += p[i] == '\n';
            continue;
        }
        if (p[i] == '\t')
            repeat(o, &r, " ", w, MD_BLOCK);
        else
            tui_mdout_put(o, &r, p + i, j - i, MD_BLOCK);
        col += w;
        i = j;
    }
    if (n > 0 && p[n - 1] != '\n')
        emit(o, &r, true);
    tui_mdout_free(&r);
}

void tui_mdout_rule(md_out *o)
{
    md_str r = {0};
    int col = prefix(o, &r, false);
    repeat(o, &r, GLYPH(o, "\xE2\x94\x80", "-"), o->width - col, MD_MARK);
    emit(o, &r, true);
    tui_mdout_free(&r);
}

/* ---- tables ---------------------------------------------------------------- */

/* Column widths for t within room columns: each as wide as its widest
 * cell, the widest narrowed by one until the row fits or none is over 3. */
static void table_widths(const md_table *t, int room, int *widths)
{
    for (int j = 0; j < t->ncols; j++) {
        widths[j] = 0;
        for (size_t r = 0; r < t->nrows; r++)
            if (width_of(&t->row[r][j]) > widths[j])
                widths[j] = width_of(&t->row[r][j]);
    }
    for (;;) {
        int widest = 0, total = 3 * (t->ncols - 1);
        for (int j = 0; j < t->ncols; j++) {
            total += widths[j];
            if (widths[j] > widths[widest])
                widest = j;
        }
        if (total <= room || widths[widest] <= 3)
            break;
        widths[widest]--;
    }
}

/* Appends cell j, aligned in w columns (no padding after the last column),
 * cut with an ellipsis when it is wider. */
static void table_cell(md_out *o, md_str *line, const md_table *t, int j, const md_str *cell,
                       int w, unsigned char extra)
{
    int cw = width_of(cell), pad, before;
    size_t take = cell->len;
    bool cut = cw > w;
    if (cut)
        take = tui_text_fit(cell->t, cell->len, w - 1, &cw);
    pad = w - cw - (cut ? 1 : 0);
    before = t->align[j] == 'r' ? pad : t->align[j] == 'c' ? pad / 2 : 0;
    repeat(o, line, " ", before, 0);
    for (size_t k = 0; k < take; k++)
        tui_mdout_put(o, line, cell->t + k, 1, (unsigned char)(cell->s[k] | extra));
    if (cut)
        tui_mdout_puts(o, line, GLYPH(o, "\xE2\x80\xA6", "~"), MD_MARK);
    if (j + 1 < t->ncols)
        repeat(o, line, " ", pad - before, 0);
}

void tui_mdout_table(md_out *o, const md_table *t)
{
    int widths[MD_MAX_COLS];
    md_str line = {0};

    if (t->ncols == 0 || t->nrows == 0)
        return;
    table_widths(t, o->width - prefix(o, &line, true), widths);
    /* the header, a rule under it, then the body rows */
    for (size_t r = 0; r <= t->nrows && !o->oom; r++) {
        prefix(o, &line, false);
        for (int j = 0; j < t->ncols; j++) {
            if (j > 0)
                tui_mdout_puts(o, &line, r == 1 ? GLYPH(o, "\xE2\x94\x80\xE2\x94\xBC\xE2\x94\x80", "-+-")
                                                : GLYPH(o, " \xE2\x94\x82 ", " | "), MD_MARK);
            if (r == 1)
                repeat(o, &line, GLYPH(o, "\xE2\x94\x80", "-"), widths[j], MD_MARK);
            else
                table_cell(o, &line, t, j, &t->row[r ? r - 1 : 0][j], widths[j], r ? 0 : MD_BOLD);
        }
        if (width_of(&line) > o->width)
            line.len = tui_text_fit(line.t, line.len, o->width, NULL);
        emit(o, &line, true);
    }
    tui_mdout_free(&line);
}

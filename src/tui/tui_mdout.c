#include "tui/tui_mdout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

#include "tui/tui_text.h"

#define GLYPH(o, utf8, plain) ((o)->ascii ? (plain) : (utf8))

void tui_mdout_put(md_out *out, md_str *str, const char *text, size_t len, unsigned char st)
{
    if (len == 0 || out->oom)
        return;
    if (str->len + len + 1 > str->cap) {
        size_t ncap = str->cap ? str->cap : 64;
        char *t;
        unsigned char *s;
        while (ncap < str->len + len + 1)
            ncap *= 2;
        if ((t = realloc(str->t, ncap)) != NULL)
            str->t = t;
        if (!t || !(s = realloc(str->s, ncap))) {
            out->oom = true;
            return;
        }
        str->s = s;
        str->cap = ncap;
    }
    memcpy(str->t + str->len, text, len);
    memset(str->s + str->len, st, len);
    str->len += len;
    str->t[str->len] = '\0';
}

void tui_mdout_puts(md_out *out, md_str *str, const char *text, unsigned char st)
{
    tui_mdout_put(out, str, text, strlen(text), st);
}

void tui_mdout_free(md_str *str)
{
    free(str->t);
    free(str->s);
    memset(str, 0, sizeof *str);
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
    if (!o->oom && !grow_one((void **)&d->v, &d->cap, d->n, sizeof *d->v, 64))
        o->oom = true;
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

void tui_mdout_gap(md_out *out)
{
    md_str line = {0};
    if (out->gap && out->doc->n > 0 && !out->blank) {
        prefix(out, &line, true);
        emit(out, &line, false);
        tui_mdout_free(&line);
    }
    out->gap = false;
}

void tui_mdout_push(md_out *out, const char *mark)
{
    if (out->depth < MD_MAX_DEPTH) {
        snprintf(out->lv[out->depth].mark, sizeof out->lv[0].mark, "%s", mark ? mark : "");
        out->lv[out->depth].used = false;
    }
    out->depth++;
}

void tui_mdout_pop(md_out *out)
{
    md_str line = {0};
    if (out->depth == 0)
        return;
    if (out->depth <= MD_MAX_DEPTH && !out->lv[out->depth - 1].used) {
        prefix(out, &line, false);
        emit(out, &line, true);
        tui_mdout_free(&line);
    }
    out->depth--;
}

/* ---- paragraphs, code and rules -------------------------------------------- */

void tui_mdout_wrap(md_out *out, const md_str *txt)
{
    md_str line = {0};
    int base = prefix(out, &line, false), col = base;
    size_t i = 0, j;

    while (i < txt->len && !out->oom) {
        while (i < txt->len && txt->t[i] == ' ')
            i++;
        for (j = i; j < txt->len && txt->t[j] != ' ' && txt->t[j] != '\n'; j++)
            ;
        if (i < txt->len &&
            (txt->t[i] == '\n' ||
             (col > base && col + 1 + tui_text_width(txt->t + i, j - i) > out->width))) {
            emit(out, &line, true);
            col = base = prefix(out, &line, false);
            i += txt->t[i] == '\n';
            continue;
        }
        if (col > base && i < j) {
            tui_mdout_put(out, &line, " ", 1, txt->s[i - 1]);
            col++;
        }
        /* a word wider than the line is cut where the line ends */
        for (size_t e; i < j; i = e) {
            int w;
            e = tui_text_next(txt->t, j, i, &w);
            if (col + w > out->width && col > base) {
                emit(out, &line, true);
                col = base = prefix(out, &line, false);
            }
            for (size_t k = i; k < e; k++)
                tui_mdout_put(out, &line, txt->t + k, 1, txt->s[k]);
            col += w;
        }
    }
    if (col > base)
        emit(out, &line, true);
    tui_mdout_free(&line);
}

/* Starts a code line: the levels' prefix and two columns of indentation. */
static int code_start(md_out *o, md_str *line)
{
    int col = prefix(o, line, false);
    tui_mdout_puts(o, line, "  ", MD_BLOCK);
    return col + 2;
}

void tui_mdout_code(md_out *out, const char *text, size_t len)
{
    md_str r = {0};
    int base = code_start(out, &r), col = base;
    for (size_t i = 0; i < len && !out->oom;) {
        int w = 4 - ((col - base) % 4);
        size_t j = text[i] == '\t' || text[i] == '\n' ? i + 1 : tui_text_next(text, len, i, &w);
        if (text[i] == '\n' || (col + w > out->width && col > base)) {
            emit(out, &r, true);
            col = code_start(out, &r);
            i += text[i] == '\n';
            continue;
        }
        if (text[i] == '\t')
            repeat(out, &r, " ", w, MD_BLOCK);
        else
            tui_mdout_put(out, &r, text + i, j - i, MD_BLOCK);
        col += w;
        i = j;
    }
    if (len > 0 && text[len - 1] != '\n')
        emit(out, &r, true);
    tui_mdout_free(&r);
}

void tui_mdout_rule(md_out *out)
{
    md_str r = {0};
    int col = prefix(out, &r, false);
    repeat(out, &r, GLYPH(out, "\xE2\x94\x80", "-"), out->width - col, MD_MARK);
    emit(out, &r, true);
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

void tui_mdout_table(md_out *out, const md_table *table)
{
    int widths[MD_MAX_COLS];
    md_str line = {0};

    if (table->ncols == 0 || table->nrows == 0)
        return;
    table_widths(table, out->width - prefix(out, &line, true), widths);
    /* the header, a rule under it, then the body rows */
    for (size_t r = 0; r <= table->nrows && !out->oom; r++) {
        prefix(out, &line, false);
        for (int j = 0; j < table->ncols; j++) {
            if (j > 0)
                tui_mdout_puts(out, &line,
                               r == 1 ? GLYPH(out, "\xE2\x94\x80\xE2\x94\xBC\xE2\x94\x80", "-+-")
                                      : GLYPH(out, " \xE2\x94\x82 ", " | "),
                               MD_MARK);
            if (r == 1)
                repeat(out, &line, GLYPH(out, "\xE2\x94\x80", "-"), widths[j], MD_MARK);
            else
                table_cell(out, &line, table, j, &table->row[r ? r - 1 : 0][j], widths[j],
                           r ? 0 : MD_BOLD);
        }
        if (width_of(&line) > out->width)
            line.len = tui_text_fit(line.t, line.len, out->width, NULL);
        emit(out, &line, true);
    }
    tui_mdout_free(&line);
}

#include "tui/tui_md.h"

#include <md4c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/tui_mdout.h"

/* CommonMark with pipe tables; HTML as text, code only fenced (tui_md.h) */
#define LESSON_DIALECT (MD_FLAG_TABLES | MD_FLAG_NOHTML | MD_FLAG_NOINDENTEDCODEBLOCKS)
#define MAX_LINKS 4            /* nested links and images that get their address shown */

/* What md4c's callbacks share while they read one document. */
typedef struct mdparse {
    md_out o;
    md_str text;               /* inline text of a paragraph, heading or tight item */
    md_str code;               /* a code block's lines */
    md_str *dst;               /* where inline text goes: text, or a table cell */
    md_table table;
    int col;                   /* table column being read */
    bool in_code;
    unsigned char base;        /* the block's own style (headings) */
    int em, strong, codespan, links;
    size_t link_at[MAX_LINKS]; /* where the text of each open link starts in *dst */
    struct {
        bool tight;
        unsigned next;         /* number of the next item */
        char delim;            /* '.' or ')'; 0 for bullets */
    } list[MD_MAX_DEPTH];
    int nlists;                /* may pass MD_MAX_DEPTH, as levels do */
} mdparse;

/* ---- text ------------------------------------------------------------------ */

static const char *const entities[][2] = {
    {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}, {"nbsp", "\xC2\xA0"},
};

/* Appends the character an entity names: "&#955;" and "&#x3bb;" any code
 * point (U+FFFD for invalid ones), "&amp;" and the other names above;
 * other names stay as written. */
static void put_entity(mdparse *p, md_str *dst, const char *s, size_t n, unsigned char st)
{
    static const unsigned char lead[] = {0, 0, 0xC0, 0xE0, 0xF0};
    bool hex = n > 3 && (s[2] == 'x' || s[2] == 'X');
    unsigned long cp;
    char buf[4];
    int len;
    for (size_t k = 0; s[1] != '#' && k < sizeof entities / sizeof entities[0]; k++)
        if (n == strlen(entities[k][0]) + 2 && memcmp(s + 1, entities[k][0], n - 2) == 0)
            s = entities[k][1], n = strlen(s);     /* a known name: its character */
    if (s[1] != '#') {                             /* that, or an unknown name */
        tui_mdout_put(&p->o, dst, s, n, st);
        return;
    }
    cp = strtoul(s + 2 + hex, NULL, hex ? 16 : 10);
    if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        cp = 0xFFFD;
    len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    for (int k = len - 1; k > 0; k--, cp >>= 6)
        buf[k] = (char)(0x80 | (cp & 0x3F));
    buf[0] = (char)(lead[len] | cp);
    tui_mdout_put(&p->o, dst, buf, (size_t)len, st);
}

/* Appends text md4c reports as type: entities decoded, U+FFFD for NUL,
 * tabs as spaces. */
static void put_text(mdparse *p, md_str *dst, MD_TEXTTYPE type, const char *s, size_t n,
                     unsigned char st)
{
    if (type == MD_TEXT_ENTITY)
        put_entity(p, dst, s, n, st);
    else if (type == MD_TEXT_NULLCHAR)
        tui_mdout_puts(&p->o, dst, "\xEF\xBF\xBD", st);
    else
        for (size_t i = 0; i < n; i++)
            tui_mdout_put(&p->o, dst, s[i] == '\t' || s[i] == '\n' ? " " : s + i, 1, st);
}

static int on_text(MD_TEXTTYPE type, const MD_CHAR *s, MD_SIZE n, void *ud)
{
    mdparse *p = ud;
    unsigned char st = (unsigned char)(p->base | (p->em ? MD_ITALIC : 0) | (p->strong ? MD_BOLD : 0) |
                                       (p->codespan ? MD_CODE : 0) | (p->links ? MD_LINK : 0));
    if (p->in_code)
        tui_mdout_put(&p->o, &p->code, s, n, MD_BLOCK);
    else if (type == MD_TEXT_BR || type == MD_TEXT_SOFTBR)
        tui_mdout_puts(&p->o, p->dst, type == MD_TEXT_BR ? "\n" : " ", st);
    else
        put_text(p, p->dst, type, s, n, st);
    return p->o.oom ? -1 : 0;
}

/* ---- spans ----------------------------------------------------------------- */

/* The address of a link or image. */
static const MD_ATTRIBUTE *span_url(MD_SPANTYPE type, void *detail)
{
    return type == MD_SPAN_A ? &((MD_SPAN_A_DETAIL *)detail)->href
           : type == MD_SPAN_IMG ? &((MD_SPAN_IMG_DETAIL *)detail)->src : NULL;
}

static int on_enter_span(MD_SPANTYPE type, void *detail, void *ud)
{
    mdparse *p = ud;
    p->em += type == MD_SPAN_EM;
    p->strong += type == MD_SPAN_STRONG;
    p->codespan += type == MD_SPAN_CODE;
    if (span_url(type, detail) && p->links++ < MAX_LINKS)
        p->link_at[p->links - 1] = p->dst->len;
    return 0;
}

/* After a link's text, its address in brackets, unless the text says it. */
static int on_leave_span(MD_SPANTYPE type, void *detail, void *ud)
{
    mdparse *p = ud;
    const MD_ATTRIBUTE *a = span_url(type, detail);
    md_str url = {0};
    p->em -= type == MD_SPAN_EM;
    p->strong -= type == MD_SPAN_STRONG;
    p->codespan -= type == MD_SPAN_CODE;
    if (a && --p->links < MAX_LINKS) {
        size_t at = p->link_at[p->links], n = p->dst->len - at, skip;
        for (size_t i = 0; a->size > 0 && a->substr_offsets[i] < a->size; i++)
            put_text(p, &url, a->substr_types[i], a->text + a->substr_offsets[i],
                     a->substr_offsets[i + 1] - a->substr_offsets[i], MD_MARK);
        skip = url.len == n + 7 && memcmp(url.t, "mailto:", 7) == 0 ? 7 : 0;
        if (url.len > skip && !(url.len - skip == n && memcmp(url.t + skip, p->dst->t + at, n) == 0)) {
            tui_mdout_puts(&p->o, p->dst, " (", MD_MARK);
            tui_mdout_put(&p->o, p->dst, url.t, url.len, MD_MARK);
            tui_mdout_puts(&p->o, p->dst, ")", MD_MARK);
        }
        tui_mdout_free(&url);
    }
    return p->o.oom ? -1 : 0;
}

/* ---- blocks ---------------------------------------------------------------- */

/* Frees the rows of the table read last. */
static void table_free(md_table *t)
{
    for (size_t r = 0; r < t->nrows; r++)
        for (int j = 0; j <= MD_MAX_COLS; j++)
            tui_mdout_free(&t->row[r][j]);
    free(t->row);
    memset(t, 0, sizeof *t);
}

/* Makes room for the table's rows, which md4c counts beforehand (and one
 * more, so a row is always there to write to). */
static void table_start(mdparse *p, const MD_BLOCK_TABLE_DETAIL *d)
{
    md_table *t = &p->table;
    t->ncols = d->col_count < MD_MAX_COLS ? (int)d->col_count : MD_MAX_COLS;
    t->cap = d->head_row_count + d->body_row_count + 1;
    t->row = calloc(t->cap, sizeof *t->row);
    p->o.oom |= !t->row;
}

/* A cell's text goes to its place in the last row; cells past the columns
 * shown, to the row's spare one. */
static void table_cell(mdparse *p, MD_BLOCKTYPE type, const MD_BLOCK_TD_DETAIL *d)
{
    md_table *t = &p->table;
    int j = p->col < t->ncols ? p->col : MD_MAX_COLS;
    p->dst = &t->row[t->nrows - 1][j];
    p->col++;
    if (type == MD_BLOCK_TH && j < MD_MAX_COLS)
        t->align[j] = d->align == MD_ALIGN_RIGHT ? 'r' : d->align == MD_ALIGN_CENTER ? 'c' : 'l';
}

static void list_start(mdparse *p, MD_BLOCKTYPE type, void *detail)
{
    if (p->nlists < MD_MAX_DEPTH) {
        const MD_BLOCK_OL_DETAIL *ol = type == MD_BLOCK_OL ? detail : NULL;
        p->list[p->nlists].tight = ol ? ol->is_tight : ((MD_BLOCK_UL_DETAIL *)detail)->is_tight;
        p->list[p->nlists].next = ol ? ol->start : 0;
        p->list[p->nlists].delim = ol ? ol->mark_delimiter : 0;
    }
    p->nlists++;
}

/* A list item: no blank line before it in a tight list; its marker. */
static void item_start(mdparse *p)
{
    char num[16];
    int k = p->nlists - 1;
    if (k < 0 || k >= MD_MAX_DEPTH || p->list[k].tight)
        p->o.gap = false;
    tui_mdout_gap(&p->o);
    if (k >= 0 && k < MD_MAX_DEPTH && p->list[k].delim) {
        snprintf(num, sizeof num, "%u%c", p->list[k].next++, p->list[k].delim);
        tui_mdout_push(&p->o, num);
    } else {
        tui_mdout_push(&p->o, p->o.ascii ? "-" : "\xE2\x80\xA2");
    }
}

/* A block parted from the next by a blank line: not the document itself,
 * nor a part of a table (md4c lists those last). */
static bool is_block(MD_BLOCKTYPE type)
{
    return type != MD_BLOCK_DOC && type < MD_BLOCK_THEAD;
}

/* Lays out the inline text read so far: a paragraph, a heading or the text
 * of a tight list item (which md4c gives no paragraph). */
static void flush(mdparse *p)
{
    if (p->text.len > 0)
        tui_mdout_wrap(&p->o, &p->text);
    p->text.len = 0;
}

static int on_enter_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
    mdparse *p = ud;
    flush(p);
    if (type == MD_BLOCK_LI)
        item_start(p);
    else if (is_block(type))
        tui_mdout_gap(&p->o);     /* the blank line due before a block */
    switch (type) {
    case MD_BLOCK_QUOTE: tui_mdout_push(&p->o, NULL); break;
    case MD_BLOCK_UL: case MD_BLOCK_OL: list_start(p, type, detail); break;
    case MD_BLOCK_H:
        p->base = ((MD_BLOCK_H_DETAIL *)detail)->level <= 2 ? MD_HEAD | MD_BOLD : MD_BOLD;
        break;
    case MD_BLOCK_CODE: p->in_code = true; break;
    case MD_BLOCK_TABLE: table_start(p, detail); break;
    case MD_BLOCK_TR:
        p->col = 0;
        p->table.nrows += p->table.nrows < p->table.cap;
        break;
    case MD_BLOCK_TH: case MD_BLOCK_TD: table_cell(p, type, detail); break;
    default: break;
    }
    return p->o.oom ? -1 : 0;
}

static int on_leave_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
    mdparse *p = ud;
    (void)detail;
    flush(p);
    switch (type) {
    case MD_BLOCK_QUOTE: case MD_BLOCK_LI: tui_mdout_pop(&p->o); break;
    case MD_BLOCK_UL: case MD_BLOCK_OL: p->nlists--; break;
    case MD_BLOCK_H: p->base = 0; break;
    case MD_BLOCK_HR: tui_mdout_rule(&p->o); break;
    case MD_BLOCK_TABLE:
        tui_mdout_table(&p->o, &p->table);
        table_free(&p->table);
        break;
    case MD_BLOCK_CODE:
        tui_mdout_code(&p->o, p->code.t, p->code.len);
        p->code.len = 0;
        p->in_code = false;
        break;
    case MD_BLOCK_TH: case MD_BLOCK_TD: p->dst = &p->text; break;
    default: break;
    }
    if (is_block(type))
        p->o.gap = type != MD_BLOCK_HR;   /* a blank line before the next block */
    return p->o.oom ? -1 : 0;
}

/* ---- the document ---------------------------------------------------------- */

/* A copy of src without the leading spaces and tabs that all its non-blank
 * lines share; its length goes to *len.  NULL when out of memory. */
static char *dedent(const char *src, size_t *len)
{
    size_t cut = (size_t)-1, n = 0, ln;
    char *out = malloc(strlen(src) + 1);
    for (int pass = 0; out && pass < 2; pass++) {
        for (const char *q = src; *q; q += ln + (q[ln] == '\n')) {
            size_t s = strspn(q, " \t");
            ln = strcspn(q, "\n");
            if (pass == 0 && s < ln && s < cut)
                cut = s;
            if (pass == 1) {
                s = s < cut ? s : cut;
                memcpy(out + n, q + s, ln - s + (q[ln] == '\n'));
                n += ln - s + (q[ln] == '\n');
            }
        }
    }
    if (out)
        out[n] = '\0';
    *len = n;
    return out;
}

bool tui_md_render(const char *src, int width, bool ascii, md_doc *out, cl_err *err)
{
    mdparse p;
    MD_PARSER parser = {
        .abi_version = 0,
        .flags = LESSON_DIALECT,
        .enter_block = on_enter_block,
        .leave_block = on_leave_block,
        .enter_span = on_enter_span,
        .leave_span = on_leave_span,
        .text = on_text,
    };
    size_t n = 0;
    char *text = dedent(src ? src : "", &n);

    memset(out, 0, sizeof *out);
    memset(&p, 0, sizeof p);
    p.o.doc = out;
    p.o.width = width < 8 ? 8 : width;
    p.o.ascii = ascii;
    p.dst = &p.text;
    if (!text || md_parse(text, (MD_SIZE)n, &parser, &p) != 0)
        p.o.oom = true;
    /* the last lines may be blank ones of a code block */
    while (out->n > 0 && strspn(out->v[out->n - 1].text, " ") == out->v[out->n - 1].len) {
        out->n--;
        free(out->v[out->n].text);
        free(out->v[out->n].style);
    }
    free(text);
    table_free(&p.table);
    tui_mdout_free(&p.text);
    tui_mdout_free(&p.code);
    if (p.o.oom) {
        tui_md_free(out);
        return err_set(err, "out of memory laying out the lesson");
    }
    return true;
}

void tui_md_free(md_doc *doc)
{
    for (size_t i = 0; i < doc->n; i++) {
        free(doc->v[i].text);
        free(doc->v[i].style);
    }
    free(doc->v);
    memset(doc, 0, sizeof *doc);
}

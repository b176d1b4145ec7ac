/* classview_write.c - the class table as CSV, Markdown and HTML. */
#include "grade/classview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

typedef enum { FMT_CSV, FMT_MD, FMT_HTML } table_fmt;

/* One cell's text, escaped for the format. */
static void cell(strbuf *f, table_fmt fmt, const char *s)
{
    if (fmt == FMT_CSV) {
        if (strpbrk(s, ",\"\r\n")) {
            strbuf_putc(f, '"');
            for (const char *p = s; *p; p++) {
                if (*p == '"')
                    strbuf_putc(f, '"');
                strbuf_putc(f, *p);
            }
            strbuf_putc(f, '"');
        } else {
            strbuf_str(f, s);
        }
        return;
    }
    for (const char *p = s; *p; p++) {
        char c = *p;
        if (fmt == FMT_MD && (c == '|' || c == '\\' || c == '*' || c == '_' || c == '`'))
            strbuf_putc(f, '\\');
        if (fmt == FMT_HTML && (c == '&' || c == '<' || c == '>' || c == '"')) {
            strbuf_str(f, c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : "&quot;");
            continue;
        }
        strbuf_putc(f, (char)(c == '\n' || c == '\r' ? ' ' : c));
    }
}

static void row_start(strbuf *f, table_fmt fmt)
{
    strbuf_str(f, fmt == FMT_MD ? "| " : fmt == FMT_HTML ? "<tr><td>" : "");
}

static void sep(strbuf *f, table_fmt fmt)
{
    strbuf_str(f, fmt == FMT_CSV ? "," : fmt == FMT_MD ? " | " : "</td><td>");
}

static void row_end(strbuf *f, table_fmt fmt)
{
    strbuf_str(f, fmt == FMT_CSV ? "\r\n" : fmt == FMT_MD ? " |\n" : "</td></tr>\n");
}

/* The best time of lab in r, as text ("" when none). */
static void best(const grade_report *r, const char *lab_id, char *out, size_t n)
{
    out[0] = '\0';
    for (size_t i = 0; i < r->nlabs; i++)
        if (strcmp(r->labs[i].id, lab_id) == 0 && r->labs[i].best_ms > 0)
            snprintf(out, n, "%.4g ms at %s", r->labs[i].best_ms, r->labs[i].best_size);
}

static char *render(const class_view *v, table_fmt fmt)
{
    strbuf sb;
    strbuf_init(&sb, 0);
    strbuf *f = &sb;
    /* The labs, in column order, once each: a "best" column each. */
    const char *labs[64];
    size_t nlabs = 0;
    for (size_t c = 0; c < v->ncols && nlabs < 64; c++)
        if (nlabs == 0 || strcmp(labs[nlabs - 1], v->cols[c].lab) != 0)
            labs[nlabs++] = v->cols[c].lab;
    if (fmt == FMT_HTML)
        strbuf_str(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>cudalab class"
              "</title>\n<style>table{border-collapse:collapse}td,th{border:1px solid #999;"
              "padding:2px 6px}.y{background:#cfc}.n{background:#fcc}</style></head><body>\n"
              "<h1>cudalab class</h1>\n<table>\n<tr><td>");
    else if (fmt == FMT_MD)
        strbuf_str(f, "| ");
    static const char *const head[] = {"learner", "score", "max", "device", "graded"};
    for (size_t i = 0; i < 5; i++) {
        if (i)
            sep(f, fmt);
        cell(f, fmt, head[i]);
    }
    for (size_t c = 0; c < v->ncols; c++) {
        char h[GRADE_ID_MAX * 2 + 2];
        snprintf(h, sizeof h, "%s:%s", v->cols[c].lab, v->cols[c].id);
        sep(f, fmt);
        cell(f, fmt, h);
    }
    for (size_t l = 0; l < nlabs; l++) {
        char h[GRADE_ID_MAX + 8];
        snprintf(h, sizeof h, "%s best", labs[l]);
        sep(f, fmt);
        cell(f, fmt, h);
    }
    row_end(f, fmt);
    if (fmt == FMT_MD) {
        strbuf_str(f, "|");
        for (size_t i = 0; i < 5 + v->ncols + nlabs; i++)
            strbuf_str(f, "---|");
        strbuf_putc(f, '\n');
    }
    for (size_t i = 0; i < v->nrows; i++) {
        const class_file *cf = &v->files[v->rows[i]];
        const grade_report *r = &cf->rep;
        char num[32];
        row_start(f, fmt);
        cell(f, fmt, r->learner);
        sep(f, fmt);
        snprintf(num, sizeof num, "%g", r->score);
        cell(f, fmt, num);
        sep(f, fmt);
        snprintf(num, sizeof num, "%g", r->max_score);
        cell(f, fmt, num);
        sep(f, fmt);
        cell(f, fmt, r->dev.name);
        sep(f, fmt);
        cell(f, fmt, r->created);
        for (size_t c = 0; c < v->ncols; c++) {
            const grade_milestone *g = class_cell(v, cf, c);
            const char *mark = !g ? "" : g->passed ? "yes" : "no";
            if (fmt == FMT_HTML)
                strbuf_printf(f, "</td><td class=\"%s\">", !g ? "" : g->passed ? "y" : "n");
            else
                sep(f, fmt);
            cell(f, fmt, mark);
        }
        for (size_t l = 0; l < nlabs; l++) {
            char b[64];
            best(r, labs[l], b, sizeof b);
            sep(f, fmt);
            cell(f, fmt, b);
        }
        row_end(f, fmt);
    }
    if (fmt == FMT_HTML) {
        strbuf_str(f, "</table>\n");
        bool any = false;
        for (size_t i = 0; i < v->nfiles; i++) {
            if (v->files[i].usable)
                continue;
            if (!any)
                strbuf_str(f, "<h2>Files left out</h2>\n<ul>\n");
            any = true;
            strbuf_str(f, "<li>");
            cell(f, fmt, v->files[i].path);
            strbuf_str(f, ": ");
            cell(f, fmt, v->files[i].problem);
            strbuf_str(f, "</li>\n");
        }
        if (any)
            strbuf_str(f, "</ul>\n");
        strbuf_str(f, "</body></html>\n");
    } else if (fmt == FMT_MD) {
        for (size_t i = 0; i < v->nfiles; i++) {
            if (v->files[i].usable)
                continue;
            strbuf_str(f, "\n- left out: ");
            cell(f, fmt, v->files[i].path);
            strbuf_str(f, ": ");
            cell(f, fmt, v->files[i].problem);
        }
        strbuf_putc(f, '\n');
    }
    if (sb.failed) {
        strbuf_free(&sb);
        return NULL;
    }
    return strbuf_take(&sb);
}

char *class_csv(const class_view *v)
{
    return render(v, FMT_CSV);
}

char *class_markdown(const class_view *v)
{
    return render(v, FMT_MD);
}

char *class_html(const class_view *v)
{
    return render(v, FMT_HTML);
}

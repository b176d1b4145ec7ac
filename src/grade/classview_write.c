/* classview_write.c - the class table as CSV, Markdown and HTML, every cell
 * escaped for its reader (core/escape.h); quiz points (self-reported) in a
 * column apart from the measured ones, quiz columns marked. */
#include "grade/classview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/strbuf.h"

typedef enum { FMT_CSV, FMT_MD, FMT_HTML } table_fmt;

#define MAX_LABS 64

/* One cell's text, escaped for the format. */
static void cell(strbuf *f, table_fmt fmt, const char *s)
{
    if (fmt == FMT_CSV)
        escape_csv_cell(f, s);
    else if (fmt == FMT_MD)
        escape_md_cell(f, s);
    else
        escape_html(f, s);
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

/* The labs, in column order, once each (a "best" column each). */
static size_t labs_of(const class_view *v, const char *labs[MAX_LABS])
{
    size_t n = 0;
    for (size_t c = 0; c < v->ncols && n < MAX_LABS; c++)
        if (n == 0 || strcmp(labs[n - 1], v->cols[c].lab) != 0)
            labs[n++] = v->cols[c].lab;
    return n;
}

static const char *const fixed[] = {"learner", "score",    "max",
                                    "measured", "quiz (self-reported)", "device",
                                    "graded",  "assignment", "hostname"};
#define NFIXED (sizeof fixed / sizeof fixed[0])

static void header(strbuf *f, table_fmt fmt, const class_view *v, const char *const *labs,
                   size_t nlabs)
{
    row_start(f, fmt);
    for (size_t i = 0; i < NFIXED; i++) {
        if (i)
            sep(f, fmt);
        cell(f, fmt, fixed[i]);
    }
    for (size_t c = 0; c < v->ncols; c++) {
        char h[GRADE_ID_MAX * 2 + 32];
        snprintf(h, sizeof h, "%s:%s%s", v->cols[c].lab, v->cols[c].id,
                 v->cols[c].quiz ? " (quiz, self-reported)" : "");
        sep(f, fmt);
        cell(f, fmt, h);
    }
    for (size_t l = 0; l < nlabs; l++) {
        char h[GRADE_ID_MAX + 8];
        snprintf(h, sizeof h, "%s best", labs[l]);
        sep(f, fmt);
        cell(f, fmt, h);
    }
    sep(f, fmt);
    cell(f, fmt, "notes");
    row_end(f, fmt);
    if (fmt == FMT_MD) {
        strbuf_str(f, "|");
        for (size_t i = 0; i < NFIXED + v->ncols + nlabs + 1; i++)
            strbuf_str(f, "---|");
        strbuf_putc(f, '\n');
    }
}

static void learner_row(strbuf *f, table_fmt fmt, const class_view *v, const class_file *cf,
                        const char *const *labs, size_t nlabs)
{
    const grade_report *r = &cf->rep;
    char score[32], max[32], measured[64], quiz[64];
    class_points pts;
    class_points_of(r, &pts);
    class_points_text(&pts, measured, sizeof measured, quiz, sizeof quiz);
    snprintf(score, sizeof score, "%g", r->score);
    snprintf(max, sizeof max, "%g", r->max_score);
    const char *values[NFIXED] = {r->learner,   score,      max,         measured, quiz,
                                  r->dev.name, r->created, r->assignment, r->hostname};
    row_start(f, fmt);
    for (size_t i = 0; i < NFIXED; i++) {
        if (i)
            sep(f, fmt);
        cell(f, fmt, values[i]);
    }
    for (size_t c = 0; c < v->ncols; c++) {
        const grade_milestone *g = class_cell(v, cf, c);
        if (fmt == FMT_HTML)
            strbuf_printf(f, "</td><td class=\"%s\">", !g ? "" : g->passed ? "y" : "n");
        else
            sep(f, fmt);
        const char *mark = !g                            ? ""
                           : g->not_counted && g->passed ? "yes, not counted"
                           : g->not_counted              ? "no, not counted"
                           : g->passed                   ? "yes"
                                                         : "no";
        cell(f, fmt, mark);
    }
    for (size_t l = 0; l < nlabs; l++) {
        char b[64 + RUN_SIZE_MAX];
        best(r, labs[l], b, sizeof b);
        sep(f, fmt);
        cell(f, fmt, b);
    }
    if (fmt == FMT_HTML)
        strbuf_str(f, cf->note[0] ? "</td><td class=\"flag\">" : "</td><td>");
    else
        sep(f, fmt);
    cell(f, fmt, cf->note);
    row_end(f, fmt);
}

/* The files left out, after the table (Markdown and HTML). */
static void left_out(strbuf *f, table_fmt fmt, const class_view *v)
{
    bool any = false;
    for (size_t i = 0; i < v->nfiles; i++) {
        if (v->files[i].usable)
            continue;
        if (!any)
            strbuf_str(f, fmt == FMT_HTML ? "<h2>Files left out</h2>\n<ul>\n"
                                          : "\nFiles left out:\n\n");
        any = true;
        strbuf_str(f, fmt == FMT_HTML ? "<li>" : "- ");
        cell(f, fmt, v->files[i].path);
        strbuf_str(f, ": ");
        cell(f, fmt, v->files[i].problem);
        strbuf_str(f, fmt == FMT_HTML ? "</li>\n" : "\n");
    }
    if (any && fmt == FMT_HTML)
        strbuf_str(f, "</ul>\n");
}

static char *render(const class_view *v, table_fmt fmt)
{
    strbuf sb;
    strbuf_init(&sb, 0);
    strbuf *f = &sb;
    const char *labs[MAX_LABS];
    size_t nlabs = labs_of(v, labs);
    if (fmt == FMT_HTML) {
        strbuf_str(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>cudalab class"
                      "</title>\n<style>table{border-collapse:collapse}td,th{border:1px solid "
                      "#999;padding:2px 6px}.y{background:#cfc}.n{background:#fcc}"
                      ".flag{background:#ffc}</style></head><body>\n<h1>cudalab class: ");
        cell(f, fmt, v->assignment[0] ? v->assignment : "(no assignment)");
        strbuf_str(f, "</h1>\n<table>\n");
    }
    header(f, fmt, v, labs, nlabs);
    for (size_t i = 0; i < v->nrows; i++)
        learner_row(f, fmt, v, &v->files[v->rows[i]], labs, nlabs);
    if (fmt == FMT_HTML)
        strbuf_str(f, "</table>\n");
    if (fmt != FMT_CSV)
        left_out(f, fmt, v);
    if (fmt == FMT_HTML)
        strbuf_str(f, "</body></html>\n");
    if (sb.failed) {
        strbuf_free(&sb);
        return NULL;
    }
    return strbuf_take(&sb);
}

char *class_csv(const class_view *view)
{
    return render(view, FMT_CSV);
}

char *class_markdown(const class_view *view)
{
    return render(view, FMT_MD);
}

char *class_html(const class_view *view)
{
    return render(view, FMT_HTML);
}

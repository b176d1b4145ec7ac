/* tui_mdout.h - the terminal side of lesson Markdown: styled text, quote
 * bars and list markers, word wrapping, code lines, rules and tables, put
 * out as md_doc lines.  tui_md.c reads the Markdown and calls these.
 * Private to src/tui/tui_md*.c. */
#ifndef CUDALAB_TUI_MDOUT_H
#define CUDALAB_TUI_MDOUT_H

#include "tui/tui_md.h"

#define MD_MAX_DEPTH 16        /* quote and list levels that get a prefix */
#define MD_MAX_COLS 16         /* table columns shown */

/* Text with one MD_* style byte per text byte. */
typedef struct md_str {
    char *t;
    unsigned char *s;
    size_t len, cap;
} md_str;

typedef struct md_table {
    md_str (*row)[MD_MAX_COLS + 1];    /* row 0 is the header; [MD_MAX_COLS]: spare */
    size_t nrows, cap;
    int ncols;
    char align[MD_MAX_COLS];       /* 'l', 'c' or 'r' */
} md_table;

typedef struct md_out {
    md_doc *doc;
    int width;
    bool ascii, oom;           /* oom is sticky: once set, every call does nothing */
    struct {
        char mark[16];         /* a list item's marker ("•", "3."); "" for a quote */
        bool used;             /* its first line is out */
    } lv[MD_MAX_DEPTH];
    int depth;                 /* may pass MD_MAX_DEPTH: deeper levels add nothing */
    bool gap;                  /* a blank line is due before the next block */
    bool blank;                /* the last line out is a blank one */
} md_out;

/* Appends len bytes of text to str, each with style st. */
void tui_mdout_put(md_out *out, md_str *str, const char *text, size_t len, unsigned char st);
void tui_mdout_puts(md_out *out, md_str *str, const char *text, unsigned char st);
void tui_mdout_free(md_str *str);
/* Opens a quote (mark NULL: a bar on every line) or a list item (its mark
 * on the first line, the text hanging under it after that). */
void tui_mdout_push(md_out *out, const char *mark);
/* Closes the innermost level; an item with no line yet shows its marker. */
void tui_mdout_pop(md_out *out);
/* Puts out the blank line that is due before a block (out->gap), if any. */
void tui_mdout_gap(md_out *out);
/* Word-wraps txt under the open levels; a '\n' in txt breaks the line. */
void tui_mdout_wrap(md_out *out, const md_str *txt);
/* A code block's lines (each ending in '\n'), indented two columns and cut
 * (not at words) where too long; tabs stop every four columns. */
void tui_mdout_code(md_out *out, const char *text, size_t len);
void tui_mdout_rule(md_out *out);
/* Columns as wide as their widest cell, the widest narrowed until the row
 * fits, cut cells ending in "…"; the header bold above a rule. */
void tui_mdout_table(md_out *out, const md_table *table);

#endif

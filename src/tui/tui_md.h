/* tui_md.h - the lesson Markdown subset, laid out for a terminal pane.
 *
 * Understood: # headings, paragraphs, **bold**, *italic* and _italic_,
 * `inline code`, [links](url), fenced code blocks (``` or ~~~), bullet
 * (- * +) and numbered (1. or 1)) lists with nesting by indentation,
 * > quotes, horizontal rules (---) and pipe tables.  Everything else is
 * shown as text.  A common leading indentation (as in an indented Lua long
 * string) is removed first.
 *
 * The result is a list of display lines, each no wider than the width asked
 * for, with one style byte per text byte.  No curses here: the lesson view
 * maps styles to attributes. */
#ifndef CUDALAB_TUI_MD_H
#define CUDALAB_TUI_MD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

enum {
    MD_BOLD = 1 << 0,
    MD_ITALIC = 1 << 1,
    MD_CODE = 1 << 2,      /* inline code */
    MD_HEAD = 1 << 3,      /* heading text */
    MD_BLOCK = 1 << 4,     /* fenced code block */
    MD_MARK = 1 << 5,      /* list markers, rules, table lines, quote bars */
    MD_LINK = 1 << 6,
};

typedef struct md_line {
    char *text;            /* NUL-terminated UTF-8 */
    unsigned char *style;  /* one MD_* set per byte of text */
    size_t len;
} md_line;

typedef struct md_doc {
    md_line *v;
    size_t n, cap;
} md_doc;

/* Lays out src for a pane width columns wide (at least 8).  ascii picks
 * plain marks ("-", "|") instead of "•", "│", "─".  false + e when out of
 * memory; out is empty then. */
bool tui_md_render(const char *src, int width, bool ascii, md_doc *out, cl_err *e);
void tui_md_free(md_doc *d);

#endif

/* tui_md.h - lesson Markdown, laid out for a terminal pane.
 *
 * Lessons are CommonMark, read by md4c, with pipe tables (delimiter cells
 * of three or more characters: ---, :--, --:, :-:); indentation never
 * makes a code block (code is fenced), and HTML shows as text.  A common
 * leading indentation (as in an indented Lua long string) is removed first.
 * Blocks are parted by one blank line (none after a rule), the items of a
 * tight list are not.
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
    MD_BLOCK = 1 << 4,     /* code block */
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
 * plain marks ("-", "|") instead of "•", "│", "─".  false + err when out of
 * memory; out is empty then. */
bool tui_md_render(const char *src, int width, bool ascii, md_doc *out, cl_err *err);
void tui_md_free(md_doc *doc);

#endif

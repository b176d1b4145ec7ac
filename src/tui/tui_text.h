/* tui_text.h - terminal column widths of UTF-8 text.
 *
 * Invalid bytes count as one column each, so broken input never stalls a
 * loop.  Widths come from wcwidth() and so follow the current locale. */
#ifndef CUDALAB_TUI_TEXT_H
#define CUDALAB_TUI_TEXT_H

#include <stddef.h>

/* Decodes the character at text[index] (index < len); returns the index just past it
 * and stores its column width (0 for combining marks) in *width. */
size_t tui_text_next(const char *text, size_t len, size_t index, int *width);
/* Columns taken by text[0..len). */
int tui_text_width(const char *text, size_t len);
/* Columns taken by a NUL-terminated string. */
int tui_text_swidth(const char *text);
/* Bytes of the longest prefix of text[0..len) that fits in cols columns, never
 * splitting a character; its width goes to *used when used != NULL. */
size_t tui_text_fit(const char *text, size_t len, int cols, int *used);
/* Copies text into out (size out_size), cut to at most cols columns; when it had to
 * cut, the last column holds ellipsis (e.g. "…" or "~").  Returns out. */
char *tui_text_clip(const char *text, int cols, const char *ellipsis, char *out, size_t out_size);
/* Word-wraps text (no Markdown) to width columns: stores up to max lines as
 * byte offsets and lengths; returns the number of lines needed (which may
 * exceed max).  Words longer than width are cut. */
size_t tui_text_wrap(const char *text, int width, size_t *start, size_t *len, size_t max);
/* Copies text into out (size out_size) with ">=" and "<=" written as "≥" and "≤". */
char *tui_text_math(const char *text, char *out, size_t out_size);

#endif

/* tui_text.h - terminal column widths of UTF-8 text.
 *
 * Invalid bytes count as one column each, so broken input never stalls a
 * loop.  Widths come from wcwidth() and so follow the current locale. */
#ifndef CUDALAB_TUI_TEXT_H
#define CUDALAB_TUI_TEXT_H

#include <stddef.h>

/* Decodes the character at s[i] (i < len); returns the index just past it
 * and stores its column width (0 for combining marks) in *w. */
size_t tui_text_next(const char *s, size_t len, size_t i, int *w);
/* Columns taken by s[0..len). */
int tui_text_width(const char *s, size_t len);
/* Columns taken by a NUL-terminated string. */
int tui_text_swidth(const char *s);
/* Bytes of the longest prefix of s[0..len) that fits in cols columns, never
 * splitting a character; its width goes to *used when used != NULL. */
size_t tui_text_fit(const char *s, size_t len, int cols, int *used);
/* Copies s into out (size n), cut to at most cols columns; when it had to
 * cut, the last column holds ellipsis (e.g. "…" or "~").  Returns out. */
char *tui_text_clip(const char *s, int cols, const char *ellipsis, char *out, size_t n);
/* Word-wraps s (no Markdown) to width columns: stores up to max lines as
 * byte offsets and lengths; returns the number of lines needed (which may
 * exceed max).  Words longer than width are cut. */
size_t tui_text_wrap(const char *s, int width, size_t *start, size_t *len, size_t max);
/* Copies s into out (size n) with ">=" and "<=" written as "≥" and "≤". */
char *tui_text_math(const char *s, char *out, size_t n);

#endif

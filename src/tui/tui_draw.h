/* tui_draw.h - small curses drawing helpers shared by the views.
 *
 * Text is UTF-8, clipped to a number of columns (never to bytes); roles
 * come from tui_theme.h.  Nothing here refreshes: the main loop calls
 * wnoutrefresh on each window and doupdate once a frame. */
#ifndef CUDALAB_TUI_DRAW_H
#define CUDALAB_TUI_DRAW_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

#include "tui/tui_theme.h"

/* A border with a title at the left and an optional note at the right of
 * the top line; the focused pane's border uses ROLE_FOCUS. */
void tui_draw_box(WINDOW *w, const char *title, const char *note, bool focus, bool ascii);
/* A note on the bottom border, right-aligned. */
void tui_draw_footer(WINDOW *w, const char *note, bool ascii);
/* Writes at most maxw columns of s[0..len) at (y, x) with attribute attr;
 * returns the columns written. */
int tui_draw_nstr(WINDOW *w, int y, int x, int maxw, const char *s, size_t len, int attr);
/* Same for a NUL-terminated string, in a role. */
int tui_draw_text(WINDOW *w, int y, int x, int maxw, const char *s, tui_role role);
/* Right-aligned so that it ends just before column xend. */
int tui_draw_rtext(WINDOW *w, int y, int xend, int maxw, const char *s, tui_role role);
/* n spaces in a role. */
void tui_draw_fill(WINDOW *w, int y, int x, int n, tui_role role);
/* Word-wrapped text from line y, at most maxlines lines; returns lines used. */
int tui_draw_wrapped(WINDOW *w, int y, int x, int width, int maxlines, const char *s, tui_role role);

#endif

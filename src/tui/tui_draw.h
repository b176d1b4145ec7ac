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
void tui_draw_box(WINDOW *win, const char *title, const char *note, bool focus, bool ascii);
/* A note on the bottom border, right-aligned. */
void tui_draw_footer(WINDOW *win, const char *note, bool ascii);
/* Writes at most maxw columns of text[0..len) at (row, col) with attribute attr;
 * returns the columns written. */
int tui_draw_nstr(WINDOW *win, int row, int col, int maxw, const char *text, size_t len, int attr);
/* Same for a NUL-terminated string, in a role. */
int tui_draw_text(WINDOW *win, int row, int col, int maxw, const char *text, tui_role role);
/* Right-aligned so that it ends just before column xend. */
int tui_draw_rtext(WINDOW *win, int row, int xend, int maxw, const char *text, tui_role role);
/* cells spaces in a role. */
void tui_draw_fill(WINDOW *win, int row, int col, int cells, tui_role role);
/* Word-wrapped text from line row, at most maxlines lines; returns lines used. */
int tui_draw_wrapped(WINDOW *win, int row, int col, int width, int maxlines, const char *text,
                     tui_role role);

#endif

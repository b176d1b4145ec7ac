/* tui_overlays.h - windows drawn over the panes: help, a quiz, the quit
 * question, and the notice shown when the terminal is too small. */
#ifndef CUDALAB_TUI_OVERLAYS_H
#define CUDALAB_TUI_OVERLAYS_H

#include <curses.h>

#include "tui/tui_app.h"
#include "tui/tui_layout.h"

/* Lines of the help text: one a key from the key table (their number goes
 * to *nkeys), then a legend.  Returns the number of lines. */
size_t tui_overlays_help_lines(bool ascii, char *lines, size_t width, size_t max, size_t *nkeys);
void tui_overlays_help(WINDOW *win, const tui_app *app);
void tui_overlays_quiz(WINDOW *win, const tui_app *app);
void tui_overlays_details(WINDOW *win, const tui_app *app);
void tui_overlays_confirm(WINDOW *win, const tui_app *app);
void tui_overlays_confirm_reset(WINDOW *win, const tui_app *app);
void tui_overlays_too_small(WINDOW *win, int rows, int cols);

#endif

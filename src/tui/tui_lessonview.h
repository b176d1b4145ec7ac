/* tui_lessonview.h - the lesson pane: the selected step of the selected
 * lab, rendered from Markdown, scrolled, with a "step k/n" indicator. */
#ifndef CUDALAB_TUI_LESSONVIEW_H
#define CUDALAB_TUI_LESSONVIEW_H

#include <curses.h>

#include "tui/tui_app.h"
#include "tui/tui_layout.h"
#include "tui/tui_md.h"

/* Draws the lesson into win (the pane's window).  Renders through the app's
 * lesson cache, which is its only effect on the app. */
void tui_lessonview_draw(WINDOW *win, tui_app *app, const tui_layout *lay);
/* Draws one laid-out Markdown line at (row, at_col), at most width columns. */
void tui_lessonview_line(WINDOW *win, int row, int at_col, int width, const md_line *line);

#endif

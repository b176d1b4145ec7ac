/* tui_lessonview.h - the lesson pane: the selected step of the selected
 * lab, rendered from Markdown, scrolled, with a "step k/n" indicator. */
#ifndef CUDALAB_TUI_LESSONVIEW_H
#define CUDALAB_TUI_LESSONVIEW_H

#include <curses.h>

#include "tui/tui_app.h"
#include "tui/tui_layout.h"

/* Draws the lesson into w (the pane's window).  Renders through the app's
 * lesson cache, which is its only effect on the app. */
void tui_lessonview_draw(WINDOW *w, tui_app *a, const tui_layout *lay);
/* The curses attribute for a set of Markdown style bits. */
int tui_lessonview_attr(unsigned style);

#endif

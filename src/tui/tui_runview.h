/* tui_runview.h - the run pane: a size selector, the live results table
 * and the log-scale chart of speedups over the CPU. */
#ifndef CUDALAB_TUI_RUNVIEW_H
#define CUDALAB_TUI_RUNVIEW_H

#include <curses.h>

#include "tui/tui_app.h"
#include "tui/tui_layout.h"

/* Draws the run pane into win, which covers lay->pane[TUI_P_RUN]. */
void tui_runview_draw(WINDOW *win, const tui_app *app, const tui_layout *lay);

#endif

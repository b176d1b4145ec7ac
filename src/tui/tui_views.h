/* tui_views.h - the full-screen views: the timeline of the last profiling
 * run, the roofline of the measured rows, the GB/s of the rows measured at
 * several sizes against their size, and every message of the session.
 * Each draws one window from the app model (tui_timeline.h, tui_roof.h,
 * tui_sweep.h, tui_log.h) and changes nothing. */
#ifndef CUDALAB_TUI_VIEWS_H
#define CUDALAB_TUI_VIEWS_H

#include <curses.h>

#include "tui/tui_app.h"

void tui_views_timeline(WINDOW *win, const tui_app *app);
void tui_views_roofline(WINDOW *win, const tui_app *app);
void tui_views_sweep(WINDOW *win, const tui_app *app);
void tui_views_messages(WINDOW *win, const tui_app *app);

#endif

/* tui_panes.h - the side panes and bars: lab list, milestone checklist,
 * device panel, message area and status bar.  Each draws one window from
 * the app model and changes nothing. */
#ifndef CUDALAB_TUI_PANES_H
#define CUDALAB_TUI_PANES_H

#include <curses.h>

#include "tui/tui_app.h"
#include "tui/tui_layout.h"

void tui_panes_labs(WINDOW *win, const tui_app *app);
void tui_panes_milestones(WINDOW *win, const tui_app *app);
void tui_panes_device(WINDOW *win, const tui_app *app);
void tui_panes_log(WINDOW *win, const tui_app *app, bool boxed);
void tui_panes_status(WINDOW *win, const tui_app *app);
/* One line summary of the device: "NVIDIA H100 80GB HBM3" or
 * "no CUDA device found". */
const char *tui_panes_device_short(const tui_app *app, char *buf, size_t buf_size);

#endif

/* tui_class.h - browsing a class table (grade/classview.h) in the terminal. */
#ifndef CUDALAB_TUI_CLASS_H
#define CUDALAB_TUI_CLASS_H

#include <stdbool.h>

#include "grade/classview.h"

/* Shows table full screen until the user quits; returns an exit code (0, or 3
 * when the terminal cannot be used).  The order changes with `s`. */
int tui_class_browse(struct class_view *table, bool ascii, bool no_color);

#endif

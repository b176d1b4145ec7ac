/* tui_term.h - whether the terminal named by TERM can draw the lab, asked
 * of terminfo before anything is started. */
#ifndef CUDALAB_TUI_TERM_H
#define CUDALAB_TUI_TERM_H

#include <stdbool.h>
#include <stddef.h>

/* True when TERM names a terminfo entry that can address the cursor.
 * Otherwise writes to why one line saying what is wrong and what to do. */
bool tui_term_usable(char *why, size_t why_size);

#endif

/* tui_term.c - asks terminfo about TERM before the screen is set up
 * (tui_term.h).  Kept apart: <term.h> defines macros named like common
 * words (lines, columns) that must not reach the rest of the TUI. */
#include "tui/tui_term.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <term.h>

static const char tui_term_alternatives[] =
    "set TERM to a terminal this machine knows (TERM=xterm-256color is a safe choice in most "
    "terminals), or use the command line: 'cudalab list', 'cudalab run LAB'";

bool tui_term_usable(char *why, size_t why_size)
{
    const char *term = getenv("TERM");
    int err = 0;
    if (!term || !term[0]) {
        snprintf(why, why_size,
                 "TERM is not set, so the lab cannot tell how to draw on this terminal: %s",
                 tui_term_alternatives);
        return false;
    }
    if (setupterm(NULL, 1, &err) != OK) {
        if (err == 1)
            snprintf(why, why_size,
                     "TERM=%s is a hard-copy terminal, which cannot redraw a screen: %s", term,
                     tui_term_alternatives);
        else
            snprintf(why, why_size,
                     "TERM=%s is not a terminal type this machine knows (no terminfo "
                     "entry for it): %s",
                     term, tui_term_alternatives);
        return false;
    }
    char *cup = tigetstr("cup");
    bool hardcopy = tigetflag("hc") > 0;
    bool usable = cup != NULL && cup != (char *)-1 && !hardcopy;
    del_curterm(cur_term);
    if (!usable)
        snprintf(why, why_size, "TERM=%s cannot move the cursor, which the lab's screen needs: %s",
                 term, tui_term_alternatives);
    return usable;
}

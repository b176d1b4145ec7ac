/* tui_keys.h - the key bindings, as one table.
 *
 * Input is mapped to an action here and nowhere else; the help overlay is
 * generated from the same table, so it always lists every key. */
#ifndef CUDALAB_TUI_KEYS_H
#define CUDALAB_TUI_KEYS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum tui_action {
    TA_NONE,
    TA_UP,
    TA_DOWN,
    TA_LEFT,
    TA_RIGHT,
    TA_PAGE_UP,
    TA_PAGE_DOWN,
    TA_HOME,
    TA_END,
    TA_ENTER,
    TA_NEXT_PANE,
    TA_PREV_PANE,
    TA_NEXT_STEP,
    TA_PREV_STEP,
    TA_NEXT_SIZE,
    TA_PREV_SIZE,
    TA_RUN,
    TA_RUN_ALL,
    TA_CANCEL,
    TA_CHART,
    TA_EDIT,
    TA_RESET,
    TA_HINT,
    TA_HISTORY,
    TA_NEXT_EXERCISE,
    TA_TIMELINE,
    TA_EXPORT,
    TA_ROOFLINE,
    TA_SWEEP,
    TA_ZOOM_IN,
    TA_ZOOM_OUT,
    TA_NCU,
    TA_MEMCHECK,
    TA_RACECHECK,
    TA_SYNCCHECK,
    TA_INITCHECK,
    TA_MESSAGES,
    TA_HELP,
    TA_REFRESH,
    TA_YES,
    TA_QUIT,
    TA_COUNT
} tui_action;

typedef struct tui_keybind {
    int key;               /* curses key code or character */
    tui_action action;
    const char *name;      /* as shown in help: "Up", "k", "Shift-Tab" */
} tui_keybind;

/* The whole table, in the order help shows it. */
const tui_keybind *tui_keys_table(size_t *count);
/* The action bound to key, or TA_NONE. */
tui_action tui_keys_lookup(int key);
/* What an action does, in a few words ("run the selected variant"). */
const char *tui_keys_describe(tui_action act);
/* One help line per action that has keys: "k, Up  move up".  Writes at
 * most max lines of up to width bytes each into lines[i*width]; returns
 * the number of lines. */
size_t tui_keys_help(char *lines, size_t width, size_t max);

#endif

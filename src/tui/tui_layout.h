/* tui_layout.h - where every pane goes, as a pure function of the
 * terminal size.
 *
 *   +--------+----------------------+      wide terminals (right part at
 *   | labs   | lesson               |      least 150 columns) put lesson
 *   +--------+                      |      and run side by side instead.
 *   | miles- +----------------------+
 *   | tones  | run: table | chart   |      the chart goes beside the table,
 *   +--------+                      |      below it, or nowhere, as room
 *   | device |                      |      allows (`g` then swaps it in).
 *   +--------+----------------------+
 *   | messages                      |      one unboxed line below 30 rows
 *   +-------------------------------+
 *   status bar
 *
 * No curses here: unit-tested over many sizes. */
#ifndef CUDALAB_TUI_LAYOUT_H
#define CUDALAB_TUI_LAYOUT_H

#include <stdbool.h>

#define TUI_MIN_ROWS 16
#define TUI_MIN_COLS 60

typedef struct tui_rect {
    int y, x, h, w;          /* h == 0 or w == 0: not shown */
} tui_rect;

typedef enum tui_pane_id {
    TUI_P_LABS,
    TUI_P_LESSON,
    TUI_P_RUN,
    TUI_P_MILESTONES,
    TUI_P_DEVICE,
    TUI_P_LOG,
    TUI_P_STATUS,
    TUI_P_COUNT
} tui_pane_id;

#define TUI_P_FOCUSABLE 4    /* labs, lesson, run, milestones take focus */

typedef struct tui_layout {
    int rows, cols;
    bool too_small;          /* below TUI_MIN_ROWS x TUI_MIN_COLS: nothing else set */
    bool wide;               /* lesson and run side by side */
    bool log_boxed;          /* the message area has a border and a title */
    tui_rect pane[TUI_P_COUNT];
    tui_rect run_table;      /* inside the run pane's border */
    tui_rect run_chart;      /* inside the run pane's border; may be empty */
    tui_rect help, quiz, confirm;  /* overlays, centred */
    tui_rect view;           /* full-screen views (timeline, roofline): all but the status bar */
} tui_layout;

/* Fills out for a terminal of rows x cols; nlabs sizes the lab list. */
void tui_layout_compute(int rows, int cols, int nlabs, tui_layout *out);
/* Smallest size a shown pane may have (border included). */
void tui_layout_min(tui_pane_id pane, int *height, int *width);
/* The pane under screen cell (row, col), or -1. */
int tui_layout_hit(const tui_layout *lay, int row, int col);
bool tui_rect_contains(tui_rect rect, int row, int col);
bool tui_rect_empty(tui_rect rect);
bool tui_rect_overlap(tui_rect first, tui_rect second);

#endif

/* tui_app_internal.h - what the pieces of the app model share: the lesson
 * and milestone panes, the run table and runs, the timeline, roofline and
 * tool jobs, all called from the input handlers in tui_app.c.
 *
 * The calls run one way, from input down to the model: tui_app.c calls
 * every piece; tui_app_tools.c calls the details and the runs;
 * tui_app_details.c and the worker's events (tui_app_events.c) the runs;
 * tui_app_lesson.c, tui_app_runs.c and the events the progress store
 * (tui_progress.c); it calls the milestones (tui_app_milestones.c); and
 * all of them read the selection (tui_app_model.c), which calls none of
 * them.
 * Private to src/tui/tui_app*.c and tui_progress.c. */
#ifndef CUDALAB_TUI_APP_INTERNAL_H
#define CUDALAB_TUI_APP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/strfmt.h"
#include "tui/tui_app.h"

#define VIEW_MAX 256

/* ---- milestones (tui_app_milestones.c) ---- */

/* The index of the_lab's quiz called id; -1 when it has none (or id is NULL). */
long tui_app_quiz_index(const lab *the_lab, const char *id);

/* ---- lesson, milestones and quizzes (tui_app_lesson.c) ---- */

/* Lesson lines the lesson pane shows at lay. */
int tui_app_lesson_visible(const tui_layout *lay);
/* Scrolls the lesson by delta lines, or to line delta when absolute. */
void tui_app_lesson_scroll(tui_app *app, const tui_layout *lay, int delta, bool absolute);
/* Moves to the lesson step delta away; TUI_F_REDRAW when it moved. */
unsigned tui_app_step_move(tui_app *app, int delta);
/* Milestones the milestone pane shows at lay. */
int tui_app_ms_visible(const tui_layout *lay);
/* Puts the milestone cursor on milestone to (clamped), scrolling to it. */
unsigned tui_app_ms_cursor_move(tui_app *app, const tui_layout *lay, long to);
/* Opens the selected milestone's quiz, or logs where the milestone stands. */
unsigned tui_app_ms_details(tui_app *app);
/* Opens the quiz overlay for the quiz of milestone number milestone. */
unsigned tui_app_quiz_open(tui_app *app, size_t milestone);
/* Answers the open quiz with the choice under the cursor. */
unsigned tui_app_quiz_answer(tui_app *app);

/* ---- the run table and runs (tui_app_runs.c) ---- */

typedef enum run_mode { RUN_SELECTED, RUN_ALL, RUN_EXERCISE } run_mode;

/* Rows the run table shows at lay. */
int tui_app_run_visible(const tui_layout *lay);
/* Puts the run cursor on shown row to (clamped), scrolling to it. */
unsigned tui_app_run_cursor_move(tui_app *app, const tui_layout *lay, long to);
/* Moves to the problem size delta away; TUI_F_REDRAW when it moved. */
unsigned tui_app_size_move(tui_app *app, const tui_layout *lay, int delta);
/* The row under the run cursor; NULL when the table shows none. */
const tui_row *tui_app_cursor_row(tui_app *app);
/* Fills the details overlay's text for row. */
void tui_app_describe_row(tui_app *app, const lab *the_lab, const tui_row *row);
/* Opens the details overlay for the row under the cursor. */
unsigned tui_app_row_details(tui_app *app);
/* Leaves a run request for the main loop (or logs why there is none). */
unsigned tui_app_request_run(tui_app *app, run_mode mode);
/* Leaves a cancel request for the running run or tool job. */
unsigned tui_app_request_cancel(tui_app *app);

/* ---- the timeline, the roofline, GB/s by size and tool jobs (tui_app_tools.c) ---- */

/* Opens the timeline overlay (or logs that there is no timeline yet). */
unsigned tui_app_timeline_open(tui_app *app);
/* Writes the timeline as a trace file (for ui.perfetto.dev or
 * chrome://tracing) in the export folder, naming it in the log. */
unsigned tui_app_timeline_export(tui_app *app);
/* A key in the open timeline: zoom, pan, lanes, export, help, close. */
unsigned tui_app_timeline_key(tui_app *app, const tui_layout *lay, tui_action act);
/* Opens view (TUI_OV_ROOFLINE or TUI_OV_SWEEP) with its legend from the top. */
unsigned tui_app_plot_open(tui_app *app, tui_overlay view);
/* A key in the roofline or the by-size view: scroll the legend, the other
 * view, timeline, export, help, close. */
unsigned tui_app_plot_key(tui_app *app, tui_action act);
/* Opens the messages view at its newest line. */
unsigned tui_app_messages_open(tui_app *app, const tui_layout *lay);
/* A key in the messages view: scroll, close. */
unsigned tui_app_messages_key(tui_app *app, const tui_layout *lay, tui_action act);
/* Asks for an Nsight Compute job on the kernel of the selected row. */
unsigned tui_app_ncu_key(tui_app *app);
/* Asks for a compute-sanitizer job (memcheck or racecheck) on the exercise. */
unsigned tui_app_sanitize_key(tui_app *app, bool racecheck);

#endif

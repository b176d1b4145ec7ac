/* tui_progress.h - the lab remembers: the learner's progress read from the
 * store when the lab opens, and written as they go.
 *
 * On opening: the lab and lesson step left last, each lab's step, quiz
 * answers, hints revealed, the milestones reached before (shown ticked,
 * with the value that earned them) and the latest results of the learner's
 * kernel (shown, marked with when they ran, until a new run replaces
 * them).  While working: the place whenever the lab or step changes, each
 * quiz answer, each hint, and every run as it happens (store/recorder.h),
 * with the milestones it earns.  Without a store (it could not be opened)
 * all of this is a no-op and the status bar says progress is not saved. */
#ifndef CUDALAB_TUI_PROGRESS_H
#define CUDALAB_TUI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/tui_app.h"

/* Gives app the store (NULL: none; why says why, logged once). */
void tui_progress_attach(tui_app *app, struct store *db, const char *why);
/* Reads back what the store holds; call once the labs are loaded. */
void tui_progress_restore(tui_app *app);
/* Records the selected lab and step when they changed since last time. */
void tui_progress_place(tui_app *app);
void tui_progress_quiz(tui_app *app, size_t quiz, size_t choice, bool correct);
void tui_progress_hint(tui_app *app, size_t index);
/* A run's life: started, the device, each row, its end. */
void tui_progress_run_started(tui_app *app, const run_request *req);
void tui_progress_device(tui_app *app, const device_info *dev);
void tui_progress_row(tui_app *app, const run_result *result);
void tui_progress_run_done(tui_app *app);
/* Whether progress is being saved (for the status bar). */
bool tui_progress_saving(const tui_app *app);

#endif

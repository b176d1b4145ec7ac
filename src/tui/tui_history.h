/* tui_history.h - the learner's attempts at a lab's exercise, as text for
 * the details window (key `a`). */
#ifndef CUDALAB_TUI_HISTORY_H
#define CUDALAB_TUI_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "lab/labmodel.h"

struct store;

/* The history of the_lab's exercise from db (malloc'd into *out): per size every
 * attempt with its time, speedup and source, a chart of both, the best and
 * the latest; then each milestone with the source that earned it, compared
 * with the file at kernel_path (may be NULL).  false with why when there is
 * no store or it cannot be read. */
bool tui_history_text(const lab *the_lab, struct store *db, const char *kernel_path, bool ascii,
                      char **out, char *why, size_t why_size);

#endif

/* tui_milestones.h - milestone states for the checklist, from the lab
 * layer's milestone predicates. */
#ifndef CUDALAB_TUI_MILESTONES_H
#define CUDALAB_TUI_MILESTONES_H

#include "tui/tui_app.h"

/* Evaluates milestone i of l against the results rs[0..n) into out (a
 * tui_ms_eval_fn). */
void tui_milestones_eval(lab *l, size_t i, const run_result *rs, size_t n, tui_ms *out);

#endif

/* tui_milestones.h - milestone states for the checklist, from the lab
 * layer's milestone predicates. */
#ifndef CUDALAB_TUI_MILESTONES_H
#define CUDALAB_TUI_MILESTONES_H

#include "tui/tui_app.h"

/* Evaluates milestone number milestone of the_lab against the results
 * rs[0..count) into out (a tui_ms_eval_fn). */
void tui_milestones_eval(lab *the_lab, size_t milestone, const run_result *rs, size_t count,
                         tui_ms *out);

#endif

#include "tui/tui_milestones.h"

#include <stdio.h>
#include <string.h>

#include "lab/milestone.h"

void tui_milestones_eval(lab *l, size_t i, const run_result *rs, size_t n, tui_ms *out)
{
    ms_eval ev;
    memset(&ev, 0, sizeof ev);
    lab_milestone_eval_judged(l, i, rs, n, &ev);
    memset(out, 0, sizeof *out);
    switch (ev.state) {
    case MS_REACHED: out->state = TUI_MS_REACHED; break;
    case MS_MISSED: out->state = TUI_MS_MISSED; break;
    case MS_ERROR: out->state = TUI_MS_ERROR; break;
    default: out->state = TUI_MS_PENDING; break;
    }
    snprintf(out->shown, sizeof out->shown, "%s", ev.shown);
    snprintf(out->error, sizeof out->error, "%s", ev.error);
}

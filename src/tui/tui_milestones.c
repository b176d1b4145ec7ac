#include "tui/tui_milestones.h"

#include <stdio.h>
#include <string.h>

#include "lab/milestone.h"

void tui_milestones_eval(lab *the_lab, size_t milestone, const run_result *rs, size_t count,
                         tui_ms *out)
{
    ms_eval ev, aside;
    char aside_size[RUN_SIZE_MAX];
    memset(&ev, 0, sizeof ev);
    lab_milestone_eval_sized(the_lab, milestone, rs, count, &ev, &aside, aside_size,
                             sizeof aside_size);
    memset(out, 0, sizeof *out);
    switch (ev.state) {
    case MS_REACHED: out->state = TUI_MS_REACHED; break;
    case MS_MISSED: out->state = TUI_MS_MISSED; break;
    case MS_ERROR: out->state = TUI_MS_ERROR; break;
    default: out->state = TUI_MS_PENDING; break;
    }
    const char *judged = lab_milestone_size(the_lab, milestone);
    if (ev.state == MS_PENDING && aside_size[0] && judged)
        snprintf(out->shown, sizeof out->shown, "%s at %s; judged at %s (Enter)", aside.shown,
                 aside_size, judged);
    else if (judged && ev.shown[0] && the_lab->nsizes > 1)
        snprintf(out->shown, sizeof out->shown, "%s at %s", ev.shown, judged);
    else
        snprintf(out->shown, sizeof out->shown, "%s", ev.shown);
    snprintf(out->error, sizeof out->error, "%s", ev.error);
}

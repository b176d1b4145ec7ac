/* tui_internal.h - what the two halves of the interactive session share:
 * its state, and the requests the app leaves for the main loop, which
 * tui_requests.c carries out.  Private to src/tui/tui.c and tui_requests.c. */
#ifndef CUDALAB_TUI_INTERNAL_H
#define CUDALAB_TUI_INTERNAL_H

#include <curses.h>

#include "core/paths.h"
#include "core/watch.h"
#include "supervise/supervisor.h"
#include "tui/tui.h"
#include "tui/tui_app.h"
#include "tui/tui_job.h"
#include "tui/tui_ncu.h"
#include "tui/tui_san.h"

typedef struct tui_ctx {
    tui_app app;
    tui_layout lay;
    WINDOW *win[TUI_P_COUNT];
    WINDOW *overlay;
    int drawn_overlay;         /* the overlay the last draw showed (TUI_OV_*) */
    supervisor *sup;
    char sup_error[CL_ERR_MAX];
    unsigned flags;            /* TUI_F_* gathered from callbacks */
    char workspace[CL_PATH_MAX];
    watch *watch;              /* saves in the workspace folders of opened labs */
    bool *prepared;            /* per lab: workspace copies made and watched */
    size_t last_sel;
    const tui_opts *opts;
    tui_job job;               /* Nsight Compute or compute-sanitizer, in a child */
    tui_ncu_job ncu;
    tui_san_job san;
} tui_ctx;

/* Carries out the request the app left in app.req: a run or its cancel
 * (through the worker), an edit, a reset, a tool job or its cancel. */
void tui_requests_handle(tui_ctx *ctx);
/* Makes the workspace copies of lab lab_index's exercise (the first time the lab
 * is opened) and starts watching them for saves. */
void tui_requests_prepare(tui_ctx *ctx, size_t lab_index);
/* Saves noticed by the watch: each one in a lab's workspace runs it. */
unsigned tui_requests_saves(tui_ctx *ctx);

#endif

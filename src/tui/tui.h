#ifndef CUDALAB_TUI_H
#define CUDALAB_TUI_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tui_opts {
    const char *home;                 /* folder with labs/, lua/, assets/ (core/paths.h paths_home) */
    const char *const *lab_dirs;      /* labs folders: home/labs first, then each --labs DIR */
    size_t nlab_dirs;
    bool no_color;                    /* --no-color or NO_COLOR set */
    bool ascii;                       /* force ASCII marks/box drawing */
    double time_limit_s;              /* 0: lab default */
} tui_opts;

/* Runs the interactive lab until the learner quits or a signal asks to stop.
 * Always restores the terminal. Returns the process exit code. */
int tui_run(const tui_opts *opts);

#endif

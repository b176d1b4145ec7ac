/* tui_theme.h - colour roles, their attributes, and the marks drawn.
 *
 * Views name a role (ROLE_OK, ROLE_BAD, ...), never a colour.  The colour
 * scheme maps roles to colour pairs plus attributes; the monochrome scheme
 * (no colours, NO_COLOR, --no-color) maps them to bold, reverse, dim and
 * underline only.  Glyphs come in a UTF-8 set and an ASCII set. */
#ifndef CUDALAB_TUI_THEME_H
#define CUDALAB_TUI_THEME_H

#include <stdbool.h>

typedef enum tui_role {
    ROLE_NORMAL,
    ROLE_TITLE,        /* pane titles, headings */
    ROLE_BORDER,
    ROLE_FOCUS,        /* border and title of the focused pane */
    ROLE_SELECTED,     /* cursor row */
    ROLE_OK,
    ROLE_BAD,
    ROLE_SLOW,         /* slower than the CPU or far below peak */
    ROLE_DIM,
    ROLE_CODE,
    ROLE_EMPH,         /* bold text */
    ROLE_LINK,
    ROLE_BAR,          /* chart bars, progress */
    ROLE_STATUS,       /* status bar */
    ROLE_KEY,          /* key names in the status bar and help */
    ROLE_WARN,
    ROLE_KERNEL,       /* timeline: kernels */
    ROLE_COPY,         /* timeline: copies from or to pinned memory, device copies */
    ROLE_PAGEABLE,     /* timeline: copies from or to pageable memory */
    ROLE_MEMSET,       /* timeline: memsets */
    ROLE_HOST,         /* timeline: runtime calls on the host */
    ROLE_RANGE,        /* timeline: NVTX ranges */
    ROLE_IDLE,         /* timeline: the GPU idles; roofline: roofs */
    ROLE_COUNT
} tui_role;

typedef struct tui_glyphs {
    const char *ok, *bad, *unwritten, *pending, *error;
    const char *ellipsis, *bullet, *arrow, *sep;
    const char *const *spinner;
    int nspinner;
    const char *bar_full, *bar_empty;
    const char *const *bar_part;   /* [0..7]: 0/8 .. 7/8 of a cell; [0] unused */
    bool utf8;
} tui_glyphs;

const tui_glyphs *tui_glyphs_get(bool ascii);

/* Chooses the scheme: colour only when color is true and the terminal has
 * colours (call after initscr).  Returns true when colours are in use. */
bool tui_theme_init(bool color);
/* The curses attribute for a role under the chosen scheme. */
int tui_theme_attr(tui_role role);

#endif

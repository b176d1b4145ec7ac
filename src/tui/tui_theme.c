#include "tui/tui_theme.h"

#include <curses.h>

static const char *const spin_utf8[] = {
    "\xE2\xA0\x8B", "\xE2\xA0\x99", "\xE2\xA0\xB9", "\xE2\xA0\xB8", "\xE2\xA0\xBC",
    "\xE2\xA0\xB4", "\xE2\xA0\xA6", "\xE2\xA0\xA7", "\xE2\xA0\x87", "\xE2\xA0\x8F",
};
static const char *const spin_ascii[] = {"|", "/", "-", "\\"};
static const char *const part_utf8[8] = {
    "", "\xE2\x96\x8F", "\xE2\x96\x8E", "\xE2\x96\x8D",
    "\xE2\x96\x8C", "\xE2\x96\x8B", "\xE2\x96\x8A", "\xE2\x96\x89",
};
static const char *const part_ascii[8] = {"", "", "", "", "", "", "", ""};

static const tui_glyphs glyphs_utf8 = {
    .ok = "\xE2\x9C\x93", .bad = "\xE2\x9C\x97", .unwritten = "\xE2\x88\x85",
    .pending = "\xE2\x80\x93", .error = "!", .ellipsis = "\xE2\x80\xA6",
    .bullet = "\xE2\x80\xA2", .arrow = "\xE2\x96\xB8", .sep = "\xE2\x94\x82",
    .spinner = spin_utf8, .nspinner = 10,
    .bar_full = "\xE2\x96\x88", .bar_empty = "\xE2\x96\x91", .bar_part = part_utf8,
    .utf8 = true,
};

static const tui_glyphs glyphs_ascii = {
    .ok = "ok", .bad = "X", .unwritten = "0", .pending = "-", .error = "!",
    .ellipsis = "...", .bullet = "*", .arrow = ">", .sep = "|",
    .spinner = spin_ascii, .nspinner = 4,
    .bar_full = "#", .bar_empty = ".", .bar_part = part_ascii,
    .utf8 = false,
};

const tui_glyphs *tui_glyphs_get(bool ascii)
{
    return ascii ? &glyphs_ascii : &glyphs_utf8;
}

static int role_attr[ROLE_COUNT];

static const int mono[ROLE_COUNT] = {
    [ROLE_NORMAL] = 0,          [ROLE_TITLE] = A_BOLD,
    [ROLE_BORDER] = 0,          [ROLE_FOCUS] = A_BOLD,
    [ROLE_SELECTED] = A_REVERSE, [ROLE_OK] = A_BOLD,
    [ROLE_BAD] = A_BOLD | A_UNDERLINE, [ROLE_SLOW] = A_UNDERLINE,
    [ROLE_DIM] = A_DIM,         [ROLE_CODE] = A_BOLD,
    [ROLE_EMPH] = A_BOLD,       [ROLE_LINK] = A_UNDERLINE,
    [ROLE_BAR] = 0,             [ROLE_STATUS] = A_REVERSE,
    [ROLE_KEY] = A_REVERSE | A_BOLD, [ROLE_WARN] = A_BOLD,
    [ROLE_KERNEL] = A_BOLD,     [ROLE_COPY] = 0,
    [ROLE_PAGEABLE] = A_UNDERLINE, [ROLE_MEMSET] = 0,
    [ROLE_HOST] = A_DIM,        [ROLE_RANGE] = 0,
    [ROLE_IDLE] = A_BOLD,
};

typedef struct colour_role {
    short fg, bg;
    int attr;
} colour_role;

static const colour_role colours[ROLE_COUNT] = {
    [ROLE_NORMAL] = {-1, -1, 0},
    [ROLE_TITLE] = {COLOR_CYAN, -1, A_BOLD},
    [ROLE_BORDER] = {COLOR_BLUE, -1, 0},
    [ROLE_FOCUS] = {COLOR_CYAN, -1, A_BOLD},
    [ROLE_SELECTED] = {COLOR_BLACK, COLOR_CYAN, 0},
    [ROLE_OK] = {COLOR_GREEN, -1, A_BOLD},
    [ROLE_BAD] = {COLOR_RED, -1, A_BOLD},
    [ROLE_SLOW] = {COLOR_YELLOW, -1, 0},
    [ROLE_DIM] = {-1, -1, A_DIM},
    [ROLE_CODE] = {COLOR_YELLOW, -1, 0},
    [ROLE_EMPH] = {-1, -1, A_BOLD},
    [ROLE_LINK] = {COLOR_BLUE, -1, A_UNDERLINE},
    [ROLE_BAR] = {COLOR_GREEN, -1, 0},
    [ROLE_STATUS] = {COLOR_BLACK, COLOR_WHITE, 0},
    [ROLE_KEY] = {COLOR_WHITE, COLOR_BLUE, A_BOLD},
    [ROLE_WARN] = {COLOR_YELLOW, -1, A_BOLD},
    [ROLE_KERNEL] = {COLOR_GREEN, -1, 0},
    [ROLE_COPY] = {COLOR_CYAN, -1, 0},
    [ROLE_PAGEABLE] = {COLOR_MAGENTA, -1, 0},
    [ROLE_MEMSET] = {COLOR_BLUE, -1, 0},
    [ROLE_HOST] = {-1, -1, A_DIM},
    [ROLE_RANGE] = {COLOR_YELLOW, -1, 0},
    [ROLE_IDLE] = {COLOR_RED, -1, A_BOLD},
};

bool tui_theme_init(bool color)
{
    bool use = color && has_colors() && start_color() == OK;
    if (use) {
        bool defaults = use_default_colors() == OK;
        for (int r = 0; r < ROLE_COUNT; r++) {
            short fg = colours[r].fg, bg = colours[r].bg;
            if (!defaults) {
                if (fg < 0)
                    fg = COLOR_WHITE;
                if (bg < 0)
                    bg = COLOR_BLACK;
            }
            if (r < COLOR_PAIRS - 1 && init_pair((short)(r + 1), fg, bg) == OK)
                role_attr[r] = (int)COLOR_PAIR(r + 1) | colours[r].attr;
            else
                role_attr[r] = mono[r];
        }
        return true;
    }
    for (int r = 0; r < ROLE_COUNT; r++)
        role_attr[r] = mono[r];
    return false;
}

int tui_theme_attr(tui_role role)
{
    if ((int)role < 0 || role >= ROLE_COUNT)
        return 0;
    return role_attr[role];
}

#include "tui/tui_keys.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "core/strfmt.h"

#define CTRL_KEY(c) ((c) & 0x1f)
#define ESC_KEY 27

static const tui_keybind table[] = {
    {KEY_UP, TA_UP, "Up"},
    {'k', TA_UP, "k"},
    {KEY_DOWN, TA_DOWN, "Down"},
    {'j', TA_DOWN, "j"},
    {KEY_LEFT, TA_LEFT, "Left"},
    {'h', TA_LEFT, "h"},
    {KEY_RIGHT, TA_RIGHT, "Right"},
    {'l', TA_RIGHT, "l"},
    {KEY_PPAGE, TA_PAGE_UP, "PgUp"},
    {KEY_NPAGE, TA_PAGE_DOWN, "PgDn"},
    {' ', TA_PAGE_DOWN, "Space"},
    {KEY_HOME, TA_HOME, "Home"},
    {'g', TA_HOME, "g"},
    {KEY_END, TA_END, "End"},
    {'G', TA_END, "G"},
    {'\n', TA_ENTER, "Enter"},
    {'\r', TA_ENTER, NULL},
    {KEY_ENTER, TA_ENTER, NULL},
    {'\t', TA_NEXT_PANE, "Tab"},
    {KEY_BTAB, TA_PREV_PANE, "Shift-Tab"},
    {']', TA_NEXT_STEP, "]"},
    {'n', TA_NEXT_STEP, "n"},
    {'[', TA_PREV_STEP, "["},
    {'p', TA_PREV_STEP, "p"},
    {'s', TA_NEXT_SIZE, "s"},
    {'S', TA_PREV_SIZE, "S"},
    {'r', TA_RUN, "r"},
    {'R', TA_RUN_ALL, "R"},
    {'c', TA_CANCEL, "c"},
    {ESC_KEY, TA_CANCEL, "Esc"},
    {'v', TA_CHART, "v"},
    {'e', TA_EDIT, "e"},
    {'X', TA_RESET, "X"},
    {'H', TA_HINT, "H"},
    {'a', TA_HISTORY, "a"},
    {'x', TA_NEXT_EXERCISE, "x"},
    {'t', TA_TIMELINE, "t"},
    {'T', TA_EXPORT, "T"},
    {'f', TA_ROOFLINE, "f"},
    {'b', TA_SWEEP, "b"},
    {'+', TA_ZOOM_IN, "+"},
    {'=', TA_ZOOM_IN, "="},
    {'-', TA_ZOOM_OUT, "-"},
    {'N', TA_NCU, "N"},
    {'M', TA_MEMCHECK, "M"},
    {'C', TA_RACECHECK, "C"},
    {'B', TA_SYNCCHECK, "B"},
    {'I', TA_INITCHECK, "I"},
    {'m', TA_MESSAGES, "m"},
    {'?', TA_HELP, "?"},
    {KEY_F(1), TA_HELP, "F1"},
    {CTRL_KEY('l'), TA_REFRESH, "Ctrl-L"},
    {'y', TA_YES, "y"},
    {'q', TA_QUIT, "q"},
};

static const char *const descriptions[TA_COUNT] = {
    [TA_UP] = "move up / scroll up",
    [TA_DOWN] = "move down / scroll down",
    [TA_LEFT] = "step back (lesson), smaller size (run), pan (timeline)",
    [TA_RIGHT] = "next step (lesson), larger size (run), pan (timeline)",
    [TA_PAGE_UP] = "page up",
    [TA_PAGE_DOWN] = "page down",
    [TA_HOME] = "first lab, row or milestone; top of the lesson; timeline: all of it",
    [TA_END] = "last lab, row or milestone; end of the lesson; timeline: all of it",
    [TA_ENTER] = "open the lab; next lesson step; answer or open a quiz; a row's details; "
                 "timeline: zoom to the item",
    [TA_NEXT_PANE] = "next pane; next item (timeline)",
    [TA_PREV_PANE] = "previous pane; previous item (timeline)",
    [TA_NEXT_STEP] = "next lesson step",
    [TA_PREV_STEP] = "previous lesson step",
    [TA_NEXT_SIZE] = "next problem size",
    [TA_PREV_SIZE] = "previous problem size",
    [TA_RUN] = "run the selected variant (and the CPU)",
    [TA_RUN_ALL] = "run every variant of the lab",
    [TA_CANCEL] = "cancel the run / close a window",
    [TA_CHART] = "show the speedup chart instead of the table",
    [TA_EDIT] = "edit your kernel ($VISUAL, $EDITOR, vi or nano)",
    [TA_RESET] = "reset your kernel to the starter (asks first)",
    [TA_HINT] = "the next hint for your kernel",
    [TA_HISTORY] = "your kernel's attempts: times, speedups, what earned each milestone",
    [TA_NEXT_EXERCISE] = "the lab's next exercise (e, r, s, H then act on it)",
    [TA_TIMELINE] = "timeline of the last profiling run (Esc closes)",
    [TA_EXPORT] = "write the timeline as a Chrome trace (Perfetto)",
    [TA_ROOFLINE] = "roofline of the measured kernels",
    [TA_SWEEP] = "GB/s against size of rows measured at several sizes: latency- or "
                 "bandwidth-bound",
    [TA_ZOOM_IN] = "timeline: zoom in",
    [TA_ZOOM_OUT] = "timeline: zoom out",
    [TA_NCU] = "Nsight Compute metrics of the selected row's kernel",
    [TA_MEMCHECK] = "check your kernel with compute-sanitizer memcheck (out-of-bounds "
                    "accesses)",
    [TA_RACECHECK] = "check your kernel with compute-sanitizer racecheck (shared-memory "
                     "races)",
    [TA_SYNCCHECK] = "check your kernel with compute-sanitizer synccheck (a barrier not "
                     "every thread reaches)",
    [TA_INITCHECK] = "check your kernel with compute-sanitizer initcheck (reads of memory "
                     "nothing wrote)",
    [TA_MESSAGES] = "every message, full screen (Up/Down scroll, Esc closes)",
    [TA_HELP] = "this help",
    [TA_REFRESH] = "redraw the screen",
    [TA_YES] = "yes, in a question",
    [TA_QUIT] = "quit",
};

const tui_keybind *tui_keys_table(size_t *count)
{
    *count = sizeof table / sizeof table[0];
    return table;
}

tui_action tui_keys_lookup(int key)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].key == key)
            return table[i].action;
    return TA_NONE;
}

const char *tui_keys_describe(tui_action act)
{
    if ((int)act < 0 || act >= TA_COUNT || !descriptions[act])
        return "";
    return descriptions[act];
}

size_t tui_keys_help(char *lines, size_t width, size_t max)
{
    size_t nout = 0, nt = sizeof table / sizeof table[0];
    bool done[TA_COUNT] = {false};
    for (size_t i = 0; i < nt && nout < max; i++) {
        tui_action a = table[i].action;
        char keys[64] = "";
        size_t kl = 0;
        if (done[a] || !table[i].name)
            continue;
        done[a] = true;
        for (size_t j = i; j < nt; j++) {
            if (table[j].action != a || !table[j].name)
                continue;
            kl = strfmt_append(keys, sizeof keys, kl, "%s%s", kl ? ", " : "", table[j].name);
            if (kl >= sizeof keys)
                kl = sizeof keys - 1;
        }
        snprintf(lines + nout * width, width, "%-16s %s", keys, tui_keys_describe(a));
        nout++;
    }
    return nout;
}

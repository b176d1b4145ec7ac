#include "tui/tui_draw.h"

#include <string.h>

#include "tui/tui_text.h"

void tui_draw_box(WINDOW *win, const char *title, const char *note, bool focus, bool ascii)
{
    int attr = tui_theme_attr(focus ? ROLE_FOCUS : ROLE_BORDER), cols = getmaxx(win);
    wattrset(win, attr);
    if (ascii)
        wborder(win, '|', '|', '-', '-', '+', '+', '+', '+');
    else
        box(win, 0, 0);
    wattrset(win, 0);
    if (title && title[0] && cols > 6) {
        int used = 0, tmax = cols - 5;
        int want = note && note[0] ? tui_text_swidth(note) + 3 : 0;
        char cut[512];
        /* The note (a step counter, a count) keeps its room while the
         * title can still show 8 columns; the title is cut with a mark. */
        if (want && tmax - want >= 8)
            tmax -= want;
        tui_text_clip(title, tmax, tui_glyphs_get(ascii)->ellipsis, cut, sizeof cut);
        mvwaddstr(win, 0, 1, " ");
        used = tui_draw_text(win, 0, 2, tmax, cut, focus ? ROLE_FOCUS : ROLE_TITLE);
        mvwaddstr(win, 0, 2 + used, " ");
        if (note && note[0]) {
            int room = cols - (used + 4) - 3;
            if (room > 3) {
                int nw = tui_text_swidth(note);
                if (nw > room)
                    nw = room;
                mvwaddstr(win, 0, cols - nw - 3, " ");
                tui_draw_text(win, 0, cols - nw - 2, nw, note, ROLE_DIM);
                mvwaddstr(win, 0, cols - 2, " ");
            }
        }
    }
}

void tui_draw_footer(WINDOW *win, const char *note, bool ascii)
{
    int cols = getmaxx(win), rows = getmaxy(win), nw;
    (void)ascii;
    if (!note || !note[0] || rows < 2)
        return;
    nw = tui_text_swidth(note);
    if (nw > cols - 6)
        nw = cols - 6;
    if (nw <= 0)
        return;
    mvwaddstr(win, rows - 1, cols - nw - 3, " ");
    tui_draw_text(win, rows - 1, cols - nw - 2, nw, note, ROLE_DIM);
    mvwaddstr(win, rows - 1, cols - 2, " ");
}

int tui_draw_nstr(WINDOW *win, int row, int col, int maxw, const char *text, size_t len, int attr)
{
    int used = 0;
    size_t take;
    if (maxw <= 0 || !text)
        return 0;
    take = tui_text_fit(text, len, maxw, &used);
    if (take == 0)
        return 0;
    wattrset(win, attr);
    mvwaddnstr(win, row, col, text, (int)take);
    wattrset(win, 0);
    return used;
}

int tui_draw_text(WINDOW *win, int row, int col, int maxw, const char *text, tui_role role)
{
    if (!text)
        return 0;
    return tui_draw_nstr(win, row, col, maxw, text, strlen(text), tui_theme_attr(role));
}

int tui_draw_rtext(WINDOW *win, int row, int xend, int maxw, const char *text, tui_role role)
{
    int sw = tui_text_swidth(text);
    if (sw > maxw)
        sw = maxw;
    return tui_draw_text(win, row, xend - sw, sw, text, role);
}

void tui_draw_fill(WINDOW *win, int row, int col, int cells, tui_role role)
{
    if (cells <= 0)
        return;
    wattrset(win, tui_theme_attr(role));
    mvwhline(win, row, col, ' ', cells);
    wattrset(win, 0);
}

int tui_draw_wrapped(WINDOW *win, int row, int col, int width, int maxlines, const char *text,
                     tui_role role)
{
    size_t st[64], ln[64];
    size_t n = tui_text_wrap(text, width, st, ln, 64);
    int used = 0;
    for (size_t i = 0; i < n && i < 64 && used < maxlines; i++, used++)
        tui_draw_nstr(win, row + used, col, width, text + st[i], ln[i], tui_theme_attr(role));
    return used;
}

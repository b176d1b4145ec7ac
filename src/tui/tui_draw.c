#include "tui/tui_draw.h"

#include <string.h>

#include "tui/tui_text.h"

void tui_draw_box(WINDOW *w, const char *title, const char *note, bool focus, bool ascii)
{
    int attr = tui_theme_attr(focus ? ROLE_FOCUS : ROLE_BORDER), cols = getmaxx(w);
    wattrset(w, attr);
    if (ascii)
        wborder(w, '|', '|', '-', '-', '+', '+', '+', '+');
    else
        box(w, 0, 0);
    wattrset(w, 0);
    if (title && title[0] && cols > 6) {
        int used = 0, tmax = cols - 5;
        int want = note && note[0] ? tui_text_swidth(note) + 3 : 0;
        char cut[512];
        /* The note (a step counter, a count) keeps its room while the
         * title can still show 8 columns; the title is cut with a mark. */
        if (want && tmax - want >= 8)
            tmax -= want;
        tui_text_clip(title, tmax, tui_glyphs_get(ascii)->ellipsis, cut, sizeof cut);
        mvwaddstr(w, 0, 1, " ");
        used = tui_draw_text(w, 0, 2, tmax, cut, focus ? ROLE_FOCUS : ROLE_TITLE);
        mvwaddstr(w, 0, 2 + used, " ");
        if (note && note[0]) {
            int room = cols - (used + 4) - 3;
            if (room > 3) {
                int nw = tui_text_swidth(note);
                if (nw > room)
                    nw = room;
                mvwaddstr(w, 0, cols - nw - 3, " ");
                tui_draw_text(w, 0, cols - nw - 2, nw, note, ROLE_DIM);
                mvwaddstr(w, 0, cols - 2, " ");
            }
        }
    }
}

void tui_draw_footer(WINDOW *w, const char *note, bool ascii)
{
    int cols = getmaxx(w), rows = getmaxy(w), nw;
    (void)ascii;
    if (!note || !note[0] || rows < 2)
        return;
    nw = tui_text_swidth(note);
    if (nw > cols - 6)
        nw = cols - 6;
    if (nw <= 0)
        return;
    mvwaddstr(w, rows - 1, cols - nw - 3, " ");
    tui_draw_text(w, rows - 1, cols - nw - 2, nw, note, ROLE_DIM);
    mvwaddstr(w, rows - 1, cols - 2, " ");
}

int tui_draw_nstr(WINDOW *w, int y, int x, int maxw, const char *s, size_t len, int attr)
{
    int used = 0;
    size_t take;
    if (maxw <= 0 || !s)
        return 0;
    take = tui_text_fit(s, len, maxw, &used);
    if (take == 0)
        return 0;
    wattrset(w, attr);
    mvwaddnstr(w, y, x, s, (int)take);
    wattrset(w, 0);
    return used;
}

int tui_draw_text(WINDOW *w, int y, int x, int maxw, const char *s, tui_role role)
{
    if (!s)
        return 0;
    return tui_draw_nstr(w, y, x, maxw, s, strlen(s), tui_theme_attr(role));
}

int tui_draw_rtext(WINDOW *w, int y, int xend, int maxw, const char *s, tui_role role)
{
    int sw = tui_text_swidth(s);
    if (sw > maxw)
        sw = maxw;
    return tui_draw_text(w, y, xend - sw, sw, s, role);
}

void tui_draw_fill(WINDOW *w, int y, int x, int n, tui_role role)
{
    if (n <= 0)
        return;
    wattrset(w, tui_theme_attr(role));
    mvwhline(w, y, x, ' ', n);
    wattrset(w, 0);
}

int tui_draw_wrapped(WINDOW *w, int y, int x, int width, int maxlines, const char *s, tui_role role)
{
    size_t st[64], ln[64];
    size_t n = tui_text_wrap(s, width, st, ln, 64);
    int used = 0;
    for (size_t i = 0; i < n && i < 64 && used < maxlines; i++, used++)
        tui_draw_nstr(w, y + used, x, width, s + st[i], ln[i], tui_theme_attr(role));
    return used;
}

#include "tui/tui_overlays.h"

#include <stdio.h>
#include <string.h>

#include "tui/tui_draw.h"
#include "tui/tui_keys.h"
#include "tui/tui_lessonview.h"
#include "tui/tui_md.h"
#include "tui/tui_text.h"

#define HELP_MAX 64
#define HELP_W 120

size_t tui_overlays_help_lines(bool ascii, char *lines, size_t width, size_t max, size_t *nkeys)
{
    const tui_glyphs *g = tui_glyphs_get(ascii);
    size_t n = tui_keys_help(lines, width, max);
    *nkeys = n;
    const char *legend[8];
    char marks[160], cols[160];
    snprintf(marks, sizeof marks, "%s correct   %s wrong   %s output left unwritten   NaN   %s error or fault",
             g->ok, g->bad, g->unwritten, g->error);
    snprintf(cols, sizeof cols, "median %s spread, rate, %% of peak, speedup over CPU and library",
             ascii ? "+-" : "\xC2\xB1");
    legend[0] = "";
    legend[1] = "In the run table:";
    legend[2] = marks;
    legend[3] = cols;
    legend[4] = "";
    legend[5] = "Mouse: click a lab, pane or row; the wheel scrolls.";
    for (size_t i = 0; i < 6 && n < max; i++, n++)
        snprintf(lines + n * width, width, "%s", legend[i]);
    return n;
}

/* One screen row of the help: a piece of a help line. */
typedef struct help_row {
    const char *keys;          /* the keys column, or NULL on the rows below it */
    const char *text;
    size_t len;
    bool key;                  /* part of a key's description (else the legend) */
    bool heading;
} help_row;

void tui_overlays_help(WINDOW *win, const tui_app *app)
{
    static char lines[HELP_MAX][HELP_W];
    static help_row hr[HELP_MAX * 4];
    int rows = getmaxy(win), cols = getmaxx(win), vis = rows - 2, scroll = app->help_scroll;
    int dw = cols - 21 > 8 ? cols - 21 : 8;
    size_t nkeys, n = tui_overlays_help_lines(app->ascii, &lines[0][0], HELP_W, HELP_MAX, &nkeys);
    size_t nr = 0;
    werase(win);
    tui_draw_box(win, "Help", "Esc closes", true, app->ascii);
    /* descriptions wrap under themselves, so every key's whole text shows */
    for (size_t i = 0; i < n && nr < sizeof hr / sizeof hr[0]; i++) {
        const char *t = lines[i];
        bool key = i < nkeys;
        const char *body = key ? (strlen(t) > 17 ? t + 17 : "") : t;
        size_t len = strlen(t), st[8], ln[8], k = tui_text_wrap(body, key ? dw : cols - 4, st, ln, 8);
        bool heading = !key && len > 0 && t[len - 1] == ':';
        if (k == 0)
            hr[nr++] = (help_row){.keys = key ? t : NULL, .text = "", .len = 0, .key = key};
        for (size_t j = 0; j < k && j < 8 && nr < sizeof hr / sizeof hr[0]; j++)
            hr[nr++] = (help_row){.keys = key && j == 0 ? t : NULL, .text = body + st[j],
                                  .len = ln[j], .key = key, .heading = heading};
    }
    if (scroll > (int)nr - vis)
        scroll = (int)nr - vis;
    if (scroll < 0)
        scroll = 0;
    for (int r = 0; r < vis && (size_t)(scroll + r) < nr; r++) {
        const help_row *h = &hr[scroll + r];
        if (h->keys) {
            char keys[17];
            snprintf(keys, sizeof keys, "%.16s", h->keys);
            tui_draw_text(win, 1 + r, 2, 16, keys, ROLE_EMPH);
        }
        tui_draw_nstr(win, 1 + r, h->key ? 19 : 2, h->key ? dw : cols - 4, h->text, h->len,
                      tui_theme_attr(h->heading ? ROLE_TITLE : ROLE_NORMAL));
    }
    if ((int)nr > vis)
        tui_draw_footer(win, "Up/Down scroll", app->ascii);
}

/* Draws src as Markdown from line `skip` of its layout; returns the lines
 * drawn.  *total (when not NULL) receives the number of lines in all. */
static int draw_md(WINDOW *w, int y, int x, int width, int maxy, const char *src, bool ascii,
                   int skip, int *total)
{
    md_doc d;
    int used = 0;
    if (!tui_md_render(src, width, ascii, &d, NULL))
        return 0;
    if (total)
        *total = (int)d.n;
    for (size_t i = (size_t)(skip > 0 ? skip : 0); i < d.n && y + used < maxy; i++, used++)
        tui_lessonview_line(w, y + used, x, width, &d.v[i]);
    tui_md_free(&d);
    return used;
}

void tui_overlays_quiz(WINDOW *win, const tui_app *app)
{
    const lab *l = tui_app_lab(app);
    const tui_labstate *s = l ? &app->ls[app->sel] : NULL;
    const tui_glyphs *g = tui_glyphs_get(app->ascii);
    const lab_quiz *q;
    int rows = getmaxy(win), cols = getmaxx(win), y = 1, inner = cols - 4;
    werase(win);
    tui_draw_box(win, "Quiz", "1-9 or arrows pick, Enter answers, Esc closes", true, app->ascii);
    if (!l || app->quiz_q >= l->nquizzes)
        return;
    q = &l->quizzes[app->quiz_q];
    y += draw_md(win, y, 2, inner, rows - 1, q->question ? q->question : "", app->ascii, 0, NULL);
    y++;
    for (size_t c = 0; c < q->nchoices && y < rows - 1; c++) {
        bool cur = c == app->quiz_cursor;
        bool picked = app->quiz_answered == (int)c;
        char head[16];
        const char *mark = " ";
        tui_role mrole = ROLE_NORMAL;
        size_t st[8], ln[8], nl;
        int hw;
        const char *text = q->choices[c].text ? q->choices[c].text : "";
        if (picked) {
            mark = q->choices[c].correct ? g->ok : g->bad;
            mrole = q->choices[c].correct ? ROLE_OK : ROLE_BAD;
        } else if (s->quiz_ok[app->quiz_q] && q->choices[c].correct) {
            mark = g->ok;
            mrole = ROLE_OK;
        }
        snprintf(head, sizeof head, "%zu. ", c + 1);
        hw = q->nchoices >= 10 ? 4 : 3;
        nl = tui_text_wrap(text, inner - 2 - hw, st, ln, 8);
        if (nl > 8)
            nl = 8;
        for (size_t k = 0; k < nl && y < rows - 1; k++, y++) {
            if (cur)
                tui_draw_fill(win, y, 2, inner, ROLE_SELECTED);
            if (k == 0) {
                tui_draw_text(win, y, 2, 2, mark, cur ? ROLE_SELECTED : mrole);
                tui_draw_text(win, y, 4, hw, head, cur ? ROLE_SELECTED : ROLE_EMPH);
            }
            tui_draw_nstr(win, y, 4 + hw, inner - 2 - hw, text + st[k], ln[k],
                          tui_theme_attr(cur ? ROLE_SELECTED : ROLE_NORMAL));
        }
    }
    if (app->quiz_answered >= 0 && app->quiz_feedback[0] && y + 1 < rows - 1) {
        y++;
        tui_draw_wrapped(win, y, 2, inner, rows - 1 - y, app->quiz_feedback,
                         app->quiz_correct ? ROLE_OK : ROLE_BAD);
    }
}

void tui_overlays_confirm(WINDOW *win, const tui_app *app)
{
    int cols = getmaxx(win);
    werase(win);
    tui_draw_box(win, "Quit?", NULL, true, app->ascii);
    tui_draw_text(win, 1, 2, cols - 4, "A run is in progress. Quit anyway?", ROLE_NORMAL);
    tui_draw_text(win, 3, 2, cols - 4, "y: quit   any other key: stay", ROLE_DIM);
}

void tui_overlays_too_small(WINDOW *win, int rows, int cols)
{
    char text[128];
    size_t st[16], ln[16], n;
    werase(win);
    if (rows <= 0 || cols <= 0)
        return;
    /* Word-wrapped and centred, so it reads whole in any terminal it is
     * shown in; the tiniest get the first words. */
    snprintf(text, sizeof text, "terminal too small: need %dx%d, now %dx%d; q quits",
             TUI_MIN_COLS, TUI_MIN_ROWS, cols, rows);
    n = tui_text_wrap(text, cols, st, ln, 16);
    if (n > 16)
        n = 16;
    if ((int)n > rows)
        n = (size_t)rows;
    for (size_t i = 0; i < n; i++) {
        int width = tui_text_width(text + st[i], ln[i]);
        tui_draw_nstr(win, (rows - (int)n) / 2 + (int)i, (cols - width) / 2, cols, text + st[i],
                      ln[i], tui_theme_attr(i == 0 ? ROLE_BAD : ROLE_DIM));
    }
}

void tui_overlays_details(WINDOW *win, const tui_app *app)
{
    int rows = getmaxy(win), cols = getmaxx(win), inner = cols - 4, vis = rows - 2, line = 0, y = 1;
    const char *p = app->details;
    int scroll = app->details_scroll;
    werase(win);
    tui_draw_box(win, app->details_title, "Esc closes", true, app->ascii);
    if (app->details_md) {
        int total = 0;
        if (scroll > 0) {
            draw_md(win, 1, 2, inner, 1, p, app->ascii, 0, &total);
            if (scroll > total - vis)
                scroll = total - vis > 0 ? total - vis : 0;
            werase(win);
            tui_draw_box(win, app->details_title, "Esc closes", true, app->ascii);
        }
        draw_md(win, 1, 2, inner, rows - 1, p, app->ascii, scroll, &total);
        if (total > vis)
            tui_draw_footer(win, "Up/Down scroll", app->ascii);
        return;
    }
    while (*p && y < rows - 1) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char para[2048];
        size_t st[64], ln[64], nl;
        int indent = 0;
        snprintf(para, sizeof para, "%.*s", (int)(len < sizeof para ? len : sizeof para - 1), p);
        while (para[indent] == ' ')
            indent++;
        nl = len == 0 ? 1 : tui_text_wrap(para, inner - indent, st, ln, 64);
        for (size_t k = 0; k < nl && k < 64 && y < rows - 1; k++, line++) {
            if (line < scroll)
                continue;
            if (len > 0)
                tui_draw_nstr(win, y, 2 + indent, inner - indent, para + st[k], ln[k],
                              tui_theme_attr(strncmp(para, "Next:", 5) == 0 ? ROLE_EMPH : ROLE_NORMAL));
            y++;
        }
        p = e ? e + 1 : p + len;
    }
    if (*p || scroll > 0)
        tui_draw_footer(win, "Up/Down scroll", app->ascii);
}

void tui_overlays_confirm_reset(WINDOW *win, const tui_app *app)
{
    int cols = getmaxx(win);
    werase(win);
    tui_draw_box(win, "Reset your kernel?", NULL, true, app->ascii);
    tui_draw_text(win, 1, 2, cols - 4, "Files you changed move to a backup folder", ROLE_NORMAL);
    tui_draw_text(win, 2, 2, cols - 4, "and fresh starters take their place.", ROLE_NORMAL);
    tui_draw_text(win, 3, 2, cols - 4, "y: reset   any other key: keep", ROLE_DIM);
}

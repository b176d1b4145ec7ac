#include "tui/tui_lessonview.h"

#include <stdio.h>

#include "core/strfmt.h"
#include "tui/tui_draw.h"
#include "tui/tui_md.h"
#include "tui/tui_text.h"

/* The curses attribute for a set of Markdown style bits. */
static int style_attr(unsigned style)
{
    int attr;
    if (style & MD_HEAD)
        attr = tui_theme_attr(ROLE_TITLE);
    else if (style & (MD_CODE | MD_BLOCK))
        attr = tui_theme_attr(ROLE_CODE);
    else if (style & MD_LINK)
        attr = tui_theme_attr(ROLE_LINK);
    else if (style & MD_MARK)
        attr = tui_theme_attr(ROLE_DIM);
    else
        attr = tui_theme_attr(ROLE_NORMAL);
    if (style & MD_BOLD)
        attr |= A_BOLD;
    if (style & MD_ITALIC)
        attr |= A_ITALIC;
    return attr;
}

void tui_lessonview_line(WINDOW *win, int row, int at_col, int width, const md_line *line)
{
    size_t i = 0;
    int col = 0;
    while (i < line->len && col < width) {
        size_t j = i + 1;
        while (j < line->len && line->style[j] == line->style[i])
            j++;
        col += tui_draw_nstr(win, row, at_col + col, width - col, line->text + i, j - i,
                             style_attr(line->style[i]));
        i = j;
    }
}

void tui_lessonview_draw(WINDOW *win, tui_app *app, const tui_layout *lay)
{
    int rows = getmaxy(win), cols = getmaxx(win), width = tui_app_lesson_width(lay);
    const lab *l = tui_app_lab(app);
    const tui_labstate *s = l ? &app->ls[app->sel] : NULL;
    const md_doc *d;
    char title[160], note[48], foot[48];
    bool focus = app->focus == TUI_P_LESSON;
    int vis = rows - 2, x = 2, scroll;

    werase(win);
    if (!l) {
        tui_draw_box(win, "Lesson", NULL, focus, app->ascii);
        tui_draw_wrapped(win, 1, 2, cols - 4, rows - 2,
                         "No labs were found. Labs live in folders named labs/<id>/lab.lua; "
                         "add more with --labs DIR, and run 'cudalab check' to see why a lab "
                         "did not load.", ROLE_NORMAL);
        return;
    }
    if (l->nsteps > 0)
        snprintf(note, sizeof note, "step %zu/%zu", s->step + 1, l->nsteps);
    else
        snprintf(note, sizeof note, "no steps");
    /* The title reads whole where it can: "Lesson: " goes first when the
     * border is too narrow, then the step counter moves to the bottom
     * border. */
    bool note_below = false;
    snprintf(title, sizeof title, "Lesson: %s", l->title ? l->title : l->id);
    if (tui_text_swidth(title) > cols - 5 - (tui_text_swidth(note) + 3)) {
        snprintf(title, sizeof title, "%s", l->title ? l->title : l->id);
        note_below = l->nsteps > 0 && tui_text_swidth(title) > cols - 5 - (tui_text_swidth(note) + 3);
    }
    tui_draw_box(win, title, note_below ? NULL : note, focus, app->ascii);
    if (l->nsteps == 0)
        return;
    d = tui_app_lesson(app, width);
    scroll = s->lesson_scroll;
    if (scroll > (int)d->n - vis)
        scroll = (int)d->n - vis;
    if (scroll < 0)
        scroll = 0;
    for (int r = 0; r < vis && (size_t)(scroll + r) < d->n; r++)
        tui_lessonview_line(win, 1 + r, x, cols - 1 - x, &d->v[scroll + r]);
    foot[0] = '\0';
    size_t at = note_below ? strfmt_append(foot, sizeof foot, 0, "%s  ", note) : 0;
    if ((int)d->n > vis) {
        int pct = (int)((long)(scroll + vis) * 100 / (long)d->n);
        strfmt_append(foot, sizeof foot, at, "%s %d%%", s->step + 1 < l->nsteps ? "n: next step," : "",
                      pct > 100 ? 100 : pct);
    } else if (s->step + 1 < l->nsteps) {
        strfmt_append(foot, sizeof foot, at, "n: next step");
    }
    tui_draw_footer(win, foot, app->ascii);
}

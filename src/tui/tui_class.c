/* tui_class.c - the class table in the terminal (`cudalab class DIR`):
 * one row a learner (measured points, then the self-reported quiz points
 * apart), one column a milestone, scrolled with the arrows, ordered with
 * s, left with q. */
#include "tui/tui_class.h"

#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "core/escape.h"
#include "tui/tui_draw.h"
#include "tui/tui_theme.h"

#define LEARNER_W 18
#define FIXED_W (LEARNER_W + 14)   /* learner, score */
#define CELL_W 6

typedef struct view {
    class_view *v;
    bool ascii;
    class_sort sort;
    int top;                   /* first learner row shown */
    size_t left;               /* first milestone column shown */
    int cursor;                /* selected learner */
} view;

static const char *sort_name(class_sort s)
{
    return s == CLASS_BY_SCORE ? "score" : s == CLASS_BY_TIME ? "best time" : "learner";
}

/* A learner's measured points, then the quizzes' apart (self-reported):
 * "3/5+1q", "3/5 q-" when they were not counted, "4/6" with no quiz. */
static void score_text(const grade_report *r, char *out, size_t n)
{
    class_points p;
    class_points_of(r, &p);
    if (p.quizzes == 0)
        snprintf(out, n, "%g/%g", r->score, r->max_score);
    else if (!p.quizzes_counted)
        snprintf(out, n, "%g/%g q-", p.measured, p.measured_max);
    else
        snprintf(out, n, "%g/%g+%gq", p.measured, p.measured_max, p.quiz);
}

static void draw(const view *s)
{
    const class_view *v = s->v;
    const tui_glyphs *g = tui_glyphs_get(s->ascii);
    int rows = LINES, cols = COLS;
    char text[1024], raw[1024];   /* what a report says is cleaned before it is drawn */
    erase();
    snprintf(text, sizeof text, "%zu learners, %zu milestones, order: %s%s", v->nrows, v->ncols,
             sort_name(s->sort), v->checked ? ", signatures checked" : "");
    tui_draw_box(stdscr, "Class", text, true, s->ascii);
    if (rows < 6 || cols < FIXED_W + CELL_W + 2) {
        tui_draw_text(stdscr, 1, 1, cols - 2, "terminal too small", ROLE_WARN);
        refresh();
        return;
    }
    int ncell = (cols - 2 - FIXED_W) / CELL_W;
    tui_draw_text(stdscr, 1, 1, LEARNER_W, "learner", ROLE_TITLE);
    tui_draw_text(stdscr, 1, 1 + LEARNER_W, 12, "score+quiz", ROLE_TITLE);
    for (int c = 0; c < ncell && s->left + (size_t)c < v->ncols; c++) {
        const class_column *col = &v->cols[s->left + (size_t)c];
        snprintf(text, sizeof text, "%.5s", col->id);
        tui_draw_text(stdscr, 1, 1 + FIXED_W + c * CELL_W, CELL_W - 1, text, ROLE_TITLE);
    }
    int body = rows - 5;
    for (int i = 0; i < body && s->top + i < (int)v->nrows; i++) {
        int y = 2 + i, r = s->top + i;
        const class_file *f = &v->files[v->rows[r]];
        bool cur = r == s->cursor;
        if (cur)
            tui_draw_fill(stdscr, y, 1, cols - 2, ROLE_SELECTED);
        /* a flagged learner (class_file.note) is marked with '!' */
        snprintf(raw, sizeof raw, "%s%s", f->note[0] ? "!" : "", f->rep.learner);
        tui_draw_text(stdscr, y, 1, LEARNER_W - 1, escape_line(text, sizeof text, raw),
                      cur ? ROLE_SELECTED : f->note[0] ? ROLE_WARN : ROLE_NORMAL);
        score_text(&f->rep, text, sizeof text);
        tui_draw_text(stdscr, y, 1 + LEARNER_W, 12, text, cur ? ROLE_SELECTED : ROLE_NORMAL);
        for (int c = 0; c < ncell && s->left + (size_t)c < v->ncols; c++) {
            const grade_milestone *m = class_cell(v, f, s->left + (size_t)c);
            const char *mark = !m ? "-" : m->passed ? g->ok : g->bad;
            tui_role role = cur ? ROLE_SELECTED : !m ? ROLE_DIM : m->passed ? ROLE_OK : ROLE_BAD;
            tui_draw_text(stdscr, y, 1 + FIXED_W + c * CELL_W + 1, 2, mark, role);
        }
    }
    /* The selected learner and column, spelled out. */
    if (v->nrows > 0 && s->left < v->ncols) {
        const class_file *f = &v->files[v->rows[s->cursor]];
        const class_column *col = &v->cols[s->left];
        const grade_milestone *m = class_cell(v, f, s->left);
        if (f->note[0])
            snprintf(raw, sizeof raw, "%s: %s", f->rep.learner, f->note);
        else
            snprintf(raw, sizeof raw, "%s on %s, %s: %s:%s%s %s", f->rep.learner,
                     f->rep.dev.name, f->rep.created, col->lab, col->id,
                     !col->quiz ? "" : m && m->not_counted ? " (quiz, not counted)"
                                                           : " (quiz, self-reported)",
                     m ? (m->passed ? m->value : m->why) : "");
        tui_draw_text(stdscr, rows - 3, 1, cols - 2, escape_line(text, sizeof text, raw),
                      ROLE_DIM);
    }
    size_t left_out = 0;
    for (size_t i = 0; i < v->nfiles; i++)
        left_out += !v->files[i].usable;
    snprintf(text, sizeof text,
             "arrows move  s order  q quit   %zu left out, %zu flagged (listed when you quit)",
             left_out, v->nflagged);
    tui_draw_footer(stdscr, text, s->ascii);
    refresh();
}

/* Moves the cursor and keeps it in view; true when something changed. */
static bool key(view *s, int ch)
{
    int body = LINES - 5 > 1 ? LINES - 5 : 1;
    int n = (int)s->v->nrows;
    switch (ch) {
    case KEY_UP: case 'k': s->cursor -= s->cursor > 0; break;
    case KEY_DOWN: case 'j': s->cursor += s->cursor + 1 < n; break;
    case KEY_PPAGE: s->cursor = s->cursor > body ? s->cursor - body : 0; break;
    case KEY_NPAGE: s->cursor = s->cursor + body < n ? s->cursor + body : (n ? n - 1 : 0); break;
    case KEY_HOME: case 'g': s->cursor = 0; break;
    case KEY_END: case 'G': s->cursor = n ? n - 1 : 0; break;
    case KEY_LEFT: case 'h': s->left -= s->left > 0; break;
    case KEY_RIGHT: case 'l': s->left += s->left + 1 < s->v->ncols; break;
    case 's':
        s->sort = (class_sort)((s->sort + 1) % 3);
        class_order(s->v, s->sort);
        break;
    default:
        return false;
    }
    if (s->cursor < s->top)
        s->top = s->cursor;
    if (s->cursor >= s->top + body)
        s->top = s->cursor - body + 1;
    return true;
}

int tui_class_browse(struct class_view *table, bool ascii, bool no_color)
{
    setlocale(LC_ALL, "");
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr) {
        fputs("cudalab: cannot use this terminal; give --format csv, md or html\n", stderr);
        return 3;
    }
    set_term(scr);
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    tui_theme_init(!no_color && has_colors());
    view s = {.v = table, .ascii = ascii, .sort = CLASS_BY_LEARNER};
    class_order(table, s.sort);
    draw(&s);
    for (;;) {
        int ch = getch();
        if (ch == 'q' || ch == 27 || ch == ERR)
            break;
        if (ch == KEY_RESIZE || key(&s, ch))
            draw(&s);
    }
    endwin();
    delscreen(scr);
    return 0;
}

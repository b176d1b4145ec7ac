/* Tests for the lessons of the shipped basics, reduction, matmul, embedding, pipeline, scan,
 * stencil and layernorm labs:
 * their shape (steps, hints, quiz feedback), that they name rows the run
 * table shows and keys the TUI binds, that they fit a terminal of 80x24
 * (code blocks unwrapped, table cells uncut, quizzes within their window),
 * and that their milestones judge hand-made rows as the lessons say. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "lab/labmodel.h"
#include "lab/milestone.h"
#include "support.h"
#include "tui/tui_app.h"
#include "tui/tui_keys.h"
#include "tui/tui_layout.h"
#include "tui/tui_md.h"
#include "tui/tui_text.h"
#include "result/record.h"

#define TERM_ROWS 24
#define TERM_COLS 80
#define NLABS 9

typedef struct lesson_spec {
    const char *id;
    const char *library_label;   /* the library row's name in the run table (NULL: none) */
    const char *mine;            /* the learner's row's name */
} lesson_spec;

static const lesson_spec LESSONS[] = {
    {"basics", "device copy", "your kernel"},
    {"reduction", "CUB", "your kernel"},
    {"matmul", "cuBLAS", "your kernel"},
    {"embedding", "device copy", "your kernel"},
    {"scan", "CUB scan", "your kernel"},
    {"stencil", "device copy", "your kernel"},
    {"layernorm", "device copy", "your kernel"},
    {"pipeline", NULL, "your pipeline"},
};
#define NLESSONS (sizeof LESSONS / sizeof LESSONS[0])

static char g_home[CL_PATH_MAX];

static int setup(void **state)
{
    (void)state;
    const char *home = getenv("CUDALAB_HOME");
    if (!home)
        return -1;
    snprintf(g_home, sizeof g_home, "%s", home);
    return 0;
}

static lab *load(const char *id)
{
    char path[CL_PATH_MAX];
    snprintf(path, sizeof path, "%s/labs/%s/lab.lua", g_home, id);
    lab *l = ts_lab_load(path, g_home, NULL);
    if (!l)
        fail_msg("lab '%s' did not load", id);
    return l;
}

static bool any_step_has(const lab *l, const char *needle)
{
    for (size_t i = 0; i < l->nsteps; i++)
        if (strstr(l->steps[i].body, needle))
            return true;
    return false;
}

static bool has_code_span(const char *text, const char *name)
{
    char want[128];
    snprintf(want, sizeof want, "`%s`", name);
    return strstr(text, want) != NULL;
}

/* ---- shape ------------------------------------------------------------------ */

static void test_shape(void **state)
{
    (void)state;
    for (size_t k = 0; k < NLESSONS; k++) {
        lab *l = load(LESSONS[k].id);
        /* the longest ladder, matmul's fourteen rungs, takes thirteen */
        if (l->nsteps < 4 || l->nsteps > 13)
            fail_msg("lab '%s' has %zu steps (want 4 to 13)", l->id, l->nsteps);
        assert_true(l->nexercises >= 1);
        for (size_t x = 0; x < l->nexercises; x++) {
            const lab_exercise *ex = &l->exercises[x];
            if (ex->nhints < 3 || ex->nhints > 5)
                fail_msg("lab '%s' exercise '%s' has %zu hints (want 3 to 5)", l->id, ex->id,
                         ex->nhints);
            for (size_t h = 0; h < ex->nhints; h++)
                assert_true(strlen(ex->hints[h]) > 80);
        }
        assert_string_equal(l->steps[l->nsteps - 1].title, "Your turn");
        lab_free(l);
    }
}

/* Every shipped rung, the library row and the learner's row are named in
 * the lesson as they appear in the run table, so "compare the rows x and
 * y" can be followed on the screen. */
static void test_rows_named(void **state)
{
    (void)state;
    for (size_t k = 0; k < NLESSONS; k++) {
        lab *l = load(LESSONS[k].id);
        char want[128];
        for (size_t v = 0; v < l->nvariants; v++) {
            snprintf(want, sizeof want, "`%s`", l->variants[v].id);
            if (!any_step_has(l, want))
                fail_msg("lab '%s': no step names the row %s", l->id, want);
        }
        snprintf(want, sizeof want, "`%s`", LESSONS[k].library_label ? LESSONS[k].library_label : "");
        if (LESSONS[k].library_label && !any_step_has(l, want))
            fail_msg("lab '%s': no step names the library row %s", l->id, want);
        if (!has_code_span(l->steps[l->nsteps - 1].body, LESSONS[k].mine))
            fail_msg("lab '%s': the last step does not name the row `%s`", l->id,
                     LESSONS[k].mine);
        lab_free(l);
    }
}

/* The keys the last step teaches do what it says they do. */
static void test_keys_bound(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int key;
        tui_action action;
    } keys[] = {
        {"e", 'e', TA_EDIT},        {"r", 'r', TA_RUN},         {"R", 'R', TA_RUN_ALL},
        {"s", 's', TA_NEXT_SIZE},   {"S", 'S', TA_PREV_SIZE},   {"X", 'X', TA_RESET},
        {"Enter", '\n', TA_ENTER},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        assert_int_equal(tui_keys_lookup(keys[i].key), keys[i].action);
    for (size_t k = 0; k < NLESSONS; k++) {
        lab *l = load(LESSONS[k].id);
        const char *last = l->steps[l->nsteps - 1].body;
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            if (!has_code_span(last, keys[i].name))
                fail_msg("lab '%s': the last step does not name the key `%s`", l->id, keys[i].name);
        lab_free(l);
    }
}

/* ---- fitting an 80x24 terminal -------------------------------------------------- */

static size_t fenced_lines(const char *body)
{
    size_t n = 0;
    bool in = false;
    for (const char *p = body; *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        size_t sp = 0;
        while (sp < len && p[sp] == ' ')
            sp++;
        if (len - sp >= 3 && strncmp(p + sp, "```", 3) == 0)
            in = !in;
        else if (in)
            n++;
        p = end ? end + 1 : p + len;
    }
    return n;
}

static bool cut_mark(const md_line *ln)
{
    for (size_t i = 0; i + 2 < ln->len; i++)
        if ((ln->style[i] & MD_MARK) && memcmp(ln->text + i, "\xE2\x80\xA6", 3) == 0)
            return true;
    return false;
}

static void test_steps_fit(void **state)
{
    (void)state;
    tui_layout lay;
    tui_layout_compute(TERM_ROWS, TERM_COLS, NLABS, &lay);
    assert_false(lay.too_small);
    int width = tui_app_lesson_width(&lay);
    assert_true(width >= 40);
    for (size_t k = 0; k < NLESSONS; k++) {
        lab *l = load(LESSONS[k].id);
        for (size_t s = 0; s < l->nsteps; s++) {
            md_doc d;
            cl_err e;
            err_clear(&e);
            assert_true(tui_md_render(l->steps[s].body, width, false, &d, &e));
            size_t code = 0;
            for (size_t i = 0; i < d.n; i++) {
                const md_line *ln = &d.v[i];
                assert_true(tui_text_width(ln->text, ln->len) <= width);
                if (ln->len > 0 && (ln->style[0] & MD_BLOCK))
                    code++;
                if (cut_mark(ln))
                    fail_msg("lab '%s' step %zu: a table cell is cut at width %d: %s", l->id,
                             s + 1, width, ln->text);
            }
            if (code != fenced_lines(l->steps[s].body))
                fail_msg("lab '%s' step %zu: a code line wraps at width %d (%zu lines for %zu)",
                         l->id, s + 1, width, code, fenced_lines(l->steps[s].body));
            tui_md_free(&d);
        }
        lab_free(l);
    }
}

/* The quiz window as tui_overlays_quiz lays it out: the question (Markdown)
 * from row 1, a blank row, each choice wrapped beside "N. " (at most 8
 * lines), a blank row, then the feedback of the picked choice, all above
 * the bottom border.  Returns the rows left over (negative: clipped). */
static int quiz_room(const lab_quiz *q, size_t pick, const tui_rect *r)
{
    int inner = r->w - 4, y = 1;
    size_t st[64], ln[64];
    md_doc d;
    assert_true(tui_md_render(q->question, inner, false, &d, NULL));
    y += (int)d.n;
    tui_md_free(&d);
    y++;
    for (size_t c = 0; c < q->nchoices; c++) {
        size_t nl = tui_text_wrap(q->choices[c].text, inner - 2 - 3, st, ln, 64);
        assert_true(nl <= 8);
        y += (int)nl;
    }
    y++;
    y += (int)tui_text_wrap(q->choices[pick].feedback, inner, st, ln, 64);
    return (r->h - 1) - y;
}

static void test_quizzes(void **state)
{
    (void)state;
    tui_layout lay;
    tui_layout_compute(TERM_ROWS, TERM_COLS, NLABS, &lay);
    for (size_t k = 0; k < NLESSONS; k++) {
        lab *l = load(LESSONS[k].id);
        assert_true(l->nquizzes >= 1);
        for (size_t q = 0; q < l->nquizzes; q++) {
            const lab_quiz *qz = &l->quizzes[q];
            size_t ncorrect = 0;
            for (size_t c = 0; c < qz->nchoices; c++) {
                const char *fb = qz->choices[c].feedback;
                ncorrect += qz->choices[c].correct;
                /* choices and feedback are drawn as plain text */
                assert_null(strchr(qz->choices[c].text, '`'));
                assert_null(strchr(fb, '`'));
                if (strlen(fb) < 80)
                    fail_msg("lab '%s' quiz '%s' choice %zu: feedback too short to teach", l->id,
                             qz->id, c + 1);
                for (size_t o = 0; o < c; o++)
                    assert_string_not_equal(fb, qz->choices[o].feedback);
                int room = quiz_room(qz, c, &lay.quiz);
                if (room < 0)
                    fail_msg("lab '%s' quiz '%s' choice %zu: %d rows too many for the %dx%d quiz window",
                             l->id, qz->id, c + 1, -room, lay.quiz.w, lay.quiz.h);
                bool ok = false;
                const char *got = lab_quiz_answer(l, q, c, &ok);
                assert_ptr_equal(got, fb);
                assert_int_equal(ok, qz->choices[c].correct);
            }
            assert_int_equal(ncorrect, 1);
        }
        lab_free(l);
    }
}

/* Across the three labs the correct choice is not always in one place. */
static void test_quiz_answers_vary(void **state)
{
    (void)state;
    size_t first = 0, total = 0;
    for (size_t k = 0; k < NLESSONS; k++) {
        lab *l = load(LESSONS[k].id);
        for (size_t q = 0; q < l->nquizzes; q++, total++)
            if (l->quizzes[q].choices[0].correct)
                first++;
        lab_free(l);
    }
    assert_true(total >= 3);
    assert_true(first < total);
}

/* ---- milestones ------------------------------------------------------------- */

static size_t milestone(const lab *l, const char *id)
{
    for (size_t i = 0; i < l->nmilestones; i++)
        if (strcmp(l->milestones[i].id, id) == 0)
            return i;
    fail_msg("lab '%s' has no milestone '%s'", l->id, id);
    return 0;
}

static run_result exercise_row(const char *size, result_status st)
{
    run_result r;
    run_result_init(&r);
    snprintf(r.variant, sizeof r.variant, "exercise");
    snprintf(r.label, sizeof r.label, "your kernel");
    snprintf(r.size, sizeof r.size, "%s", size);
    r.kind = RK_EXERCISE;
    r.status = st;
    r.median_ms = 1.0;
    return r;
}

static ms_state judge(lab *l, const char *id, const run_result *rs, size_t n)
{
    ms_eval ev;
    memset(&ev, 0, sizeof ev);
    assert_true(lab_milestone_eval(l, milestone(l, id), rs, n, &ev));
    return ev.state;
}

static void test_milestones_reduction(void **state)
{
    (void)state;
    lab *l = load("reduction");
    assert_string_equal(l->milestones[milestone(l, "warps")].quiz, "divergence");
    assert_int_equal(judge(l, "cpu100x", NULL, 0), MS_PENDING);
    run_result r = exercise_row("2^28", RS_CORRECT);
    r.speedup_cpu = 150.0;
    assert_int_equal(judge(l, "cpu100x", &r, 1), MS_REACHED);
    r.speedup_cpu = 99.0;
    assert_int_equal(judge(l, "cpu100x", &r, 1), MS_MISSED);
    r.speedup_cpu = 500.0;
    r.status = RS_WRONG;
    assert_int_equal(judge(l, "cpu100x", &r, 1), MS_MISSED);
    lab_free(l);
}

static void test_milestones_matmul(void **state)
{
    (void)state;
    lab *l = load("matmul");
    assert_string_equal(l->milestones[milestone(l, "shared")].quiz, "shared_memory");
    assert_int_equal(judge(l, "within2x", NULL, 0), MS_PENDING);
    run_result r = exercise_row("4096x4096x4096", RS_CORRECT);
    r.speedup_lib = 0.5;
    assert_int_equal(judge(l, "within2x", &r, 1), MS_REACHED);
    r.speedup_lib = 0.45;
    assert_int_equal(judge(l, "within2x", &r, 1), MS_MISSED);
    r.speedup_lib = 0.9;
    r.status = RS_NAN;
    assert_int_equal(judge(l, "within2x", &r, 1), MS_MISSED);
    lab_free(l);
}

static void test_milestones_embedding(void **state)
{
    (void)state;
    lab *l = load("embedding");
    assert_string_equal(l->milestones[milestone(l, "coalescing")].quiz, "coalescing");
    assert_int_equal(judge(l, "correct", NULL, 0), MS_PENDING);
    assert_int_equal(judge(l, "bandwidth", NULL, 0), MS_PENDING);
    run_result r = exercise_row("16384x4096x32000", RS_CORRECT);
    r.pct_peak_measured = 50.0;
    assert_int_equal(judge(l, "correct", &r, 1), MS_REACHED);
    assert_int_equal(judge(l, "bandwidth", &r, 1), MS_REACHED);
    r.pct_peak_measured = 30.0;
    assert_int_equal(judge(l, "bandwidth", &r, 1), MS_MISSED);
    r.status = RS_UNWRITTEN;
    r.pct_peak_measured = 90.0;
    assert_int_equal(judge(l, "correct", &r, 1), MS_MISSED);
    assert_int_equal(judge(l, "bandwidth", &r, 1), MS_MISSED);
    lab_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape),
        cmocka_unit_test(test_rows_named),
        cmocka_unit_test(test_keys_bound),
        cmocka_unit_test(test_steps_fit),
        cmocka_unit_test(test_quizzes),
        cmocka_unit_test(test_quiz_answers_vary),
        cmocka_unit_test(test_milestones_reduction),
        cmocka_unit_test(test_milestones_matmul),
        cmocka_unit_test(test_milestones_embedding),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}

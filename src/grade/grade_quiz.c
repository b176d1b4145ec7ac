/* grade_quiz.c - judging a quiz milestone from the learner's recorded
 * answers (grade/grade.h grade_judge_quiz), and the instructor's choice of
 * counting quiz points or not. */
#include "grade/grade.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const quizzes_names[] = {
    [GRADE_QUIZZES_COUNT] = "count",
    [GRADE_QUIZZES_IGNORE] = "ignore",
};

const char *grade_quizzes_name(grade_quizzes q)
{
    return (unsigned)q <= GRADE_QUIZZES_IGNORE ? quizzes_names[q] : "count";
}

bool grade_quizzes_from_name(const char *name, grade_quizzes *out)
{
    for (int i = 0; i <= GRADE_QUIZZES_IGNORE; i++) {
        if (strcmp(name, quizzes_names[i]) == 0) {
            *out = (grade_quizzes)i;
            return true;
        }
    }
    return false;
}

static const lab_quiz *quiz_of(const lab *l, const char *id)
{
    for (size_t i = 0; id && i < l->nquizzes; i++)
        if (strcmp(l->quizzes[i].id, id) == 0)
            return &l->quizzes[i];
    return NULL;
}

/* Whether choice is right by quiz q (a choice the quiz does not have is
 * not). */
static bool right(const lab_quiz *q, int choice)
{
    return q && choice >= 0 && (size_t)choice < q->nchoices && q->choices[choice].correct;
}

/* The answers recorded for m, judged by the lab's quiz into g; why set
 * when they could not be read. */
static void judge_answers(const lab *l, const lab_milestone *m, store *st, grade_milestone *g)
{
    store_answer *as = NULL;
    size_t n = 0;
    cl_err e = {{0}};
    if (!store_quiz_answers(st, l->id, m->quiz, &as, &n, &e)) {
        snprintf(g->why, sizeof g->why, "the progress store could not be read: %s", e.msg);
        return;
    }
    const lab_quiz *q = quiz_of(l, m->quiz);
    int forged = 0;
    for (size_t k = 0; k < n; k++) {
        bool ok = right(q, as[k].choice);
        forged += as[k].correct && !ok;
        if (ok && !g->passed) {
            g->passed = true;
            g->answered_at = as[k].at;
        }
    }
    free(as);
    g->attempts = (int)n;
    if (n > 0)
        snprintf(g->value, sizeof g->value, "%s after %d attempt%s",
                 g->passed ? "answered right" : "not answered right", g->attempts,
                 g->attempts == 1 ? "" : "s");
    if (g->passed)
        return;
    if (forged)
        snprintf(g->why, sizeof g->why, "the progress store records %d answer%s as right that "
                                        "the lab's quiz does not accept: answer it again in "
                                        "the lab",
                 forged, forged == 1 ? "" : "s");
    else if (!q)
        snprintf(g->why, sizeof g->why, "the lab has no quiz '%s'", m->quiz);
    else
        snprintf(g->why, sizeof g->why, "%s", n ? "the quiz was answered, but never right: "
                                                  "answer it again in the lab"
                                                : "the quiz was not answered: answer it in the "
                                                  "lab");
}

void grade_judge_quiz(const lab *l, const lab_milestone *m, store *st, const grade_opts *opts,
                      grade_milestone *g)
{
    if (!st) {
        const char *note = opts->quiz_note;
        snprintf(g->why, sizeof g->why, "%s", note && note[0]
                                                  ? note
                                                  : "no quiz answers recorded: the quiz was "
                                                    "not answered here");
    } else {
        judge_answers(l, m, st, g);
    }
    if (opts->quizzes != GRADE_QUIZZES_IGNORE)
        return;
    g->points = 0;
    g->not_counted = true;
    char was[GRADE_WHY_MAX];
    snprintf(was, sizeof was, "%s", g->why);
    snprintf(g->why, sizeof g->why, "not counted: quiz answers are self-reported and this "
                                    "grading ignores them (--quizzes ignore)%s%s",
             was[0] ? "; " : "", was);
}

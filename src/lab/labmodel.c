/* labmodel.c - the lab model's own helpers (lab/labmodel.h): finding and
 * naming an exercise, and freeing a lab with its Lua state. */
#include "lab/labmodel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/probdecl.h"
#include "lab/sandbox.h"

static void free_strv(char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void free_variants(lab_variant *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        free(v[i].id);
        free(v[i].title);
        free(v[i].kernel);
        free(v[i].file);
        free(v[i].launcher);
        free(v[i].python);
        free(v[i].why);
    }
    free(v);
}

const lab_exercise *lab_exercise_find(const lab *l, const char *id)
{
    for (size_t i = 0; l && i < l->nexercises; i++)
        if (strcmp(l->exercises[i].id, id ? id : "") == 0)
            return &l->exercises[i];
    return NULL;
}

const lab_exercise *lab_own_exercise(const lab *l)
{
    return lab_exercise_find(l, "");
}

const char *lab_exercise_name(const lab_exercise *x, char *buf, size_t n)
{
    if (!x || !x->id[0])
        snprintf(buf, n, "the exercise");
    else
        snprintf(buf, n, "exercise '%s'", x->id);
    return buf;
}

void lab_free(lab *l)
{
    if (!l)
        return;
    free(l->id);
    free(l->title);
    free(l->summary);
    free(l->path);
    free(l->dir);
    free(l->problem);
    free(l->library);
    free_strv(l->sizes, l->nsizes);
    for (size_t i = 0; l->steps && i < l->nsteps; i++) {
        free(l->steps[i].title);
        free(l->steps[i].body);
    }
    free(l->steps);
    free_variants(l->variants, l->nvariants);
    for (size_t i = 0; l->milestones && i < l->nmilestones; i++) {
        free(l->milestones[i].id);
        free(l->milestones[i].text);
        free(l->milestones[i].size);
        free(l->milestones[i].exercise);
        free(l->milestones[i].quiz);
        free(l->milestones[i].target);
        free_strv(l->milestones[i].needs, l->milestones[i].nneeds);
    }
    free(l->milestones);
    for (size_t i = 0; l->quizzes && i < l->nquizzes; i++) {
        lab_quiz *q = &l->quizzes[i];
        free(q->id);
        free(q->question);
        for (size_t c = 0; q->choices && c < q->nchoices; c++) {
            free(q->choices[c].text);
            free(q->choices[c].feedback);
        }
        free(q->choices);
    }
    free(l->quizzes);
    for (size_t i = 0; l->exercises && i < l->nexercises; i++) {
        lab_exercise *x = &l->exercises[i];
        free(x->id);
        free(x->title);
        free(x->kernel);
        free(x->launcher);
        free(x->problem);
        free(x->library);
        free_strv(x->sizes, x->nsizes);
        free_variants(x->variants, x->nvariants);
        free_strv(x->hints, x->nhints);
    }
    free(l->exercises);
    for (size_t i = 0; l->decls && l->ls && i < l->ndecls; i++)
        probdecl_release(sandbox_lua(l->ls), &l->decls[i]);
    free(l->decls);
    sandbox_free(l->ls);
    free(l);
}

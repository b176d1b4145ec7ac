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

const lab_exercise *lab_exercise_find(const lab *model, const char *id)
{
    for (size_t i = 0; model && i < model->nexercises; i++)
        if (strcmp(model->exercises[i].id, id ? id : "") == 0)
            return &model->exercises[i];
    return NULL;
}

const lab_exercise *lab_own_exercise(const lab *model)
{
    return lab_exercise_find(model, "");
}

const char *lab_exercise_name(const lab_exercise *exercise, char *buf, size_t buf_size)
{
    if (!exercise || !exercise->id[0])
        snprintf(buf, buf_size, "the exercise");
    else
        snprintf(buf, buf_size, "exercise '%s'", exercise->id);
    return buf;
}

void lab_free(lab *model)
{
    if (!model)
        return;
    free(model->id);
    free(model->title);
    free(model->summary);
    free(model->path);
    free(model->dir);
    free(model->problem);
    free(model->library);
    free_strv(model->sizes, model->nsizes);
    for (size_t i = 0; model->steps && i < model->nsteps; i++) {
        free(model->steps[i].title);
        free(model->steps[i].body);
    }
    free(model->steps);
    free_variants(model->variants, model->nvariants);
    for (size_t i = 0; model->milestones && i < model->nmilestones; i++) {
        free(model->milestones[i].id);
        free(model->milestones[i].text);
        free(model->milestones[i].size);
        free(model->milestones[i].exercise);
        free(model->milestones[i].quiz);
        free(model->milestones[i].target);
        free_strv(model->milestones[i].needs, model->milestones[i].nneeds);
    }
    free(model->milestones);
    for (size_t i = 0; model->quizzes && i < model->nquizzes; i++) {
        lab_quiz *q = &model->quizzes[i];
        free(q->id);
        free(q->question);
        for (size_t c = 0; q->choices && c < q->nchoices; c++) {
            free(q->choices[c].text);
            free(q->choices[c].feedback);
        }
        free(q->choices);
    }
    free(model->quizzes);
    for (size_t i = 0; model->exercises && i < model->nexercises; i++) {
        lab_exercise *x = &model->exercises[i];
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
    free(model->exercises);
    for (size_t i = 0; model->decls && model->ls && i < model->ndecls; i++)
        probdecl_release(sandbox_lua(model->ls), &model->decls[i]);
    free(model->decls);
    sandbox_free(model->ls);
    free(model);
}

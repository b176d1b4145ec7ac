/* labneeds.c - the rungs a lab's milestones compare with (lab/labneeds.h). */
#include "lab/labneeds.h"

#include <stdio.h>
#include <string.h>

#include "lab/milestone.h"
#include "result/record.h"

void lab_request_add_variant(struct run_request *req, const lab_variant *variant)
{
    for (int i = 0; i < req->nvariants; i++)
        if (strcmp(req->variants[i].id, variant->id) == 0)
            return;
    if (req->nvariants >= RUN_MAX_VARIANTS)
        return;
    run_variant *rv = &req->variants[req->nvariants++];
    snprintf(rv->id, sizeof rv->id, "%s", variant->id);
    snprintf(rv->kernel, sizeof rv->kernel, "%s", variant->kernel ? variant->kernel : "");
}

void lab_request_needs(const lab *model, const lab_exercise *exercise, struct run_request *req)
{
    const lab_exercise *own = lab_own_exercise(model);
    bool listed = exercise && exercise->id[0];
    const lab_exercise *judged = listed ? exercise : own;
    const lab_variant *rungs = listed ? exercise->variants : model->variants;
    size_t nrungs = listed ? exercise->nvariants : model->nvariants;
    for (size_t i = 0; i < model->nmilestones; i++) {
        const lab_milestone *m = &model->milestones[i];
        if (m->quiz || lab_milestone_exercise(model, i) != judged)
            continue;
        for (size_t k = 0; k < m->nneeds; k++)
            for (size_t v = 0; v < nrungs; v++)
                if (strcmp(rungs[v].id, m->needs[k]) == 0)
                    lab_request_add_variant(req, &rungs[v]);
    }
}

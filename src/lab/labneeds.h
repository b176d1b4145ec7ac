/* labneeds.h - the rows a learner's kernel is measured beside: the rungs a
 * lab's milestones compare with (lab_milestone.needs), added to a request
 * for the learner's kernel so that every milestone can be judged. */
#ifndef CUDALAB_LAB_LABNEEDS_H
#define CUDALAB_LAB_LABNEEDS_H

#include "lab/labmodel.h"

struct run_request;

/* Appends rung variant to req unless req holds it already or is full. */
void lab_request_add_variant(struct run_request *req, const lab_variant *variant);
/* Adds to req each rung of exercise (the lab's own exercise when it is NULL
 * or has the id "") that a milestone judged on exercise's rows needs.  Rows
 * that are not rungs (the CPU, a library) come with every run of the
 * learner's kernel. */
void lab_request_needs(const lab *model, const lab_exercise *exercise, struct run_request *req);

#endif

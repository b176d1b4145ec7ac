/* cli_runms.h - the milestones a `cudalab run` judged on its rows: listed
 * under the table, and as JSON. */
#ifndef CUDALAB_CLI_RUNMS_H
#define CUDALAB_CLI_RUNMS_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "lab/labmodel.h"
#include "lab/milestone.h"
#include "result/record.h"

/* The milestones of exercise x of l (lab_milestone_exercise) judged in ev
 * (one a milestone of l) as a JSON array: id, text, state (pending,
 * reached, missed, error or quiz), shown, error; NULL when out of memory. */
cJSON *cli_runms_json(const lab *l, const lab_exercise *x, const ms_eval *ev);

/* Prints them: a mark and what each showed (a pending one with what its
 * other sizes showed among rows), what the marks used mean, the quizzes
 * left to the terminal lab and how many were reached for the first time
 * (l is not const: a check runs in its Lua state). */
void cli_runms_print(lab *l, const lab_exercise *x, const ms_eval *ev,
                     const run_result *rows, size_t nrows, int newly);

#endif

#include "worker/dispatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/experiments_list.h"
#include "catalog/pipeline_files.h"
#include "experiments/experiments.h"

bool dispatch_run(const run_request *req, const engine_sink *sink, run_fault *fault)
{
    if (!experiments_problem(req->problem))
        return engine_run(req, sink, fault);
    bool want_ex = req->exercise_kernel[0] != '\0';
    if (!want_ex || req->nvariants > 0) {
        bool alive = experiments_run(req, sink, fault);
        if (!alive || !want_ex)
            return alive;
    }
    /* The exercise alone, as its own problem (the profiling lab's is the
     * pipeline; a basics exercise comes with its own problem in a request
     * of its own): the variants named experiments, already run. */
    run_request *ex = malloc(sizeof *ex);
    if (!ex) {
        snprintf(fault->cause, sizeof fault->cause, "exit");
        snprintf(fault->message, sizeof fault->message, "the worker ran out of memory");
        return false;
    }
    *ex = *req;
    snprintf(ex->problem, sizeof ex->problem, "%s",
             strcmp(req->problem, EXPERIMENTS_PROBLEM) == 0 ? PIPELINE_PROBLEM : "");
    memset(ex->variants, 0, sizeof ex->variants);
    ex->nvariants = 0;
    if (!req->check_only)        /* the learner's pipeline beside the one they started from */
        snprintf(ex->variants[ex->nvariants++].id, RUN_ID_MAX, "%s", PIPELINE_VARIANT_STARTER);
    bool alive = engine_run(ex, sink, fault);
    free(ex);
    return alive;
}

#include "store/recorder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/fsguard.h"

#define SOURCE_MAX ((size_t)4 << 20)

void recorder_init(recorder *rc, store *db, const char *origin)
{
    memset(rc, 0, sizeof *rc);
    rc->s = db;
    rc->origin = origin;
}

/* Stops recording after a failed write, keeping its message. */
static void stop(recorder *rc, const cl_err *e)
{
    rc->stopped = true;
    snprintf(rc->failed, sizeof rc->failed, "%s", e->msg);
}

static bool active(const recorder *rc)
{
    return rc->s && !rc->stopped;
}

/* The file's text, or NULL (a file that cannot be read is recorded as
 * absent: the run itself will say what is wrong with it). */
static char *read_text(const char *path)
{
    if (!path || !path[0])
        return NULL;
    size_t len = 0;
    cl_err e;
    return fsguard_read(path, NULL, SOURCE_MAX, &len, &e);
}

void recorder_begin(recorder *rc, const run_request *req, const device_info *dev)
{
    rc->run_id = 0;
    rc->exercise_row = 0;
    snprintf(rc->lab, sizeof rc->lab, "%s", req->lab);
    if (rc->s && store_readonly(rc->s) && !rc->stopped) {
        rc->stopped = true;
        snprintf(rc->failed, sizeof rc->failed, "this run's results were not recorded: %s",
                 store_readonly_why(rc->s));
    }
    if (!active(rc))
        return;
    bool ex = req->exercise_kernel[0] != '\0';
    char *kernel = ex ? read_text(req->exercise_kernel) : NULL;
    char *launcher = ex ? read_text(req->exercise_launcher) : NULL;
    store_run_info info = {
        .lab = req->lab,
        .origin = rc->origin,
        .seed = req->seed,
        .dev = dev,
        .kernel_path = ex ? req->exercise_kernel : NULL,
        .kernel_text = kernel,
        .launcher_path = ex ? req->exercise_launcher : NULL,
        .launcher_text = launcher,
    };
    cl_err e = {{0}};
    if (!store_run_begin(rc->s, &info, &rc->run_id, &e))
        stop(rc, &e);
    free(kernel);
    free(launcher);
}

void recorder_device(recorder *rc, const device_info *dev)
{
    cl_err e = {{0}};
    if (active(rc) && rc->run_id && !store_run_device(rc->s, rc->run_id, dev, &e))
        stop(rc, &e);
}

void recorder_row(recorder *rc, const run_result *row, const char *diag_cause)
{
    cl_err e = {{0}};
    int64_t id = 0;
    if (!active(rc) || !rc->run_id)
        return;
    if (!store_row_add(rc->s, rc->run_id, row, diag_cause, &id, &e)) {
        stop(rc, &e);
        return;
    }
    if (row->kind == RK_EXERCISE)
        rc->exercise_row = id;
}

void recorder_milestones(recorder *rc, lab *the_lab, const run_result *rows, size_t cap, ms_eval *evals,
                         int *newly)
{
    if (newly)
        *newly = 0;
    for (size_t i = 0; i < the_lab->nmilestones; i++) {
        ms_eval ev;
        memset(&ev, 0, sizeof ev);
        if (!the_lab->milestones[i].quiz)
            lab_milestone_eval_judged(the_lab, i, rows, cap, &ev);
        if (evals)
            evals[i] = ev;
        if (ev.state != MS_REACHED || !active(rc) || !rc->run_id)
            continue;
        bool first = false;
        cl_err e = {{0}};
        if (!store_milestone_reached(rc->s, rc->lab, the_lab->milestones[i].id, ev.shown, rc->run_id,
                                     rc->exercise_row, &first, &e)) {
            stop(rc, &e);
            continue;
        }
        if (first && newly)
            (*newly)++;
    }
}

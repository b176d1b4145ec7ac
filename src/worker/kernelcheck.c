/* kernelcheck.c - a lab's kernel and launcher checked without a GPU
 * (worker/kernelcheck.h). */
#include "worker/kernelcheck.h"

#include <stdio.h>
#include <string.h>

#include "engine/exercise.h"
#include "mgpu/ringcheck.h"

bool worker_kernel_check(const char *kernel, const char *launcher, const char *root, char *msg,
                         size_t cap)
{
    if (!launcher)
        return mgpu_ring_check(kernel, root, msg, cap);
    exercise_opts o = {.kernel = kernel, .launcher = launcher, .root = root, .device = false};
    cl_err e = {{0}};
    exercise *x = exercise_open(&o, &e);
    if (!x) {
        snprintf(msg, cap, "%s", e.msg);
        return false;
    }
    exercise_stage st = exercise_status(x, NULL);
    bool ok = st == EXERCISE_READY || st == EXERCISE_NO_DEVICE;
    if (ok)
        msg[0] = '\0';
    else
        exercise_why(x, root, msg, cap);
    exercise_close(x);
    /* a kernel that does not compile leaves its launcher unread: a syntax
     * error there is named too, so that one check shows both */
    char lmsg[CL_ERR_MAX];
    if (st == EXERCISE_COMPILE && !exercise_launcher_parses(launcher, root, lmsg, sizeof lmsg)) {
        size_t len = strlen(msg);
        snprintf(msg + len, cap - len, "; and %s", lmsg);
    }
    return ok;
}

/* watch.c - a time limit on the learner's kernel (mgpu/exercise.h).
 *
 * A kernel that waits for a flag nobody sets never ends, and the rank's
 * thread that waits for it (in a synchronisation, or in a launch once the
 * stream's queue is full) never comes back to say so.  A second thread
 * does: armed with a deadline before the rank enqueues the learner's
 * collectives and disarmed once they are done, it tells the coordinator
 * which GPU hung and where, and ends the process; the coordinator then
 * ends every rank of the group.  Firing holds the lock, so a disarm that
 * comes too late waits for the end instead of racing it. */
#define _GNU_SOURCE
#include "mgpu/exercise.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/strfmt.h"
#include "mgpu/mgpu_internal.h"

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool started, armed;
    struct timespec until;
    double seconds;
    char what[160];
    mg_rank *r;
} w = {.mu = PTHREAD_MUTEX_INITIALIZER};

static bool passed(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

static void *watch_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&w.mu);
    for (;;) {
        if (!w.armed) {
            pthread_cond_wait(&w.cv, &w.mu);
            continue;
        }
        if (!passed(&w.until)) {
            pthread_cond_timedwait(&w.cv, &w.mu, &w.until);
            continue;
        }
        char msg[512];
        snprintf(msg, sizeof msg,
                 "your kernel did not finish %s within %.0f s: a block waits for a flag that is "
                 "never set (or never reaches this collective's epoch), or the kernel is far "
                 "too slow", w.what, w.seconds);
        mg_link_fail(w.r, msg, 0);
        _exit(1);
    }
    return NULL;
}

static bool start(void)
{
    pthread_condattr_t ca;
    pthread_t th;
    if (pthread_condattr_init(&ca) != 0)
        return false;
    bool ok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 && pthread_cond_init(&w.cv, &ca) == 0;
    pthread_condattr_destroy(&ca);
    if (ok && pthread_create(&th, NULL, watch_main, NULL) != 0)
        ok = false;
    if (ok)
        pthread_detach(th);
    return ok;
}

void mg_watch_arm(mg_rank *r, double seconds, const char *what)
{
    pthread_mutex_lock(&w.mu);
    if (!w.started)
        w.started = start();
    w.r = r;
    w.seconds = seconds;
    strfmt_copy(w.what, sizeof w.what, what);
    clock_gettime(CLOCK_MONOTONIC, &w.until);
    w.until.tv_sec += (time_t)seconds;
    w.until.tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
    if (w.until.tv_nsec >= 1000000000L) {
        w.until.tv_sec++;
        w.until.tv_nsec -= 1000000000L;
    }
    w.armed = w.started;
    if (w.started)
        pthread_cond_signal(&w.cv);
    pthread_mutex_unlock(&w.mu);
}

void mg_watch_disarm(void)
{
    pthread_mutex_lock(&w.mu);
    w.armed = false;
    if (w.started)
        pthread_cond_signal(&w.cv);
    pthread_mutex_unlock(&w.mu);
}

double mg_watch_limit_s(size_t bytes, int collectives)
{
    return MG_WATCH_BASE_S + (double)bytes * (collectives > 0 ? collectives : 1) / MG_WATCH_FLOOR_BPS;
}

/* The supervisor's public face: making and freeing one, submitting runs,
 * pumping the worker's messages, waiting, cancelling, hello. */
#include "supervise/supervisor.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "catalog/experiments_list.h"
#include "core/clock.h"
#include "core/paths.h"
#include "core/spawn.h"
#include "supervise/supervisor_internal.h"

/* The multigpu coordinator's command for the worker program exe:
 * `exe worker --group`.  The coordinator runs no code of the learner's on
 * the host (the lab's exercise is a kernel file without a launcher,
 * compiled with includes from its own folder only), so a confined
 * worker's --confine and --read do not carry over. */
static char **group_command(const char *exe)
{
    char **v = calloc(4, sizeof *v);
    if (v && (!(v[0] = strdup(exe)) || !(v[1] = strdup("worker")) || !(v[2] = strdup("--group")))) {
        for (size_t i = 0; i < 3; i++)
            free(v[i]);
        free(v);
        return NULL;
    }
    return v;
}

/* s->argv from o's command, or this executable with "worker"; s->other
 * the coordinator's, when the command is cudalab's worker. */
static bool copy_command(supervisor *s, const supervisor_opts *o, cl_err *e)
{
    size_t argc = 0;
    if (o && o->argv)
        while (o->argv[argc])
            argc++;
    s->argv = calloc(argc > 0 ? argc + 1 : 4, sizeof *s->argv);
    if (!s->argv)
        return err_set(e, "out of memory");
    if (argc > 0) {
        for (size_t i = 0; i < argc; i++)
            if (!(s->argv[i] = strdup(o->argv[i])))
                return err_set(e, "out of memory");
    } else {
        char self[PATH_MAX];
        if (!paths_self_exe(self, sizeof self, NULL))
            snprintf(self, sizeof self, "/proc/self/exe");
        if (!(s->argv[0] = strdup(self)) || !(s->argv[1] = strdup("worker")))
            return err_set(e, "out of memory");
    }
    snprintf(s->what, sizeof s->what, "the worker '%s'", s->argv[0]);
    if (s->argv[1] && strcmp(s->argv[1], "worker") == 0 && !(s->other = group_command(s->argv[0])))
        return err_set(e, "out of memory");
    return true;
}

supervisor *supervisor_new(const supervisor_opts *opts, cl_err *err)
{
    supervisor *s = calloc(1, sizeof *s);
    if (!s) {
        err_set(err, "out of memory");
        return NULL;
    }
    s->epfd = s->timerfd = s->pidfd = s->in_fd = s->proto_fd = s->out_fd = -1;
    s->next_run = 1;
    s->limit_s = opts && opts->time_limit_s > 0 ? opts->time_limit_s : SUP_DEFAULT_LIMIT_S;
    if (opts && opts->cb)
        s->cb = *opts->cb;
    s->ud = opts ? opts->ud : NULL;

    if (!copy_command(s, opts, err))
        goto fail;
    s->line = malloc(PROTO_LINE_MAX + 1);
    s->tail = malloc(SUP_TAIL_MAX);
    s->chunk = malloc(SUP_CHUNK);
    if (!s->line || !s->tail || !s->chunk) {
        err_set(err, "out of memory");
        goto fail;
    }
    if (!supervisor_worker_open(s, err))
        goto fail;
    return s;
fail:
    supervisor_free(s);
    return NULL;
}

void supervisor_free(supervisor *sup)
{
    if (!sup)
        return;
    if (sup->pid > 0 && !sup->cur_run && sup->in_fd >= 0) {
        /* Idle: ask politely so the engine can shut down, then insist. */
        char *quit = proto_encode_quit();
        strbuf_clear(&sup->pending);
        if (quit && supervisor_worker_queue(sup, quit, strlen(quit), NULL))
            supervisor_worker_flush(sup);
        free(quit);
        supervisor_worker_unwatch(sup, &sup->in_fd);
        for (int waited = 0; waited < SUP_QUIT_GRACE_MS; waited += 10) {
            if (spawn_exited(sup->pid)) {
                supervisor_worker_reap_exited(sup);
                break;
            }
            supervisor_worker_drain_output(sup, 4);
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    if (sup->pid > 0) {
        spawn_kill(sup->pid, true);
        spawn_wait(sup->pid, true, NULL);
        sup->pid = 0;
    }
    supervisor_worker_stop(sup);
    supervisor_worker_reap_dying(sup, true);
    supervisor_worker_close(sup);
    char **cmds[2] = {sup->argv, sup->other};
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; cmds[k] && cmds[k][i]; i++)
            free(cmds[k][i]);
        free(cmds[k]);
    }
    free(sup->line);
    free(sup->tail);
    free(sup->chunk);
    strbuf_free(&sup->pending);
    free(sup->last_req);
    free(sup);
}

/* Notices a worker that exited on its own: reads its last words, then
 * reports (supervisor_faults_exited).  Returns false when the worker
 * exited or was replaced meanwhile. */
static bool check_exit(supervisor *s)
{
    if (!spawn_exited(s->pid))
        return true;

    unsigned gen = s->gen;
    int run_before = s->cur_run;
    supervisor_worker_drain_output(s, 1024);
    if (!supervisor_messages_read(s, 1024) || s->gen != gen)
        return false;
    supervisor_faults_exited(s, supervisor_worker_reap_exited(s), run_before);
    return false;
}

/* The worker a request needs: the multigpu lab's runs go to the
 * coordinator (`worker --group`, which starts one process a GPU and makes
 * no CUDA call itself), every other run to the worker.  An idle worker of
 * the other kind is stopped first.  A given command that is not cudalab's
 * worker (a test's) is never switched. */
static void pick_worker(supervisor *s, const run_request *req)
{
    bool group = strcmp(req->problem, EXPERIMENTS_MULTIGPU) == 0;
    if (!s->other || group == s->group)
        return;
    if (s->pid > 0)
        supervisor_worker_stop(s);
    char **swap = s->argv;
    s->argv = s->other;
    s->other = swap;
    s->group = group;
}

bool supervisor_submit(supervisor *sup, run_request *req, double time_limit_s, cl_err *err)
{
    if (sup->cur_run)
        return err_set(err, "the worker is busy with run %d", sup->cur_run);
    pick_worker(sup, req);

    int run = sup->next_run;
    proto_msg *m = malloc(sizeof *m);
    if (!m)
        return err_set(err, "out of memory");
    m->type = MSG_RUN;
    m->u.run = *req;
    m->u.run.run = run;
    char *text = proto_encode(m);
    free(m);
    if (!text)
        return err_set(err, "cannot encode the request");
    size_t len = strlen(text);
    if (len > PROTO_LINE_MAX) {
        free(text);
        return err_set(err, "the request is longer than 64 KiB");
    }

    /* A worker that died while idle, or can no longer hear or answer, is
     * replaced before it is given the run. */
    check_exit(sup);
    if (sup->pid > 0 && (sup->in_fd < 0 || sup->proto_fd < 0))
        supervisor_worker_stop(sup);
    if (sup->pid <= 0 && !supervisor_worker_start(sup, err)) {
        free(text);
        return false;
    }
    free(sup->last_req);
    sup->last_req = text;
    sup->last_req_len = len;
    strbuf_clear(&sup->pending);
    if (!supervisor_worker_queue(sup, text, len, err))
        return false;
    req->run = run;
    sup->next_run = run == INT_MAX ? 1 : run + 1;

    sup->cur_run = req->run;
    supervisor_printed_begin(sup);
    sup->cur_variant[0] = sup->cur_size[0] = sup->cur_phase[0] = '\0';
    sup->cur_limit_s = time_limit_s > 0 ? time_limit_s : sup->limit_s;
    sup->deadline = clock_now_s() + sup->cur_limit_s;
    supervisor_worker_arm_timer(sup, sup->cur_limit_s);
    supervisor_worker_flush(sup);
    return true;
}

bool supervisor_pump(supervisor *sup, int timeout_ms)
{
    supervisor_worker_reap_dying(sup, false);
    if (sup->pid <= 0)
        return true;

    int wait = timeout_ms < 0 ? -1 : timeout_ms;
    if (sup->pidfd < 0 && (wait < 0 || wait > SUP_POLL_SLICE_MS))
        wait = SUP_POLL_SLICE_MS;
    if (sup->cur_run) {
        double left_ms = (sup->deadline - clock_now_s()) * 1e3;
        int left = left_ms <= 0 ? 0 : left_ms > INT_MAX - 1 ? INT_MAX - 1 : (int)left_ms + 1;
        if (wait < 0 || left < wait)
            wait = left;
    }

    struct epoll_event evs[8];
    int n = epoll_wait(sup->epfd, evs, 8, wait);
    if (n < 0 && errno != EINTR)
        return false;
    for (int i = 0; i < n; i++) {
        if (evs[i].data.u32 == SUP_TAG_INPUT && (evs[i].events & (EPOLLERR | EPOLLHUP))) {
            strbuf_clear(&sup->pending);
            supervisor_worker_unwatch(sup, &sup->in_fd);
        }
    }
    uint64_t expirations;
    while (read(sup->timerfd, &expirations, sizeof expirations) > 0)
        ;

    unsigned gen = sup->gen;
    supervisor_worker_drain_output(sup, SUP_READS_PER_PUMP);
    if (!supervisor_messages_read(sup, SUP_READS_PER_PUMP) || sup->gen != gen)
        return true;
    supervisor_worker_flush(sup);
    if (!check_exit(sup) || sup->gen != gen)
        return true;
    supervisor_faults_check_deadline(sup);
    return true;
}

bool supervisor_wait(supervisor *sup, int run)
{
    while (sup->cur_run && sup->cur_run == run)
        if (!supervisor_pump(sup, 100))
            return false;
    return true;
}

void supervisor_cancel(supervisor *sup)
{
    if (sup->pid <= 0 && !sup->cur_run)
        return;
    supervisor_worker_stop(sup);
    if (sup->cur_run)
        supervisor_faults_fail_run(sup, "cancelled", "the run was cancelled");
}

bool supervisor_busy(const supervisor *sup)
{
    return sup->cur_run != 0;
}

int supervisor_fd(const supervisor *sup)
{
    return sup->pid > 0 ? sup->epfd : -1;
}

bool supervisor_hello(supervisor *sup, int timeout_ms, device_info *out, cl_err *err)
{
    check_exit(sup);
    if (sup->pid <= 0) {
        sup->last_stop[0] = '\0';
        if (!supervisor_worker_start(sup, err))
            return false;
    }
    double until = clock_now_s() + (timeout_ms > 0 ? timeout_ms : 0) * 1e-3;
    while (!sup->have_hello && sup->pid > 0) {
        double left = (until - clock_now_s()) * 1e3;
        if (left <= 0)
            break;
        if (!supervisor_pump(sup, (int)left + 1))
            return err_set(err, "waiting for the worker: %s", strerror(errno));
    }
    if (sup->have_hello) {
        if (out)
            *out = sup->dev;
        return true;
    }
    if (sup->pid <= 0)
        return err_set(err, "%s",
                       sup->last_stop[0] ? sup->last_stop
                                         : "the worker stopped before saying hello");
    return err_set(err, "the worker did not say hello within %d ms", timeout_ms);
}

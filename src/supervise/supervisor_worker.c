/* The worker process: starting it (core/spawn.h), watching its pipes with
 * epoll, writing requests to its stdin, keeping the end of what it prints,
 * and stopping it. */
#include "supervise/supervisor_internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "core/spawn.h"

static bool watch(supervisor *s, int fd, uint32_t events, int tag)
{
    struct epoll_event ev = {.events = events, .data.u32 = (uint32_t)tag};
    return epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) == 0;
}

static void rewatch(supervisor *s, int fd, uint32_t events, int tag)
{
    struct epoll_event ev = {.events = events, .data.u32 = (uint32_t)tag};
    (void)epoll_ctl(s->epfd, EPOLL_CTL_MOD, fd, &ev);
}

void supervisor_worker_unwatch(supervisor *sup, int *fd)
{
    if (*fd >= 0) {
        (void)epoll_ctl(sup->epfd, EPOLL_CTL_DEL, *fd, NULL);
        close(*fd);
        *fd = -1;
    }
}

void supervisor_worker_arm_timer(supervisor *sup, double seconds)
{
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    if (seconds > 0) {
        double whole = (double)(time_t)seconds;
        its.it_value.tv_sec = (time_t)seconds;
        its.it_value.tv_nsec = (long)((seconds - whole) * 1e9);
        if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
            its.it_value.tv_nsec = 1;
    }
    (void)timerfd_settime(sup->timerfd, 0, &its, NULL);
}

bool supervisor_worker_open(supervisor *sup, cl_err *err)
{
    sup->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (sup->epfd < 0)
        return err_set(err, "epoll_create1: %s", strerror(errno));
    sup->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (sup->timerfd < 0 || !watch(sup, sup->timerfd, EPOLLIN, SUP_TAG_TIMER))
        return err_set(err, "timerfd: %s", strerror(errno));
    return true;
}

void supervisor_worker_close(supervisor *sup)
{
    if (sup->timerfd >= 0)
        close(sup->timerfd);
    if (sup->epfd >= 0)
        close(sup->epfd);
    sup->timerfd = sup->epfd = -1;
}

/* ---- what the worker prints ---------------------------------------------- */

static void tail_append(supervisor *s, const char *data, size_t n)
{
    if (n >= SUP_TAIL_MAX) {
        data += n - SUP_TAIL_MAX;
        n = SUP_TAIL_MAX;
    }
    while (n > 0) {
        size_t room = SUP_TAIL_MAX - s->tail_head;
        size_t k = n < room ? n : room;
        memcpy(s->tail + s->tail_head, data, k);
        s->tail_head = (s->tail_head + k) % SUP_TAIL_MAX;
        s->tail_len = s->tail_len + k > SUP_TAIL_MAX ? SUP_TAIL_MAX : s->tail_len + k;
        data += k;
        n -= k;
    }
}

size_t supervisor_output(const supervisor *sup, char *buf, size_t buf_size)
{
    if (buf_size == 0)
        return 0;
    size_t len = sup->tail_len < buf_size - 1 ? sup->tail_len : buf_size - 1;
    size_t start = (sup->tail_head + SUP_TAIL_MAX - len) % SUP_TAIL_MAX;
    size_t first = SUP_TAIL_MAX - start < len ? SUP_TAIL_MAX - start : len;
    memcpy(buf, sup->tail + start, first);
    memcpy(buf + first, sup->tail, len - first);
    buf[len] = '\0';
    return len;
}

void supervisor_worker_drain_output(supervisor *sup, int max_reads)
{
    for (int i = 0; i < max_reads && sup->out_fd >= 0; i++) {
        ssize_t n = spawn_read(sup->out_fd, sup->chunk, SUP_CHUNK);
        if (n > 0) {
            tail_append(sup, sup->chunk, (size_t)n);
            supervisor_printed_add(sup, sup->chunk, (size_t)n);
            continue;
        }
        if (n < 0)
            supervisor_worker_unwatch(sup, &sup->out_fd);
        break;
    }
}

/* ---- starting and stopping ------------------------------------------------- */

void supervisor_worker_reap_dying(supervisor *sup, bool block)
{
    int keep = 0;
    for (int i = 0; i < sup->ndying; i++)
        if (spawn_wait(sup->dying[i], block, NULL) == 0)
            sup->dying[keep++] = sup->dying[i];
    sup->ndying = keep;
}

void supervisor_worker_stop(supervisor *sup)
{
    if (sup->pid > 0) {
        spawn_kill(sup->pid, true);
        if (spawn_wait(sup->pid, false, NULL) == 0) {
            if (sup->ndying == SUP_MAX_DYING)
                supervisor_worker_reap_dying(sup, true);
            sup->dying[sup->ndying++] = sup->pid;
        }
    }
    sup->pid = 0;
    supervisor_worker_unwatch(sup, &sup->pidfd);
    supervisor_worker_unwatch(sup, &sup->in_fd);
    supervisor_worker_unwatch(sup, &sup->proto_fd);
    supervisor_worker_unwatch(sup, &sup->out_fd);
    sup->line_len = 0;
    strbuf_clear(&sup->pending);
    sup->have_hello = false;
    sup->gen++;
}

int supervisor_worker_reap_exited(supervisor *sup)
{
    int status = 0;
    spawn_kill(sup->pid, true);
    spawn_wait(sup->pid, true, &status);
    sup->pid = 0;
    return status;
}

bool supervisor_worker_start(supervisor *sup, cl_err *err)
{
    supervisor_worker_reap_dying(sup, false);
    spawn_opts o = {.argv = (const char *const *)sup->argv, .what = sup->what, .in = SPAWN_PIPE,
                    .out = SPAWN_PIPE, .err = SPAWN_TO_OUT, .extra_fd = PROTO_FD,
                    .own_group = true};
    spawn_child c;
    if (!spawn_start(&o, &c, err))
        return false;
    sup->pid = c.pid;
    sup->in_fd = c.in;
    sup->proto_fd = c.extra;
    sup->out_fd = c.out;
    sup->pidfd = spawn_pidfd(c.pid);
    if (!watch(sup, sup->proto_fd, EPOLLIN, SUP_TAG_PROTO) ||
        !watch(sup, sup->out_fd, EPOLLIN, SUP_TAG_OUTPUT) ||
        !watch(sup, sup->in_fd, 0, SUP_TAG_INPUT) ||
        (sup->pidfd >= 0 && !watch(sup, sup->pidfd, EPOLLIN, SUP_TAG_PID))) {
        err_set(err, "cannot watch the worker: epoll: %s", strerror(errno));
        supervisor_worker_stop(sup);
        return false;
    }
    sup->have_hello = false;
    sup->line_len = 0;
    strbuf_clear(&sup->pending);
    sup->tail_len = sup->tail_head = 0;
    sup->gen++;
    return true;
}

/* ---- writing requests -------------------------------------------------------- */

void supervisor_worker_flush(supervisor *sup)
{
    if (sup->in_fd < 0 || sup->pending.len == 0)
        return;
    ssize_t n = spawn_write(sup->in_fd, sup->pending.p, sup->pending.len);
    if (n < 0) {
        strbuf_clear(&sup->pending);
        supervisor_worker_unwatch(sup, &sup->in_fd);
        return;
    }
    strbuf_cut(&sup->pending, (size_t)n);
    rewatch(sup, sup->in_fd, sup->pending.len > 0 ? EPOLLOUT : 0, SUP_TAG_INPUT);
}

bool supervisor_worker_queue(supervisor *sup, const char *text, size_t len, cl_err *err)
{
    if (!strbuf_add(&sup->pending, text, len)) {
        strbuf_clear(&sup->pending);
        return err_set(err, "out of memory");
    }
    return true;
}

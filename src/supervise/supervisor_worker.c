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

void supervisor_worker_unwatch(supervisor *s, int *fd)
{
    if (*fd >= 0) {
        (void)epoll_ctl(s->epfd, EPOLL_CTL_DEL, *fd, NULL);
        close(*fd);
        *fd = -1;
    }
}

void supervisor_worker_arm_timer(supervisor *s, double seconds)
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
    (void)timerfd_settime(s->timerfd, 0, &its, NULL);
}

bool supervisor_worker_open(supervisor *s, cl_err *e)
{
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (s->epfd < 0)
        return err_set(e, "epoll_create1: %s", strerror(errno));
    s->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (s->timerfd < 0 || !watch(s, s->timerfd, EPOLLIN, SUP_TAG_TIMER))
        return err_set(e, "timerfd: %s", strerror(errno));
    return true;
}

void supervisor_worker_close(supervisor *s)
{
    if (s->timerfd >= 0)
        close(s->timerfd);
    if (s->epfd >= 0)
        close(s->epfd);
    s->timerfd = s->epfd = -1;
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

size_t supervisor_output(const supervisor *s, char *buf, size_t n)
{
    if (n == 0)
        return 0;
    size_t len = s->tail_len < n - 1 ? s->tail_len : n - 1;
    size_t start = (s->tail_head + SUP_TAIL_MAX - len) % SUP_TAIL_MAX;
    size_t first = SUP_TAIL_MAX - start < len ? SUP_TAIL_MAX - start : len;
    memcpy(buf, s->tail + start, first);
    memcpy(buf + first, s->tail, len - first);
    buf[len] = '\0';
    return len;
}

void supervisor_worker_drain_output(supervisor *s, int max_reads)
{
    for (int i = 0; i < max_reads && s->out_fd >= 0; i++) {
        ssize_t n = spawn_read(s->out_fd, s->chunk, SUP_CHUNK);
        if (n > 0) {
            tail_append(s, s->chunk, (size_t)n);
            supervisor_printed_add(s, s->chunk, (size_t)n);
            continue;
        }
        if (n < 0)
            supervisor_worker_unwatch(s, &s->out_fd);
        break;
    }
}

/* ---- starting and stopping ------------------------------------------------- */

void supervisor_worker_reap_dying(supervisor *s, bool block)
{
    int keep = 0;
    for (int i = 0; i < s->ndying; i++)
        if (spawn_wait(s->dying[i], block, NULL) == 0)
            s->dying[keep++] = s->dying[i];
    s->ndying = keep;
}

void supervisor_worker_stop(supervisor *s)
{
    if (s->pid > 0) {
        spawn_kill(s->pid, true);
        if (spawn_wait(s->pid, false, NULL) == 0) {
            if (s->ndying == SUP_MAX_DYING)
                supervisor_worker_reap_dying(s, true);
            s->dying[s->ndying++] = s->pid;
        }
    }
    s->pid = 0;
    supervisor_worker_unwatch(s, &s->pidfd);
    supervisor_worker_unwatch(s, &s->in_fd);
    supervisor_worker_unwatch(s, &s->proto_fd);
    supervisor_worker_unwatch(s, &s->out_fd);
    s->line_len = 0;
    strbuf_clear(&s->pending);
    s->have_hello = false;
    s->gen++;
}

int supervisor_worker_reap_exited(supervisor *s)
{
    int status = 0;
    spawn_kill(s->pid, true);
    spawn_wait(s->pid, true, &status);
    s->pid = 0;
    return status;
}

bool supervisor_worker_start(supervisor *s, cl_err *e)
{
    supervisor_worker_reap_dying(s, false);
    spawn_opts o = {.argv = (const char *const *)s->argv, .what = s->what, .in = SPAWN_PIPE,
                    .out = SPAWN_PIPE, .err = SPAWN_TO_OUT, .extra_fd = PROTO_FD,
                    .own_group = true};
    spawn_child c;
    if (!spawn_start(&o, &c, e))
        return false;
    s->pid = c.pid;
    s->in_fd = c.in;
    s->proto_fd = c.extra;
    s->out_fd = c.out;
    s->pidfd = spawn_pidfd(c.pid);
    if (!watch(s, s->proto_fd, EPOLLIN, SUP_TAG_PROTO)
        || !watch(s, s->out_fd, EPOLLIN, SUP_TAG_OUTPUT) || !watch(s, s->in_fd, 0, SUP_TAG_INPUT)
        || (s->pidfd >= 0 && !watch(s, s->pidfd, EPOLLIN, SUP_TAG_PID))) {
        err_set(e, "cannot watch the worker: epoll: %s", strerror(errno));
        supervisor_worker_stop(s);
        return false;
    }
    s->have_hello = false;
    s->line_len = 0;
    strbuf_clear(&s->pending);
    s->tail_len = s->tail_head = 0;
    s->gen++;
    return true;
}

/* ---- writing requests -------------------------------------------------------- */

void supervisor_worker_flush(supervisor *s)
{
    if (s->in_fd < 0 || s->pending.len == 0)
        return;
    ssize_t n = spawn_write(s->in_fd, s->pending.p, s->pending.len);
    if (n < 0) {
        strbuf_clear(&s->pending);
        supervisor_worker_unwatch(s, &s->in_fd);
        return;
    }
    strbuf_cut(&s->pending, (size_t)n);
    rewatch(s, s->in_fd, s->pending.len > 0 ? EPOLLOUT : 0, SUP_TAG_INPUT);
}

bool supervisor_worker_queue(supervisor *s, const char *text, size_t len, cl_err *e)
{
    if (!strbuf_add(&s->pending, text, len)) {
        strbuf_clear(&s->pending);
        return err_set(e, "out of memory");
    }
    return true;
}

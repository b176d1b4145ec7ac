#include "core/watch.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/grow.h"

#define PENDING_MAX 64

typedef struct watch_dir {
    int wd;                      /* -1: slot free */
    char path[CL_PATH_MAX];
} watch_dir;

typedef struct pending {
    char path[CL_PATH_MAX];
    int64_t last_ns;             /* time of the latest event for it */
    uint64_t seq;                /* order of the first event, for oldest-first */
} pending;

struct watch {
    int ino, timer, ep;
    int64_t debounce_ns;
    watch_dir *dirs;             /* as many as are followed (grow.h) */
    size_t ndirs, capdirs;
    pending pend[PENDING_MAX];
    size_t npend;
    uint64_t seq;
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Editors' temporaries and cudalab's own "<name>.new.<pid>" files. */
static bool ignored_name(const char *name)
{
    if (!name[0] || name[0] == '.' || name[0] == '#' || strcmp(name, "4913") == 0)
        return true;
    if (ends_with(name, "~") || ends_with(name, ".swp") || ends_with(name, ".swx") ||
        ends_with(name, ".tmp"))
        return true;
    const char *dot = strstr(name, ".new.");
    if (dot) {
        const char *p = dot + 5;
        if (*p) {
            while (*p >= '0' && *p <= '9')
                p++;
            if (!*p)
                return true;
        }
    }
    if (strstr(name, ".tmp."))
        return true;
    return false;
}

watch *watch_new(int debounce_ms, cl_err *err)
{
    watch *w = calloc(1, sizeof *w);
    if (!w) {
        err_set(err, "out of memory");
        return NULL;
    }
    w->ino = w->timer = w->ep = -1;
    w->debounce_ns = (int64_t)(debounce_ms > 0 ? debounce_ms : WATCH_DEBOUNCE_MS) * 1000000;
    w->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->ino < 0) {
        err_set(err, "cannot watch files (inotify): %s", strerror(errno));
        goto fail;
    }
    w->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (w->timer < 0) {
        err_set(err, "cannot watch files (timerfd): %s", strerror(errno));
        goto fail;
    }
    w->ep = epoll_create1(EPOLL_CLOEXEC);
    if (w->ep < 0) {
        err_set(err, "cannot watch files (epoll): %s", strerror(errno));
        goto fail;
    }
    struct epoll_event ev = {.events = EPOLLIN};
    ev.data.fd = w->ino;
    if (epoll_ctl(w->ep, EPOLL_CTL_ADD, w->ino, &ev) != 0) {
        err_set(err, "cannot watch files (epoll): %s", strerror(errno));
        goto fail;
    }
    ev.data.fd = w->timer;
    if (epoll_ctl(w->ep, EPOLL_CTL_ADD, w->timer, &ev) != 0) {
        err_set(err, "cannot watch files (epoll): %s", strerror(errno));
        goto fail;
    }
    return w;
fail:
    watch_free(w);
    return NULL;
}

void watch_free(watch *watcher)
{
    if (!watcher)
        return;
    if (watcher->ep >= 0)
        close(watcher->ep);
    if (watcher->timer >= 0)
        close(watcher->timer);
    if (watcher->ino >= 0)
        close(watcher->ino);
    free(watcher->dirs);
    free(watcher);
}

static watch_dir *dir_by_path(watch *w, const char *dir)
{
    for (size_t i = 0; i < w->ndirs; i++)
        if (w->dirs[i].wd >= 0 && strcmp(w->dirs[i].path, dir) == 0)
            return &w->dirs[i];
    return NULL;
}

static watch_dir *dir_by_wd(watch *w, int wd)
{
    for (size_t i = 0; i < w->ndirs; i++)
        if (w->dirs[i].wd == wd)
            return &w->dirs[i];
    return NULL;
}

/* A number in a /proc/sys file; 0 when it cannot be read. */
static long sysctl_long(const char *path)
{
    long v = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v;
}

static void trim_slashes(const char *in, char *out, size_t n)
{
    snprintf(out, n, "%s", in);
    size_t len = strlen(out);
    while (len > 1 && out[len - 1] == '/')
        out[--len] = '\0';
}

bool watch_add(watch *watcher, const char *dir, cl_err *err)
{
    char path[CL_PATH_MAX];
    trim_slashes(dir, path, sizeof path);
    if (dir_by_path(watcher, path))
        return true;
    int wd = inotify_add_watch(watcher->ino, path, IN_CLOSE_WRITE | IN_MOVED_TO | IN_ONLYDIR);
    if (wd < 0 && errno == ENOSPC)
        return err_set(err, "cannot watch %s: the system's limit of inotify watches is reached "
                            "(fs.inotify.max_user_watches = %ld); raise it with "
                            "`sysctl fs.inotify.max_user_watches=%ld` (as root)",
                       path, sysctl_long("/proc/sys/fs/inotify/max_user_watches"),
                       2 * sysctl_long("/proc/sys/fs/inotify/max_user_watches") + 1024);
    if (wd < 0)
        return err_set(err, "cannot watch %s: %s", path, strerror(errno));
    watch_dir *same = dir_by_wd(watcher, wd);
    if (same) {
        snprintf(same->path, sizeof same->path, "%s", path);
        return true;
    }
    watch_dir *slot = NULL;
    for (size_t i = 0; i < watcher->ndirs && !slot; i++)
        if (watcher->dirs[i].wd < 0)
            slot = &watcher->dirs[i];
    if (!slot) {
        if (!grow_one((void **)&watcher->dirs, &watcher->capdirs, watcher->ndirs,
                      sizeof *watcher->dirs, 16)) {
            (void)inotify_rm_watch(watcher->ino, wd);
            return err_set(err, "cannot watch %s: out of memory", path);
        }
        slot = &watcher->dirs[watcher->ndirs++];
    }
    slot->wd = wd;
    snprintf(slot->path, sizeof slot->path, "%s", path);
    return true;
}

bool watch_remove(watch *watcher, const char *dir, cl_err *err)
{
    char path[CL_PATH_MAX];
    trim_slashes(dir, path, sizeof path);
    watch_dir *d = dir_by_path(watcher, path);
    if (!d)
        return err_set(err, "%s is not being watched", path);
    inotify_rm_watch(watcher->ino, d->wd);
    d->wd = -1;
    d->path[0] = '\0';
    return true;
}

int watch_fd(const watch *watcher)
{
    return watcher->ep;
}

static void note_change(watch *w, const char *path, int64_t t)
{
    for (size_t i = 0; i < w->npend; i++) {
        if (strcmp(w->pend[i].path, path) == 0) {
            w->pend[i].last_ns = t;
            return;
        }
    }
    if (w->npend == PENDING_MAX) {
        memmove(&w->pend[0], &w->pend[1], (PENDING_MAX - 1) * sizeof w->pend[0]);
        w->npend--;
    }
    pending *p = &w->pend[w->npend++];
    snprintf(p->path, sizeof p->path, "%s", path);
    p->last_ns = t;
    p->seq = ++w->seq;
}

/* Drains the inotify queue into the pending list. */
static bool drain(watch *w, cl_err *e)
{
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(w->ino, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return true;
            return err_set(e, "reading file events: %s", strerror(errno));
        }
        if (n == 0)
            return true;
        int64_t t = clock_now_ns();
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *ev = (const struct inotify_event *)(void *)p;
            p += sizeof *ev + ev->len;
            if (ev->mask & IN_IGNORED) {
                watch_dir *d = dir_by_wd(w, ev->wd);
                if (d) {
                    d->wd = -1;
                    d->path[0] = '\0';
                }
                continue;
            }
            if (!(ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) || ev->len == 0 ||
                (ev->mask & IN_ISDIR))
                continue;
            if (ignored_name(ev->name))
                continue;
            watch_dir *d = dir_by_wd(w, ev->wd);
            if (!d)
                continue;
            char path[CL_PATH_MAX];
            if (!paths_join(path, sizeof path, d->path, ev->name))
                continue;
            note_change(w, path, t);
        }
    }
}

/* Arms the timer for the earliest pending change (disarms when none). */
static void arm_timer(watch *w, int64_t t)
{
    uint64_t junk;
    while (read(w->timer, &junk, sizeof junk) > 0) {
    }
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    if (w->npend > 0) {
        int64_t due = INT64_MAX;
        for (size_t i = 0; i < w->npend; i++)
            if (w->pend[i].last_ns + w->debounce_ns < due)
                due = w->pend[i].last_ns + w->debounce_ns;
        int64_t wait = due - t;
        if (wait < 1)
            wait = 1;
        its.it_value.tv_sec = (time_t)(wait / 1000000000);
        its.it_value.tv_nsec = (long)(wait % 1000000000);
    }
    timerfd_settime(w->timer, 0, &its, NULL);
}

int watch_poll(watch *watcher, watch_change *out, size_t max, cl_err *err)
{
    if (!drain(watcher, err))
        return -1;
    int64_t t = clock_now_ns();
    size_t got = 0;
    while (got < max) {
        size_t best = watcher->npend;
        for (size_t i = 0; i < watcher->npend; i++) {
            if (t - watcher->pend[i].last_ns < watcher->debounce_ns)
                continue;
            if (best == watcher->npend || watcher->pend[i].seq < watcher->pend[best].seq)
                best = i;
        }
        if (best == watcher->npend)
            break;
        snprintf(out[got].path, sizeof out[got].path, "%s", watcher->pend[best].path);
        got++;
        memmove(&watcher->pend[best], &watcher->pend[best + 1],
                (watcher->npend - best - 1) * sizeof watcher->pend[0]);
        watcher->npend--;
    }
    arm_timer(watcher, t);
    return (int)got;
}

int watch_pending_ms(const watch *watcher)
{
    if (watcher->npend == 0)
        return -1;
    int64_t t = clock_now_ns(), due = INT64_MAX;
    for (size_t i = 0; i < watcher->npend; i++)
        if (watcher->pend[i].last_ns + watcher->debounce_ns < due)
            due = watcher->pend[i].last_ns + watcher->debounce_ns;
    int64_t ms = (due - t + 999999) / 1000000;
    return ms < 0 ? 0 : (int)ms;
}

int watch_wait(watch *watcher, int timeout_ms, watch_change *out, size_t max, cl_err *err)
{
    int64_t deadline = timeout_ms < 0 ? -1 : clock_now_ns() + (int64_t)timeout_ms * 1000000;
    for (;;) {
        int got = watch_poll(watcher, out, max, err);
        if (got != 0)
            return got;
        int wait_ms = -1;
        if (deadline >= 0) {
            int64_t left = deadline - clock_now_ns();
            if (left <= 0)
                return 0;
            wait_ms = (int)((left + 999999) / 1000000);
        }
        struct pollfd pfd = {.fd = watcher->ep, .events = POLLIN};
        int r = poll(&pfd, 1, wait_ms);
        if (r < 0 && errno != EINTR) {
            err_set(err, "waiting for file events: %s", strerror(errno));
            return -1;
        }
    }
}

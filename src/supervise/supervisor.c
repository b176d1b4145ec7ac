#define _GNU_SOURCE   /* posix_spawn_file_actions_addclosefrom_np, sigabbrev_np (glibc) */
#include "supervise/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/strbuf.h"

#define SUP_DEFAULT_LIMIT_S 120.0
#define SUP_TAIL_MAX (16 * 1024)      /* worker output kept for fault messages */
#define SUP_CHUNK (64 * 1024)
#define SUP_READS_PER_PUMP 16         /* bounds the work one pump does on a flood */
#define SUP_POLL_SLICE_MS 50          /* without pidfd: how often to look for an exit */
#define SUP_MAX_DYING 16
#define SUP_QUIT_GRACE_MS 1000
#define SUP_CHILD_FD_MIN 10

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
#define SUP_HAVE_CLOSEFROM 1
#endif
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
#define SUP_HAVE_SIGABBREV 1
#endif

extern char **environ;

enum { TAG_PROTO = 1, TAG_OUTPUT, TAG_INPUT, TAG_PID, TAG_TIMER };

struct supervisor {
    char **argv;                  /* owned copy of the worker command */
    double limit_s;               /* default per-request limit */
    supervisor_callbacks cb;
    void *ud;

    int epfd, timerfd;
    unsigned gen;                 /* bumped whenever a worker starts or stops */

    /* the running worker; pid 0 when none */
    pid_t pid;
    int pidfd;
    int in_fd, proto_fd, out_fd;
    bool have_hello;
    device_info dev;

    char *line;                   /* protocol line being assembled */
    size_t line_len;
    strbuf pending;               /* request bytes not yet written */
    char *last_req;               /* the current run's request line */
    size_t last_req_len;

    char *tail;                   /* ring of the last SUP_TAIL_MAX bytes of output */
    size_t tail_len, tail_head;
    char *chunk;

    int next_run;
    int cur_run;                  /* 0 when idle */
    char cur_variant[RUN_ID_MAX];
    double cur_limit_s;
    double deadline;              /* monotonic seconds */

    char last_stop[512];          /* why the last worker stopped */
    pid_t dying[SUP_MAX_DYING];   /* killed, not yet reaped */
    int ndying;

    proto_msg msg;                /* scratch for decoding */
};

/* ---- small helpers ----------------------------------------------------- */

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

static bool set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
}

static bool ep_add(supervisor *s, int fd, uint32_t events, int tag)
{
    struct epoll_event ev = {.events = events, .data.u32 = (uint32_t)tag};
    return epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) == 0;
}

static void ep_mod(supervisor *s, int fd, uint32_t events, int tag)
{
    struct epoll_event ev = {.events = events, .data.u32 = (uint32_t)tag};
    (void)epoll_ctl(s->epfd, EPOLL_CTL_MOD, fd, &ev);
}

static void ep_del_close(supervisor *s, int *fd)
{
    if (*fd >= 0) {
        (void)epoll_ctl(s->epfd, EPOLL_CTL_DEL, *fd, NULL);
        close_fd(fd);
    }
}

static void arm_timer(supervisor *s, double seconds)
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

/* "SEGV" for SIGSEGV; NULL when unknown. */
static const char *signal_abbrev(int sig)
{
#ifdef SUP_HAVE_SIGABBREV
    return sigabbrev_np(sig);
#else
    static const struct { int sig; const char *name; } names[] = {
        {SIGSEGV, "SEGV"}, {SIGBUS, "BUS"}, {SIGABRT, "ABRT"}, {SIGFPE, "FPE"},
        {SIGILL, "ILL"}, {SIGKILL, "KILL"}, {SIGTERM, "TERM"}, {SIGINT, "INT"},
        {SIGQUIT, "QUIT"}, {SIGHUP, "HUP"}, {SIGPIPE, "PIPE"}, {SIGTRAP, "TRAP"},
        {SIGSYS, "SYS"}, {SIGXCPU, "XCPU"}, {SIGXFSZ, "XFSZ"}, {SIGUSR1, "USR1"},
        {SIGUSR2, "USR2"}, {SIGALRM, "ALRM"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig)
            return names[i].name;
    return NULL;
#endif
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    return -1;
#endif
}

static void signal_text(int sig, char *buf, size_t n)
{
    const char *abbrev = signal_abbrev(sig);
    const char *desc = strsignal(sig);
    if (abbrev)
        snprintf(buf, n, "SIG%s (%s)", abbrev, desc ? desc : "unknown signal");
    else
        snprintf(buf, n, "signal %d", sig);
}

/* ---- worker output ----------------------------------------------------- */

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

/* Writes into buf the end of the worker's output that fits, on one line:
 * runs of whitespace become one space, other control bytes are dropped. */
static void output_excerpt(const supervisor *s, char *buf, size_t n)
{
    char *raw = malloc(SUP_TAIL_MAX + 1);
    buf[0] = '\0';
    if (!raw || n < 8) {
        free(raw);
        return;
    }
    size_t len = supervisor_output(s, raw, SUP_TAIL_MAX + 1), j = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)raw[i];
        if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
            if (j > 0 && raw[j - 1] != ' ')
                raw[j++] = ' ';
        } else if (c >= 0x20 && c != 0x7f) {
            raw[j++] = (char)c;
        }
    }
    while (j > 0 && raw[j - 1] == ' ')
        j--;
    raw[j] = '\0';
    size_t from = 0;
    if (j > n - 1) {
        from = j - (n - 4);
        while (from < j && ((unsigned char)raw[from] & 0xC0) == 0x80)
            from++;
        snprintf(buf, n, "...%s", raw + from);
    } else {
        snprintf(buf, n, "%s", raw);
    }
    free(raw);
}

/* Reads what the worker printed, at most max_reads chunks. */
static void drain_output(supervisor *s, int max_reads)
{
    for (int i = 0; i < max_reads && s->out_fd >= 0; i++) {
        ssize_t n = read(s->out_fd, s->chunk, SUP_CHUNK);
        if (n > 0) {
            tail_append(s, s->chunk, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            ep_del_close(s, &s->out_fd);
        break;
    }
}

/* ---- starting and stopping --------------------------------------------- */

static void reap_dying(supervisor *s, bool block)
{
    int keep = 0;
    for (int i = 0; i < s->ndying; i++) {
        pid_t r;
        do
            r = waitpid(s->dying[i], NULL, block ? 0 : WNOHANG);
        while (r < 0 && errno == EINTR);
        if (r == 0)
            s->dying[keep++] = s->dying[i];
    }
    s->ndying = keep;
}

/* Kills the worker's process group (the worker and anything it started)
 * and forgets the worker; reaping happens without blocking, later if
 * needed. */
static void stop_worker(supervisor *s)
{
    if (s->pid > 0) {
        (void)kill(-s->pid, SIGKILL);
        (void)kill(s->pid, SIGKILL);
        pid_t r;
        do
            r = waitpid(s->pid, NULL, WNOHANG);
        while (r < 0 && errno == EINTR);
        if (r == 0) {
            if (s->ndying == SUP_MAX_DYING)
                reap_dying(s, true);
            s->dying[s->ndying++] = s->pid;
        }
    }
    s->pid = 0;
    ep_del_close(s, &s->pidfd);
    ep_del_close(s, &s->in_fd);
    ep_del_close(s, &s->proto_fd);
    ep_del_close(s, &s->out_fd);
    s->line_len = 0;
    strbuf_clear(&s->pending);
    s->have_hello = false;
    s->gen++;
}

/* Ends the current run (if any) with a fault, after the worker is gone. */
static void fail_run(supervisor *s, const char *cause, const char *message)
{
    snprintf(s->last_stop, sizeof s->last_stop, "%s", message);
    int run = s->cur_run;
    if (!run) {
        if (s->cb.on_log)
            s->cb.on_log(s->ud, 1, message);
        return;
    }
    run_fault f;
    memset(&f, 0, sizeof f);
    f.run = run;
    snprintf(f.variant, sizeof f.variant, "%s", s->cur_variant);
    snprintf(f.cause, sizeof f.cause, "%s", cause);
    snprintf(f.message, sizeof f.message, "%s", message);
    s->cur_run = 0;
    arm_timer(s, 0);
    if (s->cb.on_fault)
        s->cb.on_fault(s->ud, &f);
    if (s->cb.on_done)
        s->cb.on_done(s->ud, run);
}

static void kill_and_fail(supervisor *s, const char *cause, const char *message)
{
    stop_worker(s);
    fail_run(s, cause, message);
}

/* Moves fd to a number >= SUP_CHILD_FD_MIN (close-on-exec) so that the
 * child's dup2 onto 0..3 can never clobber another source. */
static bool move_high(int *fd)
{
    int nfd = fcntl(*fd, F_DUPFD_CLOEXEC, SUP_CHILD_FD_MIN);
    if (nfd < 0)
        return false;
    close(*fd);
    *fd = nfd;
    return true;
}

static bool start_worker(supervisor *s, cl_err *e)
{
    int in[2] = {-1, -1}, proto[2] = {-1, -1}, out[2] = {-1, -1};
    bool ok = false, attr_init = false, fa_init = false;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_t fa;
    pid_t pid = 0;
    int rc;

    reap_dying(s, false);
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(proto, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
        err_set(e, "cannot start the worker: pipe: %s", strerror(errno));
        goto cleanup;
    }
    if (!move_high(&in[0]) || !move_high(&proto[1]) || !move_high(&out[1])) {
        err_set(e, "cannot start the worker: fcntl: %s", strerror(errno));
        goto cleanup;
    }
    if (!set_nonblock(in[1]) || !set_nonblock(proto[0]) || !set_nonblock(out[0])) {
        err_set(e, "cannot start the worker: fcntl: %s", strerror(errno));
        goto cleanup;
    }

    if ((rc = posix_spawnattr_init(&attr)) != 0) {
        err_set(e, "cannot start the worker: %s", strerror(rc));
        goto cleanup;
    }
    attr_init = true;
    if ((rc = posix_spawn_file_actions_init(&fa)) != 0) {
        err_set(e, "cannot start the worker: %s", strerror(rc));
        goto cleanup;
    }
    fa_init = true;

    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    const int reset[] = {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++)
        sigaddset(&defaults, reset[i]);
    if ((rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK
                                                  | POSIX_SPAWN_SETSIGDEF)) != 0
        || (rc = posix_spawnattr_setpgroup(&attr, 0)) != 0
        || (rc = posix_spawnattr_setsigmask(&attr, &none)) != 0
        || (rc = posix_spawnattr_setsigdefault(&attr, &defaults)) != 0
        || (rc = posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO)) != 0
        || (rc = posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO)) != 0
        || (rc = posix_spawn_file_actions_adddup2(&fa, out[1], STDERR_FILENO)) != 0
        || (rc = posix_spawn_file_actions_adddup2(&fa, proto[1], PROTO_FD)) != 0
#ifdef SUP_HAVE_CLOSEFROM
        || (rc = posix_spawn_file_actions_addclosefrom_np(&fa, 4)) != 0
#endif
        ) {
        err_set(e, "cannot start the worker: %s", strerror(rc));
        goto cleanup;
    }
    rc = posix_spawn(&pid, s->argv[0], &fa, &attr, s->argv, environ);
    if (rc != 0) {
        pid = 0;
        err_set(e, "cannot start the worker '%s': %s", s->argv[0], strerror(rc));
        goto cleanup;
    }

    s->pid = pid;
    s->in_fd = in[1];
    s->proto_fd = proto[0];
    s->out_fd = out[0];
    in[1] = proto[0] = out[0] = -1;
    s->pidfd = open_pidfd(pid);
    if (!ep_add(s, s->proto_fd, EPOLLIN, TAG_PROTO) || !ep_add(s, s->out_fd, EPOLLIN, TAG_OUTPUT)
        || !ep_add(s, s->in_fd, 0, TAG_INPUT)
        || (s->pidfd >= 0 && !ep_add(s, s->pidfd, EPOLLIN, TAG_PID))) {
        err_set(e, "cannot watch the worker: epoll: %s", strerror(errno));
        stop_worker(s);
        goto cleanup;
    }
    s->have_hello = false;
    s->line_len = 0;
    strbuf_clear(&s->pending);
    s->tail_len = s->tail_head = 0;
    s->gen++;
    ok = true;

cleanup:
    if (fa_init)
        posix_spawn_file_actions_destroy(&fa);
    if (attr_init)
        posix_spawnattr_destroy(&attr);
    for (int i = 0; i < 2; i++) {
        close_fd(&in[i]);
        close_fd(&proto[i]);
        close_fd(&out[i]);
    }
    return ok;
}

/* ---- writing requests -------------------------------------------------- */

/* Writes pending request bytes without blocking.  SIGPIPE is blocked around
 * the write so a dead worker shows up as EPIPE, not as the parent's death. */
static void flush_pending(supervisor *s)
{
    if (s->in_fd < 0 || s->pending.len == 0)
        return;
    sigset_t pipe_set, old, before;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    sigpending(&before);

    size_t off = 0;
    bool broken = false;
    while (off < s->pending.len) {
        ssize_t n = write(s->in_fd, s->pending.p + off, s->pending.len - off);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            broken = true;
        break;
    }
    if (broken && !sigismember(&before, SIGPIPE)) {
        struct timespec zero = {0, 0};
        (void)sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    if (broken) {
        /* The worker stopped reading: its exit is noticed by the pump. */
        strbuf_clear(&s->pending);
        ep_del_close(s, &s->in_fd);
        return;
    }
    strbuf_cut(&s->pending, off);
    if (s->pending.len > 0)
        ep_mod(s, s->in_fd, EPOLLOUT, TAG_INPUT);
    else
        ep_mod(s, s->in_fd, 0, TAG_INPUT);
}

static bool queue_bytes(supervisor *s, const char *text, size_t len, cl_err *e)
{
    if (!strbuf_add(&s->pending, text, len)) {
        strbuf_clear(&s->pending);
        return err_set(e, "out of memory");
    }
    return true;
}

/* ---- reading messages -------------------------------------------------- */

static void protocol_fault(supervisor *s, const char *what)
{
    char msg[512];
    snprintf(msg, sizeof msg, "the worker broke the protocol: %s", what);
    kill_and_fail(s, "protocol", msg);
}

static void dispatch(supervisor *s, const proto_msg *m)
{
    switch (m->type) {
    case MSG_HELLO:
        s->dev = m->u.hello;
        s->have_hello = true;
        if (s->cb.on_hello)
            s->cb.on_hello(s->ud, &s->dev);
        break;
    case MSG_PROGRESS:
        if (s->cur_run && m->u.progress.run == s->cur_run) {
            snprintf(s->cur_variant, sizeof s->cur_variant, "%s", m->u.progress.variant);
            if (s->cb.on_progress)
                s->cb.on_progress(s->ud, &m->u.progress);
        }
        break;
    case MSG_RESULT:
        if (s->cur_run && m->u.result.run == s->cur_run && s->cb.on_result)
            s->cb.on_result(s->ud, &m->u.result);
        break;
    case MSG_LOG:
        if (s->cb.on_log)
            s->cb.on_log(s->ud, m->u.log.level, m->u.log.msg);
        break;
    case MSG_FAULT: {
        run_fault f = m->u.fault;
        int run = s->cur_run;
        if (!f.cause[0])
            snprintf(f.cause, sizeof f.cause, "cuda");
        if (!f.variant[0])
            snprintf(f.variant, sizeof f.variant, "%s", s->cur_variant);
        f.run = run;
        snprintf(s->last_stop, sizeof s->last_stop, "%s", f.message);
        stop_worker(s);
        if (!run) {
            if (s->cb.on_log)
                s->cb.on_log(s->ud, 2, f.message);
            break;
        }
        s->cur_run = 0;
        arm_timer(s, 0);
        if (s->cb.on_fault)
            s->cb.on_fault(s->ud, &f);
        if (s->cb.on_done)
            s->cb.on_done(s->ud, run);
        break;
    }
    case MSG_DONE:
        if (s->cur_run && m->u.done_run == s->cur_run) {
            int run = s->cur_run;
            s->cur_run = 0;
            arm_timer(s, 0);
            if (s->cb.on_done)
                s->cb.on_done(s->ud, run);
        }
        break;
    case MSG_RUN:
    case MSG_QUIT:
    case MSG_INVALID:
        protocol_fault(s, "it sent a request instead of a reply");
        break;
    }
}

/* Handles the complete lines in the buffer.  Returns false when a callback
 * or a fault replaced the worker (the buffer is no longer this worker's). */
static bool handle_lines(supervisor *s)
{
    unsigned gen = s->gen;
    size_t start = 0;
    char *nl;
    cl_err err;

    while ((nl = memchr(s->line + start, '\n', s->line_len - start)) != NULL) {
        *nl = '\0';
        const char *line = s->line + start;
        start = (size_t)(nl - s->line) + 1;
        if (line[strspn(line, " \t\r")] == '\0')
            continue;
        if (!proto_decode(line, &s->msg, &err)) {
            protocol_fault(s, err.msg);
            return false;
        }
        dispatch(s, &s->msg);
        if (s->gen != gen)
            return false;
    }
    memmove(s->line, s->line + start, s->line_len - start);
    s->line_len -= start;
    if (s->line_len == PROTO_LINE_MAX) {
        protocol_fault(s, "it sent a line longer than 64 KiB");
        return false;
    }
    return true;
}

/* Reads protocol lines, at most max_reads chunks.  Returns false when the
 * worker was replaced meanwhile. */
static bool read_proto(supervisor *s, int max_reads)
{
    for (int i = 0; i < max_reads && s->proto_fd >= 0; i++) {
        ssize_t n = read(s->proto_fd, s->line + s->line_len, PROTO_LINE_MAX - s->line_len);
        if (n > 0) {
            s->line_len += (size_t)n;
            if (!handle_lines(s))
                return false;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            ep_del_close(s, &s->proto_fd);
        break;
    }
    return true;
}

/* ---- exits and time limits --------------------------------------------- */

static void describe_exit(const supervisor *s, int status, const char *when, char *cause,
                          size_t ncause, char *msg, size_t nmsg)
{
    char head[200], printed[400];
    if (WIFSIGNALED(status)) {
        char sig[96];
        signal_text(WTERMSIG(status), sig, sizeof sig);
        snprintf(cause, ncause, "signal");
        snprintf(head, sizeof head, "the worker was killed by %s%s%s", sig, when,
                 WTERMSIG(status) == SIGKILL
                     ? " from outside cudalab, perhaps because the system ran out of memory" : "");
    } else {
        snprintf(cause, ncause, "exit");
        snprintf(head, sizeof head, "the worker exited with status %d%s", WEXITSTATUS(status), when);
    }
    size_t room = nmsg > strlen(head) + 32 ? nmsg - strlen(head) - 24 : 8;
    output_excerpt(s, printed, room < sizeof printed ? room : sizeof printed);
    if (printed[0])
        snprintf(msg, nmsg, "%s; the worker printed: %s", head, printed);
    else
        snprintf(msg, nmsg, "%s", head);
}

/* Reaps a worker known to have exited.  The leader is still a zombie, so
 * its process group id cannot have been reused: what it left behind is
 * killed first. */
static int reap_exited(supervisor *s)
{
    int status = 0;
    pid_t r;
    (void)kill(-s->pid, SIGKILL);
    do
        r = waitpid(s->pid, &status, 0);
    while (r < 0 && errno == EINTR);
    s->pid = 0;
    return status;
}

static bool has_exited(const supervisor *s)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return s->pid > 0 && waitid(P_PID, (id_t)s->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0
        && si.si_pid != 0;
}

/* Notices a worker that exited on its own: reads its last words, then
 * reports.  Returns false when the worker was replaced meanwhile. */
static bool check_exit(supervisor *s)
{
    if (!has_exited(s))
        return true;

    unsigned gen = s->gen;
    int run_before = s->cur_run;
    drain_output(s, 1024);
    if (!read_proto(s, 1024) || s->gen != gen)
        return false;
    int status = reap_exited(s);

    char cause[32], msg[512];
    bool had_hello = s->have_hello;
    describe_exit(s, status, had_hello ? "" : " before saying hello", cause, sizeof cause, msg,
                  sizeof msg);
    stop_worker(s);
    if (s->cur_run && s->cur_run != run_before) {
        /* A callback submitted a new run to the worker as it was exiting:
         * give that run to a fresh worker. */
        cl_err err;
        if (!start_worker(s, &err))
            fail_run(s, "exit", err.msg);
        else if (s->last_req && queue_bytes(s, s->last_req, s->last_req_len, NULL))
            flush_pending(s);
        return false;
    }
    if (s->cur_run) {
        fail_run(s, cause, msg);
        return false;
    }
    snprintf(s->last_stop, sizeof s->last_stop, "%s", msg);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && s->cb.on_log)
        s->cb.on_log(s->ud, had_hello ? 1 : 2, s->last_stop);
    return false;
}

static void check_deadline(supervisor *s)
{
    if (!s->cur_run || clock_now_s() < s->deadline)
        return;
    char msg[256];
    snprintf(msg, sizeof msg,
             "the run took longer than %g s: the kernel may loop forever or deadlock at a barrier",
             s->cur_limit_s);
    kill_and_fail(s, "timeout", msg);
}

/* ---- public ------------------------------------------------------------ */

supervisor *supervisor_new(const supervisor_opts *o, cl_err *e)
{
    supervisor *s = calloc(1, sizeof *s);
    if (!s) {
        err_set(e, "out of memory");
        return NULL;
    }
    s->epfd = s->timerfd = s->pidfd = s->in_fd = s->proto_fd = s->out_fd = -1;
    s->next_run = 1;
    s->limit_s = o && o->time_limit_s > 0 ? o->time_limit_s : SUP_DEFAULT_LIMIT_S;
    if (o && o->cb)
        s->cb = *o->cb;
    s->ud = o ? o->ud : NULL;

    size_t argc = 0;
    if (o && o->argv)
        while (o->argv[argc])
            argc++;
    s->argv = calloc(argc > 0 ? argc + 1 : 3, sizeof *s->argv);
    s->line = malloc(PROTO_LINE_MAX + 1);
    s->tail = malloc(SUP_TAIL_MAX);
    s->chunk = malloc(SUP_CHUNK);
    if (!s->argv || !s->line || !s->tail || !s->chunk) {
        err_set(e, "out of memory");
        goto fail;
    }
    if (argc > 0) {
        for (size_t i = 0; i < argc; i++)
            if (!(s->argv[i] = strdup(o->argv[i]))) {
                err_set(e, "out of memory");
                goto fail;
            }
    } else {
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n > 0)
            self[n] = '\0';
        else
            snprintf(self, sizeof self, "/proc/self/exe");
        if (!(s->argv[0] = strdup(self)) || !(s->argv[1] = strdup("worker"))) {
            err_set(e, "out of memory");
            goto fail;
        }
    }

    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (s->epfd < 0) {
        err_set(e, "epoll_create1: %s", strerror(errno));
        goto fail;
    }
    s->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (s->timerfd < 0 || !ep_add(s, s->timerfd, EPOLLIN, TAG_TIMER)) {
        err_set(e, "timerfd: %s", strerror(errno));
        goto fail;
    }
    return s;
fail:
    supervisor_free(s);
    return NULL;
}

void supervisor_free(supervisor *s)
{
    if (!s)
        return;
    if (s->pid > 0 && !s->cur_run && s->in_fd >= 0) {
        /* Idle: ask politely so the engine can shut down, then insist. */
        static const char quit[] = "{\"type\":\"quit\"}\n";
        strbuf_clear(&s->pending);
        if (queue_bytes(s, quit, sizeof quit - 1, NULL))
            flush_pending(s);
        ep_del_close(s, &s->in_fd);
        for (int waited = 0; waited < SUP_QUIT_GRACE_MS; waited += 10) {
            if (has_exited(s)) {
                reap_exited(s);
                break;
            }
            drain_output(s, 4);
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    if (s->pid > 0) {
        (void)kill(-s->pid, SIGKILL);
        (void)kill(s->pid, SIGKILL);
        pid_t r;
        do
            r = waitpid(s->pid, NULL, 0);
        while (r < 0 && errno == EINTR);
        s->pid = 0;
    }
    stop_worker(s);
    reap_dying(s, true);
    close_fd(&s->timerfd);
    close_fd(&s->epfd);
    if (s->argv)
        for (size_t i = 0; s->argv[i]; i++)
            free(s->argv[i]);
    free(s->argv);
    free(s->line);
    free(s->tail);
    free(s->chunk);
    strbuf_free(&s->pending);
    free(s->last_req);
    free(s);
}

bool supervisor_submit(supervisor *s, run_request *req, double time_limit_s, cl_err *e)
{
    if (s->cur_run)
        return err_set(e, "the worker is busy with run %d", s->cur_run);

    int run = s->next_run;
    proto_msg *m = malloc(sizeof *m);
    if (!m)
        return err_set(e, "out of memory");
    m->type = MSG_RUN;
    m->u.run = *req;
    m->u.run.run = run;
    char *text = proto_encode(m);
    free(m);
    if (!text)
        return err_set(e, "cannot encode the request");
    size_t len = strlen(text);
    if (len > PROTO_LINE_MAX) {
        free(text);
        return err_set(e, "the request is longer than 64 KiB");
    }

    /* A worker that died while idle, or can no longer hear or answer, is
     * replaced before it is given the run. */
    check_exit(s);
    if (s->pid > 0 && (s->in_fd < 0 || s->proto_fd < 0))
        stop_worker(s);
    if (s->pid <= 0 && !start_worker(s, e)) {
        free(text);
        return false;
    }
    free(s->last_req);
    s->last_req = text;
    s->last_req_len = len;
    strbuf_clear(&s->pending);
    if (!queue_bytes(s, text, len, e))
        return false;
    req->run = run;
    s->next_run = run == INT_MAX ? 1 : run + 1;

    s->cur_run = req->run;
    s->cur_variant[0] = '\0';
    s->cur_limit_s = time_limit_s > 0 ? time_limit_s : s->limit_s;
    s->deadline = clock_now_s() + s->cur_limit_s;
    arm_timer(s, s->cur_limit_s);
    flush_pending(s);
    return true;
}

bool supervisor_pump(supervisor *s, int timeout_ms)
{
    reap_dying(s, false);
    if (s->pid <= 0)
        return true;

    int wait = timeout_ms < 0 ? -1 : timeout_ms;
    if (s->pidfd < 0 && (wait < 0 || wait > SUP_POLL_SLICE_MS))
        wait = SUP_POLL_SLICE_MS;
    if (s->cur_run) {
        double left_ms = (s->deadline - clock_now_s()) * 1e3;
        int left = left_ms <= 0 ? 0 : left_ms > INT_MAX - 1 ? INT_MAX - 1 : (int)left_ms + 1;
        if (wait < 0 || left < wait)
            wait = left;
    }

    struct epoll_event evs[8];
    int n = epoll_wait(s->epfd, evs, 8, wait);
    if (n < 0 && errno != EINTR)
        return false;
    for (int i = 0; i < n; i++) {
        if (evs[i].data.u32 == TAG_INPUT && (evs[i].events & (EPOLLERR | EPOLLHUP))) {
            strbuf_clear(&s->pending);
            ep_del_close(s, &s->in_fd);
        }
    }
    uint64_t expirations;
    while (read(s->timerfd, &expirations, sizeof expirations) > 0)
        ;

    unsigned gen = s->gen;
    drain_output(s, SUP_READS_PER_PUMP);
    if (!read_proto(s, SUP_READS_PER_PUMP) || s->gen != gen)
        return true;
    flush_pending(s);
    if (!check_exit(s) || s->gen != gen)
        return true;
    check_deadline(s);
    return true;
}

bool supervisor_wait(supervisor *s, int run)
{
    while (s->cur_run && s->cur_run == run)
        if (!supervisor_pump(s, 100))
            return false;
    return true;
}

void supervisor_cancel(supervisor *s)
{
    if (s->pid <= 0 && !s->cur_run)
        return;
    stop_worker(s);
    if (s->cur_run)
        fail_run(s, "cancelled", "the run was cancelled");
}

bool supervisor_busy(const supervisor *s)
{
    return s->cur_run != 0;
}

int supervisor_fd(const supervisor *s)
{
    return s->pid > 0 ? s->epfd : -1;
}

bool supervisor_hello(supervisor *s, int timeout_ms, device_info *out, cl_err *e)
{
    check_exit(s);
    if (s->pid <= 0) {
        s->last_stop[0] = '\0';
        if (!start_worker(s, e))
            return false;
    }
    double until = clock_now_s() + (timeout_ms > 0 ? timeout_ms : 0) * 1e-3;
    while (!s->have_hello && s->pid > 0) {
        double left = (until - clock_now_s()) * 1e3;
        if (left <= 0)
            break;
        if (!supervisor_pump(s, (int)left + 1))
            return err_set(e, "waiting for the worker: %s", strerror(errno));
    }
    if (s->have_hello) {
        if (out)
            *out = s->dev;
        return true;
    }
    if (s->pid <= 0)
        return err_set(e, "%s", s->last_stop[0] ? s->last_stop : "the worker stopped before saying hello");
    return err_set(e, "the worker did not say hello within %d ms", timeout_ms);
}

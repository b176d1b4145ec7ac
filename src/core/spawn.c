#define _GNU_SOURCE   /* posix_spawn_file_actions_addclosefrom_np, closefrom (glibc) */
#include "core/spawn.h"

#include "core/clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
#define SPAWN_HAVE_CLOSEFROM 1
#endif

#define CHILD_FD_MIN 10     /* the child's ends wait here, clear of 0..extra_fd */
#define FD_SCAN_MAX 4096    /* without closefrom: the descriptors closed one by one */
#define TREE_MAX 256

extern char **environ;

/* Signals whose handlers the child gets back as the defaults. */
static const int reset_signals[] = {SIGPIPE, SIGINT,  SIGQUIT, SIGTERM, SIGHUP,  SIGCHLD,
                                    SIGUSR1, SIGUSR2, SIGWINCH, SIGTSTP, SIGTTIN, SIGTTOU};

enum { END_IN, END_OUT, END_ERR, END_EXTRA, END_COUNT };

/* What is being set up: the child's end of each stream (-1: leave it as
 * it is) and the parent's. */
typedef struct plumbing {
    int child[END_COUNT], parent[END_COUNT];
    int null_fd;
} plumbing;

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/* Moves fd to CHILD_FD_MIN or above, close-on-exec, so that the child's
 * dup2 onto its low descriptors can never clobber another source. */
static bool move_high(int *fd)
{
    int nfd = fcntl(*fd, F_DUPFD_CLOEXEC, CHILD_FD_MIN);
    if (nfd < 0)
        return false;
    close(*fd);
    *fd = nfd;
    return true;
}

static bool set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
}

/* A pipe for end k: the child reads stdin's and writes the others. */
static bool make_pipe(plumbing *pl, int k)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return false;
    bool child_reads = k == END_IN;
    pl->child[k] = child_reads ? p[0] : p[1];
    pl->parent[k] = child_reads ? p[1] : p[0];
    return move_high(&pl->child[k]) && set_nonblock(pl->parent[k]);
}

/* Sets up standard stream k as io says; false with errno on failure. */
static bool make_stream(plumbing *pl, int k, spawn_io io)
{
    switch (io) {
    case SPAWN_INHERIT:
    case SPAWN_TO_OUT:
        return true;
    case SPAWN_PIPE:
        return make_pipe(pl, k);
    case SPAWN_NULL:
        break;
    }
    if (pl->null_fd < 0) {
        pl->null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (pl->null_fd < 0 || !move_high(&pl->null_fd))
            return false;
    }
    pl->child[k] = pl->null_fd;
    return true;
}

static void plumbing_close(plumbing *pl, bool parent_too)
{
    for (int k = 0; k < END_COUNT; k++) {
        if (pl->child[k] != pl->null_fd)
            close_fd(&pl->child[k]);
        pl->child[k] = -1;
        if (parent_too)
            close_fd(&pl->parent[k]);
    }
    close_fd(&pl->null_fd);
}

/* Whether an environment entry is one no child may see: the grading key
 * and everything else named CUDALAB_GRADE_*. */
static bool secret_entry(const char *entry)
{
    return strncmp(entry, SPAWN_SECRET_PREFIX, strlen(SPAWN_SECRET_PREFIX)) == 0;
}

/* environ without its secret entries, with the "NAME=value" entries of set
 * (may be NULL) replacing or joining its own (malloc'd array of borrowed
 * strings), or NULL when out of memory. */
static char **child_env(const char *const *set)
{
    size_t n = 0, m = 0;
    while (environ && environ[n])
        n++;
    while (set && set[m])
        m++;
    char **env = calloc(n + m + 1, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool replaced = secret_entry(environ[i]);
        for (size_t j = 0; j < m && !replaced; j++) {
            size_t len = strcspn(set[j], "=");
            replaced = strncmp(environ[i], set[j], len) == 0 && environ[i][len] == '=';
        }
        if (!replaced)
            env[k++] = environ[i];
    }
    for (size_t j = 0; j < m; j++)
        if (!secret_entry(set[j]))
            env[k++] = (char *)set[j];
    return env;
}

static int first_closed(const spawn_opts *o)
{
    return o->extra_fd > STDERR_FILENO ? o->extra_fd + 1 : STDERR_FILENO + 1;
}

/* posix_spawn of o->argv with the plumbing; 0 or an errno value. */
static int exec_child(const spawn_opts *o, const plumbing *pl, char **env, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc != 0)
        return rc;
    if ((rc = posix_spawnattr_init(&attr)) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return rc;
    }
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (size_t i = 0; i < sizeof reset_signals / sizeof reset_signals[0]; i++)
        sigaddset(&defaults, reset_signals[i]);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (o->own_group)
        flags |= POSIX_SPAWN_SETPGROUP;
    rc = posix_spawnattr_setflags(&attr, flags);
    if (rc == 0)
        rc = posix_spawnattr_setpgroup(&attr, 0);
    if (rc == 0)
        rc = posix_spawnattr_setsigmask(&attr, &none);
    if (rc == 0)
        rc = posix_spawnattr_setsigdefault(&attr, &defaults);
    for (int k = END_IN; k <= END_ERR && rc == 0; k++)
        if (pl->child[k] >= 0)
            rc = posix_spawn_file_actions_adddup2(&fa, pl->child[k], k);
    if (rc == 0 && o->err == SPAWN_TO_OUT)
        rc = posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
    if (rc == 0 && pl->child[END_EXTRA] >= 0)
        rc = posix_spawn_file_actions_adddup2(&fa, pl->child[END_EXTRA], o->extra_fd);
#ifdef SPAWN_HAVE_CLOSEFROM
    if (rc == 0)
        rc = posix_spawn_file_actions_addclosefrom_np(&fa, first_closed(o));
#endif
    if (rc == 0)
        rc = posix_spawn(pid, o->argv[0], &fa, &attr, (char *const *)o->argv, env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return rc;
}

/* In the forked child: the plumbing, the signals, then o->fn.  Never
 * returns. */
static void run_child(const spawn_opts *o, const plumbing *pl, char **env)
{
    if (o->own_group)
        setpgid(0, 0);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (size_t i = 0; i < sizeof reset_signals / sizeof reset_signals[0]; i++)
        sigaction(reset_signals[i], &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int k = END_IN; k <= END_ERR; k++)
        if (pl->child[k] >= 0)
            dup2(pl->child[k], k);
    if (o->err == SPAWN_TO_OUT)
        dup2(STDOUT_FILENO, STDERR_FILENO);
    int fd = -1;
    if (pl->child[END_EXTRA] >= 0) {
        fd = o->extra_fd;
        dup2(pl->child[END_EXTRA], fd);
        /* what the work starts in its turn does not hold the pipe open */
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    for (int k = STDERR_FILENO + 1; k < first_closed(o) - 1; k++)
        close(k);
#ifdef SPAWN_HAVE_CLOSEFROM
    closefrom(first_closed(o));
#else
    for (int k = first_closed(o); k < FD_SCAN_MAX; k++)
        close(k);
#endif
    environ = env;
    _exit(o->fn(o->ud, fd) & 0xff);
}

bool spawn_start(const spawn_opts *opts, spawn_child *child, cl_err *err)
{
    plumbing pl;
    char **env = NULL;
    bool ok = false;
    const char *what = opts->what ? opts->what : opts->argv && opts->argv[0] ? opts->argv[0] : "a process";
    *child = (spawn_child){.pid = 0, .in = -1, .out = -1, .err = -1, .extra = -1};
    for (int k = 0; k < END_COUNT; k++)
        pl.child[k] = pl.parent[k] = -1;
    pl.null_fd = -1;

    if ((!opts->argv || !opts->argv[0]) && !opts->fn) {
        err_set(err, "cannot start %s: nothing to run", what);
        goto cleanup;
    }
    if (!make_stream(&pl, END_IN, opts->in) || !make_stream(&pl, END_OUT, opts->out)
        || !make_stream(&pl, END_ERR, opts->err == SPAWN_TO_OUT ? SPAWN_INHERIT : opts->err)
        || (opts->extra_fd > STDERR_FILENO && !make_pipe(&pl, END_EXTRA))) {
        err_set(err, "cannot start %s: %s", what, strerror(errno));
        goto cleanup;
    }
    if (!(env = child_env(opts->env))) {
        err_set(err, "cannot start %s: out of memory", what);
        goto cleanup;
    }
    pid_t pid = 0;
    if (opts->argv && opts->argv[0]) {
        int rc = exec_child(opts, &pl, env, &pid);
        if (rc != 0) {
            err_set(err, "cannot start %s: %s", what, strerror(rc));
            goto cleanup;
        }
    } else {
        pid = fork();
        if (pid < 0) {
            err_set(err, "cannot start %s: %s", what, strerror(errno));
            goto cleanup;
        }
        if (pid == 0)
            run_child(opts, &pl, env);
        if (opts->own_group)
            setpgid(pid, pid);   /* also here: no window in which a kill misses it */
    }
    child->pid = pid;
    child->in = pl.parent[END_IN];
    child->out = pl.parent[END_OUT];
    child->err = pl.parent[END_ERR];
    child->extra = pl.parent[END_EXTRA];
    for (int k = 0; k < END_COUNT; k++)
        pl.parent[k] = -1;
    ok = true;
cleanup:
    plumbing_close(&pl, true);
    free(env);
    return ok;
}

void spawn_close(spawn_child *child)
{
    close_fd(&child->in);
    close_fd(&child->out);
    close_fd(&child->err);
    close_fd(&child->extra);
}

ssize_t spawn_read(int fd, void *buf, size_t cap)
{
    for (;;) {
        ssize_t k = read(fd, buf, cap);
        if (k > 0)
            return k;
        if (k < 0 && errno == EINTR)
            continue;
        return k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    }
}

ssize_t spawn_write(int fd, const void *data, size_t len)
{
    sigset_t pipe_set, old, before;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    sigpending(&before);

    size_t off = 0;
    bool broken = false;
    while (off < len) {
        ssize_t n = write(fd, (const char *)data + off, len - off);
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
        /* the SIGPIPE this write raised, taken before the mask returns */
        struct timespec zero = {0, 0};
        (void)sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return broken ? -1 : (ssize_t)off;
}

bool spawn_write_all(int fd, const void *data, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t n = spawn_write(fd, (const char *)data + off, len - off);
        if (n < 0)
            return false;
        off += (size_t)n;
        if (off < len) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            if (poll(&p, 1, -1) < 0 && errno != EINTR)
                return false;
        }
    }
    return true;
}

void spawn_kill(pid_t pid, bool group)
{
    if (pid <= 0)
        return;
    if (group)
        (void)kill(-pid, SIGKILL);
    (void)kill(pid, SIGKILL);
}

/* The parent of process pid, from /proc; -1 when unknown. */
static pid_t parent_of(pid_t pid)
{
    char path[64], buf[512], *p;
    long pp = -1;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    if (fgets(buf, sizeof buf, f) && (p = strrchr(buf, ')')) != NULL)
        sscanf(p + 1, " %*c %ld", &pp);
    fclose(f);
    return (pid_t)pp;
}

/* pid and every process below it; returns how many. */
static size_t tree_of(pid_t pid, pid_t *out, size_t max)
{
    size_t n = 0;
    bool grew = true;
    out[n++] = pid;
    while (grew && n < max) {
        DIR *d = opendir("/proc");
        struct dirent *de;
        grew = false;
        if (!d)
            break;
        while ((de = readdir(d)) != NULL && n < max) {
            char *end;
            long v = strtol(de->d_name, &end, 10);
            pid_t pp;
            bool known = false;
            if (*end || end == de->d_name || v <= 0)
                continue;
            for (size_t i = 0; i < n; i++)
                known |= out[i] == (pid_t)v;
            if (known || (pp = parent_of((pid_t)v)) <= 0)
                continue;
            for (size_t i = 0; i < n; i++)
                if (out[i] == pp) {
                    out[n++] = (pid_t)v;
                    grew = true;
                    break;
                }
        }
        closedir(d);
    }
    return n;
}

void spawn_kill_tree(pid_t pid)
{
    if (pid <= 0)
        return;
    pid_t tree[TREE_MAX];
    size_t n = tree_of(pid, tree, TREE_MAX);
    pid_t own = getpgrp();
    for (size_t i = 0; i < n; i++) {
        pid_t g = getpgid(tree[i]);
        if (g > 0 && g != own)
            (void)kill(-g, SIGKILL);
        (void)kill(tree[i], SIGKILL);
    }
}

pid_t spawn_wait(pid_t pid, bool block, int *status)
{
    int st = 0;
    pid_t r;
    do
        r = waitpid(pid, &st, block ? 0 : WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r > 0 && status)
        *status = st;
    return r;
}

bool spawn_exited(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return pid > 0 && waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0
        && si.si_pid != 0;
}

int spawn_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    return -1;
#endif
}

bool spawn_capture(const spawn_opts *opts, double timeout_s, char *out, size_t out_size,
                   int *status, cl_err *err)
{
    spawn_opts o = *opts;
    o.out = SPAWN_PIPE;
    spawn_child c;
    out[0] = '\0';
    *status = 0;
    if (!spawn_start(&o, &c, err))
        return false;
    size_t len = 0;
    bool eof = false;
    double deadline = clock_now_s() + timeout_s;
    while (!eof && clock_now_s() < deadline) {
        struct pollfd p = {.fd = c.out, .events = POLLIN};
        int ms = (int)((deadline - clock_now_s()) * 1e3) + 1;
        if (poll(&p, 1, ms) < 0 && errno != EINTR)
            break;
        for (;;) {
            char tmp[4096];
            ssize_t r = spawn_read(c.out, tmp, sizeof tmp);
            if (r < 0)
                eof = true;
            if (r <= 0)
                break;
            size_t room = out_size - 1 - len, k = (size_t)r < room ? (size_t)r : room;
            memcpy(out + len, tmp, k);
            len += k;
        }
    }
    out[len] = '\0';
    if (!eof) {
        spawn_kill(c.pid, o.own_group);
        err_set(err, "%s did not answer within %.0f s", o.what ? o.what : o.argv[0], timeout_s);
    }
    spawn_wait(c.pid, true, status);
    spawn_close(&c);
    return eof;
}

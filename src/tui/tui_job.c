#include "tui/tui_job.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_FD 3

void tui_job_init(tui_job *j)
{
    memset(j, 0, sizeof *j);
    strbuf_init(&j->got, TUI_JOB_OUT_MAX);
    j->fd = -1;
}

/* Closes every descriptor above keep. */
static void close_others(int keep)
{
    DIR *d = opendir("/proc/self/fd");
    if (d) {
        int dfd = dirfd(d);
        struct dirent *de;
        int fds[1024], n = 0;
        while ((de = readdir(d)) != NULL && n < 1024) {
            char *end;
            long v = strtol(de->d_name, &end, 10);
            if (*end == '\0' && end != de->d_name && v > keep && v != dfd)
                fds[n++] = (int)v;
        }
        closedir(d);
        for (int i = 0; i < n; i++)
            close(fds[i]);
        return;
    }
    for (int fd = keep + 1; fd < 4096; fd++)
        close(fd);
}

static void child(int wfd, tui_job_fn fn, void *ud)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGWINCH, SIGTSTP};
    int null = open("/dev/null", O_RDWR);
    setpgid(0, 0);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
    }
    if (wfd != CHILD_FD) {
        dup2(wfd, CHILD_FD);
        close(wfd);
    }
    if (null > CHILD_FD)
        close(null);
    close_others(CHILD_FD);
    fcntl(CHILD_FD, F_SETFD, FD_CLOEXEC);
    _exit(fn(ud, CHILD_FD) & 0xff);
}

bool tui_job_start(tui_job *j, tui_job_fn fn, void *ud, cl_err *e)
{
    int p[2];
    pid_t pid;
    tui_job_clear(j);
    if (pipe(p) != 0)
        return err_set(e, "cannot make a pipe: %s", strerror(errno));
    pid = fork();
    if (pid < 0) {
        int err = errno;
        close(p[0]);
        close(p[1]);
        return err_set(e, "cannot start a process: %s", strerror(err));
    }
    if (pid == 0) {
        close(p[0]);
        child(p[1], fn, ud);
    }
    close(p[1]);
    setpgid(pid, pid);
    fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    j->pid = pid;
    j->fd = p[0];
    j->done = false;
    return true;
}

bool tui_job_active(const tui_job *j)
{
    return j->pid > 0 || j->fd >= 0;
}

int tui_job_fd(const tui_job *j)
{
    return j->fd;
}

static void reap(tui_job *j, bool block)
{
    int st = 0;
    pid_t r;
    if (j->pid <= 0)
        return;
    do
        r = waitpid(j->pid, &st, block ? 0 : WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == 0)
        return;
    if (r == j->pid)
        j->status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
    else
        j->status = 1;
    j->pid = 0;
}

bool tui_job_pump(tui_job *j)
{
    char buf[4096];
    if (j->done)
        return true;
    while (j->fd >= 0) {
        ssize_t k = read(j->fd, buf, sizeof buf);
        if (k > 0) {
            strbuf_add(&j->got, buf, (size_t)k);
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return false;
        close(j->fd);
        j->fd = -1;
    }
    reap(j, true);
    j->out = strbuf_take(&j->got);
    j->done = true;
    return true;
}

#define TREE_MAX 256

/* The parent of process pid, from /proc; -1 when unknown. */
static pid_t parent_of(pid_t pid)
{
    char path[64], buf[512], *p;
    FILE *f;
    long pp = -1;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (!(f = fopen(path, "r")))
        return -1;
    if (fgets(buf, sizeof buf, f) && (p = strrchr(buf, ')')) != NULL)
        sscanf(p + 1, " %*c %ld", &pp);
    fclose(f);
    return (pid_t)pp;
}

/* pid and every process below it (the tools a job starts may put
 * themselves in process groups of their own); returns how many. */
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

void tui_job_cancel(tui_job *j)
{
    if (j->pid > 0) {
        pid_t tree[TREE_MAX];
        size_t n = tree_of(j->pid, tree, TREE_MAX);
        pid_t own = getpgrp();
        for (size_t i = 0; i < n; i++) {
            pid_t g = getpgid(tree[i]);
            if (g > 0 && g != own)
                kill(-g, SIGKILL);
            kill(tree[i], SIGKILL);
        }
        reap(j, true);
    }
    if (j->fd >= 0)
        close(j->fd);
    j->fd = -1;
    j->done = true;
}

void tui_job_clear(tui_job *j)
{
    tui_job_cancel(j);
    strbuf_free(&j->got);
    free(j->out);
    tui_job_init(j);
}

bool tui_job_write(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        s += k;
        n -= (size_t)k;
    }
    return true;
}

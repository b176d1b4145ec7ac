#include "tui/tui_job.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/spawn.h"

#define CHILD_FD 3

void tui_job_init(tui_job *j)
{
    memset(j, 0, sizeof *j);
    strbuf_init(&j->got, TUI_JOB_OUT_MAX);
    j->fd = -1;
}

bool tui_job_start(tui_job *j, tui_job_fn fn, void *ud, cl_err *e)
{
    tui_job_clear(j);
    spawn_opts o = {.fn = fn, .ud = ud, .what = "a background job", .extra_fd = CHILD_FD,
                    .own_group = true};
    spawn_child c;
    if (!spawn_start(&o, &c, e))
        return false;
    j->pid = c.pid;
    j->fd = c.extra;
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
    r = spawn_wait(j->pid, block, &st);
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
        ssize_t k = spawn_read(j->fd, buf, sizeof buf);
        if (k > 0) {
            strbuf_add(&j->got, buf, (size_t)k);
            continue;
        }
        if (k == 0)
            return false;
        close(j->fd);
        j->fd = -1;
    }
    reap(j, true);
    j->out = strbuf_take(&j->got);
    j->done = true;
    return true;
}

void tui_job_cancel(tui_job *j)
{
    if (j->pid > 0) {
        spawn_kill_tree(j->pid);
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
    return spawn_write_all(fd, s, strlen(s));
}

#include "tui/tui_job.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/spawn.h"

#define CHILD_FD 3

void tui_job_init(tui_job *job)
{
    memset(job, 0, sizeof *job);
    strbuf_init(&job->got, TUI_JOB_OUT_MAX);
    job->fd = -1;
}

bool tui_job_start(tui_job *job, tui_job_fn fn, void *ud, cl_err *err)
{
    tui_job_clear(job);
    spawn_opts o = {.fn = fn, .ud = ud, .what = "a background job", .extra_fd = CHILD_FD,
                    .own_group = true};
    spawn_child c;
    if (!spawn_start(&o, &c, err))
        return false;
    job->pid = c.pid;
    job->fd = c.extra;
    job->done = false;
    return true;
}

bool tui_job_active(const tui_job *job)
{
    return job->pid > 0 || job->fd >= 0;
}

int tui_job_fd(const tui_job *job)
{
    return job->fd;
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

bool tui_job_pump(tui_job *job)
{
    char buf[4096];
    if (job->done)
        return true;
    while (job->fd >= 0) {
        ssize_t k = spawn_read(job->fd, buf, sizeof buf);
        if (k > 0) {
            strbuf_add(&job->got, buf, (size_t)k);
            continue;
        }
        if (k == 0)
            return false;
        close(job->fd);
        job->fd = -1;
    }
    reap(job, true);
    job->out = strbuf_take(&job->got);
    job->done = true;
    return true;
}

void tui_job_cancel(tui_job *job)
{
    if (job->pid > 0) {
        spawn_kill_tree(job->pid);
        reap(job, true);
    }
    if (job->fd >= 0)
        close(job->fd);
    job->fd = -1;
    job->done = true;
}

void tui_job_clear(tui_job *job)
{
    tui_job_cancel(job);
    strbuf_free(&job->got);
    free(job->out);
    tui_job_init(job);
}

bool tui_job_write(int fd, const char *text)
{
    return spawn_write_all(fd, text, strlen(text));
}

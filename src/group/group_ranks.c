/* group_ranks.c - the ranks' processes: starting them, reading their
 * lines, answering their exchanges, noticing a death or a silence, and
 * ending every one of them. */
#include "group/group_internal.h"

#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/paths.h"
#include "core/strfmt.h"
#include "proto/protocol.h"

#define LINE_CAP PROTO_LINE_MAX
#define GRACE_S 1.0                   /* after a first failure: time for the cause to show */

typedef struct serve {
    group_rank *r;
    int n;
    group_rows rows;
    group_stop *stop;
    const group_sink *sink;
    double last;                      /* when any rank last said something */
    double stall_s;
    double ending_at;                 /* 0, or when to stop after a first failure */
    rankmsg msg;
} serve;

static bool start_rank(const run_request *req, int k, int n, group_rank *r, cl_err *e)
{
    char self[PATH_MAX], rk[16], nk[16];
    if (!paths_self_exe(self, sizeof self, e))
        return false;
    snprintf(rk, sizeof rk, "%d", k);
    snprintf(nk, sizeof nk, "%d", n);
    const char *argv[] = {self, "worker", "--rank", rk, "--ranks", nk, NULL};
    const char *env[] = {"NCCL_NVLS_ENABLE=0", NULL};
    spawn_opts o = {.argv = argv, .what = "a multigpu rank", .in = SPAWN_PIPE,
                    .out = SPAWN_PIPE, .err = SPAWN_TO_OUT, .extra_fd = PROTO_FD,
                    .own_group = false, .env = env};
    if (!(r->line = malloc(LINE_CAP + 1)))
        return err_set(e, "out of memory");
    if (!spawn_start(&o, &r->ch, e))
        return false;
    r->pidfd = spawn_pidfd(r->ch.pid);
    static proto_msg m;
    m.type = MSG_RUN;
    m.u.run = *req;
    char *text = proto_encode(&m);
    bool ok = text && spawn_write_all(r->ch.in, text, strlen(text));
    free(text);
    return ok || err_set(e, "cannot hand the request to rank %d", k);
}

/* Every rank's part is in: the same tag from all, handed back to all. */
static void answer_exchange(serve *s)
{
    for (int k = 0; k < s->n; k++)
        if (!s->r[k].waiting)
            return;
    rankmsg *m = &s->msg;
    memset(m, 0, sizeof *m);
    m->type = RMSG_ALL;
    m->nall = s->n;
    strfmt_copy(m->tag, sizeof m->tag, s->r[0].tag);
    for (int k = 0; k < s->n; k++) {
        if (strcmp(s->r[k].tag, s->r[0].tag) != 0) {
            group_fault_note(s->stop, k, "protocol", "reached exchange %s while GPU 0 reached %s",
                             s->r[k].tag, s->r[0].tag);
            return;
        }
        m->all[k] = s->r[k].blob;
        s->r[k].waiting = false;
    }
    char *text = rankmsg_encode(m);
    for (int k = 0; text && k < s->n; k++)
        if (s->r[k].ch.in >= 0 && !spawn_write_all(s->r[k].ch.in, text, strlen(text))) {
            /* most often it has just died: its exit, seen within the
             * grace, says more than the broken pipe (judge) */
            s->r[k].deaf = true;
            if (s->ending_at == 0.0)
                s->ending_at = clock_now_s() + GRACE_S;
        }
    free(text);
}

static void forward_log(serve *s, int k, int level, const char *text)
{
    char line[1100];
    snprintf(line, sizeof line, "GPU %d: %s", k, text);
    if (s->sink->log)
        s->sink->log(s->sink->ud, level, line);
}

static void on_message(serve *s, int k, const rankmsg *m)
{
    group_rank *r = &s->r[k];
    cl_err e = {{0}};
    switch (m->type) {
    case RMSG_GATHER:
        if (r->waiting) {
            group_fault_note(s->stop, k, "protocol", "began an exchange inside another");
            return;
        }
        r->waiting = true;
        strfmt_copy(r->tag, sizeof r->tag, m->tag);
        r->blob = m->blob;
        answer_exchange(s);
        return;
    case RMSG_ROW:
        if (!group_rows_add(&s->rows, k, &m->u.row, m->of, &e))
            group_fault_note(s->stop, k, "protocol", "broke the rules of rows: %s", e.msg);
        return;
    case RMSG_PROGRESS:
        strfmt_copy(r->variant, sizeof r->variant, m->u.progress.variant);
        strfmt_copy(r->size, sizeof r->size, m->u.progress.size);
        strfmt_copy(r->phase, sizeof r->phase, m->u.progress.phase);
        if (k == 0 && s->sink->progress)
            s->sink->progress(s->sink->ud, &m->u.progress);
        return;
    case RMSG_LOG:
        forward_log(s, k, m->level, m->text);
        return;
    case RMSG_FAIL:
        r->failed = true;
        strfmt_copy(r->fail, sizeof r->fail, m->text);
        if (s->ending_at == 0.0)
            s->ending_at = clock_now_s() + GRACE_S;
        return;
    default:
        group_fault_note(s->stop, k, "protocol", "sent a message a rank may not send");
        return;
    }
}

/* Reads rank k's protocol lines. */
static void read_lines(serve *s, int k)
{
    group_rank *r = &s->r[k];
    cl_err e = {{0}};
    while (r->ch.extra >= 0) {
        ssize_t got = spawn_read(r->ch.extra, r->line + r->line_len, LINE_CAP - r->line_len);
        if (got < 0) {
            close(r->ch.extra);
            r->ch.extra = -1;
        }
        if (got <= 0)
            return;
        r->line_len += (size_t)got;
        s->last = clock_now_s();
        char *nl;
        while ((nl = memchr(r->line, '\n', r->line_len)) != NULL) {
            *nl = '\0';
            if (!rankmsg_decode(r->line, &s->msg, &e))
                group_fault_note(s->stop, k, "protocol", "sent a bad message: %s", e.msg);
            else
                on_message(s, k, &s->msg);
            size_t used = (size_t)(nl - r->line) + 1;
            memmove(r->line, r->line + used, r->line_len - used);
            r->line_len -= used;
        }
        if (r->line_len == LINE_CAP)
            group_fault_note(s->stop, k, "protocol", "sent a line longer than %d bytes", LINE_CAP);
    }
}

/* Keeps the end of what rank k prints (NCCL's warnings, device printf). */
static void read_output(group_rank *r)
{
    char buf[4096];
    while (r->ch.out >= 0) {
        ssize_t got = spawn_read(r->ch.out, buf, sizeof buf);
        if (got < 0) {
            close(r->ch.out);
            r->ch.out = -1;
        }
        if (got <= 0)
            return;
        size_t n = (size_t)got > GROUP_TAIL ? GROUP_TAIL : (size_t)got;
        if (r->tail_len + n > GROUP_TAIL) {
            size_t drop = r->tail_len + n - GROUP_TAIL;
            memmove(r->tail, r->tail + drop, r->tail_len - drop);
            r->tail_len -= drop;
        }
        memcpy(r->tail + r->tail_len, buf + (size_t)got - n, n);
        r->tail_len += n;
    }
}

/* Notices rank k's exit; one that was not clean starts the group's end. */
static void reap(serve *s, int k)
{
    group_rank *r = &s->r[k];
    if (r->exited || r->ch.pid <= 0 || spawn_wait(r->ch.pid, false, &r->status) <= 0)
        return;
    r->exited = true;
    read_lines(s, k);
    read_output(r);
    if (r->status != 0 && s->ending_at == 0.0)
        s->ending_at = clock_now_s() + GRACE_S;
}

/* After a first failure: the rank that died on its own is the cause (the
 * others' errors follow from it), else the first that reported one. */
static void judge(serve *s)
{
    char words[128];
    for (int k = 0; k < s->n; k++) {
        const group_rank *r = &s->r[k];
        if (r->exited && r->status != 0 && !r->failed) {
            group_fault_exit_words(r->status, words, sizeof words);
            group_fault_note(s->stop, k, WIFSIGNALED(r->status) ? "signal" : "exit", "%s", words);
        }
    }
    for (int k = 0; k < s->n; k++)
        if (s->r[k].failed)
            group_fault_note(s->stop, k, "rank", "failed: %s", s->r[k].fail);
    for (int k = 0; k < s->n; k++)
        if (s->r[k].deaf)
            group_fault_note(s->stop, k, "exit", "stopped reading from the coordinator");
}

/* No rank said anything for too long: the one the others wait for at an
 * exchange is hung; when all are silent, none can be singled out. */
static void check_stall(serve *s)
{
    double quiet = clock_now_s() - s->last;
    if (quiet < s->stall_s)
        return;
    int waiting = 0;
    for (int k = 0; k < s->n; k++)
        waiting += s->r[k].waiting;
    for (int k = 0; waiting > 0 && k < s->n; k++)
        if (!s->r[k].waiting && !s->r[k].exited)
            group_fault_note(s->stop, k, "timeout",
                             "stopped answering for %.0f s while the others waited for it", quiet);
    group_fault_note(s->stop, -1, "timeout",
                     "no GPU of the group answered for %.0f s (GPU 0 was in %s at %s, %s)", quiet,
                     s->r[0].variant[0] ? s->r[0].variant : "its start", s->r[0].size,
                     s->r[0].phase);
}

static void poll_once(serve *s)
{
    struct pollfd fds[3 * RANKMSG_MAX_RANKS];
    nfds_t nf = 0;
    for (int k = 0; k < s->n; k++) {
        const group_rank *r = &s->r[k];
        int list[3] = {r->ch.extra, r->ch.out, r->exited ? -1 : r->pidfd};
        for (int i = 0; i < 3; i++)
            if (list[i] >= 0)
                fds[nf++] = (struct pollfd){.fd = list[i], .events = POLLIN};
    }
    (void)poll(fds, nf, 100);
    for (int k = 0; k < s->n; k++) {
        read_lines(s, k);
        read_output(&s->r[k]);
        reap(s, k);
    }
    if (s->ending_at > 0.0 && clock_now_s() >= s->ending_at)
        judge(s);
    check_stall(s);
}

static bool all_exited(const serve *s)
{
    for (int k = 0; k < s->n; k++)
        if (!s->r[k].exited)
            return false;
    return true;
}

/* Kills every rank still running and waits for each: none outlives the
 * group. */
static void end_all(serve *s)
{
    for (int k = 0; k < s->n; k++)
        if (!s->r[k].exited && s->r[k].ch.pid > 0)
            spawn_kill(s->r[k].ch.pid, false);
    for (int k = 0; k < s->n; k++) {
        group_rank *r = &s->r[k];
        if (!r->exited && r->ch.pid > 0 && spawn_wait(r->ch.pid, true, &r->status) > 0)
            r->exited = true;
        read_output(r);
        spawn_close(&r->ch);
        if (r->pidfd >= 0)
            close(r->pidfd);
        r->pidfd = -1;
        free(r->line);
        r->line = NULL;
    }
}

/* The lab's all-reduces the request asks for (every one when it names none). */
static int count_allreduces(const run_request *req)
{
    int n = 0;
    for (int i = 0; i < req->nvariants; i++)
        n += strncmp(req->variants[i].id, "ar_", 3) == 0;
    return req->nvariants == 0 ? 3 : n;
}

void group_ranks_serve(const run_request *req, int nranks, const group_sink *sink,
                       group_stop *stop, group_rank *ranks)
{
    static serve s;
    memset(&s, 0, sizeof s);
    s.r = ranks;
    s.n = nranks;
    s.stop = stop;
    s.sink = sink;
    s.last = clock_now_s();
    const char *st = getenv(GROUP_STALL_ENV);
    s.stall_s = st && atof(st) > 0 ? atof(st) : GROUP_STALL_S;
    group_rows_init(&s.rows, nranks, count_allreduces(req), sink);
    for (int k = 0; k < nranks; k++)
        ranks[k].pidfd = -1;
    for (int k = 0; k < nranks && !stop->stopped; k++) {
        cl_err e = {{0}};
        if (!start_rank(req, k, nranks, &ranks[k], &e))
            group_fault_note(stop, k, "exit", "could not start: %s", e.msg);
    }
    while (!stop->stopped && !all_exited(&s))
        poll_once(&s);
    if (!stop->stopped && s.ending_at > 0.0)
        judge(&s);   /* every rank ended, one of them badly */
    end_all(&s);
}

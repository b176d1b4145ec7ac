#include "supervise/sanitize.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/atomicfile.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "core/which.h"
#include "core/paths.h"
#include "proto/protocol.h"
#include "catalog/problem_spec.h"

#define OUTPUT_MAX ((size_t)64 << 10)
#define LOG_MAX ((size_t)16 << 20)


/* ---- the size to run ---------------------------------------------------------- */

int sanitize_smallest_size(const problem_spec *ops, const char *const *sizes, int n, cl_err *e)
{
    if (!ops) {
        err_set(e, "unknown problem");
        return -1;
    }
    int best = -1;
    double best_w = 0.0;
    cl_err first = {{0}};
    for (int i = 0; i < n; i++) {
        problem_dims d;
        cl_err pe = {{0}};
        if (!problem_parse_size(ops, sizes[i], &d, &pe)) {
            if (!first.msg[0])
                first = pe;
            continue;
        }
        double w = problem_spec_bytes(ops, &d);
        if (best < 0 || w < best_w) {
            best = i;
            best_w = w;
        }
    }
    if (best < 0) {
        if (first.msg[0])
            err_set(e, "%s", first.msg);
        else
            err_set(e, "no size to run");
    }
    return best;
}

/* ---- running the tool ----------------------------------------------------------- */

/* One stream from the child: bytes are split into lines; lines that decode
 * as protocol messages are handled, the rest kept as output. */
typedef struct stream {
    int fd;
    char line[PROTO_LINE_MAX + 1];
    size_t len;
    bool overflow;
} stream;

typedef struct run_state {
    sanitize_result *out;
    strbuf output, logs;
    bool done;
    proto_msg msg;
} run_state;

static void handle_line(run_state *st, const char *line)
{
    cl_err e = {{0}};
    if (line[0] == '{' && proto_decode(line, &st->msg, &e)) {
        const proto_msg *m = &st->msg;
        sanitize_result *out = st->out;
        switch (m->type) {
        case MSG_HELLO:
            out->have_dev = true;
            out->dev = m->u.hello;
            return;
        case MSG_RESULT:
            if (m->u.result.kind == RK_EXERCISE) {
                out->have_row = true;
                out->row = m->u.result;
            }
            return;
        case MSG_LOG:
            strbuf_printf(&st->logs, "%s\n", m->u.log.msg);
            return;
        case MSG_FAULT:
            out->faulted = true;
            out->fault = m->u.fault;
            return;
        case MSG_DONE:
            st->done = true;
            return;
        default:
            return;
        }
    }
    strbuf_printf(&st->output, "%s\n", line);
}

/* Reads what is there; false at end of file. */
static bool pump(run_state *st, stream *s)
{
    char buf[4096];
    ssize_t n = spawn_read(s->fd, buf, sizeof buf);
    if (n == 0)
        return true;
    if (n < 0) {
        if (s->len > 0) {
            s->line[s->len] = '\0';
            handle_line(st, s->line);
            s->len = 0;
        }
        return false;
    }
    for (ssize_t i = 0; i < n; i++) {
        if (buf[i] == '\n') {
            s->line[s->len] = '\0';
            if (!s->overflow)
                handle_line(st, s->line);
            s->len = 0;
            s->overflow = false;
        } else if (s->len < PROTO_LINE_MAX) {
            s->line[s->len++] = buf[i];
        } else {
            s->overflow = true;
        }
    }
    return true;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* The request line and a quit line. */
static char *request_text(const sanitize_opts *o, const char *size)
{
    proto_msg *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->type = MSG_RUN;
    run_request *r = &m->u.run;
    r->run = 1;
    snprintf(r->lab, sizeof r->lab, "%s", o->lab ? o->lab : "");
    snprintf(r->problem, sizeof r->problem, "%s", o->problem);
    snprintf(r->lab_file, sizeof r->lab_file, "%s", o->lab_file ? o->lab_file : "");
    snprintf(r->sizes[0], sizeof r->sizes[0], "%s", size);
    r->nsizes = 1;
    r->seed = o->seed;
    r->cpu = false;
    r->check_only = true;
    snprintf(r->exercise_kernel, sizeof r->exercise_kernel, "%s", o->kernel);
    snprintf(r->exercise_launcher, sizeof r->exercise_launcher, "%s", o->launcher);
    char *line = proto_encode(m);
    free(m);
    if (!line)
        return NULL;
    char *quit = proto_encode_quit();
    if (!quit) {
        free(line);
        return NULL;
    }
    strbuf all = STRBUF_INIT;
    strbuf_printf(&all, "%s%s", line, quit);
    free(line);
    free(quit);
    return strbuf_take(&all);
}

/* An absolute path for p (relative to the current folder). */
static void absolute(const char *p, char *out, size_t n)
{
    char cwd[1024];
    if (p[0] == '/' || !getcwd(cwd, sizeof cwd))
        snprintf(out, n, "%s", p);
    else
        snprintf(out, n, "%s/%s", cwd, p);
}

bool sanitize_run(const sanitize_opts *o, sanitize_result *out, cl_err *e)
{
    memset(out, 0, sizeof *out);
    out->exit_status = -1;
    out->report.errors = out->report.warnings = -1;
    bool ok = false;
    char dir[512] = "", log_path[600] = "";
    char *request = NULL;
    spawn_child child = {.pid = 0, .in = -1, .out = -1, .err = -1, .extra = -1};
    run_state *st = calloc(1, sizeof *st);
    stream *s_out = calloc(1, sizeof *s_out), *s_proto = calloc(1, sizeof *s_proto);
    if (!st || !s_out || !s_proto) {
        err_set(e, "out of memory");
        goto cleanup;
    }
    s_out->fd = s_proto->fd = -1;
    st->out = out;
    strbuf_init(&st->output, OUTPUT_MAX);
    strbuf_init(&st->logs, OUTPUT_MAX);

    if (o->sanitizer && o->sanitizer[0]) {
        snprintf(out->tool_path, sizeof out->tool_path, "%s", o->sanitizer);
    } else if (!which_tool("compute-sanitizer", out->tool_path, sizeof out->tool_path)) {
        err_set(e, "compute-sanitizer was not found: it comes with the CUDA toolkit (its bin "
                   "folder, e.g. /usr/local/cuda/bin); install the toolkit (or its "
                   "cuda-sanitizer package), or put that folder on PATH or set CUDA_HOME");
        goto cleanup;
    }
    if (!o->kernel || !o->kernel[0] || !o->launcher || !o->launcher[0]) {
        err_set(e, "no exercise to check: the kernel and launcher files are needed");
        goto cleanup;
    }
    const problem_spec *spec = o->spec ? o->spec : problem_spec_of_exercise(o->problem);
    if (!spec) {
        err_set(e, "unknown problem '%s'", o->problem ? o->problem : "");
        goto cleanup;
    }
    int pick = sanitize_smallest_size(spec, o->sizes, o->nsizes, e);
    if (pick < 0)
        goto cleanup;
    snprintf(out->size, sizeof out->size, "%s", o->sizes[pick]);

    char self[CL_PATH_MAX];
    if (o->self && o->self[0]) {
        snprintf(self, sizeof self, "%s", o->self);
    } else if (!paths_self_exe(self, sizeof self, e)) {
        err_prefix(e, "cannot find the cudalab executable");
        goto cleanup;
    }
    char kernel[1024], launcher[1024];
    absolute(o->kernel, kernel, sizeof kernel);
    absolute(o->launcher, launcher, sizeof launcher);
    sanitize_opts ro = *o;
    ro.kernel = kernel;
    ro.launcher = launcher;
    request = request_text(&ro, out->size);
    if (!request) {
        err_set(e, "out of memory");
        goto cleanup;
    }

    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/cudalab-sanitizer-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        err_set(e, "cannot make a folder for the tool's log in %s: %s", tmp && tmp[0] ? tmp : "/tmp",
                strerror(errno));
        dir[0] = '\0';
        goto cleanup;
    }
    snprintf(log_path, sizeof log_path, "%s/%s.log", dir, sanitize_tool_name(o->tool));

    const char *argv[16];
    int a = 0;
    char limit[16];
    snprintf(limit, sizeof limit, "%d", SANITIZE_PRINT_LIMIT);
    argv[a++] = out->tool_path;
    argv[a++] = "--tool";
    argv[a++] = sanitize_tool_name(o->tool);
    argv[a++] = "--log-file";
    argv[a++] = log_path;
    argv[a++] = "--print-limit";
    argv[a++] = limit;
    if (o->tool == SANITIZE_RACECHECK) {
        argv[a++] = "--racecheck-report";
        argv[a++] = "all";
    }
    argv[a++] = self;
    argv[a++] = "worker";
    argv[a] = NULL;

    static const char *const no_peak[] = {PROTO_NO_PEAK_ENV "=1", PROTO_UNDER_SANITIZER_ENV "=1",
                                          NULL};
    spawn_opts so = {.argv = argv, .in = SPAWN_PIPE, .out = SPAWN_PIPE, .err = SPAWN_TO_OUT,
                     .extra_fd = PROTO_FD, .own_group = true, .env = no_peak};
    if (!spawn_start(&so, &child, e))
        goto cleanup;
    spawn_write_all(child.in, request, strlen(request));
    close_fd(&child.in);   /* the worker reads the request, then the end */

    double limit_s = o->time_limit_s > 0 ? o->time_limit_s : SANITIZE_DEFAULT_LIMIT_S;
    double deadline = clock_now_s() + limit_s;
    s_out->fd = child.out;
    s_proto->fd = child.extra;
    child.out = child.extra = -1;
    bool timed_out = false;
    while (s_out->fd >= 0 || s_proto->fd >= 0) {
        double left = deadline - clock_now_s();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd pf[2];
        int np = 0;
        if (s_out->fd >= 0)
            pf[np++] = (struct pollfd){.fd = s_out->fd, .events = POLLIN};
        if (s_proto->fd >= 0)
            pf[np++] = (struct pollfd){.fd = s_proto->fd, .events = POLLIN};
        int wait_ms = left > 1.0 ? 1000 : (int)(left * 1000.0) + 1;
        int r = poll(pf, (nfds_t)np, wait_ms);
        if (r < 0 && errno != EINTR) {
            err_set(e, "poll: %s", strerror(errno));
            goto cleanup;
        }
        for (int i = 0; i < np && r > 0; i++) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            stream *s = pf[i].fd == s_out->fd ? s_out : s_proto;
            if (!pump(st, s))
                close_fd(&s->fd);
        }
    }
    int status = 0;
    if (timed_out)
        spawn_kill(child.pid, true);
    pid_t w = spawn_wait(child.pid, true, &status);
    child.pid = 0;
    if (w > 0 && WIFEXITED(status))
        out->exit_status = WEXITSTATUS(status);

    if (timed_out && !out->faulted) {
        out->faulted = true;
        snprintf(out->fault.cause, sizeof out->fault.cause, "timeout");
        snprintf(out->fault.variant, sizeof out->fault.variant, "exercise");
        snprintf(out->fault.message, sizeof out->fault.message,
                 "the run under %s did not finish within %.0f s", sanitize_tool_name(o->tool),
                 limit_s);
    } else if (!st->done && !out->faulted) {
        out->faulted = true;
        snprintf(out->fault.variant, sizeof out->fault.variant, "exercise");
        if (w > 0 && WIFSIGNALED(status)) {
            snprintf(out->fault.cause, sizeof out->fault.cause, "signal");
            snprintf(out->fault.message, sizeof out->fault.message,
                     "the worker under %s was killed by signal %d", sanitize_tool_name(o->tool),
                     WTERMSIG(status));
        } else {
            snprintf(out->fault.cause, sizeof out->fault.cause, "exit");
            snprintf(out->fault.message, sizeof out->fault.message,
                     "the worker under %s stopped before finishing (exit status %d)%s",
                     sanitize_tool_name(o->tool), out->exit_status,
                     st->out->have_dev ? "" : ": it never said hello (see the tool's output)");
        }
    }

    size_t llen = 0;
    out->log = file_read_all(log_path, LOG_MAX, &llen, NULL);
    if (!out->log)
        out->log = strdup("");
    if (!out->log || !sanitize_parse_log(out->log, &out->report)) {
        err_set(e, "out of memory reading the tool's log");
        goto cleanup;
    }
    ok = true;

cleanup:
    if (child.pid > 0) {
        spawn_kill(child.pid, true);
        spawn_wait(child.pid, true, NULL);
    }
    spawn_close(&child);
    if (s_out)
        close_fd(&s_out->fd);
    if (s_proto)
        close_fd(&s_proto->fd);
    if (st) {
        out->output = strbuf_take(&st->output);
        out->worker_log = strbuf_take(&st->logs);
    }
    if (log_path[0])
        unlink(log_path);
    if (dir[0])
        rmdir(dir);
    free(request);
    free(st);
    free(s_out);
    free(s_proto);
    return ok;
}

void sanitize_result_free(sanitize_result *r)
{
    if (!r)
        return;
    sanitize_report_free(&r->report);
    free(r->log);
    free(r->output);
    free(r->worker_log);
    r->log = r->output = r->worker_log = NULL;
}

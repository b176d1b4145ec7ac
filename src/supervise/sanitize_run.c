/* sanitize_run.c - the exercise run once under compute-sanitizer
 * (sanitize.h): the smallest size picked, the tool started on `cudalab
 * worker` with one check-only request, what it prints and the worker's
 * messages read until the end or the time limit, and the tool's log
 * parsed. */
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

int sanitize_smallest_size(const problem_spec *ops, const char *const *sizes, int nsizes,
                           cl_err *err)
{
    if (!ops) {
        err_set(err, "unknown problem");
        return -1;
    }
    int best = -1;
    double best_w = 0.0;
    cl_err first = {{0}};
    for (int i = 0; i < nsizes; i++) {
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
            err_set(err, "%s", first.msg);
        else
            err_set(err, "no size to run");
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

/* One run of the tool: what sanitize_run makes, and cleans up at the end. */
typedef struct san_job {
    run_state *st;
    stream *s_out, *s_proto;
    spawn_child child;
    char dir[512], log_path[600];     /* the tool's log, in a folder of its own */
    char self[CL_PATH_MAX];           /* the cudalab executable the tool starts */
    char *request;                    /* the request line and a quit line */
} san_job;

bool sanitize_tool_path(const char *given, char *out, size_t n, cl_err *e)
{
    if (given && given[0]) {
        snprintf(out, n, "%s", given);
        return true;
    }
    if (which_tool("compute-sanitizer", out, n))
        return true;
    return err_set(e, "compute-sanitizer was not found: it comes with the CUDA toolkit (its bin "
                      "folder, e.g. /usr/local/cuda/bin); install the toolkit (or its "
                      "cuda-sanitizer package), or put that folder on PATH or set CUDA_HOME");
}

/* The tool's path into out (sanitize_tool_path). */
static bool find_tool(const sanitize_opts *o, sanitize_result *out, cl_err *e)
{
    return sanitize_tool_path(o->sanitizer, out->tool_path, sizeof out->tool_path, e);
}

/* The request for the exercise at the smallest of o's sizes (its label
 * into out->size), naming the learner's files by absolute paths, and the
 * executable the tool starts; false + e when there is no exercise, no size
 * parses or this executable cannot be found. */
static bool prepare(const sanitize_opts *o, sanitize_result *out, san_job *j, cl_err *e)
{
    if (!o->kernel || !o->kernel[0] || !o->launcher || !o->launcher[0])
        return err_set(e, "no exercise to check: the kernel and launcher files are needed");
    const problem_spec *spec = o->spec ? o->spec : problem_spec_of_exercise(o->problem);
    if (!spec)
        return err_set(e, "unknown problem '%s'", o->problem ? o->problem : "");
    int pick = sanitize_smallest_size(spec, o->sizes, o->nsizes, e);
    if (pick < 0)
        return false;
    snprintf(out->size, sizeof out->size, "%s", o->sizes[pick]);

    if (o->self && o->self[0]) {
        snprintf(j->self, sizeof j->self, "%s", o->self);
    } else if (!paths_self_exe(j->self, sizeof j->self, e)) {
        err_prefix(e, "cannot find the cudalab executable");
        return false;
    }
    char kernel[1024], launcher[1024];
    absolute(o->kernel, kernel, sizeof kernel);
    absolute(o->launcher, launcher, sizeof launcher);
    sanitize_opts ro = *o;
    ro.kernel = kernel;
    ro.launcher = launcher;
    j->request = request_text(&ro, out->size);
    if (!j->request)
        return err_set(e, "out of memory");
    return true;
}

/* A folder of its own under $TMPDIR (else /tmp) for the tool's log, and
 * the log's path in it. */
static bool make_log_dir(sanitize_tool tool, san_job *j, cl_err *e)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(j->dir, sizeof j->dir, "%s/cudalab-sanitizer-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(j->dir)) {
        err_set(e, "cannot make a folder for the tool's log in %s: %s", tmp && tmp[0] ? tmp : "/tmp",
                strerror(errno));
        j->dir[0] = '\0';
        return false;
    }
    snprintf(j->log_path, sizeof j->log_path, "%s/%s.log", j->dir, sanitize_tool_name(tool));
    return true;
}

/* Starts the tool on `cudalab worker` (no peak measuring, told it runs
 * under the tool) and hands the worker the request, then the end of its
 * input. */
static bool start_tool(const sanitize_opts *o, sanitize_result *out, san_job *j, cl_err *e)
{
    const char *argv[16];
    int a = 0;
    char limit[16];
    snprintf(limit, sizeof limit, "%d", SANITIZE_PRINT_LIMIT);
    argv[a++] = out->tool_path;
    argv[a++] = "--tool";
    argv[a++] = sanitize_tool_name(o->tool);
    argv[a++] = "--log-file";
    argv[a++] = j->log_path;
    argv[a++] = "--print-limit";
    argv[a++] = limit;
    if (o->tool == SANITIZE_RACECHECK) {
        argv[a++] = "--racecheck-report";
        argv[a++] = "all";
    }
    argv[a++] = j->self;
    argv[a++] = "worker";
    argv[a] = NULL;

    static const char *const no_peak[] = {PROTO_NO_PEAK_ENV "=1", PROTO_UNDER_SANITIZER_ENV "=1",
                                          NULL};
    spawn_opts so = {.argv = argv, .in = SPAWN_PIPE, .out = SPAWN_PIPE, .err = SPAWN_TO_OUT,
                     .extra_fd = PROTO_FD, .own_group = true, .env = no_peak};
    if (!spawn_start(&so, &j->child, e))
        return false;
    spawn_write_all(j->child.in, j->request, strlen(j->request));
    close_fd(&j->child.in);   /* the worker reads the request, then the end */
    return true;
}

/* Reads what the tool prints and the worker's messages until both end, or
 * until deadline (*timed_out).  false + e when poll fails. */
static bool read_until_end(san_job *j, double deadline, bool *timed_out, cl_err *e)
{
    stream *s_out = j->s_out, *s_proto = j->s_proto;
    s_out->fd = j->child.out;
    s_proto->fd = j->child.extra;
    j->child.out = j->child.extra = -1;
    *timed_out = false;
    while (s_out->fd >= 0 || s_proto->fd >= 0) {
        double left = deadline - clock_now_s();
        if (left <= 0) {
            *timed_out = true;
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
        if (r < 0 && errno != EINTR)
            return err_set(e, "poll: %s", strerror(errno));
        for (int i = 0; i < np && r > 0; i++) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            stream *s = pf[i].fd == s_out->fd ? s_out : s_proto;
            if (!pump(j->st, s))
                close_fd(&s->fd);
        }
    }
    return true;
}

/* Waits for the tool (killed first when it ran out of time), keeps its
 * exit status, and when the worker never said done, makes the fault that
 * says why: the time limit, a signal or an early exit. */
static void wait_tool(const sanitize_opts *o, sanitize_result *out, san_job *j, bool timed_out,
                      double limit_s)
{
    int status = 0;
    if (timed_out)
        spawn_kill(j->child.pid, true);
    pid_t w = spawn_wait(j->child.pid, true, &status);
    j->child.pid = 0;
    if (w > 0 && WIFEXITED(status))
        out->exit_status = WEXITSTATUS(status);

    if (timed_out && !out->faulted) {
        out->faulted = true;
        snprintf(out->fault.cause, sizeof out->fault.cause, "timeout");
        snprintf(out->fault.variant, sizeof out->fault.variant, "exercise");
        snprintf(out->fault.message, sizeof out->fault.message,
                 "the run under %s did not finish within %.0f s", sanitize_tool_name(o->tool),
                 limit_s);
    } else if (!j->st->done && !out->faulted) {
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
                     out->have_dev ? "" : ": it never said hello (see the tool's output)");
        }
    }
}

/* Stops what still runs, keeps what was printed in out, removes the log
 * and its folder, and frees the job. */
static void job_end(san_job *j, sanitize_result *out)
{
    if (j->child.pid > 0) {
        spawn_kill(j->child.pid, true);
        spawn_wait(j->child.pid, true, NULL);
    }
    spawn_close(&j->child);
    if (j->s_out)
        close_fd(&j->s_out->fd);
    if (j->s_proto)
        close_fd(&j->s_proto->fd);
    if (j->st) {
        out->output = strbuf_take(&j->st->output);
        out->worker_log = strbuf_take(&j->st->logs);
    }
    if (j->log_path[0])
        unlink(j->log_path);
    if (j->dir[0])
        rmdir(j->dir);
    free(j->request);
    free(j->st);
    free(j->s_out);
    free(j->s_proto);
}

bool sanitize_run(const sanitize_opts *opts, sanitize_result *out, cl_err *err)
{
    memset(out, 0, sizeof *out);
    out->exit_status = -1;
    out->report.errors = out->report.warnings = -1;
    bool ok = false, timed_out = false;
    san_job j = {.child = {.pid = 0, .in = -1, .out = -1, .err = -1, .extra = -1}};
    j.st = calloc(1, sizeof *j.st);
    j.s_out = calloc(1, sizeof *j.s_out);
    j.s_proto = calloc(1, sizeof *j.s_proto);
    if (!j.st || !j.s_out || !j.s_proto) {
        err_set(err, "out of memory");
        goto cleanup;
    }
    j.s_out->fd = j.s_proto->fd = -1;
    j.st->out = out;
    strbuf_init(&j.st->output, OUTPUT_MAX);
    strbuf_init(&j.st->logs, OUTPUT_MAX);

    if (!find_tool(opts, out, err) || !prepare(opts, out, &j, err) ||
        !make_log_dir(opts->tool, &j, err) || !start_tool(opts, out, &j, err))
        goto cleanup;
    double limit_s = opts->time_limit_s > 0 ? opts->time_limit_s : SANITIZE_DEFAULT_LIMIT_S;
    if (!read_until_end(&j, clock_now_s() + limit_s, &timed_out, err))
        goto cleanup;
    wait_tool(opts, out, &j, timed_out, limit_s);

    size_t llen = 0;
    out->log = file_read_all(j.log_path, LOG_MAX, &llen, NULL);
    if (!out->log)
        out->log = strdup("");
    if (!out->log || !sanitize_parse_log(out->log, &out->report)) {
        err_set(err, "out of memory reading the tool's log");
        goto cleanup;
    }
    ok = true;

cleanup:
    job_end(&j, out);
    return ok;
}

void sanitize_result_free(sanitize_result *result)
{
    if (!result)
        return;
    sanitize_report_free(&result->report);
    free(result->log);
    free(result->output);
    free(result->worker_log);
    result->log = result->output = result->worker_log = NULL;
}

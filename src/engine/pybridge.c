/* pybridge.c - the worker's side of a Python row's python3 child
 * (python/cudalab_bridge.py, its protocol): starting it, one request and its
 * reply at a time with a time limit, what it printed, stopping it.  No CUDA
 * here (engine_python.c measures the row), so tests drive it without a GPU. */
#include "engine/pybridge.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/fsguard.h"
#include "core/paths.h"
#include "core/spawn.h"
#include "lab/pyenv.h"

#define PY_OUT_MAX 4096        /* what the row printed, kept for the log */
#define PY_REPLY_MAX (1 << 20)

struct pyrow {
    char path[CL_PATH_MAX];    /* the row's .py */
    char shown[256];           /* how messages name it: "rungs/x.py", "starter.py" */
    bool needs_numba;
    spawn_child ch;
    bool live;
    char *reply;               /* the reply line being read */
    size_t rlen;
    char out[PY_OUT_MAX];      /* what the child printed since the last flush */
    size_t olen;
    bool dropped;
};

/* Whether the file mentions numba (its row then needs Numba too). */
static bool mentions_numba(const char *path)
{
    char *text = fsguard_read(path, NULL, 1 << 20, NULL, NULL);
    bool found = text && strstr(text, "numba");
    free(text);
    return found;
}

pyrow *engine_python_open(const char *path, const char *shown, char *msg, size_t msg_size)
{
    msg[0] = '\0';
    if (!paths_is_file(path)) {
        snprintf(msg, msg_size, "%s: no such file", shown);
        return NULL;
    }
    bool numba = mentions_numba(path);
    if (pyenv_unavailable(pyenv_probe(), numba, msg, msg_size))
        return NULL;
    pyrow *py = calloc(1, sizeof *py);
    if (!py) {
        snprintf(msg, msg_size, "out of memory");
        return NULL;
    }
    snprintf(py->path, sizeof py->path, "%s", path);
    snprintf(py->shown, sizeof py->shown, "%s", shown);
    py->needs_numba = numba;
    return py;
}

/* Ends the child (asked to quit, then killed) and forgets it. */
static void stop_child(pyrow *py, bool ask)
{
    if (!py->live)
        return;
    if (ask && py->ch.in >= 0)
        (void)spawn_write_all(py->ch.in, "{\"cmd\":\"quit\"}\n", 15);
    double until = clock_now_s() + (ask ? 2.0 : 0.0);
    while (ask && spawn_wait(py->ch.pid, false, NULL) == 0 && clock_now_s() < until)
        usleep(10000);
    if (spawn_wait(py->ch.pid, false, NULL) == 0) {
        spawn_kill(py->ch.pid, true);
        spawn_wait(py->ch.pid, true, NULL);
    }
    spawn_close(&py->ch);
    py->live = false;
    py->rlen = 0;
}

void engine_python_close(pyrow *py)
{
    if (!py)
        return;
    stop_child(py, true);
    free(py->reply);
    free(py);
}

bool pybridge_start(pyrow *py, char *msg, size_t msg_size)
{
    const pyenv *pe = pyenv_probe();
    char home[CL_PATH_MAX], bridge[CL_PATH_MAX], parent[32], fd[8];
    cl_err e = {{0}};
    if (!paths_home(home, sizeof home, &e) ||
        !paths_join(bridge, sizeof bridge, home, "python/cudalab_bridge.py")) {
        snprintf(msg, msg_size, "%s",
                 e.msg[0] ? e.msg : "the path of cudalab's Python bridge is too long");
        return false;
    }
    if (!paths_is_file(bridge)) {
        snprintf(msg, msg_size, "cudalab's Python bridge %s is missing (a broken install)", bridge);
        return false;
    }
    if (!py->reply && !(py->reply = malloc(PY_REPLY_MAX))) {
        snprintf(msg, msg_size, "out of memory");
        return false;
    }
    snprintf(parent, sizeof parent, "%ld", (long)getpid());
    snprintf(fd, sizeof fd, "3");
    const char *tail[] = {bridge, "--reply-fd", fd, "--parent", parent, NULL};
    pycmd cmd;
    if (!pycmd_init(&cmd, pe->python, tail)) {
        snprintf(msg, msg_size, "out of memory");
        return false;
    }
    /* The child runs arbitrary Python as this user: it may not attach to
     * this process or open its memory (/proc/PID/mem) to change what is
     * measured.  CUDA IPC works all the same. */
    (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    spawn_opts o = {.argv = cmd.argv, .what = "python3", .in = SPAWN_PIPE, .out = SPAWN_PIPE,
                    .err = SPAWN_TO_OUT, .extra_fd = 3, .own_group = true};
    bool ok = spawn_start(&o, &py->ch, &e);
    pycmd_free(&cmd);
    if (!ok) {
        snprintf(msg, msg_size, "%s", e.msg);
        return false;
    }
    py->live = true;
    py->rlen = 0;
    return true;
}

/* Keeps what the child printed (the first PY_OUT_MAX bytes). */
static void drain_output(pyrow *py)
{
    char tmp[4096];
    ssize_t r;
    while (py->ch.out >= 0 && (r = spawn_read(py->ch.out, tmp, sizeof tmp)) != 0) {
        if (r < 0) {
            close(py->ch.out);
            py->ch.out = -1;
            break;
        }
        size_t room = sizeof py->out - 1 - py->olen, k = (size_t)r < room ? (size_t)r : room;
        memcpy(py->out + py->olen, tmp, k);
        py->olen += k;
        py->out[py->olen] = '\0';
        py->dropped |= k < (size_t)r;
    }
}

/* How the child ended, after it closed its reply pipe, into msg. */
static void child_gone(pyrow *py, char *msg, size_t n)
{
    int status = 0;
    double until = clock_now_s() + 2.0;
    pid_t w;
    while ((w = spawn_wait(py->ch.pid, false, &status)) == 0 && clock_now_s() < until)
        usleep(10000);
    if (w == 0) {
        spawn_kill(py->ch.pid, true);
        spawn_wait(py->ch.pid, true, &status);
    }
    drain_output(py);
    spawn_close(&py->ch);
    py->live = false;
    if (WIFSIGNALED(status))
        snprintf(msg, n, "%s: python3 was killed by signal %d", py->shown, WTERMSIG(status));
    else
        snprintf(msg, n, "%s: python3 ended (exit status %d) without answering", py->shown,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Sends req and waits up to limit_s for the reply, parsed into *out.
 * false with msg when the child did not answer (it is then stopped). */
static bool exchange(pyrow *py, cJSON *req, double limit_s, cJSON **out, char *msg, size_t n)
{
    *out = NULL;
    char *text = cJSON_PrintUnformatted(req);
    if (!text) {
        snprintf(msg, n, "out of memory");
        return false;
    }
    size_t len = strlen(text);
    bool sent = spawn_write_all(py->ch.in, text, len) && spawn_write_all(py->ch.in, "\n", 1);
    free(text);
    if (!sent) {
        child_gone(py, msg, n);
        return false;
    }
    double deadline = clock_now_s() + limit_s;
    for (;;) {
        char *nl = py->rlen ? memchr(py->reply, '\n', py->rlen) : NULL;
        if (nl) {
            *nl = '\0';
            *out = cJSON_Parse(py->reply);
            size_t used = (size_t)(nl - py->reply) + 1;
            memmove(py->reply, nl + 1, py->rlen - used);
            py->rlen -= used;
            if (*out)
                return true;
            snprintf(msg, n, "%s: cudalab's Python bridge gave an answer it cannot read",
                     py->shown);
            stop_child(py, false);
            return false;
        }
        double left = deadline - clock_now_s();
        if (left <= 0.0) {
            drain_output(py);
            stop_child(py, false);
            snprintf(msg, n, "%s: no answer within %.0f s: python3 stopped (a loop that never "
                             "ends, or a kernel that never finishes?)",
                     py->shown, limit_s);
            return false;
        }
        struct pollfd p[2] = {{.fd = py->ch.extra, .events = POLLIN},
                              {.fd = py->ch.out, .events = POLLIN}};
        int ms = left > 0.5 ? 500 : (int)(left * 1e3) + 1;
        if (poll(p, py->ch.out >= 0 ? 2 : 1, ms) < 0 && errno != EINTR) {
            snprintf(msg, n, "poll: %s", strerror(errno));
            stop_child(py, false);
            return false;
        }
        drain_output(py);
        if (py->rlen + 1 >= PY_REPLY_MAX) {
            snprintf(msg, n, "%s: cudalab's Python bridge gave too long an answer", py->shown);
            stop_child(py, false);
            return false;
        }
        ssize_t r = spawn_read(py->ch.extra, py->reply + py->rlen, PY_REPLY_MAX - 1 - py->rlen);
        if (r < 0) {
            child_gone(py, msg, n);
            return false;
        }
        py->rlen += (size_t)r;
    }
}

/* A failed reply's words: "rungs/x.py:12: ValueError: ..." into msg; true
 * when the child's own context broke (it then ends). */
static bool reply_error(pyrow *py, const cJSON *rep, char *msg, size_t n)
{
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(rep, "error");
    const cJSON *where = cJSON_GetObjectItemCaseSensitive(rep, "where");
    const char *w = cJSON_IsString(where) ? where->valuestring : "";
    const char *m = cJSON_IsString(err) ? err->valuestring : "failed";
    bool fatal = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rep, "fatal"));
    if (strncmp(m, "unavailable: ", 13) == 0)
        snprintf(msg, n, "%s", m);
    else
        snprintf(msg, n, "%s%s%s%s", w[0] ? w : py->shown, ": ", m,
                 fatal ? " (a CUDA error in python3's own context: that process was ended; "
                         "cudalab's buffers and context are unharmed)"
                       : "");
    if (fatal)
        stop_child(py, true);
    return fatal;
}

/* Sends req (consumed) and reads an ok reply into *out (may be NULL: dropped). */
bool pybridge_call(pyrow *py, cJSON *req, double limit_s, cJSON **out, char *msg, size_t msg_size)
{
    cJSON *rep = NULL;
    bool ok = req && exchange(py, req, limit_s, &rep, msg, msg_size);
    cJSON_Delete(req);
    if (!req && !msg[0])
        snprintf(msg, msg_size, "out of memory");
    if (!ok)
        return false;
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rep, "ok"))) {
        reply_error(py, rep, msg, msg_size);
        cJSON_Delete(rep);
        return false;
    }
    if (out)
        *out = rep;
    else
        cJSON_Delete(rep);
    return true;
}

cJSON *pybridge_command(const char *cmd)
{
    cJSON *j = cJSON_CreateObject();
    if (j && !cJSON_AddStringToObject(j, "cmd", cmd)) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

bool pybridge_live(const pyrow *py)
{
    return py->live;
}

const char *pybridge_path(const pyrow *py)
{
    return py->path;
}

const char *pybridge_shown(const pyrow *py)
{
    return py->shown;
}

bool pybridge_take_output(pyrow *py, char *out, size_t out_size)
{
    size_t len = py->olen;
    while (len > 0 && (py->out[len - 1] == '\n' || py->out[len - 1] == ' '))
        len--;
    if (out_size)
        snprintf(out, out_size, "%.*s%s", (int)len, py->out, len && py->dropped ? " [...]" : "");
    py->olen = 0;
    py->out[0] = '\0';
    py->dropped = false;
    return len > 0;
}

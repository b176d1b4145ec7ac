#include "worker/workerloop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct loop {
    int out_fd;
    bool out_broken;
    int run;              /* id of the request being served */
    proto_msg msg;        /* scratch for outgoing messages */
} loop;

static bool send_msg(loop *l, const proto_msg *m)
{
    if (l->out_broken)
        return false;
    char *text = proto_encode(m);
    if (!text)
        return false;
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t n = write(l->out_fd, text + off, len - off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            l->out_broken = true;
            break;
        }
        off += (size_t)n;
    }
    free(text);
    return !l->out_broken;
}

static void send_log(loop *l, int level, const char *msg)
{
    l->msg.type = MSG_LOG;
    l->msg.u.log.level = level;
    snprintf(l->msg.u.log.msg, sizeof l->msg.u.log.msg, "%s", msg);
    send_msg(l, &l->msg);
}

static void sink_progress(void *ud, const run_progress *p)
{
    loop *l = ud;
    l->msg.type = MSG_PROGRESS;
    l->msg.u.progress = *p;
    l->msg.u.progress.run = l->run;
    send_msg(l, &l->msg);
}

static void sink_result(void *ud, const run_result *r)
{
    loop *l = ud;
    l->msg.type = MSG_RESULT;
    l->msg.u.result = *r;
    l->msg.u.result.run = l->run;
    send_msg(l, &l->msg);
}

static void sink_log(void *ud, int level, const char *msg)
{
    send_log(ud, level, msg ? msg : "");
}

/* Serves one request line.  Returns -1 to keep serving, otherwise the exit
 * status. */
static int serve_line(loop *l, const workerloop_engine *eng, const char *line, proto_msg *in)
{
    cl_err err = {{0}};
    char text[CL_ERR_MAX + 32];

    if (line[strspn(line, " \t\r")] == '\0')
        return -1;
    if (!proto_decode(line, in, &err)) {
        snprintf(text, sizeof text, "bad request: %s", err.msg);
        send_log(l, 2, text);
        return l->out_broken ? 1 : -1;
    }
    if (in->type == MSG_QUIT)
        return 0;
    if (in->type != MSG_RUN) {
        send_log(l, 1, "ignored a message that is not a request");
        return l->out_broken ? 1 : -1;
    }

    const run_request *req = &in->u.run;
    engine_sink sink = {sink_progress, sink_result, sink_log, l};
    run_fault fault;
    memset(&fault, 0, sizeof fault);
    l->run = req->run;
    if (!eng->run(req, &sink, &fault)) {
        l->msg.type = MSG_FAULT;
        l->msg.u.fault = fault;
        l->msg.u.fault.run = req->run;
        if (!l->msg.u.fault.cause[0])
            snprintf(l->msg.u.fault.cause, sizeof l->msg.u.fault.cause, "cuda");
        if (!l->msg.u.fault.message[0])
            snprintf(l->msg.u.fault.message, sizeof l->msg.u.fault.message,
                     "the CUDA context is no longer usable");
        send_msg(l, &l->msg);
        return 3;
    }
    l->msg.type = MSG_DONE;
    l->msg.u.done_run = req->run;
    return send_msg(l, &l->msg) ? -1 : 1;
}

int workerloop_serve(const workerloop_engine *eng, int in_fd, int out_fd)
{
    int rc = 1;
    char *buf = malloc(PROTO_LINE_MAX + 1);
    loop *l = calloc(1, sizeof *l);
    proto_msg *in = malloc(sizeof *in);
    size_t len = 0;
    bool discarding = false;

    if (!buf || !l || !in)
        goto cleanup;
    l->out_fd = out_fd;

    l->msg.type = MSG_HELLO;
    memset(&l->msg.u.hello, 0, sizeof l->msg.u.hello);
    eng->probe(&l->msg.u.hello);
    if (!send_msg(l, &l->msg)) {
        eng->shutdown();
        goto cleanup;
    }

    for (;;) {
        char *nl = memchr(buf, '\n', len);
        if (!nl) {
            if (len == PROTO_LINE_MAX) {
                if (!discarding)
                    send_log(l, 2, "bad request: longer than the longest line accepted");
                discarding = true;
                len = 0;
            }
            ssize_t n = read(in_fd, buf + len, PROTO_LINE_MAX - len);
            if (n < 0 && errno == EINTR)
                continue;
            if (n > 0) {
                len += (size_t)n;
                continue;
            }
            if (len == 0 || discarding)
                break;
            nl = buf + len;   /* a last line without its newline */
        }
        *nl = '\0';
        size_t used = (size_t)(nl - buf) + (nl < buf + len ? 1 : 0);
        if (discarding) {
            discarding = false;
        } else {
            int status = serve_line(l, eng, buf, in);
            if (status == 0)
                break;
            if (status > 0) {
                rc = status;
                if (status != 3)
                    eng->shutdown();
                goto cleanup;
            }
        }
        memmove(buf, buf + used, len - used);
        len -= used;
    }
    eng->shutdown();
    rc = 0;
cleanup:
    free(in);
    free(l);
    free(buf);
    return rc;
}

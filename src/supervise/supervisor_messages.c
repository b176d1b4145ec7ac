/* The worker's messages: protocol lines assembled from its pipe, decoded
 * and handed to the callbacks; a line that does not decode, or a request
 * where a reply belongs, is a protocol fault. */
#include "supervise/supervisor_internal.h"

#include <stdio.h>
#include <string.h>

#include "core/spawn.h"

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
            snprintf(s->cur_size, sizeof s->cur_size, "%s", m->u.progress.size);
            snprintf(s->cur_phase, sizeof s->cur_phase, "%s", m->u.progress.phase);
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
        if (!f.cause[0])
            snprintf(f.cause, sizeof f.cause, "cuda");
        if (!f.variant[0])
            snprintf(f.variant, sizeof f.variant, "%s", s->cur_variant);
        supervisor_worker_stop(s);
        supervisor_faults_end_run(s, &f, 2);
        break;
    }
    case MSG_DONE:
        if (s->cur_run && m->u.done_run == s->cur_run) {
            int run = s->cur_run;
            /* what the run printed before it said done */
            supervisor_worker_drain_output(s, SUP_READS_PER_PUMP);
            supervisor_printed_end(s);
            s->cur_run = 0;
            supervisor_worker_arm_timer(s, 0);
            if (s->cb.on_done)
                s->cb.on_done(s->ud, run);
        }
        break;
    case MSG_RUN:
    case MSG_QUIT:
    case MSG_INVALID:
        supervisor_faults_protocol(s, "it sent a request instead of a reply");
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
            supervisor_faults_protocol(s, err.msg);
            return false;
        }
        dispatch(s, &s->msg);
        if (s->gen != gen)
            return false;
    }
    memmove(s->line, s->line + start, s->line_len - start);
    s->line_len -= start;
    if (s->line_len == PROTO_LINE_MAX) {
        supervisor_faults_protocol(s, "it sent a line longer than 64 KiB");
        return false;
    }
    return true;
}

bool supervisor_messages_read(supervisor *sup, int max_reads)
{
    for (int i = 0; i < max_reads && sup->proto_fd >= 0; i++) {
        ssize_t n =
            spawn_read(sup->proto_fd, sup->line + sup->line_len, PROTO_LINE_MAX - sup->line_len);
        if (n > 0) {
            sup->line_len += (size_t)n;
            if (!handle_lines(sup))
                return false;
            continue;
        }
        if (n < 0)
            supervisor_worker_unwatch(sup, &sup->proto_fd);
        break;
    }
    return true;
}

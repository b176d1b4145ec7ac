/* link.c - a rank's line to the coordinator: its messages out on fd 3,
 * the coordinator's answers in on stdin (proto/rankmsg.h). */
#include "mgpu/mgpu_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/strfmt.h"
#include "proto/protocol.h"

bool mg_link_send(mg_rank *r, const rankmsg *msg)
{
    char *text = rankmsg_encode(msg);
    if (!text)
        return false;
    size_t len = strlen(text), off = 0;
    bool ok = true;
    while (off < len) {
        ssize_t n = write(r->out_fd, text + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            ok = false;
            break;
        }
        off += (size_t)n;
    }
    free(text);
    return ok;
}

bool mg_link_read(mg_rank *r, char **line, cl_err *err)
{
    if (!r->line && !(r->line = malloc(PROTO_LINE_MAX + 1)))
        return err_set(err, "out of memory");
    if (r->line_used) {       /* the line handed out last time */
        memmove(r->line, r->line + r->line_used, r->line_len - r->line_used);
        r->line_len -= r->line_used;
        r->line_used = 0;
    }
    for (;;) {
        char *nl = memchr(r->line, '\n', r->line_len);
        if (nl) {
            *nl = '\0';
            r->line_used = (size_t)(nl - r->line) + 1;
            *line = r->line;
            return true;
        }
        if (r->line_len == PROTO_LINE_MAX)
            return err_set(err, "the coordinator sent a line longer than %d bytes", PROTO_LINE_MAX);
        ssize_t n = read(r->in_fd, r->line + r->line_len, PROTO_LINE_MAX - r->line_len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return err_set(err, "the coordinator closed the line (it stopped the group)");
        r->line_len += (size_t)n;
    }
}

bool mg_link_exchange(mg_rank *r, const void *data, size_t len, rank_blob *all, cl_err *err)
{
    static rankmsg m;     /* large (every rank's part): one exchange at a time */
    memset(&m, 0, sizeof m);
    if (len > RANKMSG_BLOB_MAX)
        return err_set(err, "an exchange of %zu bytes (at most %d)", len, RANKMSG_BLOB_MAX);
    m.type = RMSG_GATHER;
    snprintf(m.tag, sizeof m.tag, "x%u", ++r->seq);
    m.blob.len = len;
    if (len)
        memcpy(m.blob.data, data, len);
    if (!mg_link_send(r, &m))
        return err_set(err, "the coordinator is gone");
    char tag[RANKMSG_TAG_MAX];
    memcpy(tag, m.tag, sizeof tag);
    char *line;
    if (!mg_link_read(r, &line, err))
        return false;
    cl_err e = {{0}};
    if (!rankmsg_decode(line, &m, &e))
        return err_set(err, "the coordinator's answer: %s", e.msg);
    if (m.type != RMSG_ALL || strcmp(m.tag, tag) != 0 || m.nall != r->nranks)
        return err_set(err, "the coordinator answered exchange %s with something else", tag);
    if (all)
        memcpy(all, m.all, sizeof m.all[0] * (size_t)r->nranks);
    return true;
}

bool mg_link_barrier(mg_rank *r, cl_err *err)
{
    return mg_link_exchange(r, NULL, 0, NULL, err);
}

void mg_link_row(mg_rank *r, const run_result *row, int of)
{
    static rankmsg m;
    m.type = RMSG_ROW;
    m.of = of;
    m.u.row = *row;
    m.u.row.run = r->req.run;
    (void)mg_link_send(r, &m);
}

void mg_link_progress(mg_rank *r, const char *variant, const char *size, const char *phase,
                      int rep, int of)
{
    static rankmsg m;
    memset(&m.u.progress, 0, sizeof m.u.progress);
    m.type = RMSG_PROGRESS;
    m.u.progress.run = r->req.run;
    strfmt_copy(m.u.progress.variant, sizeof m.u.progress.variant, variant);
    strfmt_copy(m.u.progress.size, sizeof m.u.progress.size, size);
    strfmt_copy(m.u.progress.phase, sizeof m.u.progress.phase, phase);
    m.u.progress.rep = rep;
    m.u.progress.of = of;
    (void)mg_link_send(r, &m);
}

void mg_link_log(mg_rank *r, int level, const char *fmt, ...)
{
    static rankmsg m;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m.text, sizeof m.text, fmt, ap);
    va_end(ap);
    m.type = RMSG_LOG;
    m.level = level;
    (void)mg_link_send(r, &m);
}

void mg_link_fail(mg_rank *r, const char *message, int code)
{
    static rankmsg m;
    m.type = RMSG_FAIL;
    m.code = code;
    strfmt_copy(m.text, sizeof m.text, message);
    (void)mg_link_send(r, &m);
}

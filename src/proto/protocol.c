#include "proto/protocol.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonf.h"
#include "result/record_json.h"

static const char *const type_names[] = {
    [MSG_INVALID] = "invalid", [MSG_HELLO] = "hello", [MSG_RUN] = "run",
    [MSG_QUIT] = "quit", [MSG_PROGRESS] = "progress", [MSG_RESULT] = "result",
    [MSG_LOG] = "log", [MSG_FAULT] = "fault", [MSG_DONE] = "done",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- encoding ---------------------------------------------------------- */

static bool encode_body(cJSON *o, const proto_msg *m)
{
    switch (m->type) {
    case MSG_HELLO: {
        cJSON *d = cJSON_AddObjectToObject(o, "device");
        return d && record_put_device(d, &m->u.hello);
    }
    case MSG_RUN:
        return record_put_request(o, &m->u.run);
    case MSG_QUIT:
        return true;
    case MSG_PROGRESS:
        return record_put_progress(o, &m->u.progress);
    case MSG_RESULT:
        return record_put_result(o, &m->u.result);
    case MSG_LOG:
        return jsonf_put_int(o, "level", m->u.log.level) && jsonf_put_str(o, "msg", m->u.log.msg);
    case MSG_FAULT:
        return record_put_fault(o, &m->u.fault);
    case MSG_DONE:
        return jsonf_put_int(o, "run", m->u.done_run);
    case MSG_INVALID:
        break;
    }
    return false;
}

char *proto_encode(const proto_msg *msg)
{
    if (msg->type == MSG_INVALID || (unsigned)msg->type >= COUNT(type_names))
        return NULL;
    char *out = NULL;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    if (!jsonf_put_str(o, "type", type_names[msg->type]) || !encode_body(o, msg))
        goto cleanup;
    char *text = cJSON_PrintUnformatted(o);
    if (!text)
        goto cleanup;
    size_t len = strlen(text);
    out = malloc(len + 2);
    if (out) {
        memcpy(out, text, len);
        out[len] = '\n';
        out[len + 1] = '\0';
    }
    cJSON_free(text);
cleanup:
    cJSON_Delete(o);
    return out;
}

char *proto_encode_quit(void)
{
    static proto_msg m;     /* zero but its type: the message has no body */
    m.type = MSG_QUIT;
    return proto_encode(&m);
}

/* ---- decoding ---------------------------------------------------------- */

static bool decode_body(const cJSON *o, proto_msg *m, cl_err *e)
{
    switch (m->type) {
    case MSG_HELLO: {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "device");
        if (!d)
            return err_set(e, "hello without 'device'");
        return record_get_device(d, &m->u.hello, e);
    }
    case MSG_RUN:
        return record_get_request(o, &m->u.run, e);
    case MSG_QUIT:
        return true;
    case MSG_PROGRESS:
        return record_get_progress(o, &m->u.progress, e);
    case MSG_RESULT:
        return record_get_result(o, &m->u.result, e);
    case MSG_LOG:
        m->u.log.level = 0;
        m->u.log.msg[0] = '\0';
        if (!(jsonf_get_int(o, "level", &m->u.log.level, e)
              && jsonf_get_str(o, "msg", m->u.log.msg, sizeof m->u.log.msg, e)))
            return false;
        if (m->u.log.level < 0)
            m->u.log.level = 0;
        if (m->u.log.level > 2)
            m->u.log.level = 2;
        return true;
    case MSG_FAULT:
        return record_get_fault(o, &m->u.fault, e);
    case MSG_DONE:
        m->u.done_run = 0;
        if (!cJSON_GetObjectItemCaseSensitive(o, "run"))
            return err_set(e, "done without 'run'");
        return jsonf_get_int(o, "run", &m->u.done_run, e);
    case MSG_INVALID:
        break;
    }
    return err_set(e, "unknown message type");
}

/* Quotes at most 48 bytes of s, for error messages about bad input. */
static void excerpt(char *dst, size_t n, const char *s)
{
    size_t j = 0;
    for (size_t i = 0; s[i] && i < 48 && j + 5 < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n' || c == '\r')
            break;
        dst[j++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (j + 4 < n && strlen(s) > 48) {
        memcpy(dst + j, "...", 3);
        j += 3;
    }
    dst[j] = '\0';
}

bool proto_decode(const char *line, proto_msg *msg, cl_err *err)
{
    bool ok = false;
    const char *end = NULL;
    char quote[64];

    msg->type = MSG_INVALID;
    if (!line)
        return err_set(err, "no message");
    cJSON *o = cJSON_ParseWithOpts(line, &end, false);
    if (!o) {
        excerpt(quote, sizeof quote, line);
        return err_set(err, "not a JSON message: '%s'", quote);
    }
    if (end && end[strspn(end, " \t\r\n")] != '\0') {
        excerpt(quote, sizeof quote, end);
        err_set(err, "text after the JSON message: '%s'", quote);
        goto cleanup;
    }
    if (!cJSON_IsObject(o)) {
        err_set(err, "a message must be a JSON object");
        goto cleanup;
    }
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "type");
    if (!t || !cJSON_IsString(t) || !t->valuestring) {
        err_set(err, "message without a 'type'");
        goto cleanup;
    }
    for (size_t i = 1; i < COUNT(type_names); i++)
        if (strcmp(type_names[i], t->valuestring) == 0)
            msg->type = (msg_type)i;
    if (msg->type == MSG_INVALID) {
        excerpt(quote, sizeof quote, t->valuestring);
        err_set(err, "unknown message type '%s'", quote);
        goto cleanup;
    }
    ok = decode_body(o, msg, err);
    if (!ok) {
        err_prefix(err, "bad '%s' message", type_names[msg->type]);
        msg->type = MSG_INVALID;
    }
cleanup:
    cJSON_Delete(o);
    return ok;
}

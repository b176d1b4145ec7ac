/* rankmsg.c - encoding and checking the coordinator's and ranks' lines
 * (rankmsg.h). */
#include "proto/rankmsg.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonf.h"
#include "result/record_json.h"

static const char *const names[] = {
    [RMSG_INVALID] = "invalid", [RMSG_PROBE] = "probe", [RMSG_GATHER] = "gather",
    [RMSG_ALL] = "all",         [RMSG_ROW] = "row",     [RMSG_PROGRESS] = "progress",
    [RMSG_LOG] = "log",         [RMSG_FAIL] = "fail",
};
#define NNAMES (sizeof names / sizeof names[0])

/* ---- parts of an exchange, as hex ------------------------------------------- */

static bool put_blob(cJSON *arr_or_obj, const char *key, const rank_blob *b)
{
    static const char digits[] = "0123456789abcdef";
    char hex[2 * RANKMSG_BLOB_MAX + 1];
    if (b->len > RANKMSG_BLOB_MAX)
        return false;
    for (size_t i = 0; i < b->len; i++) {
        hex[2 * i] = digits[b->data[i] >> 4];
        hex[2 * i + 1] = digits[b->data[i] & 15];
    }
    hex[2 * b->len] = '\0';
    if (key)
        return jsonf_put_str(arr_or_obj, key, hex);
    cJSON *s = cJSON_CreateString(hex);
    return s && cJSON_AddItemToArray(arr_or_obj, s);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

static bool get_blob(const cJSON *s, rank_blob *b, cl_err *e)
{
    if (!cJSON_IsString(s) || !s->valuestring)
        return err_set(e, "a part of an exchange must be a hex string");
    size_t n = strlen(s->valuestring);
    if (n % 2 || n / 2 > RANKMSG_BLOB_MAX)
        return err_set(e, "a part of an exchange must be an even number of hex digits, "
                          "at most %d bytes", RANKMSG_BLOB_MAX);
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_digit(s->valuestring[2 * i]), lo = hex_digit(s->valuestring[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return err_set(e, "a part of an exchange holds a character that is not a hex digit");
        b->data[i] = (unsigned char)(hi << 4 | lo);
    }
    b->len = n / 2;
    return true;
}

/* ---- encoding ----------------------------------------------------------------- */

static bool put_probe(cJSON *o, const rank_probe *p)
{
    cJSON *d = cJSON_AddObjectToObject(o, "device");
    return d && record_put_device(d, &p->dev) && jsonf_put_int(o, "ndevices", p->ndevices)
           && jsonf_put_str(o, "devices_note", p->devices_note)
           && jsonf_put_bool(o, "nccl", p->nccl)
           && jsonf_put_str(o, "nccl_version", p->nccl_version)
           && jsonf_put_str(o, "nccl_why", p->nccl_why);
}

static bool put_body(cJSON *o, const rankmsg *m)
{
    switch (m->type) {
    case RMSG_PROBE:
        return put_probe(o, &m->u.probe);
    case RMSG_GATHER:
        return jsonf_put_str(o, "tag", m->tag) && put_blob(o, "data", &m->blob);
    case RMSG_ALL: {
        if (m->nall < 1 || m->nall > RANKMSG_MAX_RANKS || !jsonf_put_str(o, "tag", m->tag))
            return false;
        cJSON *a = cJSON_AddArrayToObject(o, "data");
        for (int r = 0; a && r < m->nall; r++)
            if (!put_blob(a, NULL, &m->all[r]))
                return false;
        return a != NULL;
    }
    case RMSG_ROW: {
        cJSON *r = cJSON_AddObjectToObject(o, "result");
        return jsonf_put_int(o, "of", m->of) && r && record_put_result(r, &m->u.row);
    }
    case RMSG_PROGRESS:
        return record_put_progress(o, &m->u.progress);
    case RMSG_LOG:
        return jsonf_put_int(o, "level", m->level) && jsonf_put_str(o, "msg", m->text);
    case RMSG_FAIL:
        return jsonf_put_str(o, "message", m->text) && jsonf_put_int(o, "code", m->code);
    case RMSG_INVALID:
        break;
    }
    return false;
}

char *rankmsg_encode(const rankmsg *msg)
{
    if (msg->type == RMSG_INVALID || (unsigned)msg->type >= NNAMES)
        return NULL;
    char *out = NULL;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    if (jsonf_put_str(o, "type", names[msg->type]) && put_body(o, msg)) {
        char *text = cJSON_PrintUnformatted(o);
        if (text) {
            size_t len = strlen(text);
            out = malloc(len + 2);
            if (out) {
                memcpy(out, text, len);
                memcpy(out + len, "\n", 2);
            }
            cJSON_free(text);
        }
    }
    cJSON_Delete(o);
    return out;
}

/* ---- decoding ------------------------------------------------------------------ */

static bool get_probe(const cJSON *o, rank_probe *p, cl_err *e)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "device");
    if (!d)
        return err_set(e, "probe without 'device'");
    if (!record_get_device(d, &p->dev, e) || !jsonf_get_int(o, "ndevices", &p->ndevices, e)
        || !jsonf_get_str(o, "devices_note", p->devices_note, sizeof p->devices_note, e)
        || !jsonf_get_bool(o, "nccl", &p->nccl, e)
        || !jsonf_get_str(o, "nccl_version", p->nccl_version, sizeof p->nccl_version, e)
        || !jsonf_get_str(o, "nccl_why", p->nccl_why, sizeof p->nccl_why, e))
        return false;
    if (p->ndevices < 0 || p->ndevices > 4096)
        return err_set(e, "'ndevices' out of range");
    return true;
}

static bool get_all(const cJSON *o, rankmsg *m, cl_err *e)
{
    bool ok = true;
    const cJSON *a = jsonf_get_array(o, "data", RANKMSG_MAX_RANKS, e, &ok);
    if (!ok)
        return false;
    if (!a || cJSON_GetArraySize(a) < 1)
        return err_set(e, "'data' must list one part a rank");
    m->nall = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
        if (!get_blob(it, &m->all[m->nall++], e))
            return false;
    return true;
}

static bool get_body(const cJSON *o, rankmsg *m, cl_err *e)
{
    switch (m->type) {
    case RMSG_PROBE:
        return get_probe(o, &m->u.probe, e);
    case RMSG_GATHER:
        return jsonf_get_str(o, "tag", m->tag, sizeof m->tag, e)
               && get_blob(cJSON_GetObjectItemCaseSensitive(o, "data"), &m->blob, e);
    case RMSG_ALL:
        return jsonf_get_str(o, "tag", m->tag, sizeof m->tag, e) && get_all(o, m, e);
    case RMSG_ROW: {
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "result");
        if (!jsonf_get_int(o, "of", &m->of, e))
            return false;
        if (m->of < 1 || m->of > RANKMSG_MAX_RANKS)
            return err_set(e, "'of' must be 1 to %d", RANKMSG_MAX_RANKS);
        if (!r)
            return err_set(e, "row without 'result'");
        return record_get_result(r, &m->u.row, e);
    }
    case RMSG_PROGRESS:
        return record_get_progress(o, &m->u.progress, e);
    case RMSG_LOG:
        if (!jsonf_get_int(o, "level", &m->level, e)
            || !jsonf_get_str(o, "msg", m->text, sizeof m->text, e))
            return false;
        m->level = m->level < 0 ? 0 : m->level > 2 ? 2 : m->level;
        return true;
    case RMSG_FAIL:
        return jsonf_get_str(o, "message", m->text, sizeof m->text, e)
               && jsonf_get_int(o, "code", &m->code, e);
    case RMSG_INVALID:
        break;
    }
    return err_set(e, "unknown message type");
}

bool rankmsg_decode(const char *line, rankmsg *msg, cl_err *err)
{
    const char *end = NULL;
    bool ok = false;
    memset(msg, 0, sizeof *msg);
    cJSON *o = line ? cJSON_ParseWithOpts(line, &end, false) : NULL;
    if (!o)
        return err_set(err, "not a JSON message");
    if (!cJSON_IsObject(o) || (end && end[strspn(end, " \t\r\n")] != '\0')) {
        err_set(err, "a message must be one JSON object on its line");
        goto done;
    }
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "type");
    for (size_t i = 1; t && cJSON_IsString(t) && t->valuestring && i < NNAMES; i++)
        if (strcmp(names[i], t->valuestring) == 0)
            msg->type = (rankmsg_type)i;
    if (msg->type == RMSG_INVALID) {
        err_set(err, "a message without a known 'type'");
        goto done;
    }
    ok = get_body(o, msg, err);
    if (!ok) {
        err_prefix(err, "bad '%s' message", names[msg->type]);
        msg->type = RMSG_INVALID;
    }
done:
    cJSON_Delete(o);
    return ok;
}

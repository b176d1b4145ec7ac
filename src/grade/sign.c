#include "grade/sign.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/digest.h"
#include "core/paths.h"

#define REPORT_MAX ((size_t)64 << 20)
#define XML_MARK "<!-- cudalab-signature " SIGN_ALG " "
#define GS_EXTRA "extra_data"
#define GS_SIG "cudalab_signature"

const char *sign_verdict_name(sign_verdict v)
{
    static const char *const names[] = {"valid", "tampered", "unsigned", "unreadable"};
    return (unsigned)v < 4 ? names[v] : "unknown";
}

bool sign_key_load(const char *file, char **key, size_t *len, cl_err *e)
{
    *key = NULL;
    *len = 0;
    if (file) {
        size_t n = 0;
        char *k = file_read_all(file, 1 << 16, &n, e);
        if (!k)
            return err_prefix(e, "cannot read the key file");
        while (n > 0 && (k[n - 1] == '\n' || k[n - 1] == '\r'))
            k[--n] = '\0';
        if (n == 0) {
            free(k);
            return err_set(e, "the key file %s is empty", file);
        }
        *key = k;
        *len = n;
        return true;
    }
    const char *env = getenv(SIGN_KEY_ENV);
    if (!env)
        return true;
    if (!env[0])
        return err_set(e, "%s is set but empty", SIGN_KEY_ENV);
    *key = strdup(env);
    if (!*key)
        return err_set(e, "out of memory");
    *len = strlen(env);
    return true;
}

/* HMAC of the compact print of doc (which must hold no signature). */
static bool json_mac(const cJSON *doc, const void *key, size_t keylen, char hex[65])
{
    char *text = cJSON_PrintUnformatted(doc);
    if (!text)
        return false;
    /* Once more through cJSON, so that a number reads back and prints the
     * same way at signing as at checking. */
    cJSON *again = cJSON_Parse(text);
    cJSON_free(text);
    text = again ? cJSON_PrintUnformatted(again) : NULL;
    cJSON_Delete(again);
    bool ok = text && digest_hmac_sha256_hex(key, keylen, text, strlen(text), hex);
    cJSON_free(text);
    return ok;
}

static cJSON *signature_object(const char *hex)
{
    cJSON *s = cJSON_CreateObject();
    if (s && (!cJSON_AddStringToObject(s, "alg", SIGN_ALG) ||
              !cJSON_AddStringToObject(s, "value", hex))) {
        cJSON_Delete(s);
        return NULL;
    }
    return s;
}

bool sign_json(cJSON *doc, bool gradescope, const void *key, size_t keylen, cl_err *e)
{
    char hex[65];
    if (!json_mac(doc, key, keylen, hex))
        return err_set(e, "cannot sign the report (out of memory or libcrypto failed)");
    cJSON *sig = signature_object(hex);
    if (!sig)
        return err_set(e, "out of memory");
    cJSON *where = doc;
    if (gradescope) {
        where = cJSON_GetObjectItemCaseSensitive(doc, GS_EXTRA);
        if (!where)
            where = cJSON_AddObjectToObject(doc, GS_EXTRA);
    }
    if (!where || !cJSON_AddItemToObject(where, gradescope ? GS_SIG : "signature", sig)) {
        cJSON_Delete(sig);
        return err_set(e, "out of memory");
    }
    return true;
}

char *sign_xml(const char *text, const void *key, size_t keylen, cl_err *e)
{
    char hex[65];
    size_t n = strlen(text);
    if (!digest_hmac_sha256_hex(key, keylen, text, n, hex)) {
        err_set(e, "cannot sign the report (libcrypto failed)");
        return NULL;
    }
    size_t total = n + strlen(XML_MARK) + 64 + 6;
    char *out = malloc(total);
    if (!out) {
        err_set(e, "out of memory");
        return NULL;
    }
    snprintf(out, total, "%s" XML_MARK "%s -->\n", text, hex);
    return out;
}

char *sign_sidecar(const char *data, size_t n, const void *key, size_t keylen, cl_err *e)
{
    char hex[65];
    if (!digest_hmac_sha256_hex(key, keylen, data, n, hex)) {
        err_set(e, "cannot sign the report (libcrypto failed)");
        return NULL;
    }
    size_t total = strlen(SIGN_ALG) + 64 + 3;
    char *out = malloc(total);
    if (out)
        snprintf(out, total, "%s %s\n", SIGN_ALG, hex);
    else
        err_set(e, "out of memory");
    return out;
}

/* ---- checking ---------------------------------------------------------------------- */

static sign_verdict say(sign_verdict v, char *why, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static sign_verdict say(sign_verdict v, char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return v;
}

/* The signature object found in doc, detached (the caller deletes it);
 * NULL when there is none. */
static cJSON *detach_signature(cJSON *doc)
{
    cJSON *sig = cJSON_DetachItemFromObjectCaseSensitive(doc, "signature");
    if (sig)
        return sig;
    cJSON *extra = cJSON_GetObjectItemCaseSensitive(doc, GS_EXTRA);
    if (!cJSON_IsObject(extra))
        return NULL;
    sig = cJSON_DetachItemFromObjectCaseSensitive(extra, GS_SIG);
    if (sig && !extra->child)
        cJSON_DeleteItemFromObjectCaseSensitive(doc, GS_EXTRA);
    return sig;
}

static sign_verdict verify_json(const char *text, const void *key, size_t keylen, char *why,
                                size_t n)
{
    cJSON *doc = cJSON_Parse(text);
    if (!doc || !cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return say(SIGN_UNREADABLE, why, n, "%s", "not a JSON object");
    }
    cJSON *sig = detach_signature(doc);
    sign_verdict v;
    const char *alg = sig ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sig, "alg"))
                          : NULL;
    const char *value = sig ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sig, "value"))
                            : NULL;
    char hex[65];
    if (!sig) {
        v = say(SIGN_UNSIGNED, why, n, "%s", "no signature");
    } else if (!alg || strcmp(alg, SIGN_ALG) != 0 || !value) {
        v = say(SIGN_TAMPERED, why, n, "%s", "the signature is not an " SIGN_ALG " signature");
    } else if (!json_mac(doc, key, keylen, hex)) {
        v = say(SIGN_UNREADABLE, why, n, "%s", "cannot compute the signature");
    } else if (!digest_equal(hex, value)) {
        v = say(SIGN_TAMPERED, why, n, "%s",
                "the content does not match its signature (changed after signing, or signed "
                "with another key)");
    } else {
        v = say(SIGN_VALID, why, n, "%s", "signed and unchanged");
    }
    cJSON_Delete(sig);
    cJSON_Delete(doc);
    return v;
}

static sign_verdict verify_xml(char *text, const void *key, size_t keylen, char *why, size_t n)
{
    char *mark = strstr(text, XML_MARK);
    if (!mark)
        return say(SIGN_UNSIGNED, why, n, "%s", "no signature line");
    char *next;
    while ((next = strstr(mark + 1, XML_MARK)) != NULL)
        mark = next;
    char hex[65], got[65];
    if (sscanf(mark + strlen(XML_MARK), "%64[0-9a-f] -->", got) != 1 || strlen(got) != 64)
        return say(SIGN_TAMPERED, why, n, "%s", "the signature line is damaged");
    if (!digest_hmac_sha256_hex(key, keylen, text, (size_t)(mark - text), hex))
        return say(SIGN_UNREADABLE, why, n, "%s", "cannot compute the signature");
    if (!digest_equal(hex, got))
        return say(SIGN_TAMPERED, why, n, "%s",
                   "the content does not match its signature (changed after signing, or "
                   "signed with another key)");
    return say(SIGN_VALID, why, n, "%s", "signed and unchanged");
}

static sign_verdict verify_sidecar(const char *path, const char *data, size_t len,
                                   const void *key, size_t keylen, char *why, size_t n)
{
    char side[CL_PATH_MAX + 8], hex[65], got[65];
    snprintf(side, sizeof side, "%s%s", path, SIGN_SIDECAR);
    size_t sl = 0;
    cl_err e;
    char *sig = file_read_all(side, 4096, &sl, &e);
    if (!sig)
        return say(SIGN_UNSIGNED, why, n, "no signature file %s", side);
    int ok = sscanf(sig, SIGN_ALG " %64[0-9a-f]", got);
    free(sig);
    if (ok != 1 || strlen(got) != 64)
        return say(SIGN_TAMPERED, why, n, "the signature file %s is damaged", side);
    if (!digest_hmac_sha256_hex(key, keylen, data, len, hex))
        return say(SIGN_UNREADABLE, why, n, "%s", "cannot compute the signature");
    if (!digest_equal(hex, got))
        return say(SIGN_TAMPERED, why, n, "%s",
                   "the content does not match its signature (changed after signing, or "
                   "signed with another key)");
    return say(SIGN_VALID, why, n, "%s", "signed and unchanged");
}

sign_verdict sign_verify_file(const char *path, const void *key, size_t keylen, char *why,
                              size_t n)
{
    size_t len = 0;
    cl_err e = {{0}};
    char *text = file_read_all(path, REPORT_MAX, &len, &e);
    if (!text)
        return say(SIGN_UNREADABLE, why, n, "%s", e.msg);
    const char *p = text + strspn(text, " \t\r\n");
    sign_verdict v;
    if (strlen(text) != len)
        v = say(SIGN_UNREADABLE, why, n, "%s", "a binary file, not a report");
    else if (*p == '{')
        v = verify_json(text, key, keylen, why, n);
    else if (*p == '<')
        v = verify_xml(text, key, keylen, why, n);
    else
        v = verify_sidecar(path, text, len, key, keylen, why, n);
    free(text);
    return v;
}

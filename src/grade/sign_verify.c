/* sign_verify.c - checking a signed report: exactly what cudalab writes for
 * what it says, and the HMAC (grade/sign.h). */
#include "grade/sign.h"
#include "grade/sign_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "core/digest.h"
#include "core/jsondoc.h"
#include "core/paths.h"
#include "grade/report.h"

#define REPORT_MAX ((size_t)64 << 20)
#define HEX "0123456789abcdef"
#define MISMATCH                                                                             \
    "the content does not match its signature (changed after signing, or signed with "       \
    "another key)"

const char *sign_verdict_name(sign_verdict verdict)
{
    static const char *const names[] = {"valid", "tampered", "unsigned", "unreadable"};
    return (unsigned)verdict < 4 ? names[verdict] : "unknown";
}

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

static bool is_hex(const char *s, size_t len)
{
    return strlen(s) >= len && strspn(s, HEX) >= len;
}

/* sig is {"alg": "hmac-sha256", "value": "<64 hex digits>"} and nothing
 * more: its value, else NULL. */
static const char *signature_value(const cJSON *sig)
{
    const cJSON *alg = cJSON_GetObjectItemCaseSensitive(sig, "alg");
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(sig, "value");
    if (!cJSON_IsObject(sig) || cJSON_GetArraySize(sig) != 2 || !cJSON_IsString(alg) ||
        strcmp(alg->valuestring, SIGN_ALG) != 0 || !cJSON_IsString(value) ||
        strlen(value->valuestring) != SIGN_HEX_LEN || !is_hex(value->valuestring, SIGN_HEX_LEN))
        return NULL;
    return value->valuestring;
}

/* Whether doc is a report of a format before REPORT_FORMAT_VERSION (own:
 * cudalab's report.json, else results.json, which had no extra_data.cudalab
 * then); its signature was computed another way. */
static bool older_format(const cJSON *doc, const cJSON *extra, bool own)
{
    if (!own)
        return !cJSON_GetObjectItemCaseSensitive(extra, "cudalab");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "format_version");
    return cJSON_IsNumber(v) && v->valuedouble < REPORT_FORMAT_VERSION;
}

/* A parsed JSON report: exact says whether its file is exactly as cudalab
 * writes it (how says what differs when not). */
static sign_verdict check_json(cJSON *doc, bool exact, const char *how, const void *key,
                               size_t keylen, char *why, size_t n)
{
    cJSON *extra = cJSON_GetObjectItemCaseSensitive(doc, SIGN_GS_EXTRA);
    cJSON *top = cJSON_GetObjectItemCaseSensitive(doc, SIGN_JSON_KEY);
    cJSON *gs = cJSON_IsObject(extra) ? cJSON_GetObjectItemCaseSensitive(extra, SIGN_GS_KEY)
                                      : NULL;
    /* cudalab's report.json says its format and signs at the top; Gradescope's
     * results.json signs in extra_data. */
    bool own = cJSON_GetObjectItemCaseSensitive(doc, "format") != NULL;
    if (!top && !gs)
        return say(SIGN_UNSIGNED, why, n, "%s", "no signature");
    if (older_format(doc, extra, own))
        return say(SIGN_UNREADABLE, why, n, "%s",
                   "a report of an older format, bound to no assignment: check it with the "
                   "cudalab that wrote it, or grade again");
    if (top && gs)
        return say(SIGN_TAMPERED, why, n, "%s", "a second signature (both " SIGN_JSON_KEY
                                                " and " SIGN_GS_EXTRA "." SIGN_GS_KEY ")");
    if ((top && !own) || (gs && own))
        return say(SIGN_TAMPERED, why, n, "%s", "a signature out of its place");
    if (!exact)
        return say(SIGN_TAMPERED, why, n, "not exactly the report cudalab wrote: %s", how);
    cJSON *sig = top ? cJSON_DetachItemViaPointer(doc, top)
                     : cJSON_DetachItemViaPointer(extra, gs);
    const char *value = signature_value(sig);
    char hex[SIGN_HEX_LEN + 1];
    sign_verdict v;
    if (!value)
        v = say(SIGN_TAMPERED, why, n, "%s", "the signature is not one " SIGN_ALG " signature");
    else if (!sign_json_mac(doc, key, keylen, hex))
        v = say(SIGN_UNREADABLE, why, n, "%s", "cannot compute the signature");
    else if (!digest_equal(hex, value))
        v = say(SIGN_TAMPERED, why, n, "%s", MISMATCH);
    else
        v = say(SIGN_VALID, why, n, "%s", "signed and unchanged");
    cJSON_Delete(sig);
    return v;
}

static sign_verdict verify_json(const char *text, size_t len, const void *key, size_t keylen,
                                char *why, size_t n)
{
    cJSON *doc = NULL;
    char how[256];
    jsondoc_status st = jsondoc_parse_file(text, len, &doc, how, sizeof how);
    if (st == JSONDOC_NOT_JSON)
        return say(SIGN_UNREADABLE, why, n, "%s", how);
    sign_verdict v = check_json(doc, st == JSONDOC_EXACT, how, key, keylen, why, n);
    cJSON_Delete(doc);
    return v;
}

static sign_verdict verify_xml(const char *text, size_t len, const void *key, size_t keylen,
                               char *why, size_t n)
{
    const char *mark = strstr(text, SIGN_XML_MARK);
    if (!mark)
        return say(SIGN_UNSIGNED, why, n, "%s", "no signature line");
    if (strstr(mark + 1, SIGN_XML_MARK))
        return say(SIGN_TAMPERED, why, n, "%s", "a second signature line");
    const char *hex = mark + strlen(SIGN_XML_MARK);
    const char *end = hex + SIGN_HEX_LEN;
    if ((mark > text && mark[-1] != '\n') || !is_hex(hex, SIGN_HEX_LEN) ||
        strncmp(end, SIGN_XML_END, strlen(SIGN_XML_END)) != 0)
        return say(SIGN_TAMPERED, why, n, "%s", "the signature line is damaged");
    size_t after = len - (size_t)(end + strlen(SIGN_XML_END) - text);
    if (after > 0)
        return say(SIGN_TAMPERED, why, n, "%zu byte%s after the signature line", after,
                   after == 1 ? "" : "s");
    const char *decl = strstr(text, REPORT_XML_DECLARATION);
    if (!decl || decl > mark)
        return say(SIGN_TAMPERED, why, n, "%s", "no XML declaration where cudalab writes it");
    if (decl > text)
        return say(SIGN_TAMPERED, why, n, "%zu byte%s before the XML declaration",
                   (size_t)(decl - text), decl - text == 1 ? "" : "s");
    char mac[SIGN_HEX_LEN + 1], got[SIGN_HEX_LEN + 1];
    snprintf(got, sizeof got, "%.*s", SIGN_HEX_LEN, hex);
    if (!digest_hmac_sha256_hex(key, keylen, text, (size_t)(mark - text), mac))
        return say(SIGN_UNREADABLE, why, n, "%s", "cannot compute the signature");
    if (!digest_equal(mac, got))
        return say(SIGN_TAMPERED, why, n, "%s", MISMATCH);
    return say(SIGN_VALID, why, n, "%s", "signed and unchanged");
}

static sign_verdict verify_sidecar(const char *path, const char *data, size_t len,
                                   const void *key, size_t keylen, char *why, size_t n)
{
    char side[CL_PATH_MAX + 8], mac[SIGN_HEX_LEN + 1], got[SIGN_HEX_LEN + 1];
    snprintf(side, sizeof side, "%s%s", path, SIGN_SIDECAR);
    if (access(side, F_OK) != 0 && errno == ENOENT)
        return say(SIGN_UNSIGNED, why, n, "no signature file %s", side);
    size_t sl = 0;
    cl_err e = {{0}};
    char *sig = file_read_all(side, 4096, &sl, &e);
    if (!sig)
        return say(SIGN_UNREADABLE, why, n, "%s", e.msg);
    size_t head = strlen(SIGN_ALG " "), line = head + SIGN_HEX_LEN + 1;
    bool ok = strlen(sig) == sl && strncmp(sig, SIGN_ALG " ", head) == 0 &&
              is_hex(sig + head, SIGN_HEX_LEN) && sl >= line && sig[line - 1] == '\n';
    snprintf(got, sizeof got, "%.*s", SIGN_HEX_LEN, ok ? sig + head : "");
    free(sig);
    if (!ok)
        return say(SIGN_TAMPERED, why, n, "the signature file %s is damaged", side);
    if (sl > line)
        return say(SIGN_TAMPERED, why, n, "%zu byte%s after the signature in %s", sl - line,
                   sl - line == 1 ? "" : "s", side);
    if (!digest_hmac_sha256_hex(key, keylen, data, len, mac))
        return say(SIGN_UNREADABLE, why, n, "%s", "cannot compute the signature");
    if (!digest_equal(mac, got))
        return say(SIGN_TAMPERED, why, n, "%s", MISMATCH);
    return say(SIGN_VALID, why, n, "%s", "signed and unchanged");
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

sign_verdict sign_verify_text(const char *path, const char *text, size_t len, const void *key,
                              size_t keylen, char *why, size_t why_size)
{
    if (strlen(text) != len)
        return say(SIGN_UNREADABLE, why, why_size, "%s", "a binary file, not a report");
    const char *p = text + strspn(text, " \t\r\n");
    if (*p == '{' || (*p != '<' && ends_with(path, ".json")))
        return verify_json(text, len, key, keylen, why, why_size);
    if (*p == '<' || ends_with(path, ".xml"))
        return verify_xml(text, len, key, keylen, why, why_size);
    return verify_sidecar(path, text, len, key, keylen, why, why_size);
}

sign_verdict sign_verify_file(const char *path, const void *key, size_t keylen, char *why,
                              size_t why_size)
{
    size_t len = 0;
    cl_err e = {{0}};
    char *text = file_read_all(path, REPORT_MAX, &len, &e);
    if (!text)
        return say(SIGN_UNREADABLE, why, why_size, "%s", e.msg);
    sign_verdict v = sign_verify_text(path, text, len, key, keylen, why, why_size);
    free(text);
    return v;
}

/* sign.c - the instructor's key, and signing reports (grade/sign.h). */
#include "grade/sign.h"
#include "grade/sign_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/digest.h"
#include "core/jsondoc.h"

extern char **environ;

/* The key's variable out of this process: its bytes overwritten where the
 * process's environment block holds them (so /proc/PID/environ shows
 * none of them), then removed, so no child inherits it. */
static void scrub_key_env(void)
{
    static const char name[] = SIGN_KEY_ENV "=";
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, name, sizeof name - 1) == 0)
            memset(*e + sizeof name - 1, 0, strlen(*e + sizeof name - 1));
    (void)unsetenv(SIGN_KEY_ENV);
}

bool sign_key_load(const char *file, char **key, size_t *len, cl_err *err)
{
    *key = NULL;
    *len = 0;
    if (file) {
        scrub_key_env();
        size_t n = 0;
        char *k = file_read_all(file, 1 << 16, &n, err);
        if (!k)
            return err_prefix(err, "cannot read the key file");
        while (n > 0 && (k[n - 1] == '\n' || k[n - 1] == '\r'))
            k[--n] = '\0';
        if (n == 0) {
            free(k);
            return err_set(err, "the key file %s is empty", file);
        }
        *key = k;
        *len = n;
        return true;
    }
    const char *env = getenv(SIGN_KEY_ENV);
    if (!env)
        return true;
    if (!env[0])
        return err_set(err, "%s is set but empty", SIGN_KEY_ENV);
    *key = strdup(env);
    if (!*key)
        return err_set(err, "out of memory");
    *len = strlen(env);
    scrub_key_env();
    return true;
}

bool sign_json_mac(cJSON *doc, const void *key, size_t keylen, char hex[SIGN_HEX_LEN + 1])
{
    char *text = jsondoc_print(doc, false);
    bool ok = text && digest_hmac_sha256_hex(key, keylen, text, strlen(text), hex);
    free(text);
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

bool sign_json(cJSON *doc, bool gradescope, const void *key, size_t keylen, cl_err *err)
{
    char hex[SIGN_HEX_LEN + 1];
    if (!sign_json_mac(doc, key, keylen, hex))
        return err_set(err, "cannot sign the report (out of memory or libcrypto failed)");
    cJSON *sig = signature_object(hex);
    if (!sig)
        return err_set(err, "out of memory");
    cJSON *where = doc;
    if (gradescope) {
        where = cJSON_GetObjectItemCaseSensitive(doc, SIGN_GS_EXTRA);
        if (!where)
            where = cJSON_AddObjectToObject(doc, SIGN_GS_EXTRA);
    }
    if (!where || !cJSON_AddItemToObject(where, gradescope ? SIGN_GS_KEY : SIGN_JSON_KEY, sig)) {
        cJSON_Delete(sig);
        return err_set(err, "out of memory");
    }
    return true;
}

char *sign_xml(const char *text, const void *key, size_t keylen, cl_err *err)
{
    char hex[SIGN_HEX_LEN + 1];
    size_t n = strlen(text);
    if (!digest_hmac_sha256_hex(key, keylen, text, n, hex)) {
        err_set(err, "cannot sign the report (libcrypto failed)");
        return NULL;
    }
    size_t total = n + strlen(SIGN_XML_MARK) + SIGN_HEX_LEN + strlen(SIGN_XML_END) + 1;
    char *out = malloc(total);
    if (!out) {
        err_set(err, "out of memory");
        return NULL;
    }
    snprintf(out, total, "%s" SIGN_XML_MARK "%s" SIGN_XML_END, text, hex);
    return out;
}

char *sign_sidecar(const char *data, size_t data_len, const void *key, size_t keylen, cl_err *err)
{
    char hex[SIGN_HEX_LEN + 1];
    if (!digest_hmac_sha256_hex(key, keylen, data, data_len, hex)) {
        err_set(err, "cannot sign the report (libcrypto failed)");
        return NULL;
    }
    size_t total = strlen(SIGN_ALG) + SIGN_HEX_LEN + 3;
    char *out = malloc(total);
    if (out)
        snprintf(out, total, "%s %s\n", SIGN_ALG, hex);
    else
        err_set(err, "out of memory");
    return out;
}

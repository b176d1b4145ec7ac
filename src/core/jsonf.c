#include "core/jsonf.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies src into dst (capacity n), cutting at a UTF-8 character boundary
 * when it does not fit. */
void jsonf_copy_str(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (n == 0)
        return;
    if (len >= n) {
        len = n - 1;
        while (len > 0 && ((unsigned char)src[len] & 0xC0) == 0x80)
            len--;
    }
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* JSON has no NaN or infinity: they travel as the strings "nan", "inf",
 * "-inf". */
bool jsonf_put_double(cJSON *o, const char *k, double v)
{
    if (isnan(v))
        return cJSON_AddStringToObject(o, k, "nan") != NULL;
    if (isinf(v))
        return cJSON_AddStringToObject(o, k, v > 0 ? "inf" : "-inf") != NULL;
    char buf[JSONF_NUMBER_MAX];
    return cJSON_AddRawToObject(o, k, jsonf_number_text(v, buf)) != NULL;
}

/* The shortest text that reads back to exactly the same double (cJSON's
 * own printing may drop the last bit). */
const char *jsonf_number_text(double v, char buf[JSONF_NUMBER_MAX])
{
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, JSONF_NUMBER_MAX, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

/* Rates below zero mean "not applicable" and travel as null. */
bool jsonf_put_rate(cJSON *o, const char *k, double v)
{
    if (v < 0)
        return cJSON_AddNullToObject(o, k) != NULL;
    return jsonf_put_double(o, k, v);
}

bool jsonf_put_u64(cJSON *o, const char *k, uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    return cJSON_AddStringToObject(o, k, buf) != NULL;
}

bool jsonf_put_int(cJSON *o, const char *k, double v)
{
    return cJSON_AddNumberToObject(o, k, v) != NULL;
}

bool jsonf_put_str(cJSON *o, const char *k, const char *v)
{
    return cJSON_AddStringToObject(o, k, v) != NULL;
}

bool jsonf_put_text(cJSON *o, const char *k, const char *v, escape_ws ws)
{
    char *clean = escape_dup(v, ws);
    bool ok = clean && cJSON_AddStringToObject(o, k, clean) != NULL;
    free(clean);
    return ok;
}

bool jsonf_get_str(const cJSON *o, const char *k, char *dst, size_t n, cl_err *e)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!it || cJSON_IsNull(it))
        return true;
    if (!cJSON_IsString(it) || !it->valuestring)
        return err_set(e, "field '%s' must be a string", k);
    jsonf_copy_str(dst, n, it->valuestring);
    return true;
}

bool jsonf_get_double(const cJSON *o, const char *k, double *dst, double if_null, cl_err *e)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!it)
        return true;
    if (cJSON_IsNull(it)) {
        *dst = if_null;
        return true;
    }
    if (cJSON_IsNumber(it)) {
        *dst = it->valuedouble;
        return true;
    }
    if (cJSON_IsString(it) && it->valuestring) {
        const char *s = it->valuestring;
        if (strcmp(s, "nan") == 0) {
            *dst = NAN;
            return true;
        }
        if (strcmp(s, "inf") == 0) {
            *dst = INFINITY;
            return true;
        }
        if (strcmp(s, "-inf") == 0) {
            *dst = -INFINITY;
            return true;
        }
    }
    return err_set(e, "field '%s' must be a number", k);
}

bool jsonf_get_int64(const cJSON *o, const char *k, int64_t *dst, int64_t lo, int64_t hi, cl_err *e)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!it)
        return true;
    if (!cJSON_IsNumber(it))
        return err_set(e, "field '%s' must be an integer", k);
    double v = it->valuedouble;
    if (!(v >= (double)lo && v <= (double)hi) || v != floor(v))
        return err_set(e, "field '%s' is out of range or not an integer", k);
    *dst = (int64_t)v;
    return true;
}

bool jsonf_get_int(const cJSON *o, const char *k, int *dst, cl_err *e)
{
    int64_t v = *dst;
    if (!jsonf_get_int64(o, k, &v, INT_MIN, INT_MAX, e))
        return false;
    *dst = (int)v;
    return true;
}

bool jsonf_get_bool(const cJSON *o, const char *k, bool *dst, cl_err *e)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!it)
        return true;
    if (!cJSON_IsBool(it))
        return err_set(e, "field '%s' must be true or false", k);
    *dst = cJSON_IsTrue(it);
    return true;
}

/* Seeds travel as strings of decimal digits: JSON numbers lose precision
 * past 2^53.  Small plain numbers are accepted too. */
bool jsonf_get_u64(const cJSON *o, const char *k, uint64_t *dst, cl_err *e)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!it)
        return true;
    if (cJSON_IsNumber(it)) {
        double v = it->valuedouble;
        if (!(v >= 0 && v <= 9007199254740992.0) || v != floor(v))
            return err_set(e, "field '%s' must be an unsigned integer", k);
        *dst = (uint64_t)v;
        return true;
    }
    const char *s = cJSON_IsString(it) ? it->valuestring : NULL;
    if (!s || !*s || strspn(s, "0123456789") != strlen(s))
        return err_set(e, "field '%s' must be a string of decimal digits", k);
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno == ERANGE)
        return err_set(e, "field '%s' does not fit in 64 bits", k);
    *dst = (uint64_t)v;
    return true;
}

bool jsonf_get_enum(const cJSON *o, const char *k, const char *const *names, size_t count,
                     int *dst, cl_err *e)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!it)
        return true;
    if (!cJSON_IsString(it) || !it->valuestring)
        return err_set(e, "field '%s' must be a string", k);
    for (size_t i = 0; i < count; i++) {
        if (names[i] && strcmp(names[i], it->valuestring) == 0) {
            *dst = (int)i;
            return true;
        }
    }
    return err_set(e, "field '%s' has an unknown value '%.64s'", k, it->valuestring);
}

const cJSON *jsonf_get_array(const cJSON *o, const char *k, int max, cl_err *e, bool *ok)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    *ok = true;
    if (!it || cJSON_IsNull(it))
        return NULL;
    if (!cJSON_IsArray(it)) {
        *ok = err_set(e, "field '%s' must be an array", k);
        return NULL;
    }
    if (cJSON_GetArraySize(it) > max) {
        *ok = err_set(e, "field '%s' has more than %d entries", k, max);
        return NULL;
    }
    return it;
}

bool jsonf_put_bool(cJSON *o, const char *k, bool v)
{
    return cJSON_AddBoolToObject(o, k, v) != NULL;
}

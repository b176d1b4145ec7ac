#include "core/jsonf.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies src into dst (capacity cap), cutting at a UTF-8 character boundary
 * when it does not fit. */
void jsonf_copy_str(char *dst, size_t cap, const char *src)
{
    size_t len = strlen(src);
    if (cap == 0)
        return;
    if (len >= cap) {
        len = cap - 1;
        while (len > 0 && ((unsigned char)src[len] & 0xC0) == 0x80)
            len--;
    }
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* JSON has no NaN or infinity: they travel as the strings "nan", "inf",
 * "-inf". */
bool jsonf_put_double(cJSON *obj, const char *key, double value)
{
    if (isnan(value))
        return cJSON_AddStringToObject(obj, key, "nan") != NULL;
    if (isinf(value))
        return cJSON_AddStringToObject(obj, key, value > 0 ? "inf" : "-inf") != NULL;
    char buf[JSONF_NUMBER_MAX];
    return cJSON_AddRawToObject(obj, key, jsonf_number_text(value, buf)) != NULL;
}

/* The shortest text that reads back to exactly the same double (cJSON's
 * own printing may drop the last bit). */
const char *jsonf_number_text(double value, char buf[JSONF_NUMBER_MAX])
{
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, JSONF_NUMBER_MAX, "%.*g", digits, value);
        if (strtod(buf, NULL) == value)
            break;
    }
    return buf;
}

/* Rates below zero mean "not applicable" and travel as null. */
bool jsonf_put_rate(cJSON *obj, const char *key, double value)
{
    if (value < 0)
        return cJSON_AddNullToObject(obj, key) != NULL;
    return jsonf_put_double(obj, key, value);
}

bool jsonf_put_u64(cJSON *obj, const char *key, uint64_t value)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRIu64, value);
    return cJSON_AddStringToObject(obj, key, buf) != NULL;
}

bool jsonf_put_int(cJSON *obj, const char *key, double value)
{
    return cJSON_AddNumberToObject(obj, key, value) != NULL;
}

bool jsonf_put_str(cJSON *obj, const char *key, const char *value)
{
    return cJSON_AddStringToObject(obj, key, value) != NULL;
}

bool jsonf_put_text(cJSON *obj, const char *key, const char *value, escape_ws ws)
{
    char *clean = escape_dup(value, ws);
    bool ok = clean && cJSON_AddStringToObject(obj, key, clean) != NULL;
    free(clean);
    return ok;
}

bool jsonf_get_str(const cJSON *obj, const char *key, char *dst, size_t cap, cl_err *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it || cJSON_IsNull(it))
        return true;
    if (!cJSON_IsString(it) || !it->valuestring)
        return err_set(err, "field '%s' must be a string", key);
    jsonf_copy_str(dst, cap, it->valuestring);
    return true;
}

bool jsonf_get_double(const cJSON *obj, const char *key, double *dst, double if_null, cl_err *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
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
    return err_set(err, "field '%s' must be a number", key);
}

bool jsonf_get_int64(const cJSON *obj, const char *key, int64_t *dst, int64_t lo, int64_t hi, cl_err *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it)
        return true;
    if (!cJSON_IsNumber(it))
        return err_set(err, "field '%s' must be an integer", key);
    double v = it->valuedouble;
    if (!(v >= (double)lo && v <= (double)hi) || v != floor(v))
        return err_set(err, "field '%s' is out of range or not an integer", key);
    *dst = (int64_t)v;
    return true;
}

bool jsonf_get_int(const cJSON *obj, const char *key, int *dst, cl_err *err)
{
    int64_t v = *dst;
    if (!jsonf_get_int64(obj, key, &v, INT_MIN, INT_MAX, err))
        return false;
    *dst = (int)v;
    return true;
}

bool jsonf_get_bool(const cJSON *obj, const char *key, bool *dst, cl_err *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it)
        return true;
    if (!cJSON_IsBool(it))
        return err_set(err, "field '%s' must be true or false", key);
    *dst = cJSON_IsTrue(it);
    return true;
}

/* Seeds travel as strings of decimal digits: JSON numbers lose precision
 * past 2^53.  Small plain numbers are accepted too. */
bool jsonf_get_u64(const cJSON *obj, const char *key, uint64_t *dst, cl_err *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it)
        return true;
    if (cJSON_IsNumber(it)) {
        double v = it->valuedouble;
        if (!(v >= 0 && v <= 9007199254740992.0) || v != floor(v))
            return err_set(err, "field '%s' must be an unsigned integer", key);
        *dst = (uint64_t)v;
        return true;
    }
    const char *s = cJSON_IsString(it) ? it->valuestring : NULL;
    if (!s || !*s || strspn(s, "0123456789") != strlen(s))
        return err_set(err, "field '%s' must be a string of decimal digits", key);
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno == ERANGE)
        return err_set(err, "field '%s' does not fit in 64 bits", key);
    *dst = (uint64_t)v;
    return true;
}

bool jsonf_get_enum(const cJSON *obj, const char *key, const char *const *names, size_t count,
                     int *dst, cl_err *err)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!it)
        return true;
    if (!cJSON_IsString(it) || !it->valuestring)
        return err_set(err, "field '%s' must be a string", key);
    for (size_t i = 0; i < count; i++) {
        if (names[i] && strcmp(names[i], it->valuestring) == 0) {
            *dst = (int)i;
            return true;
        }
    }
    return err_set(err, "field '%s' has an unknown value '%.64s'", key, it->valuestring);
}

const cJSON *jsonf_get_array(const cJSON *obj, const char *key, int max, cl_err *err, bool *ok)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
    *ok = true;
    if (!it || cJSON_IsNull(it))
        return NULL;
    if (!cJSON_IsArray(it)) {
        *ok = err_set(err, "field '%s' must be an array", key);
        return NULL;
    }
    if (cJSON_GetArraySize(it) > max) {
        *ok = err_set(err, "field '%s' has more than %d entries", key, max);
        return NULL;
    }
    return it;
}

bool jsonf_put_bool(cJSON *obj, const char *key, bool value)
{
    return cJSON_AddBoolToObject(obj, key, value) != NULL;
}

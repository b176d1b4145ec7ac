/* jsonf.h - typed fields of cJSON objects, read and written alike.
 *
 * The conventions every JSON form in cudalab shares (the wire protocol,
 * --json output, the progress store, grade reports):
 *   - doubles are printed with the fewest digits that read back exactly;
 *     NaN and infinities, which JSON lacks, travel as "nan", "inf", "-inf";
 *   - 64-bit unsigned numbers (seeds) travel as strings of decimal digits;
 *   - a missing field keeps the value already in the destination, a field
 *     of the wrong type is an error naming the field.
 * Writers return false only when cJSON runs out of memory. */
#ifndef CUDALAB_CORE_JSONF_H
#define CUDALAB_CORE_JSONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "core/err.h"
#include "core/escape.h"

#define JSONF_NUMBER_MAX 40

bool jsonf_put_double(cJSON *obj, const char *key, double value);
/* value < 0 ("not applicable") as null, else as jsonf_put_double. */
bool jsonf_put_rate(cJSON *obj, const char *key, double value);
bool jsonf_put_u64(cJSON *obj, const char *key, uint64_t value);
bool jsonf_put_int(cJSON *obj, const char *key, double value);
bool jsonf_put_str(cJSON *obj, const char *key, const char *value);
/* value cleaned for display first (core/escape.h): text a learner controls. */
bool jsonf_put_text(cJSON *obj, const char *key, const char *value, escape_ws ws);
/* value as jsonf_put_double writes it (finite value), into buf; returns buf. */
const char *jsonf_number_text(double value, char buf[JSONF_NUMBER_MAX]);
bool jsonf_put_bool(cJSON *obj, const char *key, bool value);

/* Copies src into dst (capacity cap), cutting at a UTF-8 character boundary
 * when it does not fit. */
void jsonf_copy_str(char *dst, size_t cap, const char *src);

bool jsonf_get_str(const cJSON *obj, const char *key, char *dst, size_t cap, cl_err *err);
/* null stores if_null. */
bool jsonf_get_double(const cJSON *obj, const char *key, double *dst, double if_null, cl_err *err);
bool jsonf_get_int64(const cJSON *obj, const char *key, int64_t *dst, int64_t lo, int64_t hi,
                     cl_err *err);
bool jsonf_get_int(const cJSON *obj, const char *key, int *dst, cl_err *err);
bool jsonf_get_bool(const cJSON *obj, const char *key, bool *dst, cl_err *err);
bool jsonf_get_u64(const cJSON *obj, const char *key, uint64_t *dst, cl_err *err);
/* A string naming one of names[0..count) (NULL entries skipped): its index. */
bool jsonf_get_enum(const cJSON *obj, const char *key, const char *const *names, size_t count,
                    int *dst, cl_err *err);
/* The array field key (NULL when missing or null, *ok true); *ok false
 * with err set when it is not an array or holds more than max entries. */
const cJSON *jsonf_get_array(const cJSON *obj, const char *key, int max, cl_err *err, bool *ok);

#endif

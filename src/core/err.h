/* err.h - a fixed-size error message carried up through return values.
 *
 * Functions that can fail return bool (or an int status) and, when given a
 * non-NULL cl_err, write a one-line human message into it.  Nothing here
 * exits the process: an interactive program reports and carries on. */
#ifndef CUDALAB_CORE_ERR_H
#define CUDALAB_CORE_ERR_H

#include <stdarg.h>
#include <stdbool.h>

#define CL_ERR_MAX 1024

typedef struct cl_err {
    char msg[CL_ERR_MAX];
} cl_err;

/* Formats into err (if err != NULL); always returns false so callers can
 * write `return err_set(err, "...")`. */
bool err_set(cl_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool err_vset(cl_err *err, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Prepends "prefix: " to an existing message. */
bool err_prefix(cl_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void err_clear(cl_err *err);

#endif

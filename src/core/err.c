#include "core/err.h"

#include <stdio.h>
#include <string.h>

bool err_vset(cl_err *err, const char *fmt, va_list ap)
{
    if (err)
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    return false;
}

bool err_set(cl_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(err, fmt, ap);
    va_end(ap);
    return false;
}

bool err_prefix(cl_err *err, const char *fmt, ...)
{
    if (!err)
        return false;
    char head[CL_ERR_MAX], old[CL_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    snprintf(err->msg, sizeof err->msg, "%s: %s", head, old);
    return false;
}

void err_clear(cl_err *err)
{
    if (err)
        err->msg[0] = '\0';
}

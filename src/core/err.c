#include "core/err.h"

#include <stdio.h>
#include <string.h>

bool err_vset(cl_err *e, const char *fmt, va_list ap)
{
    if (e)
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    return false;
}

bool err_set(cl_err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(e, fmt, ap);
    va_end(ap);
    return false;
}

bool err_prefix(cl_err *e, const char *fmt, ...)
{
    if (!e)
        return false;
    char head[CL_ERR_MAX], old[CL_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    memcpy(old, e->msg, sizeof old);
    snprintf(e->msg, sizeof e->msg, "%s: %s", head, old);
    return false;
}

void err_clear(cl_err *e)
{
    if (e)
        e->msg[0] = '\0';
}

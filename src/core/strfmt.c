#include "core/strfmt.h"

#include <stdarg.h>
#include <stdio.h>

size_t strfmt_append(char *buf, size_t n, size_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(at < n ? buf + at : NULL, at < n ? n - at : 0, fmt, ap);
    va_end(ap);
    return k < 0 ? at : at + (size_t)k;
}

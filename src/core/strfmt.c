#include "core/strfmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

size_t strfmt_append(char *buf, size_t n, size_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(at < n ? buf + at : NULL, at < n ? n - at : 0, fmt, ap);
    va_end(ap);
    return k < 0 ? at : at + (size_t)k;
}

void strfmt_copy(char *dst, size_t n, const char *src)
{
    strfmt_copy_n(dst, n, src ? src : "", src ? strlen(src) : 0);
}

void strfmt_copy_n(char *dst, size_t n, const char *src, size_t len)
{
    if (n == 0)
        return;
    if (len >= n)
        len = n - 1;
    memmove(dst, src, len);
    dst[len] = '\0';
}

const char *strfmt_cell(char *out, size_t n, const char *s, int cols)
{
    size_t at = 0;
    int used = 0;
    if (n == 0)
        return out;
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p && used < cols;) {
        size_t len = 1;
        while ((p[len] & 0xC0) == 0x80 && len < 4)
            len++;
        if (at + len >= n)
            break;
        memcpy(out + at, p, len);
        at += len;
        p += len;
        used++;
    }
    while (used < cols && at + 1 < n) {
        out[at++] = ' ';
        used++;
    }
    out[at] = '\0';
    return out;
}

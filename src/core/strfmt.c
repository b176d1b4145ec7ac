#include "core/strfmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

size_t strfmt_vappend(char *buf, size_t cap, size_t at, const char *fmt, va_list args)
{
    int k = vsnprintf(at < cap ? buf + at : NULL, at < cap ? cap - at : 0, fmt, args);
    return k < 0 ? at : at + (size_t)k;
}

size_t strfmt_append(char *buf, size_t cap, size_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t end = strfmt_vappend(buf, cap, at, fmt, ap);
    va_end(ap);
    return end;
}

void strfmt_copy(char *dst, size_t cap, const char *src)
{
    strfmt_copy_n(dst, cap, src ? src : "", src ? strlen(src) : 0);
}

void strfmt_copy_n(char *dst, size_t cap, const char *src, size_t len)
{
    if (cap == 0)
        return;
    if (len >= cap)
        len = cap - 1;
    memmove(dst, src, len);
    dst[len] = '\0';
}

const char *strfmt_cell(char *out, size_t cap, const char *text, int cols)
{
    size_t at = 0;
    int used = 0;
    if (cap == 0)
        return out;
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p && used < cols;) {
        size_t len = 1;
        while ((p[len] & 0xC0) == 0x80 && len < 4)
            len++;
        if (at + len >= cap)
            break;
        memcpy(out + at, p, len);
        at += len;
        p += len;
        used++;
    }
    while (used < cols && at + 1 < cap) {
        out[at++] = ' ';
        used++;
    }
    out[at] = '\0';
    return out;
}

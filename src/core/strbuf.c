#include "core/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRBUF_FIRST_CAP 256

void strbuf_init(strbuf *buf, size_t max)
{
    memset(buf, 0, sizeof *buf);
    buf->max = max;
}

/* Makes room for n more bytes and the NUL; false (failed set) when the
 * memory cannot be had. */
static bool grow(strbuf *b, size_t n)
{
    if (b->failed)
        return false;
    if (n > (size_t)-1 - b->len - 1) {
        b->failed = true;
        return false;
    }
    size_t need = b->len + n + 1;
    if (need <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : STRBUF_FIRST_CAP;
    while (cap < need)
        cap = cap > (size_t)-1 / 2 ? need : cap * 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->failed = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

bool strbuf_add(strbuf *buf, const void *data, size_t size)
{
    if (buf->failed)
        return false;
    if (buf->max > 0 && size > buf->max - buf->len) {
        size = buf->max - buf->len;
        buf->truncated = true;
    }
    if (!grow(buf, size))
        return false;
    if (size > 0)
        memcpy(buf->p + buf->len, data, size);
    buf->len += size;
    buf->p[buf->len] = '\0';
    return true;
}

bool strbuf_str(strbuf *buf, const char *text)
{
    return strbuf_add(buf, text, strlen(text));
}

bool strbuf_vprintf(strbuf *buf, const char *fmt, va_list ap)
{
    if (buf->failed)
        return false;
    va_list aq;
    va_copy(aq, ap);
    size_t room = buf->cap > buf->len ? buf->cap - buf->len : 0;
    int w = vsnprintf(buf->p ? buf->p + buf->len : NULL, buf->p ? room : 0, fmt, aq);
    va_end(aq);
    if (w < 0) {
        buf->failed = true;
        return false;
    }
    size_t n = (size_t)w;
    if (n < room && (buf->max == 0 || n <= buf->max - buf->len)) {
        buf->len += n;
        return true;
    }
    if (buf->p)
        buf->p[buf->len] = '\0';    /* undoes what did not fit */
    if (buf->max > 0 && n > buf->max - buf->len) {
        /* Formats in full, then keeps what the limit allows. */
        char *tmp = malloc(n + 1);
        if (!tmp) {
            buf->failed = true;
            return false;
        }
        vsnprintf(tmp, n + 1, fmt, ap);
        bool ok = strbuf_add(buf, tmp, n);
        free(tmp);
        return ok;
    }
    if (!grow(buf, n))
        return false;
    vsnprintf(buf->p + buf->len, n + 1, fmt, ap);
    buf->len += n;
    return true;
}

bool strbuf_printf(strbuf *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = strbuf_vprintf(buf, fmt, ap);
    va_end(ap);
    return ok;
}

const char *strbuf_text(const strbuf *buf)
{
    return buf->p ? buf->p : "";
}

void strbuf_cut(strbuf *buf, size_t count)
{
    if (count >= buf->len) {
        buf->len = 0;
    } else {
        memmove(buf->p, buf->p + count, buf->len - count);
        buf->len -= count;
    }
    if (buf->p)
        buf->p[buf->len] = '\0';
}

void strbuf_clear(strbuf *buf)
{
    strbuf_cut(buf, buf->len);
    buf->failed = buf->truncated = false;
}

char *strbuf_take(strbuf *buf)
{
    char *p = buf->failed ? NULL : buf->p ? buf->p : strdup("");
    if (buf->failed)
        free(buf->p);
    size_t max = buf->max;
    strbuf_init(buf, max);
    return p;
}

void strbuf_free(strbuf *buf)
{
    free(buf->p);
    strbuf_init(buf, buf->max);
}

bool strbuf_putc(strbuf *buf, char ch)
{
    return strbuf_add(buf, &ch, 1);
}

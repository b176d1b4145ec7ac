#include "core/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRBUF_FIRST_CAP 256

void strbuf_init(strbuf *b, size_t max)
{
    memset(b, 0, sizeof *b);
    b->max = max;
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

bool strbuf_add(strbuf *b, const void *data, size_t n)
{
    if (b->failed)
        return false;
    if (b->max > 0 && n > b->max - b->len) {
        n = b->max - b->len;
        b->truncated = true;
    }
    if (!grow(b, n))
        return false;
    if (n > 0)
        memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = '\0';
    return true;
}

bool strbuf_str(strbuf *b, const char *s)
{
    return strbuf_add(b, s, strlen(s));
}

bool strbuf_vprintf(strbuf *b, const char *fmt, va_list ap)
{
    if (b->failed)
        return false;
    va_list aq;
    va_copy(aq, ap);
    size_t room = b->cap > b->len ? b->cap - b->len : 0;
    int w = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? room : 0, fmt, aq);
    va_end(aq);
    if (w < 0) {
        b->failed = true;
        return false;
    }
    size_t n = (size_t)w;
    if (n < room && (b->max == 0 || n <= b->max - b->len)) {
        b->len += n;
        return true;
    }
    if (b->p)
        b->p[b->len] = '\0';    /* undoes what did not fit */
    if (b->max > 0 && n > b->max - b->len) {
        /* Formats in full, then keeps what the limit allows. */
        char *tmp = malloc(n + 1);
        if (!tmp) {
            b->failed = true;
            return false;
        }
        vsnprintf(tmp, n + 1, fmt, ap);
        bool ok = strbuf_add(b, tmp, n);
        free(tmp);
        return ok;
    }
    if (!grow(b, n))
        return false;
    vsnprintf(b->p + b->len, n + 1, fmt, ap);
    b->len += n;
    return true;
}

bool strbuf_printf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = strbuf_vprintf(b, fmt, ap);
    va_end(ap);
    return ok;
}

const char *strbuf_text(const strbuf *b)
{
    return b->p ? b->p : "";
}

void strbuf_cut(strbuf *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
    } else {
        memmove(b->p, b->p + n, b->len - n);
        b->len -= n;
    }
    if (b->p)
        b->p[b->len] = '\0';
}

void strbuf_clear(strbuf *b)
{
    strbuf_cut(b, b->len);
    b->failed = b->truncated = false;
}

char *strbuf_take(strbuf *b)
{
    char *p = b->failed ? NULL : b->p ? b->p : strdup("");
    if (b->failed)
        free(b->p);
    size_t max = b->max;
    strbuf_init(b, max);
    return p;
}

void strbuf_free(strbuf *b)
{
    free(b->p);
    strbuf_init(b, b->max);
}

bool strbuf_putc(strbuf *b, char c)
{
    return strbuf_add(b, &c, 1);
}

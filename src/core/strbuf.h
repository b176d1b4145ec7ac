/* strbuf.h - text that grows as it is appended to.
 *
 * Bytes, strings and printf formats are appended; the buffer doubles as it
 * fills and its text is NUL-terminated once anything was added.  A failed
 * allocation sets `failed` and makes every later append a no-op, so a
 * chain of appends is checked once, at the end (as with Lua's luaL_Buffer
 * or redis's sds).  A limit (max > 0) caps the text: bytes past it are
 * dropped and `truncated` says so, which is not a failure.
 *
 *   strbuf buf = STRBUF_INIT;
 *   strbuf_str(&buf, "x = ");
 *   strbuf_printf(&buf, "%d\n", x);
 *   char *text = strbuf_take(&buf);     NULL when out of memory */
#ifndef CUDALAB_CORE_STRBUF_H
#define CUDALAB_CORE_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct strbuf {
    char *p;            /* the text, NUL-terminated; NULL before the first append */
    size_t len, cap;
    size_t max;         /* the most bytes kept; 0: no limit */
    bool failed;        /* an allocation failed: the text is incomplete */
    bool truncated;     /* bytes past max were dropped */
} strbuf;

#define STRBUF_INIT {0}

/* An empty buffer that keeps at most max bytes (0: no limit). */
void strbuf_init(strbuf *buf, size_t max);
/* Appends size bytes of data (NUL bytes included).  All appends return false
 * once an allocation has failed. */
bool strbuf_add(strbuf *buf, const void *data, size_t size);
bool strbuf_str(strbuf *buf, const char *text);
bool strbuf_putc(strbuf *buf, char ch);
bool strbuf_printf(strbuf *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool strbuf_vprintf(strbuf *buf, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* The text so far; "" when nothing was added. */
const char *strbuf_text(const strbuf *buf);
/* Removes the first count bytes (all of them when count >= the length),
 * keeping the memory. */
void strbuf_cut(strbuf *buf, size_t count);
/* Empties the text, keeping the memory; after a failed allocation the
 * buffer takes appends again. */
void strbuf_clear(strbuf *buf);
/* The text (malloc'd, "" when nothing was added; the caller frees), or
 * NULL when an allocation failed.  buf is left empty, its limit kept. */
char *strbuf_take(strbuf *buf);
/* Frees the text; buf is left empty, its limit kept. */
void strbuf_free(strbuf *buf);

#endif

/* strbuf.h - text that grows as it is appended to.
 *
 * Bytes, strings and printf formats are appended; the buffer doubles as it
 * fills and its text is NUL-terminated once anything was added.  A failed
 * allocation sets `failed` and makes every later append a no-op, so a
 * chain of appends is checked once, at the end (as with Lua's luaL_Buffer
 * or redis's sds).  A limit (max > 0) caps the text: bytes past it are
 * dropped and `truncated` says so, which is not a failure.
 *
 *   strbuf b = STRBUF_INIT;
 *   strbuf_str(&b, "x = ");
 *   strbuf_printf(&b, "%d\n", x);
 *   char *text = strbuf_take(&b);     NULL when out of memory */
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
void strbuf_init(strbuf *b, size_t max);
/* Appends n bytes of data (NUL bytes included).  All appends return false
 * once an allocation has failed. */
bool strbuf_add(strbuf *b, const void *data, size_t n);
bool strbuf_str(strbuf *b, const char *s);
bool strbuf_putc(strbuf *b, char c);
bool strbuf_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool strbuf_vprintf(strbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* The text so far; "" when nothing was added. */
const char *strbuf_text(const strbuf *b);
/* Removes the first n bytes (all when n >= len), keeping the memory. */
void strbuf_cut(strbuf *b, size_t n);
/* Empties the text, keeping the memory; after a failed allocation the
 * buffer takes appends again. */
void strbuf_clear(strbuf *b);
/* The text (malloc'd, "" when nothing was added; the caller frees), or
 * NULL when an allocation failed.  b is left empty, its limit kept. */
char *strbuf_take(strbuf *b);
/* Frees the text; b is left empty, its limit kept. */
void strbuf_free(strbuf *b);

#endif

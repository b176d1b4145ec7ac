/* strfmt.h - building text piece by piece in a fixed buffer. */
#ifndef CUDALAB_CORE_STRFMT_H
#define CUDALAB_CORE_STRFMT_H

#include <stdarg.h>
#include <stddef.h>

/* Formats at buf + at (when at < cap), never writing past buf[cap - 1], and
 * returns at plus the length snprintf would have written, so a chain of
 * calls ends with the length the whole text needs:
 *   at = strfmt_append(buf, cap, at, "...", ...); */
size_t strfmt_append(char *buf, size_t cap, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same with the arguments in args, for functions that take a format. */
size_t strfmt_vappend(char *buf, size_t cap, size_t at, const char *fmt, va_list args)
    __attribute__((format(printf, 4, 0)));

/* Copies src (NULL: "") into dst (cap bytes), cut to fit, always terminated. */
void strfmt_copy(char *dst, size_t cap, const char *src);
/* Copies the first len bytes of src into dst (cap bytes), cut to fit, and
 * terminates it. */
void strfmt_copy_n(char *dst, size_t cap, const char *src, size_t len);

/* A table cell of cols characters for a terminal: text cut to at most
 * cols UTF-8 characters (never inside one) and padded with spaces, into out
 * (cap bytes).  Returns out, for printf.  Each character counts one column,
 * which holds for the text cudalab prints (no wide CJK glyphs). */
const char *strfmt_cell(char *out, size_t cap, const char *text, int cols);

#endif

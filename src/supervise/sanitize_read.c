/* sanitize_read.c - the fields of compute-sanitizer's report lines:
 * thread and block triples, addresses, counts with thousands separators,
 * and where an access happened (kernel, file and line) in the forms the
 * tool's versions print. */
#define _GNU_SOURCE   /* memrchr */
#include "supervise/sanitize_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/strfmt.h"

/* "(1,2,3)" or "(1, 2, 3)" at text into xyz; true when read. */
bool sanitize_read_triple(const char *text, int xyz[3])
{
    const char *p = strchr(text, '(');
    if (!p)
        return false;
    p++;
    for (int i = 0; i < 3; i++) {
        p = sanitize_skip_space(p);
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p)
            return false;
        xyz[i] = (int)x;
        p = sanitize_skip_space(end);
        if (i < 2) {
            if (*p != ',')
                return false;
            p++;
        }
    }
    return *p == ')';
}

/* The first "0x..." in text. */
bool sanitize_read_hex(const char *text, uint64_t *value)
{
    const char *p = strstr(text, "0x");
    if (!p)
        return false;
    char *end;
    unsigned long long x = strtoull(p + 2, &end, 16);
    if (end == p + 2)
        return false;
    *value = (uint64_t)x;
    return true;
}

/* A number that may carry thousands separators ("33,036,889,217"). */
long long sanitize_read_number(const char *text)
{
    long long v = 0;
    bool any = false;
    text = sanitize_skip_space(text);
    for (; *text; text++) {
        if (isdigit((unsigned char)*text)) {
            v = v * 10 + (*text - '0');
            any = true;
        } else if (*text != ',' || !any || !isdigit((unsigned char)text[1])) {
            break;
        }
    }
    return any ? v : -1;
}

/* Reads "FILE:LINE" from s[0..len) (a trailing " [N hazards]" allowed). */
static bool read_file_line(const char *s, size_t len, char *file, size_t fn, int *line)
{
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\r'))
        len--;
    const char *br = memchr(s, '[', len);
    if (br) {
        len = (size_t)(br - s);
        while (len > 0 && s[len - 1] == ' ')
            len--;
    }
    size_t i = len;
    while (i > 0 && isdigit((unsigned char)s[i - 1]))
        i--;
    if (i == len || i == 0 || s[i - 1] != ':')
        return false;
    *line = atoi(s + i);
    const char *slash = memrchr(s, '/', i - 1);
    const char *b = slash ? slash + 1 : s;
    strfmt_copy_n(file, fn, b, (size_t)(s + i - 1 - b));
    return true;
}

/* The kernel's name from a function as the tool prints it: "reduce_sum",
 * "reduce(const float *, float *, int)", "void f<int>(int)". */
static void kernel_name(const char *fn, size_t len, char *out, size_t n)
{
    const char *p = fn;
    const char *end = fn + len;
    if (len > 5 && strncmp(p, "void ", 5) == 0)
        p += 5;
    const char *paren = memchr(p, '(', (size_t)(end - p));
    if (paren && paren > p)
        end = paren;
    while (end > p && end[-1] == ' ')
        end--;
    strfmt_copy_n(out, n, p, (size_t)(end - p));
}

/* "at reduce_sum+0x1b0 in /x/starter.cu:12", "at f(int)+0x40" (no line
 * information), or the older "at 0x1b0 in /x/starter.cu:12:reduce_sum". */
bool sanitize_read_location(const char *text, sanitize_location *loc)
{
    memset(loc, 0, sizeof *loc);
    text = sanitize_skip_space(text);
    if (sanitize_starts(text, "at "))
        text += 3;
    text = sanitize_skip_space(text);
    size_t len = strcspn(text, "\r\n");
    const char *in = NULL;
    for (const char *q = text; q + 4 <= text + len; q++)
        if (memcmp(q, " in ", 4) == 0)
            in = q;
    if (sanitize_starts(text, "0x")) {
        if (!in)
            return false;
        const char *f = in + 4;
        size_t flen = len - (size_t)(f - text);
        /* FILE:LINE:FUNC */
        for (size_t i = 0; i + 1 < flen; i++) {
            if (f[i] != ':' || !isdigit((unsigned char)f[i + 1]))
                continue;
            size_t j = i + 1;
            while (j < flen && isdigit((unsigned char)f[j]))
                j++;
            if (j < flen && f[j] == ':') {
                if (!read_file_line(f, j, loc->file, sizeof loc->file, &loc->line))
                    return false;
                kernel_name(f + j + 1, flen - j - 1, loc->kernel, sizeof loc->kernel);
                return true;
            }
        }
        return read_file_line(f, flen, loc->file, sizeof loc->file, &loc->line);
    }
    const char *plus = NULL;
    const char *limit = in ? in : text + len;
    for (const char *q = text; q + 3 <= limit; q++)
        if (memcmp(q, "+0x", 3) == 0)
            plus = q;
    kernel_name(text, (size_t)((plus ? plus : limit) - text), loc->kernel, sizeof loc->kernel);
    if (in)
        read_file_line(in + 4, len - (size_t)(in + 4 - text), loc->file, sizeof loc->file,
                       &loc->line);
    return loc->kernel[0] != '\0';
}

long long sanitize_read_hazards(const char *text)
{
    const char *br = strrchr(text, '[');
    if (!br || !strstr(br, "hazard"))
        return 0;
    long long v = sanitize_read_number(br + 1);
    return v > 0 ? v : 0;
}

/* problem_parse.c - reading size labels: counts ("2^28", "1<<20", "2^20+3"),
 * dimensions ("1024x512x256"), and a problem's size through its spec. */
#include "catalog/problem_spec.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/record.h"

static const char *skip_space(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return s;
}

/* A decimal integer at *s; advances *s past it. */
static bool read_int(const char **s, int64_t *v)
{
    const char *p = skip_space(*s);
    if (!isdigit((unsigned char)*p))
        return false;
    errno = 0;
    char *end;
    long long x = strtoll(p, &end, 10);
    if (errno == ERANGE)
        x = LLONG_MAX;          /* well formed, beyond every limit */
    *v = (int64_t)x;
    *s = skip_space(end);
    return true;
}

#define COUNT_FORMS "use 268435456, 2^28, 1<<28 or 2^20+3"
#define COUNT_CEIL ((int64_t)1 << 62)

/* a, a^b or a<<b at *p (advanced past it); false when malformed, with
 * *over set when well formed but beyond COUNT_CEIL. */
static bool read_power(const char **p, int64_t *r, bool *over)
{
    int64_t a = 0, b = 0;
    *over = false;
    if (!read_int(p, &a))
        return false;
    if (**p == '^') {
        (*p)++;
        if (!read_int(p, &b))
            return false;
        if (a < 2) {
            *r = b == 0 ? 1 : a;
            return true;
        }
        *r = 1;
        for (int64_t i = 0; i < b; i++) {
            if (*r > COUNT_CEIL / a) {
                *over = true;
                return true;
            }
            *r *= a;
        }
        return true;
    }
    if ((*p)[0] == '<' && (*p)[1] == '<') {
        *p += 2;
        if (!read_int(p, &b))
            return false;
        if (b > 62 || (a > 0 && a > (COUNT_CEIL >> b))) {
            *over = true;
            return true;
        }
        *r = a << b;
        return true;
    }
    *r = a;
    return true;
}

/* A hexadecimal number ("0x100") is not read as 0 times 100: refused,
 * with its decimal value. */
static bool hex_refused(const char *text, cl_err *err)
{
    const char *p = skip_space(text);
    if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X') || !isxdigit((unsigned char)p[2]))
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(p, &end, 16);
    if (errno == ERANGE || *skip_space(end))
        err_set(err, "'%s' looks hexadecimal: sizes are decimal (" COUNT_FORMS ")", text);
    else
        err_set(err, "'%s' looks hexadecimal: sizes are decimal (%llu)", text, v);
    return true;
}

/* max as people write it: 1073741824 (2^30). */
static void limit_text(int64_t max, char *out, size_t n)
{
    int k = 0;
    while (k < 63 && ((int64_t)1 << k) < max)
        k++;
    if (k < 63 && ((int64_t)1 << k) == max && k > 3)
        snprintf(out, n, "%lld (2^%d)", (long long)max, k);
    else
        snprintf(out, n, "%lld", (long long)max);
}

bool problem_parse_count(const char *text, int64_t max, int64_t *value, cl_err *err)
{
    if (hex_refused(text, err))
        return false;
    const char *p = text;
    int64_t r = 0, k = 0;
    bool over = false;
    if (!read_power(&p, &r, &over))
        return err_set(err, "'%s' is not a count (" COUNT_FORMS ")", text);
    if (*p == '+' || *p == '-') {
        char op = *p++;
        if (!read_int(&p, &k))
            return err_set(err, "'%s' is not a count (" COUNT_FORMS ")", text);
        if (!over)
            r = op == '+' ? r + k : r - k;
    }
    if (*p)
        return err_set(err, "'%s' is not a count (" COUNT_FORMS ")", text);
    if (over || r > max) {
        char lim[48];
        limit_text(max, lim, sizeof lim);
        return err_set(err, "%s is larger than the limit %s", text, lim);
    }
    if (r < 1)
        return err_set(err, "%s must be at least 1", text);
    *value = r;
    return true;
}

bool problem_parse_dims(const char *text, int max, int64_t limit, int64_t *parts, int *nparts,
                        cl_err *err)
{
    char buf[RUN_SIZE_MAX * 2];
    if (strlen(text) >= sizeof buf)
        return err_set(err, "size '%s' is too long", text);
    if (hex_refused(text, err))
        return false;
    snprintf(buf, sizeof buf, "%s", text);
    int n = 0;
    char *p = buf;
    for (;;) {
        char *x = p;
        while (*x && *x != 'x' && *x != 'X')
            x++;
        bool last = *x == '\0';
        *x = '\0';
        if (n == max)
            return err_set(err, "size '%s' has more than %d dimension%s", text, max,
                           max == 1 ? "" : "s");
        if (!p[strspn(p, " ")])
            return err_set(err, "size '%s' has an empty dimension", text);
        if (!problem_parse_count(p, limit, &parts[n], err))
            return false;
        n++;
        if (last)
            break;
        p = x + 1;
    }
    *nparts = n;
    return true;
}

bool problem_parse_size(const problem_spec *spec, const char *label, problem_dims *dims,
                        cl_err *err)
{
    memset(dims, 0, sizeof *dims);
    if (!label || !*skip_space(label))
        return err_set(err, "%s: empty size (use %s)", spec->name, spec->size_help);
    bool ok = spec->parse_ctx ? spec->parse_ctx(spec->ctx, label, dims, err)
                              : spec->parse(label, dims, err);
    if (!ok)
        return err_prefix(err, "%s size '%s'", spec->name, label);
    return true;
}

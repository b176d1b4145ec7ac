#include "lab/labsource.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/fsguard.h"

#define SOURCE_MAX_BYTES ((size_t)1 << 20)

static bool is_ident(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Whether line [p, end) holds word as a whole word (not inside a longer
 * identifier or number). */
static bool has_word(const char *p, const char *end, const char *word)
{
    size_t wl = strlen(word);
    for (const char *q = p; q + wl <= end; q++)
        if (memcmp(q, word, wl) == 0 && (q == p || !is_ident(q[-1])) &&
            (q + wl == end || !is_ident(q[wl])))
            return true;
    return false;
}

/* Whether line [p, end) holds text exactly. */
static bool has_text(const char *p, const char *end, const char *text)
{
    size_t tl = strlen(text);
    for (const char *q = p; q + tl <= end; q++)
        if (memcmp(q, text, tl) == 0)
            return true;
    return false;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* The first line at or after from (1-based) for which match holds; 0 when
 * none. */
static int find_line(const char *text, int from, bool (*match)(const char *, const char *, const void *),
                     const void *arg)
{
    int line = 1;
    for (const char *p = text; *p; line++) {
        const char *end = strchr(p, '\n');
        if (!end)
            end = p + strlen(p);
        if (line >= from && match(p, end, arg))
            return line;
        p = *end ? end + 1 : end;
    }
    return 0;
}

static bool match_sizes(const char *p, const char *end, const void *arg)
{
    (void)arg;
    return has_word(p, end, "sizes");
}

/* Whether the line holds text as a quoted string, "text" or 'text'. */
static bool match_quoted(const char *p, const char *end, const void *arg)
{
    const char *text = arg;
    char quoted[128];
    snprintf(quoted, sizeof quoted, "\"%s\"", text);
    if (has_text(p, end, quoted))
        return true;
    snprintf(quoted, sizeof quoted, "'%s'", text);
    return has_text(p, end, quoted);
}

static bool match_label(const char *p, const char *end, const void *arg)
{
    const char *label = arg;
    return match_quoted(p, end, label) || (all_digits(label) && has_word(p, end, label));
}

int lab_source_size_line(const char *path, int from, const char *label)
{
    if (!path || !label || strlen(label) > 100)
        return 0;
    size_t len = 0;
    char *text = fsguard_read(path, NULL, SOURCE_MAX_BYTES, &len, NULL);
    if (!text)
        return 0;
    int sizes = find_line(text, from > 0 ? from : 1, match_sizes, NULL);
    int line = sizes ? find_line(text, sizes, match_label, label) : 0;
    if (!line)
        line = find_line(text, 1, match_label, label);
    free(text);
    return line;
}

typedef struct field_arg {
    const char *key, *text;
} field_arg;

/* Whether the line holds `key = "text"` (or 'text'), blanks allowed. */
static bool match_field(const char *p, const char *end, const void *arg)
{
    const field_arg *f = arg;
    size_t kl = strlen(f->key), tl = strlen(f->text);
    for (const char *q = p; q + kl <= end; q++) {
        if (strncmp(q, f->key, kl) != 0 || (q > p && (isalnum((unsigned char)q[-1]) ||
                                                     q[-1] == '_')))
            continue;
        const char *r = q + kl;
        while (r < end && (*r == ' ' || *r == '\t'))
            r++;
        if (r >= end || *r != '=')
            continue;
        r++;
        while (r < end && (*r == ' ' || *r == '\t'))
            r++;
        if (r < end && (*r == '"' || *r == '\'') && r + 1 + tl < end &&
            strncmp(r + 1, f->text, tl) == 0 && r[1 + tl] == *r)
            return true;
    }
    return false;
}

int lab_source_field_line(const char *path, int from, const char *key, const char *text)
{
    if (!path || !key || !text || strlen(text) > 100)
        return 0;
    size_t len = 0;
    char *src = fsguard_read(path, NULL, SOURCE_MAX_BYTES, &len, NULL);
    if (!src)
        return 0;
    field_arg f = {key, text};
    int line = find_line(src, from > 0 ? from : 1, match_field, &f);
    if (!line)
        line = find_line(src, from > 0 ? from : 1, match_quoted, text);
    free(src);
    return line;
}

int lab_source_quoted_line(const char *path, int from, const char *text)
{
    if (!path || !text || strlen(text) > 100)
        return 0;
    size_t len = 0;
    char *src = fsguard_read(path, NULL, SOURCE_MAX_BYTES, &len, NULL);
    if (!src)
        return 0;
    int line = find_line(src, from > 0 ? from : 1, match_quoted, text);
    free(src);
    return line;
}

/* report_binding.c - whose report a file is, for which assignment and when
 * it was graded, read back from any format cudalab writes (grade/report.h
 * report_binding_read).  The readers below take only what cudalab's own
 * writers put there (report_*.c): they are meant for a file that verified,
 * byte for byte as cudalab wrote it, and read nothing they do not find. */
#include "grade/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonf.h"

static bool from_json(const char *text, size_t len, report_binding *b)
{
    cJSON *doc = cJSON_ParseWithLength(text, len);
    if (!doc)
        return false;
    /* report.json holds the binding at its top, results.json in
     * extra_data.cudalab */
    const cJSON *o = doc;
    if (!cJSON_GetObjectItemCaseSensitive(doc, "format"))
        o = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "extra_data"),
                                             "cudalab");
    cl_err e = {{0}};
    bool ok = cJSON_IsObject(o) &&
              jsonf_get_str(o, "learner", b->learner, sizeof b->learner, &e) &&
              jsonf_get_str(o, "assignment", b->assignment, sizeof b->assignment, &e) &&
              jsonf_get_str(o, "created", b->created, sizeof b->created, &e) && b->learner[0];
    cJSON_Delete(doc);
    return ok;
}

/* Appends the character an XML reference (&name; or &#N; &#xN;) at *p
 * stands for to out (as UTF-8); returns the length of the reference, 0
 * when it is none. */
static size_t xml_reference(const char *p, char *out, size_t *at, size_t cap)
{
    static const struct {
        const char *ref;
        char c;
    } named[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        size_t n = strlen(named[i].ref);
        if (strncmp(p, named[i].ref, n) == 0) {
            if (*at + 1 < cap)
                out[(*at)++] = named[i].c;
            return n;
        }
    }
    char *end = NULL;
    unsigned long cp = p[1] == '#' ? strtoul(p + 2 + (p[2] == 'x'), &end, p[2] == 'x' ? 16 : 10)
                                   : 0;
    if (!end || *end != ';' || cp == 0 || cp > 0x10FFFF)
        return 0;
    char u[4];
    size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    static const unsigned char lead[] = {0, 0xC0, 0xE0, 0xF0};
    for (size_t k = n - 1; k > 0; k--, cp >>= 6)
        u[k] = (char)(0x80 | (cp & 0x3F));
    u[0] = (char)(n == 1 ? cp : lead[n - 1] | cp);
    if (*at + n < cap) {
        memcpy(out + *at, u, n);
        *at += n;
    }
    return (size_t)(end + 1 - p);
}

/* The value of the first <property name="name" value="..."/>, its
 * references resolved, into out. */
static bool xml_property(const char *text, const char *name, char *out, size_t cap)
{
    char head[64];
    snprintf(head, sizeof head, "<property name=\"%s\" value=\"", name);
    const char *p = strstr(text, head);
    if (!p)
        return false;
    size_t at = 0;
    for (p += strlen(head); *p && *p != '"';) {
        size_t n = *p == '&' ? xml_reference(p, out, &at, cap) : 0;
        if (n == 0 && at + 1 < cap)
            out[at++] = *p;
        p += n ? n : 1;
    }
    out[at] = '\0';
    return *p == '"';
}

static bool from_xml(const char *text, report_binding *b)
{
    return xml_property(text, "learner", b->learner, sizeof b->learner) &&
           xml_property(text, "assignment", b->assignment, sizeof b->assignment) &&
           xml_property(text, "created", b->created, sizeof b->created) && b->learner[0];
}

/* One CSV cell (RFC 4180) at *p into out, the neutralising quote that
 * escape_csv_cell puts before a formula dropped; *p moves past it and what
 * ends it.  Returns whether the record goes on after it. */
static bool csv_cell(const char **p, char *out, size_t cap)
{
    const char *s = *p;
    size_t at = 0;
    if (*s == '"') {
        s++;
        if (*s == '\'' && s[1] && strchr("=+-@\t\r", s[1]))
            s++;
        for (; *s && !(*s == '"' && s[1] != '"'); s++) {
            if (*s == '"')
                s++;   /* a doubled quote */
            if (at + 1 < cap)
                out[at++] = *s;
        }
        s += *s == '"';
    } else {
        for (; *s && *s != ',' && *s != '\r' && *s != '\n'; s++)
            if (at + 1 < cap)
                out[at++] = *s;
    }
    out[at] = '\0';
    bool more = *s == ',';
    *p = s + (more ? 1 : *s == '\r' && s[1] == '\n' ? 2 : *s ? 1 : 0);
    return more;
}

static bool from_csv(const char *text, report_binding *b)
{
    static const char *const want[] = {"learner", "assignment", "created"};
    char *dst[] = {b->learner, b->assignment, b->created};
    size_t caps[] = {sizeof b->learner, sizeof b->assignment, sizeof b->created};
    int col[3] = {-1, -1, -1};
    char cell[512];
    const char *p = text;
    bool more = true;
    for (int i = 0; more; i++) {
        more = csv_cell(&p, cell, sizeof cell);
        for (int k = 0; k < 3; k++)
            if (strcmp(cell, want[k]) == 0)
                col[k] = i;
    }
    if (col[0] < 0 || col[1] < 0 || col[2] < 0 || !*p)
        return false;
    more = true;
    for (int i = 0; more; i++) {
        more = csv_cell(&p, cell, sizeof cell);
        for (int k = 0; k < 3; k++)
            if (col[k] == i)
                snprintf(dst[k], caps[k], "%s", cell);
    }
    return b->learner[0] != '\0';
}

bool report_binding_read(const char *path, const char *text, size_t len, report_binding *out)
{
    memset(out, 0, sizeof *out);
    const char *p = text + strspn(text, " \t\r\n");
    size_t n = strlen(path);
    bool ok = *p == '{'   ? from_json(text, len, out)
              : *p == '<' ? from_xml(text, out)
              : n >= 5 && strcmp(path + n - 5, ".json") == 0 ? false
                                                             : from_csv(text, out);
    if (!ok)
        memset(out, 0, sizeof *out);
    return ok;
}

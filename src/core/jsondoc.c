/* jsondoc.c - printing a JSON file one way, and checking that a file is
 * exactly that (core/jsondoc.h). */
#include "core/jsondoc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonf.h"
#include "core/strbuf.h"

/* Rewrites every number below it into jsonf's form (a raw item); false
 * when out of memory. */
static bool numbers_in_form(cJSON *it)
{
    for (; it; it = it->next) {
        if (cJSON_IsNumber(it)) {
            if (!isfinite(it->valuedouble)) {   /* JSON has none: cJSON prints null */
                it->type = cJSON_NULL | (it->type & cJSON_StringIsConst);
                continue;
            }
            char buf[JSONF_NUMBER_MAX];
            jsonf_number_text(it->valuedouble, buf);
            char *raw = cJSON_malloc(strlen(buf) + 1);
            if (!raw)
                return false;
            memcpy(raw, buf, strlen(buf) + 1);
            it->type = cJSON_Raw | (it->type & cJSON_StringIsConst);
            it->valuestring = raw;
        } else if ((cJSON_IsObject(it) || cJSON_IsArray(it)) && !numbers_in_form(it->child)) {
            return false;
        }
    }
    return true;
}

char *jsondoc_print(cJSON *doc, bool pretty)
{
    if (!doc || !numbers_in_form(doc))
        return NULL;
    char *text = pretty ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
    char *copy = text ? strdup(text) : NULL;
    cJSON_free(text);
    return copy;
}

char *jsondoc_file_text(cJSON *doc)
{
    char *text = jsondoc_print(doc, true);
    size_t n = text ? strlen(text) : 0;
    char *file = text ? realloc(text, n + 2) : NULL;
    if (!file) {
        free(text);
        return NULL;
    }
    file[n] = '\n';
    file[n + 1] = '\0';
    return file;
}

/* it and its siblings, and everything below them. */
static bool clean_list(cJSON *it, escape_ws ws)
{
    for (; it; it = it->next) {
        if (cJSON_IsString(it) && it->valuestring) {
            char *clean = escape_dup(it->valuestring, ws);
            bool ok = clean && cJSON_SetValuestring(it, clean) != NULL;
            free(clean);
            if (!ok)
                return false;
        }
        if ((cJSON_IsObject(it) || cJSON_IsArray(it)) && !clean_list(it->child, ws))
            return false;
    }
    return true;
}

bool jsondoc_clean_strings(cJSON *doc, escape_ws ws)
{
    return doc && (cJSON_IsObject(doc) || cJSON_IsArray(doc)) ? clean_list(doc->child, ws)
                                                               : true;
}

/* Whether o is an object holding some key twice: that key into key. */
static bool duplicate_here(const cJSON *o, char *key, size_t n)
{
    if (!cJSON_IsObject(o))
        return false;
    for (const cJSON *a = o->child; a; a = a->next)
        for (const cJSON *b = a->next; b; b = b->next)
            if (a->string && b->string && strcmp(a->string, b->string) == 0) {
                snprintf(key, n, "%s", a->string);
                return true;
            }
    return false;
}

/* The same for it, its siblings, and everything below them. */
static bool duplicate_in_list(const cJSON *it, char *key, size_t n)
{
    for (; it; it = it->next)
        if (duplicate_here(it, key, n) ||
            ((cJSON_IsObject(it) || cJSON_IsArray(it)) && duplicate_in_list(it->child, key, n)))
            return true;
    return false;
}

bool jsondoc_duplicate_key(const cJSON *doc, char *key, size_t cap)
{
    return doc && (duplicate_here(doc, key, cap) ||
                   ((cJSON_IsObject(doc) || cJSON_IsArray(doc)) &&
                    duplicate_in_list(doc->child, key, cap)));
}

static jsondoc_status say(jsondoc_status st, char *why, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static jsondoc_status say(jsondoc_status st, char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return st;
}

jsondoc_status jsondoc_parse_file(const char *text, size_t len, cJSON **doc, char *why, size_t why_cap)
{
    *doc = NULL;
    if (strlen(text) != len)
        return say(JSONDOC_NOT_JSON, why, why_cap, "a NUL byte at offset %zu: a binary file",
                   strlen(text));
    const char *end = NULL;
    cJSON *d = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!d) {
        const char *at = cJSON_GetErrorPtr();
        return say(JSONDOC_NOT_JSON, why, why_cap, "not JSON (at offset %zu)",
                   at && at >= text && at <= text + len ? (size_t)(at - text) : (size_t)0);
    }
    if (!cJSON_IsObject(d)) {
        cJSON_Delete(d);
        return say(JSONDOC_NOT_JSON, why, why_cap, "%s", "JSON, but not an object");
    }
    *doc = d;
    char key[128];
    size_t used = end ? (size_t)(end - text) : len;
    size_t extra = len - used - (len > used && text[used] == '\n');
    if (text[0] != '{') {   /* only blanks and a byte-order mark are let through */
        size_t lead = (size_t)(strchr(text, '{') - text);
        return say(JSONDOC_INEXACT, why, why_cap, "%zu byte%s before the document", lead,
                   lead == 1 ? "" : "s");
    }
    if (extra > 0)
        return say(JSONDOC_INEXACT, why, why_cap, "%zu byte%s after the end of the document", extra,
                   extra == 1 ? "" : "s");
    if (len == used)
        return say(JSONDOC_INEXACT, why, why_cap, "%s", "the newline that ends the file is missing");
    if (jsondoc_duplicate_key(d, key, sizeof key))
        return say(JSONDOC_INEXACT, why, why_cap, "the key '%s' appears twice in one object", key);
    /* Printing changes the numbers of a copy only: the caller reads d. */
    cJSON *copy = cJSON_Duplicate(d, true);
    char *again = copy ? jsondoc_file_text(copy) : NULL;
    cJSON_Delete(copy);
    if (!again)
        return say(JSONDOC_INEXACT, why, why_cap, "%s", "out of memory checking the document");
    bool same = strcmp(again, text) == 0;
    free(again);
    if (!same)
        return say(JSONDOC_INEXACT, why, why_cap, "%s",
                   "not in the form cudalab writes (spacing, escapes or numbers changed)");
    return say(JSONDOC_EXACT, why, why_cap, "%s", "exactly as cudalab writes it");
}

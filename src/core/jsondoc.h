/* jsondoc.h - a whole JSON file, written one way and read back exactly.
 *
 * cudalab writes a JSON file one way: every number in jsonf's form (the
 * fewest digits that read back to the same double, core/jsonf.h), cJSON's
 * indented print, one newline.  Read back and written again, a document
 * gives the same bytes, so a file can be checked to be exactly what cudalab
 * would have written for what it says: no byte before or after it, no key
 * twice in an object, no spacing, escape or number written another way.
 * Signed reports rely on it (grade/sign.h): what the signature does not
 * cover cannot differ from what cudalab writes. */
#ifndef CUDALAB_CORE_JSONDOC_H
#define CUDALAB_CORE_JSONDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#include "core/escape.h"

/* doc printed, indented when pretty (malloc'd with malloc; NULL when out of
 * memory).  doc's numbers are rewritten in place into jsonf's form. */
char *jsondoc_print(cJSON *doc, bool pretty);
/* The text of a JSON file: jsondoc_print(doc, true) and a newline. */
char *jsondoc_file_text(cJSON *doc);

/* Every string value in doc cleaned for display (core/escape.h) with ws:
 * the document then holds only valid UTF-8 and no control character but
 * those ws keeps.  false when out of memory. */
bool jsondoc_clean_strings(cJSON *doc, escape_ws ws);

/* Whether an object in doc holds some key twice: the first such key into
 * key (cap bytes). */
bool jsondoc_duplicate_key(const cJSON *doc, char *key, size_t cap);

typedef enum jsondoc_status {
    JSONDOC_EXACT,       /* a JSON object, exactly as cudalab writes it */
    JSONDOC_INEXACT,     /* a JSON object, but the file holds more or other bytes */
    JSONDOC_NOT_JSON,    /* not a JSON object at all */
} jsondoc_status;

/* Parses the file text (len bytes) into *doc (the caller deletes it; NULL
 * for JSONDOC_NOT_JSON), and says whether the text is exactly
 * jsondoc_file_text(*doc).  why (why_cap bytes) says what differs: "12 bytes
 * after the end of the document", "the key 'score' appears twice in an
 * object", ... */
jsondoc_status jsondoc_parse_file(const char *text, size_t len, cJSON **doc, char *why, size_t why_cap);

#endif

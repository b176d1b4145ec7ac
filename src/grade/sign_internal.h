/* sign_internal.h - what signing and checking share.  Private to
 * src/grade/ (sign.c, sign_verify.c). */
#ifndef CUDALAB_GRADE_SIGN_INTERNAL_H
#define CUDALAB_GRADE_SIGN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#include "grade/sign.h"

#define SIGN_XML_MARK "<!-- cudalab-signature " SIGN_ALG " "
#define SIGN_XML_END " -->\n"
#define SIGN_JSON_KEY "signature"          /* report.json's */
#define SIGN_GS_EXTRA "extra_data"         /* results.json's place for it */
#define SIGN_GS_KEY "cudalab_signature"
#define SIGN_HEX_LEN 64

/* The HMAC of doc (which holds no signature) printed compactly
 * (core/jsondoc.h; doc's numbers are rewritten into that form), as hex. */
bool sign_json_mac(cJSON *doc, const void *key, size_t keylen, char hex[SIGN_HEX_LEN + 1]);

#endif

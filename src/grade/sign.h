/* sign.h - signing grade reports with an instructor's key, and checking.
 *
 * A signature is an HMAC-SHA256 (core/digest.h, OpenSSL) under the key:
 *   - JSON (report.json, results.json): of the document without its
 *     signature, printed compactly the one way cudalab prints JSON
 *     (core/jsondoc.h); the signature is report.json's top-level
 *     "signature": {"alg": "hmac-sha256", "value": "<hex>"}, or
 *     results.json's extra_data.cudalab_signature (the place Gradescope's
 *     format leaves for extra data);
 *   - XML (junit.xml): of every byte before the last line, which is
 *     <!-- cudalab-signature hmac-sha256 <hex> -->;
 *   - CSV (grades.csv): of every byte of the file; the signature is the
 *     sidecar file grades.csv.sig, the one line "hmac-sha256 <hex>", so
 *     that the CSV stays plain rows.
 * A file verifies only when it is exactly what cudalab writes for what it
 * says, byte for byte, and the HMAC holds: a JSON file is the document as
 * cudalab prints it (no byte before or after it, no key twice in an object,
 * no other spacing, escape or number form) with one signature, in its
 * place, of exactly two fields; the XML signature line is there once, last,
 * with nothing after it; the sidecar holds its one line and nothing else.
 * Changing any value of a signed report, a number or a name, or adding a
 * byte anywhere, fails the check.  The key is never written anywhere. */
#ifndef CUDALAB_GRADE_SIGN_H
#define CUDALAB_GRADE_SIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#include "core/err.h"

#define SIGN_ALG "hmac-sha256"
#define SIGN_KEY_ENV "CUDALAB_GRADE_KEY"
#define SIGN_SIDECAR ".sig"

typedef enum sign_verdict {
    SIGN_VALID,        /* signed, and the content is as signed */
    SIGN_TAMPERED,     /* signed, but the content, the signature or the bytes around them changed */
    SIGN_UNSIGNED,     /* a report without a signature */
    SIGN_UNREADABLE,   /* not a report cudalab can read */
} sign_verdict;

/* "valid", "tampered", "unsigned", "unreadable". */
const char *sign_verdict_name(sign_verdict verdict);

/* The key: the bytes of file (a trailing newline dropped) when file is not
 * NULL, else $CUDALAB_GRADE_KEY's text; *key NULL and *len 0 when neither
 * is given.  false + err when the file cannot be read or the key is empty.
 * Either way $CUDALAB_GRADE_KEY leaves this process: its bytes are
 * overwritten in the environment block (so /proc/PID/environ no longer
 * holds them) and the variable is removed. */
bool sign_key_load(const char *file, char **key, size_t *len, cl_err *err);

/* Adds the signature to a JSON report (gradescope: in extra_data). */
bool sign_json(cJSON *doc, bool gradescope, const void *key, size_t keylen, cl_err *err);
/* text with the signature line appended (malloc'd). */
char *sign_xml(const char *text, const void *key, size_t keylen, cl_err *err);
/* The sidecar's content for data (malloc'd). */
char *sign_sidecar(const char *data, size_t data_len, const void *key, size_t keylen, cl_err *err);

/* Checks the report at path (JSON, XML, or CSV with its sidecar) under the
 * key; why receives a line saying what was found. */
sign_verdict sign_verify_file(const char *path, const void *key, size_t keylen, char *why,
                              size_t why_size);
/* The same for the report's text (len bytes) already read from path (which
 * names the sidecar and, when the text does not say, the format). */
sign_verdict sign_verify_text(const char *path, const char *text, size_t len, const void *key,
                              size_t keylen, char *why, size_t why_size);

#endif

/* digest.h - SHA-256 and HMAC-SHA256 through OpenSSL's libcrypto, as hex.
 *
 * The progress store names a source file by its SHA-256; grade reports are
 * signed with an HMAC-SHA256 of their canonical text under an instructor's
 * key.  Nothing here is hand-written cryptography. */
#ifndef CUDALAB_CORE_DIGEST_H
#define CUDALAB_CORE_DIGEST_H

#include <stdbool.h>
#include <stddef.h>

#define DIGEST_HEX_LEN 64     /* characters of a SHA-256 in hex, without the NUL */

/* hex receives 64 lowercase hex digits and a NUL; false when libcrypto fails. */
bool digest_sha256_hex(const void *data, size_t size, char hex[DIGEST_HEX_LEN + 1]);
/* HMAC-SHA256 of data under key, as hex; false when libcrypto fails. */
bool digest_hmac_sha256_hex(const void *key, size_t keylen, const void *data, size_t size,
                            char hex[DIGEST_HEX_LEN + 1]);
/* Compares two hex digests in time independent of where they differ. */
bool digest_equal(const char *hex_a, const char *hex_b);

#endif

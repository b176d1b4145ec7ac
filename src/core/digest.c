#include "core/digest.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>

static void to_hex(const unsigned char *md, unsigned len, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    for (unsigned i = 0; i < len; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[2 * len] = '\0';
}

bool digest_sha256_hex(const void *data, size_t size, char hex[DIGEST_HEX_LEN + 1])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    if (!EVP_Digest(data, size, md, &len, EVP_sha256(), NULL) || len * 2 != DIGEST_HEX_LEN)
        return false;
    to_hex(md, len, hex);
    return true;
}

bool digest_hmac_sha256_hex(const void *key, size_t keylen, const void *data, size_t size,
                            char hex[DIGEST_HEX_LEN + 1])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    if (keylen > 0x7fffffff)
        return false;
    if (!HMAC(EVP_sha256(), key, (int)keylen, data, size, md, &len) || len * 2 != DIGEST_HEX_LEN)
        return false;
    to_hex(md, len, hex);
    return true;
}

bool digest_equal(const char *hex_a, const char *hex_b)
{
    size_t la = strlen(hex_a), lb = strlen(hex_b);
    if (la != lb)
        return false;
    return CRYPTO_memcmp(hex_a, hex_b, la) == 0;
}

/* decl_fill.c - a declared problem's outputs' poison (engine/problem_decl.h);
 * its inputs are drawn by lab/probdecl_fill.c, which `cudalab check` runs
 * too. */
#include "engine/problem_decl.h"

#include <stdint.h>
#include <string.h>

void decl_poison_host(void *host, decl_type type, size_t count)
{
    size_t bytes = count * decl_type_size(type);
    uint32_t w = type == DT_F32                     ? DECL_POISON_F32
                 : type == DT_F64 || type == DT_I64 ? DECL_POISON_F64
                 : type == DT_BF16                  ? DECL_POISON_BF16
                                                    : DECL_POISON_INT;
    unsigned char *p = host;
    for (size_t k = 0; k + 4 <= bytes; k += 4)
        memcpy(p + k, &w, 4);
    for (size_t k = bytes / 4 * 4; k < bytes; k++)
        p[k] = 0xde;
    if (type == DT_U8)
        memset(p, 0xde, bytes);
}

bool decl_is_poison(const void *host, decl_type type, size_t index)
{
    const unsigned char *p = host;
    switch (type) {
    case DT_F32:
    case DT_I32:
    case DT_U32: {
        uint32_t w;
        memcpy(&w, p + 4 * index, 4);
        return w == (type == DT_F32 ? DECL_POISON_F32 : DECL_POISON_INT);
    }
    case DT_F64:
    case DT_I64: {
        uint32_t w[2];
        memcpy(w, p + 8 * index, 8);
        return w[0] == DECL_POISON_F64 && w[1] == DECL_POISON_F64;
    }
    case DT_BF16: {
        uint16_t h;
        memcpy(&h, p + 2 * index, 2);
        return h == (uint16_t)(DECL_POISON_BF16 & 0xffffu);
    }
    case DT_U8:
        return p[index] == 0xde;
    }
    return false;
}

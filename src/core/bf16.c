/* bf16.c - bfloat16 conversions (core/bf16.h). */
#include "core/bf16.h"

#include <string.h>

uint16_t bf16_from_float(float value)
{
    uint32_t u;
    memcpy(&u, &value, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x0040u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

float bf16_to_float(uint16_t bits)
{
    uint32_t u = (uint32_t)bits << 16;
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

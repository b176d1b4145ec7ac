/* bf16.h - bfloat16 to and from float: the top 16 bits of an IEEE float,
 * rounded to nearest with ties to even; a NaN stays a (quiet) NaN. */
#ifndef CUDALAB_CORE_BF16_H
#define CUDALAB_CORE_BF16_H

#include <stdint.h>

uint16_t bf16_from_float(float value);
float bf16_to_float(uint16_t bits);

#endif

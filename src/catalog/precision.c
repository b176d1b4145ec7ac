#include "catalog/precision.h"

#include <string.h>

/* A product of two inputs each rounded to p significant bits is off by up
 * to about 2^-p of itself; for inputs of random sign those errors do not
 * pile up along k, so a whole dot product is off by about the same
 * fraction (root mean square over many outputs: about 0.6 x 2^-p).  Each
 * tolerance leaves ten times that, so that no output of a correct kernel
 * fails while a kernel that drops even one k slice in a hundred does.
 * tests/cpu/test_gemm_precision.c measures the errors by emulating the
 * rounding. */
static const gemm_precision precisions[] = {
    {.name = "fp32", .label = "FP32", .fraction_bits = 23, .tolerance = 1e-4,
     .why = "FP32 products summed in FP32: the error grows with the sum's length, about 1e-6 at "
            "k = 4096"},
    {.name = "tf32", .label = "TF32", .fraction_bits = 10, .tolerance = 5e-3,
     .why = "inputs rounded to TF32 (11 significant bits) cost about 3e-4 of a result; ten times "
            "that, rounded up"},
    {.name = "bf16", .label = "BF16", .fraction_bits = 7, .tolerance = 3e-2,
     .why = "inputs rounded to BF16 (8 significant bits) cost about 2e-3 of a result; ten times "
            "that, rounded up"},
};

const gemm_precision *gemm_precision_find(const char *name)
{
    if (!name)
        return &precisions[0];
    for (size_t i = 0; i < sizeof precisions / sizeof precisions[0]; i++)
        if (strcmp(precisions[i].name, name) == 0)
            return &precisions[i];
    return NULL;
}

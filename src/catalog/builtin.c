/* builtin.c - the computations cudalab knows in C (catalog/builtin.h). */
#include "catalog/builtin.h"

#include <string.h>

static const builtin_desc all[] = {
    {
        .name = "sum",
        .summary = "the sum of n floats into one",
        .roles = {{"input", true, false, "f32", "n"},
                  {"output", true, true, "f32", "1"},
                  {"n", false, false, "i64", NULL}},
        .nroles = 3,
        .cpu = true,
        .library = "cub",
        .library_label = "CUB",
        .kernels = "reduce_sum",
    },
    {
        .name = "scan",
        .summary = "the inclusive prefix sum of n floats",
        .roles = {{"input", true, false, "f32", "n"},
                  {"output", true, true, "f32", "n"},
                  {"n", false, false, "i64", NULL}},
        .nroles = 3,
        .cpu = true,
        .library = "cub_scan",
        .library_label = "CUB scan",
        .kernels = NULL,
    },
    {
        .name = "saxpy",
        .summary = "z = a x + y over n floats",
        .roles = {{"x", true, false, "f32", "n"},
                  {"y", true, false, "f32", "n"},
                  {"z", true, true, "f32", "n"},
                  {"a", false, false, "f32", NULL},
                  {"n", false, false, "i64", NULL}},
        .nroles = 5,
        .cpu = true,
        .library = NULL,
        .kernels = "saxpy",
    },
    {
        .name = "histogram",
        .summary = "256 counts of the values of n bytes",
        .roles = {{"data", true, false, "u8", "n"},
                  {"bins", true, true, "u32", "256"},
                  {"n", false, false, "i64", NULL}},
        .nroles = 3,
        .cpu = true,
        .library = NULL,
        .kernels = "histogram",
    },
    {
        .name = "gather",
        .summary = "T rows of D floats picked from a table of V rows",
        .roles = {{"W", true, false, "f32", "V*D"},
                  {"idx", true, false, "i32", "T"},
                  {"out", true, true, "f32", "T*D"},
                  {"T", false, false, "i64", NULL},
                  {"D", false, false, "i64", NULL},
                  {"V", false, false, "i64", NULL}},
        .nroles = 6,
        .cpu = true,
        .library = NULL,
        .kernels = "embedding",
    },
};

const builtin_desc *builtin_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i].name, name) == 0)
            return &all[i];
    return NULL;
}

const builtin_desc *builtin_all(size_t *n)
{
    *n = sizeof all / sizeof all[0];
    return all;
}

const char *builtin_names(void)
{
    return "sum, scan, saxpy, histogram, gather";
}

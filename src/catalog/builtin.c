/* builtin.c - the computations cudalab knows in C (catalog/builtin.h). */
#include "catalog/builtin.h"

#include <string.h>

static const builtin_desc all[] = {
    {
        .name = "sum",
        .summary = "the sum of n floats into one",
        .roles = {{.name = "input", .buffer = true, .type = "f32", .shape = "n"},
                  {.name = "output", .buffer = true, .output = true, .type = "f32", .shape = "1"},
                  {.name = "n", .type = "i64"}},
        .nroles = 3,
        .cpu = true,
        .library = "cub",
        .library_label = "CUB",
        .kernels = "reduce_sum",
    },
    {
        .name = "scan",
        .summary = "the inclusive prefix sum of n floats",
        .roles = {{.name = "input", .buffer = true, .type = "f32", .shape = "n"},
                  {.name = "output", .buffer = true, .output = true, .type = "f32", .shape = "n"},
                  {.name = "n", .type = "i64"}},
        .nroles = 3,
        .cpu = true,
        .library = "cub_scan",
        .library_label = "CUB scan",
        .kernels = NULL,
    },
    {
        .name = "saxpy",
        .summary = "z = a x + y over n floats",
        .roles = {{.name = "x", .buffer = true, .type = "f32", .shape = "n"},
                  {.name = "y", .buffer = true, .type = "f32", .shape = "n"},
                  {.name = "z", .buffer = true, .output = true, .type = "f32", .shape = "n"},
                  {.name = "a", .type = "f32"},
                  {.name = "n", .type = "i64"}},
        .nroles = 5,
        .cpu = true,
        .library = NULL,
        .kernels = "saxpy",
    },
    {
        .name = "histogram",
        .summary = "256 counts of the values of n bytes",
        .roles = {{.name = "data", .buffer = true, .type = "u8", .shape = "n"},
                  {.name = "bins", .buffer = true, .output = true, .type = "u32", .shape = "256"},
                  {.name = "n", .type = "i64"}},
        .nroles = 3,
        .cpu = true,
        .library = NULL,
        .kernels = "histogram",
    },
    {
        .name = "gather",
        .summary = "T rows of D floats picked from a table of V rows",
        .roles = {{.name = "W", .buffer = true, .type = "f32", .shape = "V*D"},
                  {.name = "idx", .buffer = true, .type = "i32", .shape = "T"},
                  {.name = "out", .buffer = true, .output = true, .type = "f32", .shape = "T*D"},
                  {.name = "T", .type = "i64"},
                  {.name = "D", .type = "i64"},
                  {.name = "V", .type = "i64"}},
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

const builtin_desc *builtin_all(size_t *count)
{
    *count = sizeof all / sizeof all[0];
    return all;
}

const char *builtin_names(void)
{
    return "sum, scan, saxpy, histogram, gather";
}

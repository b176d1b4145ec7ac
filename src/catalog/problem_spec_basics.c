/* problem_spec_basics.c - the basics lab's problem written in C, as the
 * parent sees it: managed (SAXPY over managed memory the CPU wrote first).
 * Its engine side is engine/problem_managed.c; the lab's saxpy and
 * histogram are declared in lua/problems/. */
#include "catalog/problem_spec.h"

#define MANAGED_MAX_N ((int64_t)1 << 28)

static bool managed_parse(const char *label, problem_dims *d, cl_err *e)
{
    return problem_parse_count(label, MANAGED_MAX_N, &d->n, e);
}

/* x and y read, z written: 12 bytes an element. */
static double saxpy_bytes(const problem_dims *d)
{
    return 12.0 * (double)d->n;
}

/* One multiply and one add an element. */
static double saxpy_flops(const problem_dims *d)
{
    return 2.0 * (double)d->n;
}

const problem_spec problem_spec_managed = {
    .name = "managed",
    .library = NULL,
    .size_help = "an element count up to 2^28: 16777216, 2^24",
    .bandwidth_bound = true,
    .managed = true,
    .tolerance = 1e-5,
    .parse = managed_parse,
    .bytes = saxpy_bytes,
    .flops = saxpy_flops,
};

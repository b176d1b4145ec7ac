/* problem_spec_basics.c - the basics lab's problems as the parent sees them:
 * saxpy (z = a x + y over n floats), histogram (256 bins over n bytes) and
 * managed (saxpy over managed memory the CPU wrote first).  Their engine
 * side is engine/problem_basics.c and engine/problem_histogram.c. */
#include "catalog/problem_spec.h"

#define BASICS_MAX_N ((int64_t)1 << 30)
#define MANAGED_MAX_N ((int64_t)1 << 28)

static bool saxpy_parse(const char *label, problem_dims *d, cl_err *e)
{
    return problem_parse_count(label, BASICS_MAX_N, &d->n, e);
}

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

/* The bytes read once; the 1 KiB of bins is noise beside them. */
static double histogram_bytes(const problem_dims *d)
{
    return (double)d->n;
}

static double no_flops(const problem_dims *d)
{
    (void)d;
    return -1.0;
}

const problem_spec problem_spec_saxpy = {
    .name = "saxpy",
    .library = "copy",
    .size_help = "an element count: 67108864, 2^26, 2^20+3",
    .bandwidth_bound = true,
    .tolerance = 1e-5,
    .parse = saxpy_parse,
    .bytes = saxpy_bytes,
    .flops = saxpy_flops,
};

const problem_spec problem_spec_histogram = {
    .name = "histogram",
    .library = NULL,
    .size_help = "a byte count: 67108864, 2^26, 2^20+3",
    .bandwidth_bound = true,
    .tolerance = 0.0,
    .parse = saxpy_parse,
    .bytes = histogram_bytes,
    .flops = no_flops,
};

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

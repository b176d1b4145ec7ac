/* problem_spec.c - the problems written in C (sgemm, gemm_bf16, pipeline;
 * managed is problem_spec_basics.c's), finding one by name, and a
 * problem's bytes and FLOPs whether written in C or declared. */
#include "catalog/problem_spec.h"

#include <string.h>

#include "cpu/prep_data.h"

#define SGEMM_MAX_DIM ((int64_t)1 << 16)
#define SGEMM_MAX_ELEMS ((int64_t)1 << 30)

double problem_spec_bytes(const problem_spec *spec, const problem_dims *dims)
{
    return spec->bytes_ctx ? spec->bytes_ctx(spec->ctx, dims) : spec->bytes(dims);
}

double problem_spec_flops(const problem_spec *spec, const problem_dims *dims)
{
    return spec->flops_ctx ? spec->flops_ctx(spec->ctx, dims) : spec->flops(dims);
}

/* ---- the problems ------------------------------------------------------------- */


static bool sgemm_parse(const char *label, problem_dims *d, cl_err *e)
{
    int64_t v[3];
    int n = 0;
    if (!problem_parse_dims(label, 3, SGEMM_MAX_DIM, v, &n, e))
        return false;
    if (n == 1) {
        v[1] = v[0];
        v[2] = v[0];
    } else if (n != 3) {
        return err_set(e, "give one size (4096 means 4096x4096x4096) or MxNxK");
    }
    if (v[0] * v[2] > SGEMM_MAX_ELEMS || v[2] * v[1] > SGEMM_MAX_ELEMS ||
        v[0] * v[1] > SGEMM_MAX_ELEMS)
        return err_set(e, "a matrix would have more than 2^30 elements");
    d->M = (int)v[0];
    d->N = (int)v[1];
    d->K = (int)v[2];
    return true;
}

static double sgemm_bytes(const problem_dims *d)
{
    double M = d->M, N = d->N, K = d->K;
    return 4.0 * (M * K + K * N + M * N);
}

/* BF16 inputs take two bytes an element; C stays FP32. */
static double gemm_bf16_bytes(const problem_dims *d)
{
    double M = d->M, N = d->N, K = d->K;
    return 2.0 * (M * K + K * N) + 4.0 * M * N;
}

static double sgemm_flops(const problem_dims *d)
{
    return 2.0 * (double)d->M * (double)d->N * (double)d->K;
}


static bool pipe_parse(const char *label, problem_dims *d, cl_err *e)
{
    if (strchr(label, 'x') || strchr(label, 'X'))
        return err_set(e, "give ROWS, a number of table rows such as 2^24 (the columns are "
                          "fixed: see lua/exercise.md)");
    if (!problem_parse_count(label, PREP_MAX_ROWS, &d->rows, e))
        return false;
    d->feats = PREP_NUM;
    return true;
}

/* The table as stored: what loading it moves, and what end-to-end GB/s
 * counts. */
static double pipe_bytes(const problem_dims *d)
{
    return (double)prep_table_bytes(d->rows);
}

static double pipe_flops(const problem_dims *d)
{
    (void)d;
    return -1.0;
}


#define GEMM_BUFFERS "A holds M*K floats, B holds K*N and C holds M*N, all row-major"
#define GEMM_WRONG                                                                           \
    "Row-major indexing is A[row * K + k], B[k * N + col], C[row * N + col]; the k loop "   \
    "runs over all K, and every tile of A and B is loaded completely before it is used."

const problem_spec problem_spec_sgemm = {
    .name = "sgemm",
    .library = "cublas",
    .size_help = "4096 (a cube) or MxNxK such as 1024x512x256",
    .bandwidth_bound = false,
    .tolerance = 1e-4,
    .buffers_hint = GEMM_BUFFERS,
    .wrong_hint = GEMM_WRONG,
    .parse = sgemm_parse,
    .bytes = sgemm_bytes,
    .flops = sgemm_flops,
};

/* The tolerance is BF16's (catalog/precision.c says why). */
const problem_spec problem_spec_gemm_bf16 = {
    .name = "gemm_bf16",
    .library = "cublas_bf16",
    .size_help = "4096 (a cube) or MxNxK such as 1024x512x256",
    .bandwidth_bound = false,
    .tolerance = 3e-2,
    .parse = sgemm_parse,
    .bytes = gemm_bf16_bytes,
    .flops = sgemm_flops,
    .kernels_of = "sgemm",
    .precision = "bf16",
    .buffers_hint = "A holds M*K bfloat16 values, B holds K*N and C holds M*N floats, all "
                    "row-major",
    .wrong_hint = GEMM_WRONG,
};


const problem_spec problem_spec_pipeline = {
    .name = "pipeline",
    .library = NULL,
    .size_help = "ROWS: a number of table rows, 1 to 2^27, such as 2^20 or 16777216",
    .bandwidth_bound = true,
    .tolerance = 1e-4,
    .parse = pipe_parse,
    .bytes = pipe_bytes,
    .flops = pipe_flops,
};

const problem_spec *problem_spec_find(const char *name)
{
    const problem_spec *all[] = {&problem_spec_sgemm, &problem_spec_gemm_bf16,
                                 &problem_spec_pipeline, &problem_spec_managed};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (name && strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

const char *problem_kernels_of(const problem_spec *spec)
{
    return spec->kernels_of ? spec->kernels_of : spec->name;
}

const problem_spec *problem_spec_of_exercise(const char *lab_problem)
{
    if (lab_problem && strcmp(lab_problem, "profiling") == 0)
        return &problem_spec_pipeline;
    return problem_spec_find(lab_problem);
}

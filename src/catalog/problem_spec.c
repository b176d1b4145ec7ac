#include "catalog/problem_spec.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/prep_data.h"
#include "result/record.h"

#define SGEMM_MAX_DIM ((int64_t)1 << 16)
#define SGEMM_MAX_ELEMS ((int64_t)1 << 30)

/* ---- sizes ---------------------------------------------------------------- */

static const char *skip_space(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return s;
}

/* A decimal integer at *s; advances *s past it. */
static bool read_int(const char **s, int64_t *v)
{
    const char *p = skip_space(*s);
    if (!isdigit((unsigned char)*p))
        return false;
    errno = 0;
    char *end;
    long long x = strtoll(p, &end, 10);
    if (errno == ERANGE)
        x = LLONG_MAX;          /* well formed, beyond every limit */
    *v = (int64_t)x;
    *s = skip_space(end);
    return true;
}

#define COUNT_FORMS "use 268435456, 2^28, 1<<28 or 2^20+3"
#define COUNT_CEIL ((int64_t)1 << 62)

/* a, a^b or a<<b at *p (advanced past it); false when malformed, with
 * *over set when well formed but beyond COUNT_CEIL. */
static bool read_power(const char **p, int64_t *r, bool *over)
{
    int64_t a = 0, b = 0;
    *over = false;
    if (!read_int(p, &a))
        return false;
    if (**p == '^') {
        (*p)++;
        if (!read_int(p, &b))
            return false;
        if (a < 2) {
            *r = b == 0 ? 1 : a;
            return true;
        }
        *r = 1;
        for (int64_t i = 0; i < b; i++) {
            if (*r > COUNT_CEIL / a) {
                *over = true;
                return true;
            }
            *r *= a;
        }
        return true;
    }
    if ((*p)[0] == '<' && (*p)[1] == '<') {
        *p += 2;
        if (!read_int(p, &b))
            return false;
        if (b > 62 || (a > 0 && a > (COUNT_CEIL >> b))) {
            *over = true;
            return true;
        }
        *r = a << b;
        return true;
    }
    *r = a;
    return true;
}

bool problem_parse_count(const char *s, int64_t max, int64_t *v, cl_err *e)
{
    const char *p = s;
    int64_t r = 0, k = 0;
    bool over = false;
    if (!read_power(&p, &r, &over))
        return err_set(e, "'%s' is not a count (" COUNT_FORMS ")", s);
    if (*p == '+' || *p == '-') {
        char op = *p++;
        if (!read_int(&p, &k))
            return err_set(e, "'%s' is not a count (" COUNT_FORMS ")", s);
        if (!over)
            r = op == '+' ? r + k : r - k;
    }
    if (*p)
        return err_set(e, "'%s' is not a count (" COUNT_FORMS ")", s);
    if (over || r > max)
        return err_set(e, "%s is larger than the limit %lld", s, (long long)max);
    if (r < 1)
        return err_set(e, "%s must be at least 1", s);
    *v = r;
    return true;
}

bool problem_parse_dims(const char *s, int max, int64_t limit, int64_t *parts, int *nparts,
                        cl_err *e)
{
    char buf[RUN_SIZE_MAX * 2];
    if (strlen(s) >= sizeof buf)
        return err_set(e, "size '%s' is too long", s);
    snprintf(buf, sizeof buf, "%s", s);
    int n = 0;
    char *p = buf;
    for (;;) {
        char *x = p;
        while (*x && *x != 'x' && *x != 'X')
            x++;
        bool last = *x == '\0';
        *x = '\0';
        if (n == max)
            return err_set(e, "size '%s' has more than %d dimensions", s, max);
        if (!p[strspn(p, " ")])
            return err_set(e, "size '%s' has an empty dimension", s);
        if (!problem_parse_count(p, limit, &parts[n], e))
            return false;
        n++;
        if (last)
            break;
        p = x + 1;
    }
    *nparts = n;
    return true;
}

bool problem_parse_size(const problem_spec *spec, const char *label, problem_dims *d, cl_err *e)
{
    memset(d, 0, sizeof *d);
    if (!label || !*skip_space(label))
        return err_set(e, "%s: empty size (use %s)", spec->name, spec->size_help);
    bool ok = spec->parse_ctx ? spec->parse_ctx(spec->ctx, label, d, e) : spec->parse(label, d, e);
    if (!ok)
        return err_prefix(e, "%s size '%s'", spec->name, label);
    return true;
}

double problem_spec_bytes(const problem_spec *spec, const problem_dims *d)
{
    return spec->bytes_ctx ? spec->bytes_ctx(spec->ctx, d) : spec->bytes(d);
}

double problem_spec_flops(const problem_spec *spec, const problem_dims *d)
{
    return spec->flops_ctx ? spec->flops_ctx(spec->ctx, d) : spec->flops(d);
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

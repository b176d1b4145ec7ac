/* problem_decl.c - a lab's declared problem as a problem_ops: its
 * arguments in host and device memory, uploads, poison, downloads, the
 * copy baseline and the builtin's CPU, library and shipped kernels
 * (engine/problem_decl.h). */
#include "engine/problem_decl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "gpu/cudacheck.h"
#include "kernels.h"
#include "luagpu/luagpu.h"

static const problem_decl *decl_of(const problem_data *p)
{
    return ((const decl_problem *)p->ops)->d;
}

/* ---- host data -------------------------------------------------------------------- */

static void free_data(problem_data *p)
{
    decl_data *dd = p->decl;
    if (!dd)
        return;
    for (int i = 0; i < DECL_MAX_ARGS; i++) {
        free(dd->b[i].host);
        free(dd->b[i].ref);
    }
    free(dd);
    p->decl = NULL;
}

static bool alloc_host(problem_data *p, cl_err *e)
{
    const problem_decl *d = decl_of(p);
    decl_data *dd = calloc(1, sizeof *dd);
    if (!dd)
        return err_set(e, "out of host memory");
    p->decl = dd;
    for (int i = 0; i < DECL_MAX_ARGS; i++)
        dd->b[i].overrun = -1;
    size_t total = 0;
    for (int i = 0; i < d->nargs; i++) {
        const decl_arg *a = &d->args[i];
        if (!a->buffer) {
            if (!probdecl_eval(d, &a->value, &p->d, &dd->value[i], e))
                goto fail;
            continue;
        }
        decl_buf *b = &dd->b[i];
        if (!probdecl_length(d, i, &p->d, &b->count, e))
            goto fail;
        size_t es = decl_type_size(a->type);
        total += b->count * (es + (a->output ? sizeof(double) : 0));
        b->host = malloc(b->count * es);
        b->ref = a->output ? malloc(b->count * sizeof(double)) : NULL;
        if (!b->host || (a->output && !b->ref)) {
            char need[32];
            buffer_format_bytes(total, need, sizeof need);
            err_set(e, "out of host memory: the arguments and references need %s or more", need);
            goto fail;
        }
    }
    return true;
fail:
    free_data(p);
    return false;
}

/* ---- device data ------------------------------------------------------------------ */

static size_t builtin_scratch(const problem_data *p)
{
    const decl_problem *dp = problem_decl_ops_of(p);
    if (!dp || !dp->bi)
        return 0;
    builtin_args a;
    decl_builtin_args(p, &a);
    return dp->bi->scratch(&a);
}

static size_t output_bytes(const problem_data *p)
{
    const problem_decl *d = decl_of(p);
    size_t n = 0;
    for (int i = 0; i < d->nargs; i++)
        if (d->args[i].output)
            n += p->decl->b[i].count * decl_type_size(d->args[i].type);
    return n;
}

static size_t ref_elem(const problem_decl *d, int i)
{
    return d->ref_f64 ? sizeof(double) : decl_type_size(d->args[i].type);
}

/* The guard after each buffer: none under compute-sanitizer, whose memcheck
 * must see a stray access land outside the allocation. */
static size_t guard_bytes(void)
{
    return engine_is_under_sanitizer() ? 0 : DECL_GUARD_BYTES;
}

static size_t device_bytes(const problem_data *p, bool copy_buffer)
{
    const problem_decl *d = decl_of(p);
    size_t n = builtin_scratch(p) + (copy_buffer ? output_bytes(p) : 0);
    for (int i = 0; i < d->nargs; i++) {
        if (!d->args[i].buffer)
            continue;
        n += p->decl->b[i].count * decl_type_size(d->args[i].type) + guard_bytes();
        if (d->args[i].output && d->ref == REF_KERNEL)
            n += p->decl->b[i].count * ref_elem(d, i);
    }
    return n;
}

static void free_device(problem_data *p)
{
    decl_data *dd = p->decl;
    if (!dd)
        return;
    for (int i = 0; i < DECL_MAX_ARGS; i++) {
        buffer_free(&dd->b[i].dev);
        buffer_free(&dd->b[i].refdev);
    }
    buffer_free(&dd->scratch);
    buffer_free(&dd->copy);
}

static bool alloc_device(problem_data *p, bool copy_buffer, cl_err *e)
{
    const problem_decl *d = decl_of(p);
    decl_data *dd = p->decl;
    for (int i = 0; i < d->nargs; i++) {
        const decl_arg *a = &d->args[i];
        if (!a->buffer)
            continue;
        size_t bytes = dd->b[i].count * decl_type_size(a->type);
        if (!buffer_alloc(&dd->b[i].dev, bytes + guard_bytes(), e) ||
            (a->output && d->ref == REF_KERNEL &&
             !buffer_alloc(&dd->b[i].refdev, dd->b[i].count * ref_elem(d, i), e)))
            goto fail;
        dd->b[i].dev.bytes = bytes;   /* the guard lies past what the buffer is */
        dd->b[i].overrun = -1;
    }
    size_t scratch = builtin_scratch(p);
    if ((scratch && !buffer_alloc(&dd->scratch, scratch, e)) ||
        (copy_buffer && !buffer_alloc(&dd->copy, output_bytes(p), e)))
        goto fail;
    return true;
fail:
    free_device(p);
    return false;
}

/* Fills the guard past buffer b with DECL_GUARD_BYTE. */
static bool guard_fill(const gpu_buffer *b, cudaStream_t s, cl_err *e)
{
    if (guard_bytes() == 0)
        return true;
    CUDA_CHECK(e, cudaMemsetAsync((char *)b->ptr + b->bytes, DECL_GUARD_BYTE, DECL_GUARD_BYTES, s));
    return true;
}

/* Reads the guard past b back: the offset of the first byte a run changed
 * into *at, or -1. */
static bool guard_read(const gpu_buffer *b, int64_t *at, cudaStream_t s, cl_err *e)
{
    static unsigned char g[DECL_GUARD_BYTES];   /* the worker checks one buffer at a time */
    *at = -1;
    if (guard_bytes() == 0)
        return true;
    CUDA_CHECK(e, cudaMemcpyAsync(g, (const char *)b->ptr + b->bytes, sizeof g,
                                  cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(e, cudaStreamSynchronize(s));
    *at = -1;
    for (size_t k = 0; k < sizeof g; k++)
        if (g[k] != DECL_GUARD_BYTE) {
            *at = (int64_t)k;
            break;
        }
    return true;
}

static bool upload(problem_data *p, cudaStream_t s, cl_err *e)
{
    const problem_decl *d = decl_of(p);
    decl_data *dd = p->decl;
    for (int i = 0; i < d->nargs; i++) {
        if (!d->args[i].buffer)
            continue;
        if (!d->args[i].output &&
            !buffer_upload(&dd->b[i].dev, dd->b[i].host,
                           dd->b[i].count * decl_type_size(d->args[i].type), s, e))
            return false;
        if (!guard_fill(&dd->b[i].dev, s, e))
            return false;
    }
    return true;
}

/* The pattern of t's poison as 32-bit words (u8: 0xde bytes). */
static uint32_t poison_word(decl_type t)
{
    return t == DT_F32 ? DECL_POISON_F32 : t == DT_F64 || t == DT_I64 ? DECL_POISON_F64
           : t == DT_BF16 ? DECL_POISON_BF16 : t == DT_U8 ? 0xdededededu : DECL_POISON_INT;
}

static bool poison(problem_data *p, cudaStream_t s, cl_err *e)
{
    const problem_decl *d = decl_of(p);
    for (int i = 0; i < d->nargs; i++) {
        if (!d->args[i].output)
            continue;
        const gpu_buffer *b = &p->decl->b[i].dev;
        size_t words = b->bytes / 4, tail = b->bytes % 4;
        CUDA_CHECK(e, kernels_fill_u32(b->ptr, poison_word(d->args[i].type), words, s));
        if (tail)
            CUDA_CHECK(e, cudaMemsetAsync((char *)b->ptr + 4 * words, 0xde, tail, s));
    }
    /* every guard afresh, so a check sees only this run's stray writes */
    for (int i = 0; i < d->nargs; i++) {
        p->decl->b[i].overrun = -1;
        if (d->args[i].buffer && !guard_fill(&p->decl->b[i].dev, s, e))
            return false;
    }
    return true;
}

static void poison_host(problem_data *p)
{
    const problem_decl *d = decl_of(p);
    for (int i = 0; i < d->nargs; i++)
        p->decl->b[i].overrun = -1;   /* a CPU run has no guards */
    for (int i = 0; i < d->nargs; i++)
        if (d->args[i].output)
            decl_poison_host(p->decl->b[i].host, d->args[i].type, p->decl->b[i].count);
}

static bool download(problem_data *p, cudaStream_t s, cl_err *e)
{
    const problem_decl *d = decl_of(p);
    decl_data *dd = p->decl;
    for (int i = 0; i < d->nargs; i++) {
        if (!d->args[i].buffer)
            continue;
        if (d->args[i].output &&
            !buffer_download(&dd->b[i].dev, dd->b[i].host,
                             dd->b[i].count * decl_type_size(d->args[i].type), s, e))
            return false;
        if (!guard_read(&dd->b[i].dev, &dd->b[i].overrun, s, e))
            return false;
    }
    return true;
}

/* The outputs judged, and then the guards: a run that wrote past the end
 * of any buffer is wrong whatever its outputs hold. */
static check_report check(const problem_data *p)
{
    check_report r = decl_check_outputs(p);
    const problem_decl *d = decl_of(p);
    for (int i = 0; i < d->nargs; i++) {
        const decl_buf *b = &p->decl->b[i];
        if (!d->args[i].buffer || !b->dev.ptr || b->overrun < 0)
            continue;
        size_t es = decl_type_size(d->args[i].type);
        r.status = CHECK_WRONG;
        snprintf(r.output, sizeof r.output, "%s", d->args[i].name);
        snprintf(r.note, sizeof r.note,
                 "the kernel wrote past the end of %s (%zu elements): byte %lld after its last "
                 "element changed, which is element %zu; a thread with no element of its own "
                 "needs the bounds check (if (i < n))",
                 d->args[i].name, b->count, (long long)b->overrun + 1,
                 b->count + (size_t)b->overrun / es);
        break;
    }
    return r;
}

static bool copy_once(problem_data *p, cudaStream_t s, cl_err *e)
{
    const problem_decl *d = decl_of(p);
    decl_data *dd = p->decl;
    size_t off = 0;
    for (int i = 0; i < d->nargs; i++) {
        if (!d->args[i].output)
            continue;
        size_t n = dd->b[i].dev.bytes;
        CUDA_CHECK(e, cudaMemcpyAsync((char *)dd->copy.ptr + off, dd->b[i].dev.ptr, n,
                                      cudaMemcpyDeviceToDevice, s));
        off += n;
    }
    return true;
}

static int inputs(problem_data *p, problem_input *out, int max)
{
    const problem_decl *d = decl_of(p);
    int n = 0;
    for (int i = 0; i < d->nargs && n < max; i++)
        if (d->args[i].buffer && !d->args[i].output && p->decl->b[i].dev.ptr) {
            /* a fill function's order may mean something: its elements stay */
            bool iid = d->args[i].fill.kind != FILL_FN;
            out[n++] = (problem_input){&p->decl->b[i].dev, d->args[i].name, p->decl->b[i].count,
                                       iid ? (int)decl_type_size(d->args[i].type) : 0};
        }
    return n;
}

static double copy_bytes(const problem_data *p)
{
    return 2.0 * (double)output_bytes(p);
}

/* ---- making inputs ------------------------------------------------------------------ */

static void generate(problem_data *p, uint64_t seed)
{
    const problem_decl *d = decl_of(p);
    decl_data *dd = p->decl;
    cl_err e = {{0}};
    probdecl_host h;
    decl_host_of(p, &h);
    dd->error[0] = '\0';
    if (!probdecl_make_inputs(d, &h, seed, p->narrow, &e))
        snprintf(dd->error, sizeof dd->error, "%s", e.msg);
}

static bool validate(const problem_data *p, cl_err *e)
{
    if (p->decl->error[0])
        return err_set(e, "%s", p->decl->error);
    return true;
}

static bool reference(problem_data *p, cl_err *e)
{
    return decl_reference(p, e);
}

/* ---- the builtin's rows ------------------------------------------------------------------ */

static void cpu(problem_data *p, int threads)
{
    const decl_problem *dp = problem_decl_ops_of(p);
    builtin_args a;
    decl_builtin_args(p, &a);
    dp->bi->cpu(&a, threads);
}

static cudaError_t launch(problem_data *p, const shipped_kernel *k, cudaStream_t s)
{
    const decl_problem *dp = problem_decl_ops_of(p);
    builtin_args a;
    decl_builtin_args(p, &a);
    void *scratch = p->decl->scratch.ptr;
    size_t bytes = p->decl->scratch.bytes;
    return dp->bi->shipped ? dp->bi->shipped(k, &a, scratch, bytes, s) : cudaErrorInvalidValue;
}

/* ---- the launcher's args -------------------------------------------------------------------- */

static int args(const problem_data *p, problem_arg *out)
{
    const problem_decl *d = decl_of(p);
    const decl_data *dd = p->decl;
    for (int i = 0; i < d->nargs; i++) {
        const decl_arg *a = &d->args[i];
        if (a->buffer)
            out[i] = (problem_arg){.name = a->name, .buf = &dd->b[i].dev, .count = dd->b[i].count,
                                   .output = a->output, .typed = true, .dtype = luagpu_dtype_of(a->type)};
        else if (decl_type_integral(a->type))
            out[i] = (problem_arg){.name = a->name, .value = (int64_t)dd->value[i]};
        else
            out[i] = (problem_arg){.name = a->name, .is_number = true, .number = dd->value[i]};
    }
    return d->nargs;
}

/* The CPU cache key: the builtin and the lengths of its buffers, so that
 * labs naming the same computation share timings and no two differ. */
static void cpu_key(const problem_data *p, char *problem, size_t pn, char *size, size_t sn)
{
    const decl_problem *dp = problem_decl_ops_of(p);
    snprintf(problem, pn, "builtin:%s", dp->bi ? dp->bi->desc->name : "none");
    size_t at = 0;
    size[0] = '\0';
    for (int i = 0; dp->bi && i < dp->bi->desc->nroles; i++) {
        int a = probdecl_role(dp->d, dp->bi->desc->roles[i].name);
        if (a < 0)
            continue;
        double v = dp->d->args[a].buffer ? (double)p->decl->b[a].count : p->decl->value[a];
        int w = snprintf(size + at, at < sn ? sn - at : 0, "%s%s=%.17g", at ? "," : "",
                         dp->bi->desc->roles[i].name, v);
        if (w > 0)
            at += (size_t)w;
    }
}

void problem_decl_init(decl_problem *dp, const problem_decl *decl)
{
    memset(dp, 0, sizeof *dp);
    dp->d = decl;
    dp->bi = decl->builtin[0] ? builtin_impl_find(decl->builtin) : NULL;
    dp->refx_msg = "";
    problem_ops *o = &dp->ops;
    o->spec = &decl->spec;
    o->generate = generate;
    o->validate = validate;
    o->reference = reference;
    o->cpu = dp->bi && decl->cpu ? cpu : NULL;
    o->launch = dp->bi ? launch : NULL;
    o->args = args;
    o->alloc_host = alloc_host;
    o->free_data = free_data;
    o->device_bytes = device_bytes;
    o->alloc_device = alloc_device;
    o->free_device = free_device;
    o->upload = upload;
    o->poison = poison;
    o->poison_host = poison_host;
    o->download = download;
    o->check = check;
    o->copy_once = copy_once;
    o->copy_bytes = copy_bytes;
    o->inputs = inputs;
    o->cpu_key = cpu_key;
}

bool problem_decl_library_once(void *ud, cudaStream_t stream, cl_err *err)
{
    problem_data *p = ud;
    const decl_problem *dp = problem_decl_ops_of(p);
    if (!dp || !dp->bi || !dp->bi->library)
        return err_set(err, "this problem has no library row");
    builtin_args a;
    decl_builtin_args(p, &a);
    CUDA_CHECK_LAUNCH(err,
                      dp->bi->library(&a, p->decl->scratch.ptr, p->decl->scratch.bytes, stream));
    return true;
}

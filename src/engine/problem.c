#include "engine/problem.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/invariant.h"
#include "gpu/cudacheck.h"

const problem_ops *problem_find(const char *name)
{
    const problem_ops *all[] = {problem_sgemm_ops(), problem_gemm_bf16_ops(),
                                problem_managed_ops()};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (name && strcmp(all[i]->spec->name, name) == 0)
            return all[i];
    return NULL;
}


bool problem_new(problem_data *p, const problem_ops *ops, const problem_dims *d, cl_err *e)
{
    memset(p, 0, sizeof *p);
    p->ops = ops;
    p->d = *d;
    if (ops->alloc_host)
        return ops->alloc_host(p, e);
    ops->shape(d, &p->sh);
    p->a = p->sh.na ? malloc(p->sh.na * sizeof *p->a) : NULL;
    p->b = p->sh.nb ? malloc(p->sh.nb * sizeof *p->b) : NULL;
    p->idx = p->sh.nidx ? malloc(p->sh.nidx * sizeof *p->idx) : NULL;
    p->out = malloc(p->sh.nout * sizeof *p->out);
    if ((p->sh.na && !p->a) || (p->sh.nb && !p->b) || (p->sh.nidx && !p->idx) || !p->out) {
        char need[32];
        buffer_format_bytes((p->sh.na + p->sh.nb + p->sh.nidx + p->sh.nout) * 4, need,
                            sizeof need);
        problem_free(p);
        return err_set(e, "out of host memory: the inputs and output need %s", need);
    }
    return true;
}

void problem_free(problem_data *p)
{
    problem_device_free(p);
    if (p->ops && p->ops->free_data)
        p->ops->free_data(p);
    free(p->a);
    free(p->b);
    free(p->idx);
    free(p->out);
    free(p->ref);
    free(p->ref_idx);
    const problem_ops *ops = p->ops;
    memset(p, 0, sizeof *p);
    p->ops = ops;
}

size_t problem_device_bytes(const problem_data *p, bool copy_buffer)
{
    if (p->ops->device_bytes)
        return p->ops->device_bytes(p, copy_buffer);
    if (p->ops->spec->host_io)
        return p->sh.scratch;
    size_t b = 4 * (p->sh.na + p->sh.nb + p->sh.nidx + p->sh.nout) + p->sh.scratch;
    if (copy_buffer)
        b += 4 * p->sh.nout;
    if (p->bf16)
        b += 2 * (p->sh.na + p->sh.nb);
    return b;
}

bool problem_device_alloc(problem_data *p, bool copy_buffer, cl_err *e)
{
    if (!buffer_check_free(problem_device_bytes(p, copy_buffer), e))
        return false;
    if (p->ops->alloc_device)
        return p->ops->alloc_device(p, copy_buffer, e);
    if (p->ops->spec->host_io) {
        if (p->sh.scratch && !buffer_alloc(&p->dscratch, p->sh.scratch, e))
            return false;
        return true;
    }
    if (p->ops->spec->managed) {
        if (!buffer_check_managed((p->sh.na + p->sh.nb) * 4, e) ||
            !buffer_alloc_managed(&p->da, p->sh.na * 4, e) ||
            !buffer_alloc_managed(&p->db, p->sh.nb * 4, e)) {
            problem_device_free(p);
            return false;
        }
    } else if ((p->sh.na && !buffer_alloc(&p->da, p->sh.na * 4, e)) ||
               (p->sh.nb && !buffer_alloc(&p->db, p->sh.nb * 4, e))) {
        problem_device_free(p);
        return false;
    }
    if ((p->sh.nidx && !buffer_alloc(&p->didx, p->sh.nidx * 4, e)) ||
        !buffer_alloc(&p->dout, p->sh.nout * 4, e) ||
        (p->sh.scratch && !buffer_alloc(&p->dscratch, p->sh.scratch, e)) ||
        (copy_buffer && !buffer_alloc(&p->dcopy, p->sh.nout * 4, e)) ||
        (p->bf16 && (!buffer_alloc(&p->da16, p->sh.na * 2, e) ||
                     !buffer_alloc(&p->db16, p->sh.nb * 2, e)))) {
        problem_device_free(p);
        return false;
    }
    return true;
}

void problem_device_free(problem_data *p)
{
    if (p->ops && p->ops->free_device)
        p->ops->free_device(p);
    buffer_free(&p->da);
    buffer_free(&p->db);
    buffer_free(&p->didx);
    buffer_free(&p->dout);
    buffer_free(&p->dscratch);
    buffer_free(&p->dcopy);
    buffer_free(&p->da16);
    buffer_free(&p->db16);
}

bool problem_prepare(problem_data *p, uint64_t seed, cl_err *e)
{
    p->seed = seed;
    p->ops->generate(p, seed);
    if (p->ops->validate && !p->ops->validate(p, e))
        return false;
    return p->ops->reference(p, e);
}

bool problem_upload(problem_data *p, cudaStream_t s, cl_err *e)
{
    if (p->ops->upload)
        return p->ops->upload(p, s, e);
    if (p->ops->spec->host_io)
        return true;
    if (p->ops->spec->managed) {
        /* the CPU writes the managed inputs: their pages move to host memory */
        CUDA_CHECK(e, cudaDeviceSynchronize());
        memcpy(p->da.ptr, p->a, p->sh.na * 4);
        memcpy(p->db.ptr, p->b, p->sh.nb * 4);
        return true;
    }
    if (p->sh.na && !buffer_upload(&p->da, p->a, p->sh.na * 4, s, e))
        return false;
    if (p->sh.nb && !buffer_upload(&p->db, p->b, p->sh.nb * 4, s, e))
        return false;
    if (p->sh.nidx && !buffer_upload(&p->didx, p->idx, p->sh.nidx * 4, s, e))
        return false;
    if (p->bf16) {
        if ((!p->da16.ptr && !buffer_alloc(&p->da16, p->sh.na * 2, e)) ||
            (!p->db16.ptr && !buffer_alloc(&p->db16, p->sh.nb * 2, e)))
            return false;
        CUDA_CHECK(e, kernels_f32_to_bf16(p->da.ptr, p->da16.ptr, p->sh.na, s));
        CUDA_CHECK(e, kernels_f32_to_bf16(p->db.ptr, p->db16.ptr, p->sh.nb, s));
        CUDA_CHECK(e, cudaStreamSynchronize(s));
    }
    return true;
}

bool problem_poison(problem_data *p, cudaStream_t s, cl_err *e)
{
    if (p->ops->poison)
        return p->ops->poison(p, s, e);
    if (p->ops->spec->host_io) {
        check_poison(p->out, p->sh.nout);
        return true;
    }
    /* on the device: the download after the run overwrites every host element */
    CUDA_CHECK(e, kernels_fill_u32((uint32_t *)p->dout.ptr, (uint32_t)CHECK_POISON_BITS,
                                   p->sh.nout, s));
    return true;
}

bool problem_download(problem_data *p, cudaStream_t s, cl_err *e)
{
    if (p->ops->download)
        return p->ops->download(p, s, e);
    if (p->ops->spec->host_io)
        return true;
    if (!buffer_download(&p->dout, p->out, p->sh.nout * 4, s, e))
        return false;
    if (p->ops->decode)
        p->ops->decode(p);
    return true;
}

check_report problem_check(const problem_data *p)
{
    if (p->ops->check)
        return p->ops->check(p);
    double tol = p->tolerance > 0.0 ? p->tolerance : p->ops->spec->tolerance;
    return check_compare(p->out, p->sh.nout, p->ref, p->ref_idx, p->nref, tol);
}

void problem_poison_host(problem_data *p)
{
    if (p->ops->poison_host)
        p->ops->poison_host(p);
    else
        check_poison(p->out, p->sh.nout);
}

bool problem_copy_once(problem_data *p, cudaStream_t s, cl_err *e)
{
    if (p->ops->copy_once)
        return p->ops->copy_once(p, s, e);
    CUDA_CHECK(e, cudaMemcpyAsync(p->dcopy.ptr, p->dout.ptr, p->dout.bytes,
                                  cudaMemcpyDeviceToDevice, s));
    return true;
}

double problem_copy_bytes(const problem_data *p)
{
    return p->ops->copy_bytes ? p->ops->copy_bytes(p) : 8.0 * (double)p->sh.nout;
}

int problem_args(const problem_data *p, problem_arg *out)
{
    memset(out, 0, PROBLEM_MAX_ARGS * sizeof *out);
    int n = p->ops->args ? p->ops->args(p, out) : 0;
    CL_ASSERT(n >= 0 && n <= PROBLEM_MAX_ARGS);
    return n;
}

void problem_report(const check_report *c, run_result *r)
{
    switch (c->status) {
    case CHECK_OK:
        r->status = RS_CORRECT;
        break;
    case CHECK_WRONG:
        r->status = RS_WRONG;
        break;
    case CHECK_UNWRITTEN:
        r->status = RS_UNWRITTEN;
        break;
    case CHECK_NONFINITE:
        r->status = RS_NAN;
        break;
    default:
        r->status = RS_ERROR;
        break;
    }
    r->rel_err = c->rel_err;
    r->nmismatch = c->nmismatch < RUN_MAX_MISMATCH ? c->nmismatch : RUN_MAX_MISMATCH;
    for (int i = 0; i < r->nmismatch; i++) {
        r->mismatches[i].index = c->mismatch[i].index;
        r->mismatches[i].got = c->mismatch[i].got;
        r->mismatches[i].expected = c->mismatch[i].expected;
    }
    check_describe(c, r->message, sizeof r->message);
}

void problem_derive(const problem_rates *in, run_result *r)
{
    double ms = r->median_ms;
    r->gbps = -1.0;
    r->tflops = -1.0;
    r->pct_peak_measured = -1.0;
    r->pct_peak_theory = -1.0;
    r->speedup_cpu = 0.0;
    r->speedup_cpu_mt = 0.0;
    r->speedup_lib = 0.0;
    if (!(ms > 0.0))
        return;
    double s = ms * 1e-3;
    if (in->bytes > 0.0)
        r->gbps = in->bytes / s / 1e9;
    if (in->flops >= 0.0)
        r->tflops = in->flops / s / 1e12;
    if (in->bandwidth_bound) {
        double ref = in->reads_only && in->peak_bw_read_gbs > 0.0 ? in->peak_bw_read_gbs
                                                                   : in->peak_bw_measured_gbs;
        if (r->gbps >= 0.0 && ref > 0.0)
            r->pct_peak_measured = 100.0 * r->gbps / ref;
        if (r->gbps >= 0.0 && in->peak_bw_theory_gbs > 0.0)
            r->pct_peak_theory = 100.0 * r->gbps / in->peak_bw_theory_gbs;
    } else if (r->tflops >= 0.0 && in->peak_fp32_tflops > 0.0) {
        r->pct_peak_measured = 100.0 * r->tflops / in->peak_fp32_tflops;
        r->pct_peak_theory = r->pct_peak_measured;
    }
    if (in->cpu_ms > 0.0)
        r->speedup_cpu = in->cpu_ms / ms;
    if (in->cpu_mt_ms > 0.0)
        r->speedup_cpu_mt = in->cpu_mt_ms / ms;
    if (in->lib_ms > 0.0)
        r->speedup_lib = in->lib_ms / ms;
}

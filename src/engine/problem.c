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


bool problem_new(problem_data *data, const problem_ops *ops, const problem_dims *dims, cl_err *err)
{
    memset(data, 0, sizeof *data);
    data->ops = ops;
    data->d = *dims;
    if (ops->alloc_host)
        return ops->alloc_host(data, err);
    ops->shape(dims, &data->sh);
    data->a = data->sh.na ? malloc(data->sh.na * sizeof *data->a) : NULL;
    data->b = data->sh.nb ? malloc(data->sh.nb * sizeof *data->b) : NULL;
    data->idx = data->sh.nidx ? malloc(data->sh.nidx * sizeof *data->idx) : NULL;
    data->out = malloc(data->sh.nout * sizeof *data->out);
    if ((data->sh.na && !data->a) || (data->sh.nb && !data->b) ||
        (data->sh.nidx && !data->idx) || !data->out) {
        char need[32];
        buffer_format_bytes((data->sh.na + data->sh.nb + data->sh.nidx + data->sh.nout) * 4, need,
                            sizeof need);
        problem_free(data);
        return err_set(err, "out of host memory: the inputs and output need %s", need);
    }
    return true;
}

void problem_free(problem_data *data)
{
    problem_device_free(data);
    if (data->ops && data->ops->free_data)
        data->ops->free_data(data);
    free(data->a);
    free(data->b);
    free(data->idx);
    free(data->out);
    free(data->ref);
    free(data->ref_idx);
    const problem_ops *ops = data->ops;
    memset(data, 0, sizeof *data);
    data->ops = ops;
}

size_t problem_device_bytes(const problem_data *data, bool copy_buffer)
{
    if (data->ops->device_bytes)
        return data->ops->device_bytes(data, copy_buffer);
    if (data->ops->spec->host_io)
        return data->sh.scratch;
    size_t b = 4 * (data->sh.na + data->sh.nb + data->sh.nidx + data->sh.nout) + data->sh.scratch;
    if (copy_buffer)
        b += 4 * data->sh.nout;
    if (data->bf16)
        b += 2 * (data->sh.na + data->sh.nb);
    return b;
}

bool problem_device_alloc(problem_data *data, bool copy_buffer, cl_err *err)
{
    if (!buffer_check_free(problem_device_bytes(data, copy_buffer), err))
        return false;
    if (data->ops->alloc_device)
        return data->ops->alloc_device(data, copy_buffer, err);
    if (data->ops->spec->host_io) {
        if (data->sh.scratch && !buffer_alloc(&data->dscratch, data->sh.scratch, err))
            return false;
        return true;
    }
    if (data->ops->spec->managed) {
        if (!buffer_check_managed((data->sh.na + data->sh.nb) * 4, err) ||
            !buffer_alloc_managed(&data->da, data->sh.na * 4, err) ||
            !buffer_alloc_managed(&data->db, data->sh.nb * 4, err)) {
            problem_device_free(data);
            return false;
        }
    } else if ((data->sh.na && !buffer_alloc(&data->da, data->sh.na * 4, err)) ||
               (data->sh.nb && !buffer_alloc(&data->db, data->sh.nb * 4, err))) {
        problem_device_free(data);
        return false;
    }
    if ((data->sh.nidx && !buffer_alloc(&data->didx, data->sh.nidx * 4, err)) ||
        !buffer_alloc(&data->dout, data->sh.nout * 4, err) ||
        (data->sh.scratch && !buffer_alloc(&data->dscratch, data->sh.scratch, err)) ||
        (copy_buffer && !buffer_alloc(&data->dcopy, data->sh.nout * 4, err)) ||
        (data->bf16 && (!buffer_alloc(&data->da16, data->sh.na * 2, err) ||
                        !buffer_alloc(&data->db16, data->sh.nb * 2, err)))) {
        problem_device_free(data);
        return false;
    }
    return true;
}

void problem_device_free(problem_data *data)
{
    if (data->ops && data->ops->free_device)
        data->ops->free_device(data);
    buffer_free(&data->da);
    buffer_free(&data->db);
    buffer_free(&data->didx);
    buffer_free(&data->dout);
    buffer_free(&data->dscratch);
    buffer_free(&data->dcopy);
    buffer_free(&data->da16);
    buffer_free(&data->db16);
}

bool problem_prepare(problem_data *data, uint64_t seed, cl_err *err)
{
    data->seed = seed;
    data->ops->generate(data, seed);
    if (data->ops->validate && !data->ops->validate(data, err))
        return false;
    return data->ops->reference(data, err);
}

bool problem_upload(problem_data *data, cudaStream_t stream, cl_err *err)
{
    if (data->ops->upload)
        return data->ops->upload(data, stream, err);
    if (data->ops->spec->host_io)
        return true;
    if (data->ops->spec->managed) {
        /* the CPU writes the managed inputs: their pages move to host memory */
        CUDA_CHECK(err, cudaDeviceSynchronize());
        memcpy(data->da.ptr, data->a, data->sh.na * 4);
        memcpy(data->db.ptr, data->b, data->sh.nb * 4);
        return true;
    }
    if (data->sh.na && !buffer_upload(&data->da, data->a, data->sh.na * 4, stream, err))
        return false;
    if (data->sh.nb && !buffer_upload(&data->db, data->b, data->sh.nb * 4, stream, err))
        return false;
    if (data->sh.nidx && !buffer_upload(&data->didx, data->idx, data->sh.nidx * 4, stream, err))
        return false;
    if (data->bf16) {
        if ((!data->da16.ptr && !buffer_alloc(&data->da16, data->sh.na * 2, err)) ||
            (!data->db16.ptr && !buffer_alloc(&data->db16, data->sh.nb * 2, err)))
            return false;
        CUDA_CHECK(err, kernels_f32_to_bf16(data->da.ptr, data->da16.ptr, data->sh.na, stream));
        CUDA_CHECK(err, kernels_f32_to_bf16(data->db.ptr, data->db16.ptr, data->sh.nb, stream));
        CUDA_CHECK(err, cudaStreamSynchronize(stream));
    }
    return true;
}

bool problem_poison(problem_data *data, cudaStream_t stream, cl_err *err)
{
    if (data->ops->poison)
        return data->ops->poison(data, stream, err);
    if (data->ops->spec->host_io) {
        check_poison(data->out, data->sh.nout);
        return true;
    }
    /* on the device: the download after the run overwrites every host element */
    CUDA_CHECK(err, kernels_fill_u32((uint32_t *)data->dout.ptr, (uint32_t)CHECK_POISON_BITS,
                                     data->sh.nout, stream));
    return true;
}

bool problem_download(problem_data *data, cudaStream_t stream, cl_err *err)
{
    if (data->ops->download)
        return data->ops->download(data, stream, err);
    if (data->ops->spec->host_io)
        return true;
    if (!buffer_download(&data->dout, data->out, data->sh.nout * 4, stream, err))
        return false;
    if (data->ops->decode)
        data->ops->decode(data);
    return true;
}

check_report problem_check(const problem_data *data)
{
    if (data->ops->check)
        return data->ops->check(data);
    double tol = data->tolerance > 0.0 ? data->tolerance : data->ops->spec->tolerance;
    return check_compare(data->out, data->sh.nout, data->ref, data->ref_idx, data->nref, tol);
}

void problem_poison_host(problem_data *data)
{
    if (data->ops->poison_host)
        data->ops->poison_host(data);
    else
        check_poison(data->out, data->sh.nout);
}

bool problem_copy_once(problem_data *data, cudaStream_t stream, cl_err *err)
{
    if (data->ops->copy_once)
        return data->ops->copy_once(data, stream, err);
    CUDA_CHECK(err, cudaMemcpyAsync(data->dcopy.ptr, data->dout.ptr, data->dout.bytes,
                                    cudaMemcpyDeviceToDevice, stream));
    return true;
}

double problem_copy_bytes(const problem_data *data)
{
    return data->ops->copy_bytes ? data->ops->copy_bytes(data) : 8.0 * (double)data->sh.nout;
}

/* The name data's launcher knows buffer b by, else fallback. */
static const char *input_name(const problem_data *data, const gpu_buffer *b, const char *fallback)
{
    problem_arg a[PROBLEM_MAX_ARGS];
    int n = problem_args(data, a);
    for (int i = 0; i < n; i++)
        if (a[i].buf == b)
            return a[i].name;
    return fallback;
}

int problem_inputs(problem_data *data, problem_input *out, int max)
{
    if (data->ops->inputs)
        return data->ops->inputs(data, out, max);
    if (data->ops->spec->host_io || data->ops->spec->managed)
        return 0;
    /* the built-in problems' inputs are uniform, element by element */
    struct {
        gpu_buffer *b;
        const char *name;
        int elem;
    } all[] = {{&data->da, "a", 4}, {&data->db, "b", 4}, {&data->didx, "idx", 4},
               {&data->da16, "a (BF16)", 2}, {&data->db16, "b (BF16)", 2}};
    int n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0] && n < max; i++)
        if (all[i].b->ptr && all[i].b->bytes)
            out[n++] = (problem_input){all[i].b, input_name(data, all[i].b, all[i].name),
                                       all[i].b->bytes / (size_t)all[i].elem, all[i].elem};
    return n;
}

int problem_args(const problem_data *data, problem_arg *out)
{
    memset(out, 0, PROBLEM_MAX_ARGS * sizeof *out);
    int n = data->ops->args ? data->ops->args(data, out) : 0;
    CL_ASSERT(n >= 0 && n <= PROBLEM_MAX_ARGS);
    return n;
}

void problem_report(const check_report *check, run_result *row)
{
    switch (check->status) {
    case CHECK_OK:
        row->status = RS_CORRECT;
        break;
    case CHECK_WRONG:
        row->status = RS_WRONG;
        break;
    case CHECK_UNWRITTEN:
        row->status = RS_UNWRITTEN;
        break;
    case CHECK_NONFINITE:
        row->status = RS_NAN;
        break;
    default:
        row->status = RS_ERROR;
        break;
    }
    row->rel_err = check->rel_err;
    row->nmismatch = check->nmismatch < RUN_MAX_MISMATCH ? check->nmismatch : RUN_MAX_MISMATCH;
    for (int i = 0; i < row->nmismatch; i++) {
        row->mismatches[i].index = check->mismatch[i].index;
        row->mismatches[i].got = check->mismatch[i].got;
        row->mismatches[i].expected = check->mismatch[i].expected;
    }
    check_describe(check, row->message, sizeof row->message);
}

void problem_derive(const problem_rates *in, run_result *row)
{
    double ms = row->median_ms;
    row->gbps = -1.0;
    row->tflops = -1.0;
    row->pct_peak_measured = -1.0;
    row->pct_peak_theory = -1.0;
    row->speedup_cpu = 0.0;
    row->speedup_cpu_mt = 0.0;
    row->speedup_lib = 0.0;
    if (!(ms > 0.0))
        return;
    double s = ms * 1e-3;
    if (in->bytes > 0.0)
        row->gbps = in->bytes / s / 1e9;
    if (in->flops >= 0.0)
        row->tflops = in->flops / s / 1e12;
    if (in->bandwidth_bound) {
        double ref = in->reads_only && in->peak_bw_read_gbs > 0.0 ? in->peak_bw_read_gbs
                                                                   : in->peak_bw_measured_gbs;
        if (row->gbps >= 0.0 && ref > 0.0)
            row->pct_peak_measured = 100.0 * row->gbps / ref;
        if (row->gbps >= 0.0 && in->peak_bw_theory_gbs > 0.0)
            row->pct_peak_theory = 100.0 * row->gbps / in->peak_bw_theory_gbs;
    } else if (row->tflops >= 0.0 && in->peak_fp32_tflops > 0.0) {
        row->pct_peak_measured = 100.0 * row->tflops / in->peak_fp32_tflops;
        row->pct_peak_theory = row->pct_peak_measured;
    }
    if (in->cpu_ms > 0.0)
        row->speedup_cpu = in->cpu_ms / ms;
    if (in->cpu_mt_ms > 0.0)
        row->speedup_cpu_mt = in->cpu_mt_ms / ms;
    if (in->lib_ms > 0.0)
        row->speedup_lib = in->lib_ms / ms;
}

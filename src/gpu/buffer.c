#include "gpu/buffer.h"


#include "core/units.h"
#include "gpu/cudacheck.h"

void buffer_format_bytes(size_t bytes, char *out, size_t n)
{
    units_bytes((double)bytes, out, n);
}

bool buffer_fits(size_t need, size_t free_bytes, cl_err *e)
{
    if (need <= free_bytes)
        return true;
    char a[32], b[32];
    buffer_format_bytes(need, a, sizeof a);
    buffer_format_bytes(free_bytes, b, sizeof b);
    return err_set(e, "needs %s, device has %s free", a, b);
}

bool buffer_check_free(size_t need, cl_err *e)
{
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(e, cudaMemGetInfo(&free_b, &total_b));
    return buffer_fits(need, free_b, e);
}

bool buffer_alloc(gpu_buffer *b, size_t bytes, cl_err *e)
{
    b->ptr = NULL;
    b->bytes = 0;
    if (bytes == 0)
        return err_set(e, "cannot allocate an empty device buffer");
    if (!buffer_check_free(bytes, e))
        return false;
    void *p = NULL;
    cudaError_t st = cudaMalloc(&p, bytes);
    if (st == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        char a[32];
        buffer_format_bytes(bytes, a, sizeof a);
        return err_set(e, "out of device memory allocating %s", a);
    }
    CUDA_CHECK(e, st);
    b->ptr = p;
    b->bytes = bytes;
    return true;
}

bool buffer_check_managed(size_t bytes, cl_err *e)
{
    int dev = 0, managed = 0;
    CUDA_CHECK(e, cudaGetDevice(&dev));
    CUDA_CHECK(e, cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, dev));
    if (!managed)
        return err_set(e, "this device does not support managed memory");
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(e, cudaMemGetInfo(&free_b, &total_b));
    if ((double)bytes > BUFFER_MANAGED_SHARE * (double)free_b) {
        char a[32], f[32];
        buffer_format_bytes(bytes, a, sizeof a);
        buffer_format_bytes(free_b, f, sizeof f);
        return err_set(e, "needs %s of managed memory; the device has %s free, and managed "
                          "memory is kept within half of that so that it is never "
                          "oversubscribed", a, f);
    }
    return true;
}

bool buffer_alloc_managed(gpu_buffer *b, size_t bytes, cl_err *e)
{
    b->ptr = NULL;
    b->bytes = 0;
    if (bytes == 0)
        return err_set(e, "cannot allocate an empty managed buffer");
    if (!buffer_check_managed(bytes, e))
        return false;
    void *p = NULL;
    cudaError_t st = cudaMallocManaged(&p, bytes, cudaMemAttachGlobal);
    if (st == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        char a[32];
        buffer_format_bytes(bytes, a, sizeof a);
        return err_set(e, "out of memory allocating %s of managed memory", a);
    }
    CUDA_CHECK(e, st);
    b->ptr = p;
    b->bytes = bytes;
    return true;
}

void buffer_free(gpu_buffer *b)
{
    if (b->ptr)
        cudaFree(b->ptr);
    b->ptr = NULL;
    b->bytes = 0;
}

bool buffer_upload(gpu_buffer *b, const void *src, size_t bytes, cudaStream_t s, cl_err *e)
{
    if (bytes > b->bytes)
        return err_set(e, "upload of %zu bytes into a %zu-byte buffer", bytes, b->bytes);
    CUDA_CHECK(e, cudaMemcpyAsync(b->ptr, src, bytes, cudaMemcpyHostToDevice, s));
    CUDA_CHECK(e, cudaStreamSynchronize(s));
    return true;
}

bool buffer_download(const gpu_buffer *b, void *dst, size_t bytes, cudaStream_t s, cl_err *e)
{
    if (bytes > b->bytes)
        return err_set(e, "download of %zu bytes from a %zu-byte buffer", bytes, b->bytes);
    CUDA_CHECK(e, cudaMemcpyAsync(dst, b->ptr, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(e, cudaStreamSynchronize(s));
    return true;
}

#include "gpu/buffer.h"


#include "core/units.h"
#include "gpu/cudacheck.h"

void buffer_format_bytes(size_t bytes, char *out, size_t out_size)
{
    units_bytes((double)bytes, out, out_size);
}

bool buffer_fits(size_t need, size_t free_bytes, cl_err *err)
{
    if (need <= free_bytes)
        return true;
    char a[32], b[32];
    buffer_format_bytes(need, a, sizeof a);
    buffer_format_bytes(free_bytes, b, sizeof b);
    return err_set(err, "needs %s, device has %s free", a, b);
}

bool buffer_check_free(size_t need, cl_err *err)
{
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(err, cudaMemGetInfo(&free_b, &total_b));
    return buffer_fits(need, free_b, err);
}

bool buffer_alloc(gpu_buffer *buf, size_t bytes, cl_err *err)
{
    buf->ptr = NULL;
    buf->bytes = 0;
    if (bytes == 0)
        return err_set(err, "cannot allocate an empty device buffer");
    if (!buffer_check_free(bytes, err))
        return false;
    void *p = NULL;
    cudaError_t st = cudaMalloc(&p, bytes);
    if (st == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        char a[32];
        buffer_format_bytes(bytes, a, sizeof a);
        return err_set(err, "out of device memory allocating %s", a);
    }
    CUDA_CHECK(err, st);
    buf->ptr = p;
    buf->bytes = bytes;
    return true;
}

bool buffer_check_managed(size_t bytes, cl_err *err)
{
    int dev = 0, managed = 0;
    CUDA_CHECK(err, cudaGetDevice(&dev));
    CUDA_CHECK(err, cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, dev));
    if (!managed)
        return err_set(err, "this device does not support managed memory");
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(err, cudaMemGetInfo(&free_b, &total_b));
    if ((double)bytes > BUFFER_MANAGED_SHARE * (double)free_b) {
        char a[32], f[32];
        buffer_format_bytes(bytes, a, sizeof a);
        buffer_format_bytes(free_b, f, sizeof f);
        return err_set(err, "needs %s of managed memory; the device has %s free, and managed "
                          "memory is kept within half of that so that it is never "
                          "oversubscribed", a, f);
    }
    return true;
}

bool buffer_alloc_managed(gpu_buffer *buf, size_t bytes, cl_err *err)
{
    buf->ptr = NULL;
    buf->bytes = 0;
    if (bytes == 0)
        return err_set(err, "cannot allocate an empty managed buffer");
    if (!buffer_check_managed(bytes, err))
        return false;
    void *p = NULL;
    cudaError_t st = cudaMallocManaged(&p, bytes, cudaMemAttachGlobal);
    if (st == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        char a[32];
        buffer_format_bytes(bytes, a, sizeof a);
        return err_set(err, "out of memory allocating %s of managed memory", a);
    }
    CUDA_CHECK(err, st);
    buf->ptr = p;
    buf->bytes = bytes;
    return true;
}

void buffer_free(gpu_buffer *buf)
{
    if (buf->ptr)
        cudaFree(buf->ptr);
    buf->ptr = NULL;
    buf->bytes = 0;
}

bool buffer_upload(gpu_buffer *buf, const void *src, size_t bytes, cudaStream_t stream, cl_err *err)
{
    if (bytes > buf->bytes)
        return err_set(err, "upload of %zu bytes into a %zu-byte buffer", bytes, buf->bytes);
    CUDA_CHECK(err, cudaMemcpyAsync(buf->ptr, src, bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(err, cudaStreamSynchronize(stream));
    return true;
}

bool buffer_download(const gpu_buffer *buf, void *dst, size_t bytes, cudaStream_t stream,
                     cl_err *err)
{
    if (bytes > buf->bytes)
        return err_set(err, "download of %zu bytes from a %zu-byte buffer", bytes, buf->bytes);
    CUDA_CHECK(err, cudaMemcpyAsync(dst, buf->ptr, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(err, cudaStreamSynchronize(stream));
    return true;
}

/* buffer.h - device memory with a readable out-of-memory message.
 *
 * Before allocating, the free memory on the device is compared with what is
 * needed, so a learner reads "needs 12 GiB, device has 9.1 GiB free"
 * instead of a bare cudaErrorMemoryAllocation. */
#ifndef CUDALAB_GPU_BUFFER_H
#define CUDALAB_GPU_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "core/err.h"

typedef struct gpu_buffer {
    void *ptr;
    size_t bytes;
} gpu_buffer;

/* bytes as units_bytes writes them: "512 B", "3 KiB", "256 MiB", "1.5 GiB". */
void buffer_format_bytes(size_t bytes, char *out, size_t out_size);
/* Pure check: false + "needs X, device has Y free" when need > free_bytes. */
bool buffer_fits(size_t need, size_t free_bytes, cl_err *err);
/* Queries the device's free memory and applies buffer_fits. */
bool buffer_check_free(size_t need, cl_err *err);
/* Allocates bytes (> 0) of device memory after the free-memory check.
 * On failure buf is left empty. */
bool buffer_alloc(gpu_buffer *buf, size_t bytes, cl_err *err);
/* Share of the device's free memory a managed allocation may take: managed
 * memory is kept well within what the device has free, so it is never
 * oversubscribed (pages would then be evicted back and forth while a kernel
 * runs, and the timings would measure that). */
#define BUFFER_MANAGED_SHARE 0.5
/* Checks that the device supports managed memory and bytes (all the managed
 * memory a run will hold) is at most BUFFER_MANAGED_SHARE of its free memory;
 * false + a sentence saying which it is not. */
bool buffer_check_managed(size_t bytes, cl_err *err);
/* Allocates bytes (> 0) of managed memory (cudaMallocManaged, attached
 * globally), after checking that the device supports it and that bytes is
 * at most BUFFER_MANAGED_SHARE of its free memory.  Freed by buffer_free. */
bool buffer_alloc_managed(gpu_buffer *buf, size_t bytes, cl_err *err);
/* Frees buf (empty or already freed is fine) and leaves it empty. */
void buffer_free(gpu_buffer *buf);
/* Host -> device and device -> host copies of bytes at offset 0, ordered on
 * stream and complete when the call returns. */
bool buffer_upload(gpu_buffer *buf, const void *src, size_t bytes, cudaStream_t stream,
                   cl_err *err);
bool buffer_download(const gpu_buffer *buf, void *dst, size_t bytes, cudaStream_t stream,
                     cl_err *err);

#endif

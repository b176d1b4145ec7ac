/* peak_read.h - the kernel that measures how fast this device streams data in.
 *
 * A copy reads and writes; a reduction or a matrix-vector product mostly
 * reads, and a read-only stream runs faster than a copy on HBM, so "percent
 * of peak" for kernels that mostly read is taken against this instead. */
#ifndef CUDALAB_KERNELS_PEAK_READ_H
#define CUDALAB_KERNELS_PEAK_READ_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reads n4 float4 values from src once in way kind (0 <= kind <
 * peak_read_kinds(): loads in flight, cached or streaming, a grid that
 * covers the device once or four times), and writes one float per block
 * into sink (at least peak_read_sink_floats() floats) so that the reads
 * cannot be optimised away.  The fastest kind is the device's read speed. */
cudaError_t launch_peak_read(const void *src, size_t n4, float *sink, int kind, cudaStream_t stream);
int peak_read_kinds(void);
/* Floats of sink launch_peak_read needs; starts the CUDA runtime. */
size_t peak_read_sink_floats(void);

#ifdef __cplusplus
}
#endif

#endif

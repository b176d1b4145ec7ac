// scan.cu - the inclusive prefix sum as the vendor library does it: CUB's
// DeviceScan::InclusiveSum, the library row of the builtin "scan"
// (src/catalog/builtin.c) that a lab's declared problem may name.

#include <cub/device/device_scan.cuh>

#include "kcommon.cuh"
#include "kernels.h"

// CUB with 32-bit offsets where n allows (its usual instantiation), 64-bit beyond.
static cudaError_t cub_scan(void *tmp, size_t &bytes, const float *in, float *out, size_t n,
                            cudaStream_t s)
{
    if (n <= (size_t)INT32_MAX) return cub::DeviceScan::InclusiveSum(tmp, bytes, in, out, (int)n, s);
    return cub::DeviceScan::InclusiveSum(tmp, bytes, in, out, (int64_t)n, s);
}

extern "C" size_t kernels_scan_scratch_bytes(size_t n)
{
    size_t bytes = 0;
    if (cub_scan(nullptr, bytes, nullptr, nullptr, n, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return bytes;
}

extern "C" cudaError_t kernels_cub_scan(const float *in, float *out, size_t n, void *scratch,
                                        size_t scratch_bytes, cudaStream_t stream)
{
    k_set_library_error("");
    if (!in || !out || n == 0) return cudaErrorInvalidValue;
    size_t need = 0;
    cudaError_t err = cub_scan(nullptr, need, in, out, n, stream);
    if (err != cudaSuccess) {
        k_set_library_error("cub::DeviceScan::InclusiveSum (size query): %s",
                            cudaGetErrorString(err));
        return err;
    }
    if (!scratch || scratch_bytes < need) {
        k_set_library_error("cub::DeviceScan::InclusiveSum needs %zu bytes of scratch, got %zu",
                            need, scratch_bytes);
        return cudaErrorInvalidValue;
    }
    err = cub_scan(scratch, need, in, out, n, stream);
    if (err != cudaSuccess) {
        k_set_library_error("cub::DeviceScan::InclusiveSum: %s", cudaGetErrorString(err));
        return err;
    }
    KCHECK_LAUNCH();
    return cudaSuccess;
}

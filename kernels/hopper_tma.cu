// hopper_tma.cu - the host side of the Hopper rungs: tensor maps for the
// Tensor Memory Accelerator (cuTensorMapEncodeTiled, taken from the driver at
// run time, so nothing links libcuda), the device check and the shared
// memory request.  Built in the cudalab_wgmma target (hopper.cuh).
#include "hopper.cuh"

#if defined(CUDALAB_WGMMA)

static cudaError_t wg_encoder(PFN_cuTensorMapEncodeTiled_v12000 *out)
{
    static void *fn = NULL;
    if (!fn) {
        void *f = NULL;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        KCHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000,
                                                cudaEnableDefault, &q));
        if (q != cudaDriverEntryPointSuccess || !f) return cudaErrorNotSupported;
        fn = f;
    }
    *out = (PFN_cuTensorMapEncodeTiled_v12000)fn;
    return cudaSuccess;
}

// A rows x cols row-major matrix of elem-byte elements as a 2-D tensor map
// of box_rows x box_cols boxes, 128-byte swizzled, zeros outside.
static cudaError_t wg_encode(CUtensorMap *map, CUtensorMapDataType type, size_t elem,
                             const void *p, int rows, int cols, int box_rows, int box_cols)
{
    PFN_cuTensorMapEncodeTiled_v12000 encode = NULL;
    KCHECK(wg_encoder(&encode));
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)cols * elem};
    const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
    const cuuint32_t steps[2] = {1, 1};
    const CUresult r = encode(map, type, 2, (void *)p, dims, strides, box, steps,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        k_set_library_error("cuTensorMapEncodeTiled failed (CUresult %d)", (int)r);
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

cudaError_t k_wg_map(CUtensorMap *map, const uint16_t *p, int rows, int cols, int box_rows,
                     int box_cols)
{
    return wg_encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, p, rows, cols, box_rows, box_cols);
}

cudaError_t k_wg_map_f32(CUtensorMap *map, const float *p, int rows, int cols, int box_rows,
                         int box_cols)
{
    return wg_encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, p, rows, cols, box_rows, box_cols);
}

cudaError_t k_wg_supported(void)
{
    int cc = 0;
    KCHECK(k_device_cc(&cc));
    return cc == 90 ? cudaSuccess : cudaErrorNotSupported;
}

cudaError_t k_wg_smem(const void *kernel, size_t bytes, int *configured)
{
    int dev = 0, optin = 0;
    KCHECK(cudaGetDevice(&dev));
    if (*configured == dev) return cudaSuccess;
    KCHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (bytes > (size_t)optin) return cudaErrorNotSupported;
    KCHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    *configured = dev;
    return cudaSuccess;
}

#endif

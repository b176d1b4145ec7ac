// Expected diagnosis: launch_config (grid.y of 100000 blocks: the limit is 65535).
// One block a row of out, rows along y: grid.y may not exceed 65535.
// Problem embedding; size 100000x64x1000 (T = 100000 rows).

extern "C" __global__ void embedding(const float *W, const int *idx, float *out,
                                     int T, int D, int V)
{
    const int t = blockIdx.y;
    for (int d = threadIdx.x; d < D; d += blockDim.x)
        out[(size_t)t * D + d] = W[(size_t)idx[t] * D + d];
}

// Expected diagnosis: memory_access (illegal address).  The row of W is found by
// multiplying by V, the number of rows, instead of by D, the row length, so reads
// land far past the end of W.  Problem embedding; size 4096x64x32000.

extern "C" __global__ void embedding(const float *W, const int *idx, float *out,
                                     int T, int D, int V)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)T * D)
        return;
    const long long t = i / D;
    const long long d = i % D;
    out[i] = W[(long long)idx[t] * V + d];
}

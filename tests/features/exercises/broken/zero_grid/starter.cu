// starter.cu - your embedding lookup (lab "embedding", problem embedding).
//
// cudalab compiles this file with NVRTC every time you save it and runs it
// through your launcher, starter.lua.  Edit both freely: the lab's copy stays
// untouched, and "reset" keeps yours in a backup folder.
//
// The contract
//   W     the table: V rows of D floats, row-major (row v starts at W[v * D]).
//   idx   T row numbers (int), each in [0, V).
//   out   T rows of D floats: row t is a copy of row idx[t] of W,
//         out[t * D + d] = W[idx[t] * D + d].
//         Before every run cudalab fills out with a marker NaN ("poison"), so
//         an element no thread writes fails.
//   sizes T * D and V * D are at most 2^30 elements.
//   check exact: a copy has no rounding; fresh random inputs every time.
//   names every kernel the launcher uses is declared extern "C" __global__,
//         so C++ keeps its name as written (otherwise embedding would be
//         renamed _Z9embeddingPKfPKiPfiii and the launcher could not find it).
//
// This first version is correct and simple: one thread copies one element of
// out, working out which row and column it is with a division.  Ideas for
// making it faster are in the lesson: several elements a thread, 16-byte
// loads and stores (float4), a whole row per warp or block.

extern "C" __global__ void embedding(const float *W, const int *idx, float *out,
                                     int T, int D, int V)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)T * D)
        return;

    const long long t = i / D;
    const long long d = i % D;
    const long long row = idx[t];
    out[i] = W[row * D + d];
}

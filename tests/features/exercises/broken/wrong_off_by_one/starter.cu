// Expected diagnosis: wrong (off by one: the k loop starts at 1, leaving out the
// first term of every dot product).  Problem sgemm; size 256x256x256.

// starter.cu - your matrix multiply (lab "matmul", problem sgemm).
//
// cudalab compiles this file with NVRTC every time you save it and runs it
// through your launcher, starter.lua.  Edit both freely: the lab's copy stays
// untouched, and "reset" keeps yours in a backup folder.
//
// The contract
//   C = A x B in single precision, every matrix row-major:
//     A is M x K: element (r, k) at A[r * K + k]
//     B is K x N: element (k, c) at B[k * N + c]
//     C is M x N: element (r, c) at C[r * N + c]
//   M, N, K  1 to 65536 each, not necessarily multiples of anything.
//   A and B  in device memory; do not modify them.
//   C        in device memory.  Before every run cudalab fills it with a
//            marker NaN ("poison"), so an element no thread writes fails.
//   check    against a double-precision product on the CPU, relative
//            tolerance 1e-4, with fresh random inputs every time.
//   names    every kernel the launcher uses is declared extern "C"
//            __global__, so C++ keeps its name as written (otherwise sgemm
//            would be renamed _Z5sgemmiiiPKfS0_Pf and the launcher could not
//            find it).
//
// This first version is correct and slow: one thread computes one element
// of C, reading a whole row of A and a whole column of B from global memory.
// The launcher starts a 2-D grid of 16 x 16 blocks, x along the columns of
// C and y along its rows.  Ideas for making it faster are in the lesson:
// tiles of A and B in shared memory, several outputs a thread, wider loads.

extern "C" __global__ void sgemm(int M, int N, int K, const float *A, const float *B, float *C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;

    float sum = 0.0f;
    for (int k = 1; k < K; k++)
        sum += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = sum;
}

"""numba_jit.py - SAXPY as a Numba @cuda.jit kernel.

The kernel is Python compiled for the GPU on its first call (and again for
each new combination of argument types).  cuda.grid(1) is the CUDA C
expression blockIdx.x * blockDim.x + threadIdx.x; kernel[blocks, threads]
is CUDA C's <<<blocks, threads>>>.  Numba takes the CuPy arrays as they are
(through __cuda_array_interface__): no copy.  The scalars are converted to
the types CUDA C would use: a Python float is a double in Numba, and the
arithmetic would then be done in FP64.
"""
import numpy as np
from numba import cuda


@cuda.jit
def saxpy(n, a, x, y, z):
    i = cuda.grid(1)
    if i < n:
        z[i] = a * x[i] + y[i]


BLOCK = 256


def run(args):
    n = args.n
    blocks = (n + BLOCK - 1) // BLOCK
    saxpy[blocks, BLOCK](np.int64(n), np.float32(args.a), args.x, args.y, args.z)

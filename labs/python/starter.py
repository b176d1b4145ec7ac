"""starter.py - your SAXPY in Numba (lab "python").

cudalab runs this file with python3 every time you run the exercise: it
calls run(args) once to check the result, then many times to time it.
Edit it freely: the lab's copy stays untouched.

The contract
  args.x, args.y  n float32 values each, CuPy arrays on the GPU, uniform in
                  [-1, 1); do not modify them.
  args.z          n float32 values: z[i] = a * x[i] + y[i].  Before every
                  checked run cudalab fills z with NaN, so an element no
                  thread writes fails the check.
  args.a          a Python float (different from size to size).
  args.n          a Python int: 2^12, 2^20+3 (the last block is not full)
                  and 2^26.
  check           against a * x + y computed in double precision on the
                  CPU, relative tolerance 1e-5, fresh random inputs.
  timing          run(args) is timed with CUDA events on the default
                  stream: every kernel it launches counts, and so does the
                  time Python takes to launch them when the GPU waits.

This first version is correct and slow: it launches a single block, whose
256 threads walk the whole array, so one SM does all the work while the
others idle (Numba even warns about it: look at the log).  Make it use the
whole GPU:

  TODO 1  give each thread its own element: i = cuda.grid(1), and keep a
          bounds check (if i < n), since the last block runs past n;
  TODO 2  launch enough blocks to cover n: (n + THREADS - 1) // THREADS.

(Or keep the loop and stride by the whole grid, cuda.gridsize(1), with a
few blocks per SM.)  Compare your row with `numba_jit` and with the CUDA C
rung `cuda_c` at 2^12 and at 2^26.
"""
import numpy as np
from numba import cuda


@cuda.jit
def saxpy(n, a, x, y, z):
    # TODO 1: one element a thread, from cuda.grid(1)
    i = cuda.threadIdx.x
    while i < n:
        z[i] = a * x[i] + y[i]
        i += cuda.blockDim.x


THREADS = 256          # threads a block: a multiple of 32, at most 1024


def run(args):
    n = args.n
    blocks = 1         # TODO 2: enough blocks for n elements
    # np.float32: a Python float would make Numba compute in double precision
    saxpy[blocks, THREADS](np.int64(n), np.float32(args.a), args.x, args.y, args.z)

"""A solution of the python lab's exercise: one element a thread, enough blocks."""
import numpy as np
from numba import cuda


@cuda.jit
def saxpy(n, a, x, y, z):
    i = cuda.grid(1)
    if i < n:
        z[i] = a * x[i] + y[i]


THREADS = 256


def run(args):
    n = args.n
    blocks = (n + THREADS - 1) // THREADS
    saxpy[blocks, THREADS](np.int64(n), np.float32(args.a), args.x, args.y, args.z)

"""cupy_rawkernel.py - the CUDA C rung's own source, compiled and launched by CuPy.

cupy.RawKernel compiles CUDA C with NVRTC (once: the compiled module is
kept) and launches it with a grid, a block and a tuple of arguments.  The
arguments must have the C types of the kernel's parameters: a Python int
would be passed as a 64-bit integer and a Python float as a double, so the
scalars are converted with NumPy (np.int64 for long long, np.float32 for
float) and the arrays are passed as CuPy arrays (their device pointers).
"""
import os

import cupy as cp
import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(_HERE, "saxpy.cu")) as f:
    _saxpy = cp.RawKernel(f.read(), "saxpy")

BLOCK = 256


def run(args):
    n = args.n
    blocks = (n + BLOCK - 1) // BLOCK
    _saxpy((blocks,), (BLOCK,), (np.int64(n), np.float32(args.a), args.x, args.y, args.z))

"""cupy_array.py - SAXPY written as CuPy array expressions.

args.x, args.y and args.z are CuPy arrays on cudalab's buffers; args.a and
args.n are Python numbers.  This is how most CuPy code looks: NumPy
expressions that run on the GPU.  Each operation is a kernel of its own
that reads its operands from memory and writes a new array, so `a * x`
makes a temporary (read x, write the temporary) and the addition reads the
temporary and y and writes z: 20 bytes an element where one kernel moves 12.
"""
import cupy as cp


def run(args):
    # out= writes the sum straight into z instead of a second new array
    cp.add(args.a * args.x, args.y, out=args.z)

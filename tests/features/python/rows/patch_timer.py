"""A row for the bridge test: replaces CuPy's event timer from inside
run(), to make every repetition read as almost nothing."""
import cupy


def run(args):
    cupy.cuda.get_elapsed_time = lambda a, b: 1e-6
    args.z.fill(0.0)

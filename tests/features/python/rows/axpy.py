"""A row for the bridge test: fills x and y, computes z = a * x + y on the
fake arrays and checks it (the fake has no worker to judge it)."""
import cupy as cp


def run(args):
    assert args.x.dtype == cp.dtype("float32") and args.x.shape == (args.n,)
    args.x[:] = 1.0
    args.y[:] = 2.0
    cp.add(args.a * args.x, args.y, out=args.z)
    if not (args.z == args.a + 2.0).all():
        raise AssertionError("z is wrong")
    print("axpy ran at", args.size)

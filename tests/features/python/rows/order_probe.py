"""A row for the bridge test: says what x held when each call began
(its first elements and whether it holds 0..n-1 or the worker's values),
on its first call gives x (this process's copy) the values 0..n-1, and on
its second (the first warm-up: the first call's copies went back to the
worker when it ended) the worker's x the values 1000 + 0..n-1, so the test
can tell shuffled inputs from pulled ones."""
import cupy

CALLS = [0]


def run(args):
    CALLS[0] += 1
    c = CALLS[0]
    v = list(args.x.data)
    n = len(v)
    kind = ("own" if sorted(v) == list(range(n)) else
            "worker" if sorted(v) == [1000 + i for i in range(n)] else "other")
    inorder = v == sorted(v)
    print("order %d %s %s %s" % (c, kind, "sorted" if inorder else "moved",
                                 ",".join("%g" % x for x in v[:8])))
    if c == 1:
        args.x.data[:] = list(range(n))
    if c == 2:
        cupy.MEMORY[1][:n] = [1000.0 + i for i in range(n)]

"""A row whose run raises: the error names this file and line 7."""


def run(args):
    x = args.x
    n = args.n
    raise ValueError("the row failed on purpose at n = %d" % n)

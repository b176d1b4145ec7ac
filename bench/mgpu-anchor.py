#!/usr/bin/env python3
"""bench/mgpu-anchor.py - NCCL's all-reduce measured outside cudalab, through
PyTorch, for the multigpu lab's NCCL row to be compared with.

    python3 bench/mgpu-anchor.py [--gpus N] [--sizes 256M,1G] [--json FILE]

One process a GPU (torch.multiprocessing), a process group on the NCCL
backend, float32 sums.  Each size is timed as cudalab times its rows:
samples of back-to-back all-reduces between two CUDA events, the median
sample, the slowest rank's; it prints algorithm and bus bandwidth as
nccl-tests defines them (busbw = algbw x 2(n-1)/n) and checks one result
against the sum every rank knows.  NVLink multicast stays off
(NCCL_NVLS_ENABLE=0), as in every cudalab process.  cudalab never needs
this script or Python; it is a side-by-side anchor for bench/results.
"""
import argparse
import json
import os
import statistics
import sys

os.environ["NCCL_NVLS_ENABLE"] = "0"

UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text):
    text = text.strip().upper().rstrip("B").rstrip("I")
    unit = text[-1] if text and text[-1] in UNITS else ""
    return int(float(text[: len(text) - len(unit)]) * UNITS[unit])


def iters_for(nbytes):
    # as catalog/collective.c: about 32 MiB a sample, 1 to 50 collectives
    target = 32 << 20
    if nbytes >= target:
        return 1
    return min(50, target // nbytes)


def samples_for(nbytes):
    return 10 if nbytes >= (64 << 20) else 20


def worker(rank, n, sizes, port, queue):
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:%d" % port,
                            rank=rank, world_size=n, device_id=torch.device("cuda", rank))
    out = []
    for nbytes in sizes:
        count = max(1, nbytes // 4)
        x = torch.full((count,), float(rank + 1), dtype=torch.float32, device="cuda")
        dist.all_reduce(x)
        torch.cuda.synchronize()
        want = n * (n + 1) / 2
        ok = bool(torch.all(x == want).item())
        iters, times = iters_for(nbytes), []
        for _ in range(3):
            dist.all_reduce(x)
        for _ in range(samples_for(nbytes)):
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            dist.barrier()
            torch.cuda.synchronize()
            a.record()
            for _ in range(iters):
                dist.all_reduce(x)
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b) / iters)
        out.append({"bytes": count * 4, "ms": statistics.median(times), "correct": ok})
    queue.put((rank, out))
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpus", type=int, default=0, help="GPUs to use (default: all)")
    ap.add_argument("--sizes", default="8,4K,2M,16M,64M,256M,1G")
    ap.add_argument("--json", default="")
    ap.add_argument("--port", type=int, default=29533)
    args = ap.parse_args()
    import torch
    import torch.multiprocessing as mp

    n = args.gpus or torch.cuda.device_count()
    if n < 2:
        print("mgpu-anchor: %d GPU(s); the all-reduce needs two or more" % n)
        return 2
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=worker, args=(r, n, sizes, args.port, queue)) for r in range(n)]
    for p in procs:
        p.start()
    got = dict(queue.get(timeout=600) for _ in range(n))
    for p in procs:
        p.join()
    factor = 2.0 * (n - 1) / n
    rows = []
    print("torch %s, NCCL %s, %d x %s, NCCL_NVLS_ENABLE=%s" % (
        torch.__version__, ".".join(map(str, torch.cuda.nccl.version())), n,
        torch.cuda.get_device_name(0), os.environ.get("NCCL_NVLS_ENABLE")))
    print("%12s %12s %12s %12s  %s" % ("bytes", "ms", "algbw GB/s", "busbw GB/s", "result"))
    for i, nbytes in enumerate(sizes):
        ms = max(got[r][i]["ms"] for r in range(n))
        ok = all(got[r][i]["correct"] for r in range(n))
        alg = got[0][i]["bytes"] / (ms * 1e6)
        rows.append({"bytes": got[0][i]["bytes"], "ms": ms, "algbw_gbs": alg,
                     "busbw_gbs": alg * factor, "correct": ok})
        print("%12d %12.4f %12.1f %12.1f  %s" % (got[0][i]["bytes"], ms, alg, alg * factor,
                                                 "correct" if ok else "WRONG"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gpus": n, "device": torch.cuda.get_device_name(0), "rows": rows}, f,
                      indent=1)
    return 0 if all(r["correct"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

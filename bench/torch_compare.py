#!/usr/bin/env python3
"""Time PyTorch's and CuPy's sum, FP32 matmul and embedding at the lab sizes,
and the pipeline lab's pipeline in NumPy and CuPy (pipeline_compare.py).

Only the benchmark uses this; cudalab itself never depends on Python.  Each
operation is timed with CUDA events after a warm-up, median of repetitions,
on random inputs.  TF32 stays off for the FP32 matmul, so it is a plain FP32
comparison; the matmul is timed again with TF32 allowed and on BF16 copies.
The pipeline runs in a process of its own with one BLAS and OpenMP thread
(NumPy's side is the course's one-core baseline), on the data set cudalab
wrote (run `cudalab run pipeline` first).  Prints JSON: {"rows":
[{framework, op, size, median_ms, gbps, tflops}], "pipeline_agree": ...}.
"""
import json
import os
import statistics
import subprocess
import sys


def time_torch(torch, fn, reps=30):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def torch_rows():
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rows = []
    n = 1 << 28
    x = torch.rand(n, device="cuda", dtype=torch.float32)
    ms = time_torch(torch, lambda: torch.sum(x))
    rows.append({"framework": "pytorch " + torch.__version__, "op": "sum", "size": "2^28",
                 "median_ms": ms, "gbps": 4 * n / ms / 1e6, "tflops": None})
    del x
    m = 4096
    a = torch.rand(m, m, device="cuda") * 2 - 1
    b = torch.rand(m, m, device="cuda") * 2 - 1
    ms = time_torch(torch, lambda: torch.matmul(a, b))
    rows.append({"framework": "pytorch " + torch.__version__, "op": "matmul fp32", "size": "4096x4096x4096",
                 "median_ms": ms, "gbps": None, "tflops": 2 * m ** 3 / ms / 1e9})
    # The same product with TF32 allowed, and on BF16 copies: the matmul
    # lab's tensor-core rows.
    torch.backends.cuda.matmul.allow_tf32 = True
    ms = time_torch(torch, lambda: torch.matmul(a, b))
    torch.backends.cuda.matmul.allow_tf32 = False
    rows.append({"framework": "pytorch " + torch.__version__, "op": "matmul fp32, allow_tf32",
                 "size": "4096x4096x4096", "median_ms": ms, "gbps": None,
                 "tflops": 2 * m ** 3 / ms / 1e9})
    a16, b16 = a.bfloat16(), b.bfloat16()
    ms = time_torch(torch, lambda: torch.matmul(a16, b16))
    rows.append({"framework": "pytorch " + torch.__version__, "op": "matmul bf16",
                 "size": "4096x4096x4096", "median_ms": ms, "gbps": None,
                 "tflops": 2 * m ** 3 / ms / 1e9})
    del a, b, a16, b16
    t, d, v = 16384, 4096, 32000
    w = torch.rand(v, d, device="cuda")
    idx = torch.randint(0, v, (t,), device="cuda", dtype=torch.int64)
    ms = time_torch(torch, lambda: torch.nn.functional.embedding(idx, w))
    rows.append({"framework": "pytorch " + torch.__version__, "op": "embedding", "size": "16384x4096x32000",
                 "median_ms": ms, "gbps": (2 * 4 * t * d + 8 * t) / ms / 1e6, "tflops": None})
    src = torch.empty(t * d, device="cuda")
    dst = torch.empty_like(src)
    ms = time_torch(torch, lambda: dst.copy_(src))
    rows.append({"framework": "pytorch " + torch.__version__, "op": "device copy (same bytes as embedding)",
                 "size": "16384x4096", "median_ms": ms, "gbps": 2 * 4 * t * d / ms / 1e6, "tflops": None})
    return rows


def cupy_rows():
    import cupy as cp
    rows = []

    def timed(fn, reps=30):
        for _ in range(3):
            fn()
        cp.cuda.Device().synchronize()
        times = []
        for _ in range(reps):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            fn()
            b.record()
            b.synchronize()
            times.append(cp.cuda.get_elapsed_time(a, b))
        return statistics.median(times)

    n = 1 << 28
    x = cp.random.random(n, dtype=cp.float32)
    ms = timed(lambda: cp.sum(x))
    rows.append({"framework": "cupy " + cp.__version__, "op": "sum", "size": "2^28",
                 "median_ms": ms, "gbps": 4 * n / ms / 1e6, "tflops": None})
    del x
    m = 4096
    a = cp.random.random((m, m), dtype=cp.float32)
    b = cp.random.random((m, m), dtype=cp.float32)
    ms = timed(lambda: cp.matmul(a, b))
    rows.append({"framework": "cupy " + cp.__version__, "op": "matmul fp32", "size": "4096x4096x4096",
                 "median_ms": ms, "gbps": None, "tflops": 2 * m ** 3 / ms / 1e9})
    del a, b
    t, d, v = 16384, 4096, 32000
    w = cp.random.random((v, d), dtype=cp.float32)
    idx = cp.random.randint(0, v, t, dtype=cp.int32)
    ms = timed(lambda: cp.take(w, idx, axis=0))
    rows.append({"framework": "cupy " + cp.__version__, "op": "embedding (take)", "size": "16384x4096x32000",
                 "median_ms": ms, "gbps": (2 * 4 * t * d + 4 * t) / ms / 1e6, "tflops": None})
    return rows


def pipeline_rows():
    """The pipeline in NumPy (one thread) and CuPy, in a process of its own."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pipeline_compare.py")
    done = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True,
                          timeout=1800)
    data = json.loads(done.stdout)
    if data.get("error"):
        raise RuntimeError(data["error"])
    return data


def main():
    out = {"rows": []}
    errors = []
    for name, fn in (("pytorch", torch_rows), ("cupy", cupy_rows)):
        try:
            out["rows"] += fn()
        except Exception as e:  # a missing framework is reported, not fatal
            errors.append(f"{name}: {type(e).__name__}: {e}")
    try:
        p = pipeline_rows()
        out["rows"] += p.get("rows", [])
        out["pipeline_agree"] = p.get("agree")
        out["pipeline_kept_rows"] = p.get("kept_rows")
    except Exception as e:
        errors.append(f"pipeline: {type(e).__name__}: {e}")
    if errors:
        out["error"] = "; ".join(errors)
    json.dump(out, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()

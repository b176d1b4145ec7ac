#!/usr/bin/env python3
"""The pipeline lab's pipeline in NumPy (one thread) and in CuPy, on the
data set cudalab wrote, for the benchmark's --torch mode.

Reads the table from the data set's file (run `cudalab run pipeline` at the
size first: it writes <cache>/pipeline/trips-<rows>-<seed>.bin), then runs
the same steps as cudalab (labs/pipeline/lab.lua; src/cpu/prep_cpu.c is the
C version): fill with the lower median, filter, log1p and clip, hour and
day, standardise, 16 quantile bins of the fare, zone frequency and one-hot
payment, mean label per zone, and Y = X W with the same weights' shape.
CuPy reads the file with NumPy and copies the table to the device from
pageable memory, as a first port would.  Each side is timed end to end
with a wall clock (the GPU side synchronised), and step by step; the two
sides' results are compared (row count and bins exactly, the layer's
output within 1e-3).  Prints JSON: {"rows": [...], "agree": bool}.

Run it with one BLAS/OpenMP thread for NumPy's side (torch_compare.py sets
OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and MKL_NUM_THREADS to 1): the
course's NumPy pipeline runs on one core.
"""
import argparse
import json
import os
import statistics
import struct
import sys
import time

NUM, ZONES, BINS, HIDDEN, FEATURES = 8, 10000, 16, 16, 19
CUTOFF = 274 * 86400
HEADER = 4096


def data_file(rows, seed):
    base = os.environ.get("CUDALAB_CACHE")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = os.path.join(xdg, "cudalab") if xdg and xdg.startswith("/") else \
            os.path.join(os.path.expanduser("~"), ".cache", "cudalab")
    return os.path.join(base, "pipeline", f"trips-{rows}-{seed}.bin")


def header(path):
    with open(path, "rb") as f:
        h = f.read(64)
    if h[:8] != b"CLPREP01":
        raise ValueError(f"{path} is not a cudalab data set")
    rows, seed, stride = struct.unpack_from("<QQQ", h, 16)
    return rows, stride


def steps(xp, body, n, stride, w, sync):
    """The pipeline on array module xp (numpy or cupy); body is the table's
    bytes as xp.uint8.  Returns (per-step seconds, m, bins, Y)."""
    times = {}
    t = time.perf_counter()

    def mark(name):
        nonlocal t
        sync()
        now = time.perf_counter()
        times[name] = now - t
        t = now

    f32 = body.view(xp.float32)
    i32 = body.view(xp.int32)
    num = f32[:NUM * stride].reshape(NUM, stride)[:, :n]
    ts = i32[NUM * stride:(NUM + 1) * stride][:n]
    pay = i32[(NUM + 1) * stride:(NUM + 2) * stride][:n]
    zone = i32[(NUM + 2) * stride:(NUM + 3) * stride][:n]
    label = f32[(NUM + 3) * stride:(NUM + 4) * stride][:n]

    # fill: each column's lower median of the values present
    med = xp.zeros(NUM, dtype=xp.float32)
    for c in range(NUM):
        v = num[c][~xp.isnan(num[c])]
        if v.size:
            k = (v.size - 1) // 2
            med[c] = xp.partition(v, k)[k]
    filled = xp.where(xp.isnan(num), med[:, None], num)
    mark("fill")

    fare, dist, dur = filled[0], filled[1], filled[2]
    keep = (fare > 0) & (dist > 0) & (dist <= 100) & (dur > 0) & (dur <= 300) & (ts < CUTOFF)
    kept = filled[:, keep]
    kts, kpay, kzone, klabel = ts[keep], pay[keep], zone[keep], label[keep]
    m = int(kept.shape[1])
    mark("filter")

    t_ = kept.copy()
    t_[:4] = xp.clip(xp.log1p(kept[:4]), 0, 5)
    hour = ((kts // 3600) % 24).astype(xp.float32)
    dow = ((kts // 86400) % 7).astype(xp.float32)
    mark("transform")

    mean = t_.mean(axis=1, dtype=xp.float64)
    sd = t_.std(axis=1, dtype=xp.float64)
    inv = xp.where(sd > 0, 1.0 / xp.where(sd > 0, sd, 1.0), 0.0).astype(xp.float32)
    z = (t_ - mean.astype(xp.float32)[:, None]) * inv[:, None]
    mark("standardize")

    if m:
        srt = xp.sort(kept[0])
        edges = srt[((xp.arange(BINS - 1) + 1) * m) // BINS]
    else:
        edges = xp.zeros(BINS - 1, dtype=xp.float32)
    bins = xp.searchsorted(edges, kept[0], side="right").astype(xp.float32)
    mark("binning")

    counts = xp.bincount(kzone, minlength=ZONES)
    freq = counts[kzone].astype(xp.float32) / xp.float32(m if m else 1)
    onehot = (kpay[None, :] == xp.arange(6, dtype=kpay.dtype)[:, None]).astype(xp.float32)
    mark("encode")

    sums = xp.bincount(kzone, weights=klabel.astype(xp.float64), minlength=ZONES)
    gmean = xp.where(counts > 0, sums / xp.maximum(counts, 1), 0.0).astype(xp.float32)
    te = gmean[kzone]
    mark("groupby")

    X = xp.concatenate([z, hour[None], dow[None], bins[None], freq[None], onehot, te[None]])
    Y = X.T @ w
    mark("gemm")
    return times, m, bins, Y


def run_numpy(path, n, stride, w, reps):
    import numpy as np
    runs = []
    for _ in range(reps):
        t0 = time.perf_counter()
        body = np.fromfile(path, dtype=np.uint8, offset=HEADER, count=48 * stride)
        load = time.perf_counter() - t0
        times, m, bins, y = steps(np, body, n, stride, w, lambda: None)
        times = {"load": load, **times}
        times["end to end"] = time.perf_counter() - t0
        runs.append(times)
    return runs, m, bins, y


def run_cupy(path, n, stride, w, reps):
    import numpy as np
    import cupy as cp
    sync = cp.cuda.Device().synchronize
    wd = cp.asarray(w)
    runs = []
    for _ in range(reps + 1):          # the first run warms up
        sync()
        t0 = time.perf_counter()
        host = np.fromfile(path, dtype=np.uint8, offset=HEADER, count=48 * stride)
        body = cp.asarray(host)        # pageable host memory to the device
        sync()
        load = time.perf_counter() - t0
        times, m, bins, y = steps(cp, body, n, stride, wd, sync)
        times = {"load": load, **times}
        times["end to end"] = time.perf_counter() - t0
        runs.append(times)
    return runs[1:], m, cp.asnumpy(bins), cp.asnumpy(y), cp.__version__


def rows_of(framework, size, runs):
    out = []
    for name in runs[0]:
        ms = statistics.median(r[name] for r in runs) * 1e3
        out.append({"framework": framework, "op": f"pipeline {name}", "size": size,
                    "median_ms": ms, "gbps": None, "tflops": None, "runs": len(runs)})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1 << 24)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--size", default="2^24")
    ap.add_argument("--numpy-reps", type=int, default=1)
    ap.add_argument("--cupy-reps", type=int, default=5)
    a = ap.parse_args()
    out = {"rows": []}
    path = data_file(a.rows, a.seed)
    try:
        n, stride = header(path)
    except Exception as e:  # reported, not fatal
        out["error"] = f"pipeline: {type(e).__name__}: {e} (run `cudalab run pipeline --size " \
                       f"{a.size}` first: it writes the data set)"
        json.dump(out, sys.stdout, indent=2)
        print()
        return
    errors = []
    import numpy as np
    rng = np.random.default_rng(a.seed)
    w = (rng.random((FEATURES, HIDDEN)) - 0.5).astype(np.float32)
    runs, m_np, bins_np, y_np = run_numpy(path, n, stride, w, a.numpy_reps)
    out["rows"] += rows_of("numpy " + np.__version__ + " (1 thread)", a.size, runs)
    out["kept_rows"] = m_np
    try:
        runs, m_cp, bins_cp, y_cp, ver = run_cupy(path, n, stride, w, a.cupy_reps)
        out["rows"] += rows_of("cupy " + ver, a.size, runs)
        scale = float(np.sqrt(np.mean(np.square(y_np, dtype=np.float64)))) or 1.0
        out["agree"] = bool(m_np == m_cp and np.array_equal(bins_np, bins_cp) and
                            float(np.max(np.abs(y_np - y_cp))) <= 1e-3 * scale)
    except Exception as e:  # a missing CuPy or device is reported, not fatal
        errors.append(f"cupy: {type(e).__name__}: {e}")
    if errors:
        out["error"] = "; ".join(errors)
    json.dump(out, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()

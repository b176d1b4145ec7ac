#!/usr/bin/env bash
# bench/mgpu-run.sh - the multigpu lab on a machine with two or more GPUs,
# from a prebuilt folder.
#
#   bench/mgpu-run.sh BIN_DIR OUT_DIR
#
# Build elsewhere (Release, -DCMAKE_CUDA_ARCHITECTURES=<this GPU>) and copy into
# BIN_DIR the `cudalab` binary and the test programs test_multigpu_gpu,
# test_group, test_collective, test_dpstep, test_cpu_allreduce, test_cpu_mlp,
# test_rankmsg, test_dpstep_kernels and test_multigpu_exercise (and, in
# BIN_DIR/lib, any shared library this machine lacks), then run this from
# the repository root.  It writes OUT_DIR/device.txt (GPUs, their links,
# what cudalab's probe found: GPUs and NCCL), OUT_DIR/tests.txt (each test
# program's verdict, its output in OUT_DIR/<program>.txt; the GPU test
# prints every row it checked), OUT_DIR/multigpu.txt and .json (`cudalab
# run multigpu`: every row, measured once more) and prints the summary:
# NCCL's bus bandwidth at 1 GiB, the ring's share of NCCL's at 256 MiB, and
# the data-parallel step's time serial against overlapped, with its scaling.
# Where a python3 with PyTorch is at hand it first measures NCCL through
# PyTorch (bench/mgpu-anchor.py, OUT_DIR/anchor.txt and .json) and the
# summary compares the lab's NCCL row with it.
#
# NCCL is found as cudalab finds it (CUDALAB_NCCL_LIB, NCCL_ROOT, the
# loader's path, python3's nvidia-nccl-cu13 wheel).  When that fails and a
# wheel's libnccl.so.2 lies below /opt or /usr/local, this script names it
# in CUDALAB_NCCL_LIB and says so.  Every cudalab process keeps NVLink
# multicast off (NCCL_NVLS_ENABLE=0); the script sets it too.
set -u
if [ $# -ne 2 ]; then
    echo "usage: bench/mgpu-run.sh BIN_DIR OUT_DIR" >&2
    exit 2
fi
bin=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
out=$(cd "$out" && pwd)
root=$(pwd)
export NCCL_NVLS_ENABLE=0
# a build with the sanitizers: CUDA needs the shadow gap, and the libraries'
# own allocations at exit are not cudalab's leaks
export ASAN_OPTIONS=${ASAN_OPTIONS:-protect_shadow_gap=0:detect_leaks=0}

# Only the libraries this machine lacks come from BIN_DIR/lib.
. "$root/bench/prebuilt-env.sh"

probe() { "$bin/cudalab" worker --probe 2>/dev/null; }
nccl_found() { probe | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["nccl"] else 1)'; }

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: ${CUDALAB_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
    nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv
    nvidia-smi topo -m
    nvidia-smi nvlink -s 2>&1 | head -40
    if ! nccl_found && [ -z "${CUDALAB_NCCL_LIB:-}" ]; then
        lib=$(ls /opt/*/.venv/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2 \
                 /opt/*/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2 \
                 /usr/local/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2 2>/dev/null | head -1)
        if [ -n "$lib" ]; then
            export CUDALAB_NCCL_LIB="$lib"
            echo "cudalab's own search found no NCCL; using CUDALAB_NCCL_LIB=$lib"
        fi
    fi
    echo "cudalab's probe: $(probe)"
} >"$out/device.txt" 2>&1
cat "$out/device.txt"

test_timeout=900
{
    for t in test_collective test_dpstep test_cpu_allreduce test_cpu_mlp test_rankmsg test_group \
             test_dpstep_kernels test_multigpu_exercise \
             test_multigpu_gpu; do
        if [ -x "$bin/$t" ]; then one_test "$bin/$t"; else echo "=== $t: MISSING from $bin"; fi
    done
} | tee "$out/tests.txt"
echo "--- what test_multigpu_gpu checked:"
grep -E '^(row|peer_|ar_|dp_|data-parallel step)' "$out/test_multigpu_gpu.txt" 2>/dev/null

# NCCL measured outside cudalab, through PyTorch (bench/mgpu-anchor.py),
# when a python3 with torch is at hand: the anchor for the NCCL row
anchor_py=""
for py in python3 /opt/torch/.venv/bin/python3; do
    if "$py" -c "import torch" 2>/dev/null; then anchor_py=$py; break; fi
done
if [ -n "$anchor_py" ]; then
    echo "=== NCCL through PyTorch (bench/mgpu-anchor.py)"
    timeout 300 "$anchor_py" "$root/bench/mgpu-anchor.py" --json "$out/anchor.json" 2>&1 \
        | grep -v "^\[rank\|Warning\|warn(" | tee "$out/anchor.txt"
else
    echo "=== NCCL through PyTorch: no python3 with torch here; bench/mgpu-anchor.py not run"
fi

echo "=== cudalab run multigpu"
"$bin/cudalab" run multigpu 2>&1 | tee "$out/multigpu.txt"
"$bin/cudalab" run multigpu --json >"$out/multigpu.json" 2>/dev/null
python3 - "$out/multigpu.json" "$out/anchor.json" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
anchor = json.load(open(sys.argv[2])) if os.path.exists(sys.argv[2]) else None
rows = {(r["variant"], r["size"]): r for r in doc.get("results", [])}
def bw(v, s):
    r = rows.get((v, s))
    return r["gbps"] if r and r["status"] == "correct" and r["gbps"] else None
nccl1g, ring256, nccl256 = bw("ar_nccl", "1 GiB"), bw("ar_ring", "256 MiB"), bw("ar_nccl", "256 MiB")
print("summary:")
print("  NCCL all-reduce at 1 GiB: busbw %s GB/s (the issue: about 329 through PyTorch on 2 H100)"
      % ("%.1f" % nccl1g if nccl1g else "not measured"))
if anchor:
    for want, label in (((1 << 30), "1 GiB"), ((256 << 20), "256 MiB")):
        a = [r for r in anchor["rows"] if r["bytes"] == want and r["correct"]]
        mine = bw("ar_nccl", label)
        if a and mine:
            print("  NCCL row at %s: %.1f GB/s against %.1f through PyTorch: %.3f (target: within 5%%)"
                  % (label, mine, a[0]["busbw_gbs"], mine / a[0]["busbw_gbs"]))
if ring256 and nccl256:
    print("  ring at 256 MiB: %.1f GB/s, %.2f of NCCL's %.1f (target: at least 0.8)"
          % (ring256, ring256 / nccl256, nccl256))
else:
    print("  ring against NCCL at 256 MiB: not measured")
step = {v: r for (v, s), r in rows.items() if v.startswith("dp_") and r["status"] == "correct"}
if "dp_serial" in step and "dp_overlap" in step:
    ser, ovl = step["dp_serial"]["median_ms"], step["dp_overlap"]["median_ms"]
    print("  data-parallel step: serial %.3f ms, overlapped %.3f ms: %.3fx (target: overlapped faster)"
          % (ser, ovl, ser / ovl))
    if "dp_1gpu" in step:
        one = step["dp_1gpu"]["median_ms"]
        print("  weak scaling against 1 GPU (%.3f ms): serial %.1f%%, overlapped %.1f%%"
              % (one, 100 * one / ser, 100 * one / ovl))
else:
    print("  data-parallel step, serial against overlapped: not measured")
import re
try:
    m = re.search(r"^solution ring at 256 MiB: .*$",
                  open(os.path.join(os.path.dirname(sys.argv[1]), "test_multigpu_gpu.txt")).read(), re.M)
except OSError:
    m = None
print("  the exercise, answered (tests/features/multigpu/ring_solution.cu): %s"
      % (m.group(0).split(": ", 1)[1] if m else "not measured"))
bad = [k for k, r in rows.items() if r["status"] != "correct"]
print("  rows not correct: %s" % (", ".join("%s %s" % k for k in bad) if bad else "none"))
PY

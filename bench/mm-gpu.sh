#!/usr/bin/env bash
# bench/mm-gpu.sh - the matmul lab's checks and measurements on one GPU.
#
#   bench/mm-gpu.sh BIN_DIR [OUT_DIR]
#
# Run from the repository root.  BIN_DIR holds a build of this tree for the
# GPU: cudalab, mmtune and the test programs test_matmul_kernels,
# test_kernels, test_engine_gpu and test_wmma_starter_gpu (any of them
# missing is reported and skipped).  Writes OUT_DIR (default bench/results/mm-<UTC date>):
#
#   device.txt          nvidia-smi and cudalab doctor
#   tests.txt           the GPU test programs of the matmul kernels, rows and
#                       tensor-core starter
#   mmtune.txt          the tuning sweep at 1024, 2048 and 4096
#   lab-first.json      the whole matmul lab (every rung, every size, the
#                       library rows) from an empty data folder: the CPU
#                       baselines are measured in this run
#   lab.json            the whole lab again, CPU timings cached as in every
#                       later run: the lab's time
#   times.txt           wall-clock seconds and exit codes of both runs
#   summary.md          what the targets need: FP32 and tensor-core ratios
#                       at 4096, the ladder at every size, errors, the lab's
#                       time, and the sweep's choices
#
# Takes about three to five minutes on an H100.
set -u
if [ $# -lt 1 ]; then
    sed -n '2,22p' "$0"
    exit 2
fi
bin=$(cd "$1" && pwd) || exit 2
out=${2:-bench/results/mm-$(date -u +%Y%m%d-%H%M%S)}
root=$(pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
export CUDALAB_HOME="$root" CUDALAB_TEST_DATA="$root/tests" CUDALAB_EXE="$bin/cudalab"
export CUDALAB_DATA="$data" XDG_DATA_HOME="$data"

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: ${CUDALAB_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu --format=csv
    "$bin/cudalab" doctor
} >"$out/device.txt" 2>&1
cat "$out/device.txt"

{
    for t in test_matmul_kernels test_kernels test_engine_gpu test_wmma_starter_gpu; do
        if [ ! -x "$bin/$t" ]; then
            echo "=== $t: not in $bin, skipped"
            continue
        fi
        echo "=== $t"
        start=$(date +%s%N)
        timeout 600 "$bin/$t"
        rc=$?
        echo "=== $t: exit $rc in $(( ($(date +%s%N) - start) / 1000000 )) ms"
    done
} 2>&1 | tee "$out/tests.txt"

if [ -x "$bin/mmtune" ]; then
    timeout 600 "$bin/mmtune" --sizes 1024,2048,4096 2>&1 | tee "$out/mmtune.txt"
else
    echo "mmtune: not in $bin, skipped" | tee "$out/mmtune.txt"
fi

: >"$out/times.txt"
for run in lab-first lab; do
    echo "=== cudalab run matmul ($run)"
    start=$(date +%s%N)
    "$bin/cudalab" run matmul --json >"$out/$run.json" 2>"$out/$run.err"
    rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    echo "$run $ms $rc" >>"$out/times.txt"
    echo "=== $run: exit $rc in $ms ms"
done

python3 "$root/bench/mm_summary.py" "$out" | tee "$out/summary.md"

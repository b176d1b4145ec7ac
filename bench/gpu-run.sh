#!/usr/bin/env bash
# bench/gpu-run.sh - the GPU tests and the benchmark from a prebuilt folder.
#
#   bench/gpu-run.sh BIN_DIR OUT_DIR [--quick] [--no-bench] [--parallel]
#
# For GPU machines that cannot build cudalab themselves (no Lua or ncurses
# headers): build elsewhere with -DCMAKE_CUDA_ARCHITECTURES=<this GPU>, copy
# the `cudalab` binary and the GPU test executables into BIN_DIR (and, in
# BIN_DIR/lib, any shared library the machine may lack), then run this from
# the repository root.  Writes OUT_DIR/gpu-tests.txt, OUT_DIR/device.txt and
# the benchmark's tables under OUT_DIR/bench (skipped with --no-bench;
# --quick runs each lab once at its smallest size instead).  --parallel
# runs the GPU test programs side by side on the one GPU (their checks do
# not compare timings), then, one at a time, the two that do: test_prof_gpu
# (an overlapped copy must beat a synchronous one, which another program's
# copies would disturb) and test_grade_gpu (its time per lab is a figure);
# each program's output goes to OUT_DIR/<program>.txt.
set -u
bin=$(cd "$1" && pwd)
out=$2
shift 2
quick=0
bench=1
parallel=0
for a in "$@"; do
    case "$a" in
        --quick) quick=1 ;;
        --no-bench) bench=0 ;;
        --parallel) parallel=1 ;;
        *) echo "gpu-run.sh: unknown argument '$a'" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
root=$(pwd)

# Only the libraries this machine lacks come from BIN_DIR/lib.
. "$root/bench/prebuilt-env.sh"

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: ${CUDALAB_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv
    "$bin/cudalab" doctor
} >"$out/device.txt" 2>&1
cat "$out/device.txt"


{
    if [ "$parallel" -eq 1 ]; then
        timed="test_prof_gpu test_grade_gpu"
        for t in "$bin"/test_*; do
            case " $timed " in *" $(basename "$t") "*) continue ;; esac
            [ -x "$t" ] && one_test "$t" &
        done
        wait
        for n in $timed; do
            [ -x "$bin/$n" ] && one_test "$bin/$n"
        done
    else
        for t in "$bin"/test_*; do
            [ -x "$t" ] && one_test "$t"
        done
    fi
} 2>&1 | tee "$out/gpu-tests.txt"
pass=$(grep -c ': passed in' "$out/gpu-tests.txt")
fail=$(grep -c ': FAILED' "$out/gpu-tests.txt")
skip=$(grep -c ': skipped in' "$out/gpu-tests.txt")
echo "$pass passed, $fail failed, $skip skipped" | tee -a "$out/gpu-tests.txt"

if [ "$quick" -eq 1 ]; then
    for lab in reduction matmul embedding; do
        echo "=== cudalab run $lab (smallest size)"
        size=$("$bin/cudalab" list --json | python3 -c "
import json,sys
for l in json.load(sys.stdin)['labs']:
    if l['id']=='$lab': print(l['sizes'][0])")
        "$bin/cudalab" run "$lab" --size "$size" --budget 0.1
        echo "=== exit $?"
    done 2>&1 | tee "$out/quick-runs.txt"
elif [ "$bench" -eq 1 ]; then
    "$root/bench/run.sh" --build "$bin" --out "$out/bench" --torch
fi

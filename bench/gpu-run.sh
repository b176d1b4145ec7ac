#!/usr/bin/env bash
# bench/gpu-run.sh - the GPU tests and the benchmark from a prebuilt folder.
#
#   bench/gpu-run.sh BIN_DIR OUT_DIR [--quick] [--no-bench]
#
# For GPU machines that cannot build cudalab themselves (no Lua or ncurses
# headers): build elsewhere with -DCMAKE_CUDA_ARCHITECTURES=<this GPU>, copy
# the `cudalab` binary and the GPU test executables into BIN_DIR (and, in
# BIN_DIR/lib, any shared library the machine may lack), then run this from
# the repository root.  Writes OUT_DIR/gpu-tests.txt, OUT_DIR/device.txt and
# the benchmark's tables under OUT_DIR/bench (skipped with --no-bench;
# --quick runs each lab once at its smallest size instead).
set -u
bin=$(cd "$1" && pwd)
out=$2
shift 2
quick=0
bench=1
for a in "$@"; do
    case "$a" in
        --quick) quick=1 ;;
        --no-bench) bench=0 ;;
        *) echo "gpu-run.sh: unknown argument '$a'" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
root=$(pwd)

# Only the libraries this machine lacks come from BIN_DIR/lib.
extra=/tmp/cudalab-extra-libs
mkdir -p "$extra"
for f in "$bin"/lib/*; do
    [ -e "$f" ] || continue
    n=$(basename "$f")
    ldconfig -p | grep -q "^[[:space:]]*$n " || cp "$f" "$extra/"
done
export LD_LIBRARY_PATH="$extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUDALAB_HOME="$root" CUDALAB_TEST_DATA="$root/tests" CUDALAB_EXE="$bin/cudalab"

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: ${CUDALAB_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv
    "$bin/cudalab" doctor
} >"$out/device.txt" 2>&1
cat "$out/device.txt"

pass=0
fail=0
skip=0
{
    for t in "$bin"/test_*; do
        [ -x "$t" ] || continue
        name=$(basename "$t")
        echo "=== $name"
        start=$(date +%s%N)
        timeout 540 "$t"
        rc=$?
        secs=$(( ($(date +%s%N) - start) / 1000000 ))
        case $rc in
            0) pass=$((pass + 1)); verdict=passed ;;
            77) skip=$((skip + 1)); verdict=skipped ;;
            *) fail=$((fail + 1)); verdict="FAILED (exit $rc)" ;;
        esac
        echo "=== $name: $verdict in ${secs} ms"
    done
    echo "$pass passed, $fail failed, $skip skipped"
} 2>&1 | tee "$out/gpu-tests.txt"

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

#!/usr/bin/env bash
# bench/sandbox-gpu.sh - the grading sandbox on a GPU machine, from a pack of
# bench/device-pack.sh:
#
#   bench/sandbox-gpu.sh PACK_DIR OUT_DIR
#
# 1. the sandbox's probes (test_sandbox) as whoever runs this (root on the
#    lent machines, as Docker and Gradescope graders run);
# 2. a class of reference learners (bench/grade-class.sh) graded inside the
#    namespace sandbox, the first filling the trusted CPU cache, then one
#    more learner with --sandbox=none, for the time the sandbox adds;
# 3. every GPU test program side by side (bench/gpu-run.sh --parallel).
# After each step OUT_DIR/results.tgz holds everything so far, so a run cut
# short still tells what it did.
set -u
pack=$1
out=$2
root=$(pwd)
r=$out/r
mkdir -p "$r"
bin=/tmp/cudalab-bin
. "$root/bench/device-unpack.sh" "$pack" "$bin"
export NCCL_NVLS_ENABLE=0
snapshot() { tar -czf "$out/results.tgz" -C "$r" . ; }

{
    date -u +%Y-%m-%dT%H:%M:%SZ
    echo "commit: ${CUDALAB_COMMIT:-unknown}"
    id
    uname -a
    command -v bwrap && bwrap --version
    nvidia-smi --query-gpu=name,driver_version --format=csv
} > "$r/machine.txt" 2>&1

. "$root/bench/prebuilt-env.sh"
"$bin/cudalab" doctor > "$r/doctor.txt" 2>&1
out_save=$out
out=$r
one_test "$bin/test_sandbox" | tee "$r/probes.txt"
out=$out_save
snapshot

export CLASS_STATE=/tmp/cudalab-class-state
bash "$root/bench/grade-class.sh" "$bin/cudalab" 2 "$r/class-sandbox" > "$r/class-sandbox.txt" 2>&1
snapshot
GRADE_ARGS=--sandbox=none bash "$root/bench/grade-class.sh" "$bin/cudalab" 3 "$r/class-none" 3 \
    > "$r/class-none.txt" 2>&1
snapshot

rm -f "$bin/test_sandbox"
bash "$root/bench/gpu-run.sh" "$bin" "$r/gpu" --no-bench --parallel > "$r/gpu-run.txt" 2>&1
snapshot
tail -1 "$r/gpu-run.txt"
cat "$r/class-sandbox.txt" "$r/class-none.txt" "$r/probes.txt"

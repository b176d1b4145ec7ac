#!/usr/bin/env bash
# bench/run.sh - run every lab's variants at the lab sizes on this GPU and
# write a Markdown and a JSON table.
#
#   bench/run.sh [--build DIR] [--out DIR] [--labs "reduction matmul embedding"] [--torch]
#
# Builds cudalab first when DIR/cudalab does not exist (Release, the
# architectures in CUDA_ARCHS, default 90).  Writes DIR_OUT/bench.md and
# DIR_OUT/bench.json (device, driver, date, commit; per row: median time,
# spread, GB/s or TFLOP/s, % of measured peak, x CPU, x library, correct),
# plus each lab's raw `cudalab run --json` output (and each listed
# exercise's rungs, as <lab>-<exercise>).  With --torch (and a
# python3 that has PyTorch/CuPy), their sum, matmul and embedding are timed
# beside the table, and the pipeline lab's pipeline runs in NumPy (one
# thread) and CuPy on the data set the pipeline lab's run wrote
# (bench/pipeline_compare.py).  The commit is taken from git, or from
# CUDALAB_COMMIT where the tree has no .git.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$here/build-bench"
out=""
labs=""
torch=0
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --labs) labs=$2; shift 2 ;;
        --torch) torch=1; shift ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "bench/run.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

if [ ! -x "$build/cudalab" ]; then
    cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" >&2 || exit 3
    cmake --build "$build" -j "$(nproc)" --target cudalab >&2 || exit 3
fi
exe="$build/cudalab"
export CUDALAB_HOME="${CUDALAB_HOME:-$here}"

commit=${CUDALAB_COMMIT:-$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)}
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
[ -n "$out" ] || out="$here/bench/results/run-$(date -u +%Y%m%d-%H%M%S)"
mkdir -p "$out"

"$exe" doctor --json >"$out/doctor.json" 2>"$out/doctor.err"
doctor_rc=$?
if [ "$doctor_rc" -ne 0 ]; then
    echo "bench/run.sh: no usable CUDA device (cudalab doctor exited $doctor_rc):" >&2
    "$exe" doctor >&2
    exit 3
fi

if [ -z "$labs" ]; then
    labs=$("$exe" list --json | python3 -c '
import json, sys
for l in json.load(sys.stdin)["labs"]:
    if l.get("problem") and l.get("variants"):
        print(l["id"])')
fi

for lab in $labs; do
    echo "== $lab" >&2
    "$exe" run "$lab" --json >"$out/$lab.json" 2>"$out/$lab.err"
    echo $? >"$out/$lab.rc"
done

# A lab's listed exercises with rungs of their own (basics): each as
# "<lab>-<exercise>", its rungs at its sizes (naming them runs them as the
# exercise, without a learner's row).
parts=""
for lab in $labs; do
    while read -r ex variants; do
        [ -n "$ex" ] || continue
        args=""
        for v in $variants; do args="$args --variant $v"; done
        echo "== $lab --exercise=$ex (its rungs)" >&2
        # shellcheck disable=SC2086
        "$exe" run "$lab" $args --json >"$out/$lab-$ex.json" 2>"$out/$lab-$ex.err"
        echo $? >"$out/$lab-$ex.rc"
        parts="$parts $lab-$ex"
    done <<EOF_EX
$("$exe" list --json | python3 -c '
import json, sys
for l in json.load(sys.stdin)["labs"]:
    if l["id"] == sys.argv[1]:
        for x in l.get("exercises", []):
            if x["id"] and x.get("variants"):
                print(x["id"], " ".join(x["variants"]))' "$lab")
EOF_EX
done
labs="$labs$parts"

if [ "$torch" -eq 1 ]; then
    python3 "$here/bench/torch_compare.py" >"$out/torch.json" 2>"$out/torch.err" ||
        echo "bench/run.sh: the PyTorch/CuPy comparison failed (see torch.err)" >&2
fi

python3 "$here/bench/report.py" --dir "$out" --commit "$commit" --date "$stamp" $labs

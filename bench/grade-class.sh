#!/usr/bin/env bash
# bench/grade-class.sh - grading a class in sequence on one GPU.
#
#   bench/grade-class.sh CUDALAB N OUT_DIR [FIRST]
#
# Makes N learners' workspaces, each holding every lab's reference solution
# from tests/ (the workspace test_grade_gpu grades), and grades them one
# after another with `cudalab grade --key --assignment`, as a job array on
# one GPU would.  Prints each learner's wall time, the total, and each lab's
# time for the first and the last learner (from report.json).  The first
# learner fills the per-machine CPU cache; the others read it.  GRADE_ARGS
# (e.g. "--sandbox=none") go to each `cudalab grade`.
#
# A class longer than one sitting goes in parts: with CLASS_STATE=DIR the
# caches and the key live in DIR (kept between parts) and FIRST (default 1)
# is the first learner this part grades, so that learners FIRST..N follow
# learners 1..FIRST-1 of an earlier part.
set -u
exe=$1
n=$2
out=$3
first=${4:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
t=$root/tests
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
state=${CLASS_STATE:-$tmp}
mkdir -p "$state"
export XDG_DATA_HOME="$state/data" XDG_CACHE_HOME="$state/cache"
[ -s "$state/key" ] || head -c 32 /dev/urandom > "$state/key"

place() {  # WS LAB_PATH CU LUA [KERNEL LAUNCHER]
    mkdir -p "$1/$2"
    cp "$t/$3" "$1/$2/${5:-starter.cu}"
    cp "$t/$4" "$1/$2/${6:-starter.lua}"
}
make_ws() {
    ws=$1
    for lab in reduction matmul embedding; do
        place "$ws" $lab features/exercises/solutions/$lab/solution.cu features/exercises/solutions/$lab/solution.lua
    done
    place "$ws" matmul/wmma features/exercises/solutions/matmul_wmma/solution.cu \
        features/exercises/solutions/matmul_wmma/solution.lua wmma_starter.cu wmma_starter.lua
    place "$ws" pipeline features/pipeline/solution/pipeline.cu features/pipeline/solution/pipeline.lua
    place "$ws" profiling features/pipeline/solution/pipeline.cu features/pipeline/solution/pipeline.lua
    for lab in scan stencil layernorm; do
        place "$ws" $lab features/$lab/solution/solution.cu features/$lab/solution/solution.lua
    done
    for x in saxpy histogram managed; do
        place "$ws" basics/$x features/basics/solutions/$x/starter.cu features/basics/solutions/$x/starter.lua
    done
}

total=0
for i in $(seq "$first" "$n"); do
    ws="$tmp/ws/learner$i"
    make_ws "$ws"
    start=$(date +%s%N)
    "$exe" --workspace "$ws" grade --key "$state/key" --assignment bench --learner "learner$i" \
        --out "$out/learner$i" ${GRADE_ARGS:-} > "$out/learner$i.txt" 2>&1
    rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    total=$((total + ms))
    echo "learner $i: exit $rc in $ms ms"
done
graded=$((n - first + 1))
echo "graded $graded learners ($first to $n) in sequence in $total ms (mean $((total / graded)) ms a learner)"
for i in "$first" "$n"; do
    python3 - "$out/learner$i/report.json" "$i" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
doc = r.get("report", r)
labs = doc.get("labs", [])
print(f"learner {sys.argv[2]}: {doc.get('score')} of {doc.get('max_score')} points in {doc.get('seconds', 0):.1f} s")
for l in labs:
    print(f"  {l.get('id', '?'):12} {l.get('seconds', 0):6.1f} s  {l.get('score')} of {l.get('max_score')}")
PY
done

#!/usr/bin/env bash
# bench/decl-parity.sh - a rung from a lab folder against the same kernel
# shipped, and the NVRTC cache of a lab's folder rungs.
#
#   bench/decl-parity.sh CUDALAB [ROUNDS]
#
# 1. Runs bench/labs/parity (saxpy_per_element shipped, and the same source
#    as a rung of the lab folder) ROUNDS times (default 5) at 2^24, 2^26 and
#    2^28, and prints each size's medians and their ratio: the two paths
#    time alike when the ratio is within 2% of 1.
# 2. Runs the scan lab (four rungs of its folder) at 2^10 with an empty
#    NVRTC cache, then again, and prints when each run's first row came and
#    when it ended: the second run's first row is what a learner waits for
#    when nothing changed.
set -u
exe=$1
rounds=${2:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache"

for r in $(seq 1 "$rounds"); do
    "$exe" run parity --labs "$root/bench/labs" --no-cpu --json > "$tmp/parity-$r.json" ||
        echo "round $r: cudalab run parity exited $?"
done
python3 - "$tmp" "$rounds" <<'PY'
import json, statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
t = {}
for r in range(1, rounds + 1):
    for row in json.load(open(f"{tmp}/parity-{r}.json"))["results"]:
        if row["variant"] in ("shipped", "folder") and row["median_ms"]:
            t.setdefault((row["size"], row["variant"]), []).append(row["median_ms"])
print(f"{'size':8} {'shipped ms':>12} {'folder ms':>12} {'folder/shipped':>15}  ({rounds} runs each, median of medians)")
for size in ("2^24", "2^26", "2^28"):
    s, f = t.get((size, "shipped")), t.get((size, "folder"))
    if not s or not f:
        print(f"{size:8} missing rows")
        continue
    ms, mf = statistics.median(s), statistics.median(f)
    print(f"{size:8} {ms:12.4f} {mf:12.4f} {mf / ms:15.4f}")
PY

# Each run's stdout is read line by line as it comes (cudalab flushes a row
# as soon as it is measured): the time to the first row's line is what a
# learner waits for before anything is shown.
for run in first second; do
    python3 - "$exe" "$tmp/scan-$run.txt" "$run" <<'PY'
import subprocess, sys, time
exe, path, run = sys.argv[1:4]
start = time.monotonic()
first = None
with open(path, "w") as out:
    p = subprocess.Popen([exe, "run", "scan", "--size", "2^10", "--no-cpu", "--budget", "0.01"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in p.stdout:
        if first is None and line.startswith("kogge_stone "):
            first = time.monotonic() - start
        out.write(line)
    rc = p.wait()
total = time.monotonic() - start
cache = "empty" if run == "first" else "warm"
shown = f"{first * 1000:.0f} ms" if first is not None else "never"
print(f"scan lab, four folder rungs, {run} run (NVRTC cache {cache}): first row after {shown}, exit {rc} in {total * 1000:.0f} ms")
PY
done
start=$(date +%s%N)
"$exe" run parity --labs "$root/bench/labs" -v shipped --size 2^24 --no-cpu --budget 0.01 > /dev/null 2>&1
echo "for scale, one shipped rung and nothing to compile: exit $? in $(( ($(date +%s%N) - start) / 1000000 )) ms (starting the worker and the CUDA context)"
echo "its rows:"
grep -E "^(kogge_stone|brent_kung|warp_rows|decoupled|cub_scan) " "$tmp/scan-second.txt"

#!/usr/bin/env python3
"""Summarise a bench/mm-gpu.sh run: the matmul lab's targets.

Reads DIR/lab.json (the lab's second run), DIR/times.txt and DIR/mmtune.txt
and prints Markdown: the rows at 4096 (time, rate, ratio to cuBLAS at the
row's precision, error), the FP32 and tensor-core ratios against their
targets, the ladder at every size (each rung against the one before), the
lab's wall-clock time, and the sweep's table of the fastest configurations.
"""
import json
import os
import sys

LADDER = ["naive", "coalesced", "smem_tiled", "blocktile_1d", "blocktile_2d", "vectorized",
          "warptile", "wmma_tf32", "wmma_bf16", "wmma_async"]
WMMA = ["wmma_tf32", "wmma_bf16", "wmma_async"]
TARGET_FP32, TARGET_WMMA, TARGET_SECONDS = 0.93, 0.6, 10.0


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"cannot read {path}: {e}")
        return None


def size_key(s):
    return tuple(int(x) for x in s.lower().split("x")) if s else ()


def main():
    d = sys.argv[1]
    lab = load(os.path.join(d, "lab.json")) or {}
    rows = lab.get("results", [])
    dev = lab.get("device", {})
    print(f"# matmul lab on {dev.get('name', '?')} ({dev.get('sm_count', '?')} SMs)\n")
    sizes = sorted({r["size"] for r in rows}, key=size_key)
    at = {(r["variant"], r["size"]): r for r in rows}
    big = sizes[-1] if sizes else None

    print(f"## Rows at {big}\n")
    print("| row | kind | median ms | spread | TFLOP/s | x lib (same precision) | rel err | status |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r["size"] != big:
            continue
        print("| {} | {} | {:.4f} | {:.1f}% | {} | {} | {:.1e} | {} |".format(
            r["variant"], r["kind"], r.get("median_ms") or 0, 100 * (r.get("spread") or 0),
            f"{r['tflops']:.1f}" if r.get("tflops") else "-",
            f"{r['speedup_lib']:.3f}" if r.get("speedup_lib") else "-", r.get("rel_err") or 0,
            r.get("status") if r.get("status") == "correct" else
            f"{r.get('status')}: {r.get('message', '')[:80]}"))

    print("\n## Targets\n")
    wt = at.get(("warptile", big))
    if wt and wt.get("speedup_lib"):
        v = wt["speedup_lib"]
        print(f"- best FP32 rung `warptile` at {big}: {v:.3f}x cuBLAS FP32 "
              f"(target {TARGET_FP32}x: {'met' if v >= TARGET_FP32 else 'not met'})")
    best = None
    for w in WMMA:
        r = at.get((w, big))
        if r and r.get("speedup_lib") and r.get("status") == "correct":
            print(f"- `{w}`: {r['speedup_lib']:.3f}x cuBLAS at its precision, "
                  f"{r.get('tflops') or 0:.1f} TFLOP/s, error {r.get('rel_err') or 0:.1e}")
            if not best or r["speedup_lib"] > best[1]:
                best = (w, r["speedup_lib"])
    if best:
        print(f"- best WMMA rung: `{best[0]}` {best[1]:.3f}x (target {TARGET_WMMA}x: "
              f"{'met' if best[1] >= TARGET_WMMA else 'not met'})")
    try:
        with open(os.path.join(d, "times.txt")) as f:
            for line in f:
                run, ms, rc = line.split()
                secs = int(ms) / 1000
                note = ("CPU baselines measured, empty data folder" if run == "lab-first"
                        else f"CPU timings cached; target {TARGET_SECONDS:.0f} s: "
                        f"{'met' if secs <= TARGET_SECONDS else 'not met'}")
                print(f"- whole lab ({run}): {secs:.1f} s, exit {rc} ({note})")
    except OSError:
        pass

    print("\n## The ladder: each rung against the one before (time before / time)\n")
    print("| size | " + " | ".join(LADDER[1:]) + " |")
    print("|---|" + "---|" * (len(LADDER) - 1))
    slower = []
    for s in sizes:
        cells = []
        for a, b in zip(LADDER, LADDER[1:]):
            ra, rb = at.get((a, s)), at.get((b, s))
            if not (ra and rb and ra.get("median_ms") and rb.get("median_ms")):
                cells.append("-")
                continue
            x = ra["median_ms"] / rb["median_ms"]
            cells.append(f"{x:.2f}x")
            if x < 1.0:
                slower.append(f"`{b}` is slower than `{a}` at {s} ({x:.2f}x)")
        print(f"| {s} | " + " | ".join(cells) + " |")
    print()
    print("\n".join(f"- {t}" for t in slower) if slower else "- every rung at least as fast as "
          "the one before it, at every size")

    path = os.path.join(d, "mmtune.txt")
    if os.path.exists(path):
        print("\n## The sweep's fastest configurations (mmtune.txt)\n")
        with open(path) as f:
            for line in f:
                if line.startswith("###") or line.startswith("|"):
                    print(line.rstrip())
                if line.startswith("###"):
                    print()
        with open(path) as f:
            wrong = [l.rstrip() for l in f if "WRONG" in l or "not run" in l]
        if wrong:
            print("\nIn the sweep, wrong or not run:\n")
            print("\n".join(f"    {l}" for l in wrong))


if __name__ == "__main__":
    main()

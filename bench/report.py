#!/usr/bin/env python3
"""Merge a bench run's per-lab JSON into bench.json and bench.md.

Reads DIR/doctor.json, DIR/<lab>.json (cudalab run --json) and optionally
DIR/torch.json, and writes DIR/bench.json and DIR/bench.md.  Prints the
Markdown too, so the end of a device run shows the table.
"""
import argparse
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return {"error": f"{os.path.basename(path)}: {e}"}


def fmt(v, digits=2, suffix=""):
    if v is None or (isinstance(v, (int, float)) and v < 0):
        return "-"
    if isinstance(v, (int, float)) and v == 0:
        return "-"
    if abs(v) >= 100:
        return f"{v:.0f}{suffix}"
    return f"{v:.{digits}f}{suffix}"


def time_text(r):
    if not r.get("samples"):
        return "-"
    ms = r.get("median_ms") or 0
    spread = 100 * (r.get("spread") or 0)
    if ms >= 1:
        return f"{ms:.3f} ms ±{spread:.1f}%"
    return f"{ms * 1000:.1f} us ±{spread:.1f}%"


STEPS = ["load", "fill", "filter", "transform", "standardize", "binning", "encode", "groupby",
         "gemm"]


def rows_at(lab, size):
    return {r.get("variant"): r for r in (lab or {}).get("results", []) if r.get("size") == size}


def largest_size(lab):
    sizes = [r.get("size") for r in (lab or {}).get("results", []) if r.get("variant") == "pipeline"]
    return sizes[-1] if sizes else None


def pipeline_summary(lab):
    """The shipped pipeline at its largest size, step by step, against the
    milestones' thresholds (each step 5x, end to end 10x, against one CPU
    thread)."""
    size = largest_size(lab)
    if not size:
        return []
    rows = rows_at(lab, size)
    md = [f"### pipeline at {size}: the shipped steps against the milestones' thresholds", "",
          "| step | CPU, 1 thread | CPU, all threads | GPU | x CPU | needed | margin |",
          "|---|---|---|---|---|---|---|"]
    for step in STEPS + ["pipeline"]:
        g = rows.get(step, {})
        c1 = rows.get("cpu" if step == "pipeline" else f"cpu.{step}", {})
        cm = rows.get("cpu_mt" if step == "pipeline" else f"cpu_mt.{step}", {})
        need = 10.0 if step == "pipeline" else (5.0 if step != "load" else None)
        x = g.get("speedup_cpu") or 0
        margin = f"{x / need:.1f}x over" if need and x else "-"
        md.append(f"| {'end to end' if step == 'pipeline' else step} | {time_text(c1)} | "
                  f"{time_text(cm)} | {time_text(g)} | {fmt(x, 1, 'x')} | "
                  f"{'>= %gx' % need if need else 'no threshold'} | {margin} |")
    md.append("")
    return md


def cupy_versus_cudalab(t, lab):
    size = largest_size(lab)
    ours = rows_at(lab, size).get("pipeline", {}) if size else {}
    cupy = [r for r in t.get("rows", []) if r["framework"].startswith("cupy") and
            r["op"] == "pipeline end to end" and r["size"] == size]
    numpy = [r for r in t.get("rows", []) if r["framework"].startswith("numpy") and
             r["op"] == "pipeline end to end" and r["size"] == size]
    if not (ours.get("median_ms") and cupy):
        return []
    line = (f"\nEnd to end at {size}: cudalab's shipped pipeline {ours['median_ms']:.1f} ms, "
            f"CuPy {cupy[0]['median_ms']:.1f} ms ({cupy[0]['median_ms'] / ours['median_ms']:.2f}x "
            f"cudalab's time)")
    if numpy:
        line += f", NumPy on one thread {numpy[0]['median_ms']:.0f} ms"
    return [line + "."]


def status_text(r):
    """The status, with the error of a correct row from 1e-5 up (TF32, BF16)."""
    err = r.get("rel_err") or 0
    if r.get("status") == "correct" and err >= 1e-5:
        return f"correct, error {err:.1e}"
    return r.get("status")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--date", default="")
    ap.add_argument("labs", nargs="*")
    a = ap.parse_args()

    doctor = load(os.path.join(a.dir, "doctor.json"))
    dev = doctor.get("device", {}) if isinstance(doctor, dict) else {}
    report = {"date": a.date, "commit": a.commit, "device": dev,
              "toolkit": doctor.get("toolkit"), "labs": {}}
    md = [f"# cudalab benchmark — {dev.get('name', 'no device')}", "",
          f"- date: {a.date}", f"- commit: {a.commit}",
          f"- device: {dev.get('name')} (compute capability {dev.get('compute_capability')}, "
          f"{dev.get('sm_count')} SMs, {fmt(dev.get('memory_gib'), 1)} GiB)",
          f"- driver supports CUDA {dev.get('driver_cuda_version')}; toolkit "
          f"{(doctor.get('toolkit') or {}).get('cuda_runtime')}",
          f"- measured copy bandwidth {fmt(dev.get('peak_bandwidth_measured_gbs'), 0)} GB/s "
          f"(theoretical {fmt(dev.get('peak_bandwidth_theory_gbs'), 0)} GB/s); "
          f"FP32 peak {fmt(dev.get('peak_fp32_tflops'), 1)} TFLOP/s", ""]

    for lab in a.labs:
        data = load(os.path.join(a.dir, f"{lab}.json"))
        rc_path = os.path.join(a.dir, f"{lab}.rc")
        rc = open(rc_path).read().strip() if os.path.exists(rc_path) else "?"
        data["exit_code"] = rc
        report["labs"][lab] = data
        md += [f"## {lab} (cudalab run exit code {rc})", ""]
        if "error" in data and "results" not in data:
            md += [f"could not read the results: {data['error']}", ""]
            continue
        md += ["| variant | size | median ± spread | GB/s | TFLOP/s | % of peak | x CPU | x CPU (all threads) | x library | result |",
               "|---|---|---|---|---|---|---|---|---|---|"]
        for r in data.get("results", []):
            pct = r.get("pct_peak_measured")
            md.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
                r.get("variant"), r.get("size"), time_text(r), fmt(r.get("gbps"), 0),
                fmt(r.get("tflops"), 2), "-" if pct is None or pct < 0 else f"{pct:.0f}%",
                fmt(r.get("speedup_cpu"), 1, "x"), fmt(r.get("speedup_cpu_mt"), 1, "x"),
                fmt(r.get("speedup_lib"), 3, "x"), status_text(r)))
        fault = data.get("fault")
        if fault:
            md += ["", f"fault: {fault.get('cause')}: {fault.get('message')}"]
        md.append("")

    md += pipeline_summary(report["labs"].get("pipeline"))

    torch_path = os.path.join(a.dir, "torch.json")
    if os.path.exists(torch_path):
        t = load(torch_path)
        report["frameworks"] = t
        md += ["## PyTorch and CuPy on the same device", "",
               "| framework | operation | size | median | GB/s | TFLOP/s |", "|---|---|---|---|---|---|"]
        for r in t.get("rows", []) if isinstance(t, dict) else []:
            md.append(f"| {r['framework']} | {r['op']} | {r['size']} | {r['median_ms']:.3f} ms | "
                      f"{fmt(r.get('gbps'), 0)} | {fmt(r.get('tflops'), 2)} |")
        if isinstance(t, dict) and "pipeline_agree" in t:
            md.append(f"\nThe NumPy and CuPy pipelines agree (kept rows and bins exactly, the "
                      f"layer's output within 1e-3): {t['pipeline_agree']}; kept rows: "
                      f"{t.get('pipeline_kept_rows')}.")
            md += cupy_versus_cudalab(t, report["labs"].get("pipeline"))
        if isinstance(t, dict) and t.get("error"):
            md.append(f"\n{t['error']}")
        md.append("")

    with open(os.path.join(a.dir, "bench.json"), "w") as f:
        json.dump(report, f, indent=2)
    text = "\n".join(md) + "\n"
    with open(os.path.join(a.dir, "bench.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()

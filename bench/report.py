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

    torch_path = os.path.join(a.dir, "torch.json")
    if os.path.exists(torch_path):
        t = load(torch_path)
        report["frameworks"] = t
        md += ["## PyTorch and CuPy on the same device", "",
               "| framework | operation | size | median | GB/s | TFLOP/s |", "|---|---|---|---|---|---|"]
        for r in t.get("rows", []) if isinstance(t, dict) else []:
            md.append(f"| {r['framework']} | {r['op']} | {r['size']} | {r['median_ms']:.3f} ms | "
                      f"{fmt(r.get('gbps'), 0)} | {fmt(r.get('tflops'), 2)} |")
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

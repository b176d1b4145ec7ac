#!/usr/bin/env python3
"""bench/run-phases.py - where a `cudalab run` spends its time, phase by phase.

    python3 bench/run-phases.py CUDALAB LAB [run args...]

Runs `CUDALAB run LAB [args]` on a pseudo-terminal (so that it prints its
progress line: variant, size, phase, repetition), stamps every change of that
line with the time it was seen, and prints, for each row and phase
(reference: inputs and the reference; check: a checked run; timing: the timed
repetitions), the seconds spent in it, then the whole run's wall time.  A
measurement, not a test: it asserts nothing.
"""
import os
import pty
import re
import sys
import time

PROGRESS = re.compile(r"^\s*(\S+)\s+(\S+)\s+(reference|check|timing|[a-z_]+)\s+(\d+)/(\d+)\s*$")


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    argv = [sys.argv[1], "run", sys.argv[2]] + sys.argv[3:]
    t0 = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(argv[0], argv)
    buf = b""
    spans = []          # [key, start]
    plain = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        now = time.monotonic() - t0
        buf += chunk
        parts = re.split(rb"[\r\n]", buf)
        buf = parts.pop()
        for raw in parts:
            line = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", raw.decode("utf-8", "replace"))
            m = PROGRESS.match(line)
            if m:
                key = (m.group(1).strip(), m.group(2), m.group(3))
                if not spans or spans[-1][0] != key:
                    spans.append([key, now])
            elif line.strip():
                if spans and spans[-1][0] is not None:
                    spans.append([None, now])
                plain.append(line)
    _, status = os.waitpid(pid, 0)
    end = time.monotonic() - t0
    totals = {}
    order = []
    for i, (key, start) in enumerate(spans):
        stop = spans[i + 1][1] if i + 1 < len(spans) else end
        if key is None:
            continue
        if key not in totals:
            order.append(key)
            totals[key] = 0.0
        totals[key] += stop - start
    print("%s: %d phases seen" % (" ".join(argv[1:]), len(order)))
    for key in order:
        print("  %-14s %-18s %-10s %7.3f s" % (key[0], key[1], key[2], totals[key]))
    by_phase = {}
    for key, v in totals.items():
        by_phase[key[2]] = by_phase.get(key[2], 0.0) + v
    print("  by phase: " + ", ".join("%s %.2f s" % kv for kv in sorted(by_phase.items())))
    print("  wall %.2f s, exit %d" % (end, os.waitstatus_to_exitcode(status)))
    if "--table" in os.environ.get("RUN_PHASES", ""):
        print("\n".join(plain))
    return 0


if __name__ == "__main__":
    sys.exit(main())

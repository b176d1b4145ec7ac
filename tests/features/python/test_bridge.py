"""cudalab_bridge.py without a GPU: its requests and replies, over a
stand-in for CuPy (tests/features/python/fake/).  The bridge refuses what it cannot
honour with a reason; opens a row by path and maps buffers from handles;
runs and times run(args) by the rules it is given; names a row's error by
file:line; says what to install when CuPy is missing.  The stand-in is
plain Python: no NumPy needed."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BRIDGE = sys.argv[1]
FAILED = []


def check(cond, what):
    if not cond:
        FAILED.append(what)
        print("FAILED:", what)


class Bridge(object):
    def __init__(self, fake=True, isolated=False):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        if fake:
            env["PYTHONPATH"] = os.path.join(HERE, "fake")
        argv = [sys.executable] + (["-I"] if isolated else []) + ["-B", BRIDGE, "--reply-fd", "1",
                                                                  "--parent", str(os.getpid())]
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=env, universal_newlines=True)

    def ask(self, req):
        line = req if isinstance(req, str) else json.dumps(req)
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def close(self):
        self.p.stdin.write('{"cmd": "quit"}\n')
        self.p.stdin.flush()
        rc = self.p.wait(timeout=30)
        err = self.p.stderr.read()
        return rc, err


def handle(k):
    return ("%02x" % k) + "00" * 63


def open_req(row, n=1000, args=None):
    return {"cmd": "open", "file": os.path.join(HERE, "rows", row), "name": "rungs/" + row,
            "device": 0, "pci": "", "size": str(n),
            "args": args if args is not None else [
                {"name": "x", "kind": "buffer", "dtype": "f32", "count": n, "handle": handle(1)},
                {"name": "y", "kind": "buffer", "dtype": "f32", "count": n, "handle": handle(2)},
                {"name": "z", "kind": "buffer", "dtype": "f32", "count": n, "handle": handle(3)},
                {"name": "a", "kind": "scalar", "value": 1.5},
                {"name": "n", "kind": "scalar", "value": n}]}


TIME = {"cmd": "time", "budget_ms": 20.0, "min": 10, "max": 300, "spread": 0.005,
        "warmup_ms": 2.0, "batch": 32, "wall_factor": 4.0, "flush_bytes": 1024}


def test_refusals():
    b = Bridge()
    for req, part in (("not json", "not a JSON request"), ("[1, 2]", "a JSON object"),
                      ({"cmd": "bogus"}, "unknown command"), ({"cmd": "run"}, "send open first"),
                      ({"cmd": "open"}, "no field 'file'"),
                      ({"cmd": "time"}, "no field 'budget_ms'"),
                      (dict(open_req("axpy.py"), device="0"), "must be an integer"),
                      (open_req("axpy.py", args=[{"name": "x", "kind": "buffer"}]),
                       "needs a dtype, a count and a handle"),
                      (open_req("axpy.py", args=[{"name": "a", "kind": "scalar"}]),
                       "has no number")):
        r = b.ask(req)
        check(r.get("ok") is False and part in r.get("error", ""),
              "%r is refused with %r: %r" % (req, part, r))
    rc, err = b.close()
    check(rc == 0, "the bridge quits with 0 after refusals (%d): %s" % (rc, err))


def test_run_and_time():
    b = Bridge()
    r = b.ask(open_req("axpy.py"))
    check(r == {"ok": True}, "open maps the buffers: %r" % r)
    r = b.ask({"cmd": "run"})
    check(r == {"ok": True}, "run: %r" % r)
    r = b.ask(TIME)
    check(r.get("ok") is True, "time: %r" % r)
    times = r.get("times", [])
    check(10 <= len(times) <= 300, "between min and max samples: %d" % len(times))
    check(all(t >= 0 for t in times), "times are not negative")
    check(r.get("warmups", 0) >= 1 and r.get("flushed") is True, "warm-up and flush: %r" % r)
    r = b.ask(dict(TIME, min=3, max=3))
    check(len(r.get("times", [])) == 3, "max caps the samples: %r" % r)
    check(b.ask({"cmd": "release"}) == {"ok": True}, "release")
    check(b.ask({"cmd": "run"}).get("ok") is False, "no run after release")
    r = b.ask(open_req("axpy.py", n=4099))
    check(r == {"ok": True}, "a second size: %r" % r)
    check(b.ask({"cmd": "run"}) == {"ok": True}, "run at the second size")
    r = b.ask(open_req("raises.py"))
    check(r.get("ok") is False and "not " in r.get("error", ""), "one file a bridge: %r" % r)
    rc, err = b.close()
    check(rc == 0, "quit: %d" % rc)
    check("axpy ran at 1000" in err and "axpy ran at 4099" in err,
          "what the row prints goes to stderr: %r" % err[-300:])


def probe_calls(err):
    """{call: (x0, z0)} from what canary_probe.py printed."""
    seen = {}
    for line in err.splitlines():
        w = line.split()
        if len(w) == 6 and w[0] == "call":
            seen[int(w[1])] = (float(w[3]), float(w[5]))
    return seen


def timed_with_canary(row, draw, shuffled=(), **kw):
    """A bridge that opened row (z its output, the names in shuffled
    moved between repetitions), checked it once and timed it with a canary
    from draw: (the bridge, the time reply, its times, warm-ups, canary)."""
    b = Bridge()
    req = open_req(row, **kw)
    for a in req["args"]:
        a["output"] = a["name"] == "z"
        a["shuffle"] = a["name"] in shuffled
    check(b.ask(req) == {"ok": True}, "open %s with outputs marked" % row)
    check(b.ask({"cmd": "run"}) == {"ok": True}, "the first check")
    r = b.ask(dict(TIME, canary=draw))
    check(r.get("ok") is True, "time with a canary: %r" % r)
    return b, r, r.get("times", []), r.get("warmups", 0), r.get("canary_rep", -1)


def test_canary():
    b, r, times, warm, k = timed_with_canary("canary_probe.py", 12345)
    check(0 <= k < len(times), "the canary ran among the timed repetitions: %r" % r)
    check(b.ask({"cmd": "run"}) == {"ok": True}, "a check after timing")
    rc, err = b.close()
    seen = probe_calls(err)
    canary_call = 2 + warm + k
    last_timed = 1 + warm + len(times)
    fresh = [c for c, (x0, _) in seen.items() if 2 < c <= last_timed and x0 == 1.0]
    check(fresh == [canary_call], "only the canary's call began with the worker's inputs "
          "(call %d): %r" % (canary_call, fresh))
    after = seen.get(last_timed + 1, (None, None))
    check(after == (float(canary_call), float(canary_call)),
          "after timing the worker holds what the canary's call left in its inputs and "
          "outputs: %r (canary %d)" % (after, canary_call))
    check(rc == 0, "quit: %d" % rc)


def test_shuffle():
    """x opened with shuffle: every call but the canary begins with x's
    elements in another order; the call before the canary and the canary
    begin with the worker's inputs, moved and as they are."""
    b, r, times, warm, k = timed_with_canary("order_probe.py", 777, shuffled=("x",), n=64)
    check(1 <= k < len(times), "the canary is never the first timed repetition: %r" % r)
    rc, err = b.close()
    seen = {}
    for line in err.splitlines():
        w = line.split()
        if len(w) == 5 and w[0] == "order":
            seen[int(w[1])] = (w[2], w[3], w[4])
    canary_call = 2 + warm + k
    last_timed = 1 + warm + len(times)
    check(len(seen) == last_timed, "every call printed: %d of %d" % (len(seen), last_timed))
    check(seen.get(canary_call, ("",))[:2] == ("worker", "sorted"),
          "the canary begins with the worker's inputs as they are: %r" % (seen.get(canary_call),))
    check(seen.get(canary_call - 1, ("",))[:2] == ("worker", "moved"),
          "the call before it with them moved: %r" % (seen.get(canary_call - 1),))
    for c in range(3, last_timed + 1):
        if c in (canary_call, canary_call - 1):
            continue
        check(seen.get(c, ("",))[0] in ("own", "worker") and seen.get(c) != seen.get(c - 1),
              "call %d began with the same values as call %d, in another order: %r %r"
              % (c, c - 1, seen.get(c - 1), seen.get(c)))
    check(rc == 0, "quit: %d" % rc)


def test_patched_timer():
    b = Bridge()
    check(b.ask(open_req("patch_timer.py")) == {"ok": True}, "a row that patches the timer opens")
    check(b.ask({"cmd": "run"}) == {"ok": True}, "its check runs")
    r = b.ask(TIME)
    check(r.get("ok") is False and "cupy.cuda.get_elapsed_time" in r.get("error", "")
          and "not the row's to change" in r.get("error", ""), "and its timing is refused: %r" % r)
    b.close()


def test_errors():
    b = Bridge()
    check(b.ask(open_req("raises.py")) == {"ok": True}, "a row that raises opens")
    r = b.ask({"cmd": "run"})
    check(r.get("ok") is False and r.get("where") == "rungs/raises.py:7"
          and r.get("error", "").startswith("ValueError: the row failed on purpose"),
          "an exception names file:line: %r" % r)
    check(r.get("fatal") is False, "an exception is not fatal")
    r = b.ask(TIME)
    check(r.get("ok") is False and r.get("where") == "rungs/raises.py:7", "time too: %r" % r)
    b.close()
    b = Bridge()
    r = b.ask(open_req("syntax.py"))
    check(r.get("ok") is False and r.get("where") == "rungs/syntax.py:4"
          and r.get("error", "").startswith("SyntaxError"), "a syntax error: %r" % r)
    b.close()
    b = Bridge()
    r = b.ask(open_req("norun.py"))
    check(r.get("ok") is False and "defines no function run(args)" in r.get("error", ""),
          "no run(): %r" % r)
    b.close()
    b = Bridge()
    r = b.ask(open_req("missing.py"))
    check(r.get("ok") is False and "missing.py" in r.get("error", "") + r.get("where", ""),
          "a missing file: %r" % r)
    b.close()


def test_without_cupy():
    has = subprocess.run([sys.executable, "-I", "-c", "import cupy"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL).returncode == 0
    if has:
        print("CuPy is installed here: the missing-CuPy reply is not tested")
        return
    b = Bridge(fake=False, isolated=True)
    r = b.ask(open_req("axpy.py"))
    check(r.get("ok") is False and
          "unavailable: python3 cannot import cupy (pip install cupy-cuda13x" in r["error"],
          "without CuPy: what to install: %r" % r)
    b.close()


def test_usage():
    p = subprocess.run([sys.executable, "-I", "-B", BRIDGE], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    check(p.returncode == 2 and "usage" in p.stderr, "usage without --reply-fd")
    p = subprocess.run([sys.executable, "-I", "-B", BRIDGE, "--bogus"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    check(p.returncode == 2 and "unexpected argument" in p.stderr, "an unknown argument")


def main():
    for t in (test_usage, test_refusals, test_run_and_time, test_canary, test_shuffle,
              test_patched_timer,
              test_errors, test_without_cupy):
        print("--", t.__name__)
        t()
    print("%d failed" % len(FAILED))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())

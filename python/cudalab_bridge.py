"""cudalab_bridge.py - runs a lab's Python row on buffers that cudalab owns.

cudalab's worker starts this script as `python3 -I -B cudalab_bridge.py
--reply-fd FD --parent PID` when a lab has a Python row (a rung
`variant { python = "rungs/x.py" }` or a Python exercise).  The worker
allocated the problem's buffers, filled the inputs and poisons the outputs;
this process maps that device memory through CUDA IPC handles, copies each
buffer into a CuPy array of its own (and back after a run), imports the
row's file and calls its `run(args)`.  The worker judges the outputs itself, with the problem's own
judge, in its own copy of the buffers.

Requests come one JSON object a line on stdin; each gets one JSON line on
the reply descriptor, {"ok": true, ...} or {"ok": false, "error": ...,
"where": "file:line", "fatal": bool}.  Whatever the row prints goes to
stderr, which the worker shows in its log.

  {"cmd": "open", "file": PATH, "name": SHOWN, "device": N, "pci": BUS_ID,
   "size": LABEL, "args": [{"name": "x", "kind": "buffer", "dtype": "f32",
   "count": N, "handle": HEX}, {"name": "n", "kind": "scalar", "value": V}]}
      imports the file (once a process), maps this size's buffers
  {"cmd": "run"}      one call of run(args), then waits for the device
  {"cmd": "time", "budget_ms": B, "min": N, "max": N, "spread": S,
   "warmup_ms": W, "batch": K, "wall_factor": F, "flush_bytes": N}
      times run(args) as cudalab times every row: warm-up first, then
      repetitions between CUDA events on the default stream, each after an
      L2 flush when flush_bytes > 0, until the spread rule, the budget or
      the cap stops it; replies {"times": [ms, ...], "warmups": k}
  {"cmd": "release"}  unmaps this size's buffers
  {"cmd": "quit"}

Every row's work goes to the default stream: CuPy's current stream unless
the row picks another, and Numba's launches without a stream.  The events
are recorded there, so they bracket all of it.
"""

import json
import os
import sys
import time
import traceback

DTYPES = {"f32": "float32", "f64": "float64", "i32": "int32", "u32": "uint32",
          "u8": "uint8", "bf16": "uint16"}
INSTALL = "pip install cupy-cuda13x 'numba-cuda[cu13]'"


class Refused(Exception):
    """A request this script cannot honour (the reply says why)."""


class Args(object):
    """args.<name>: CuPy arrays for buffers, Python numbers for scalars."""

    def __init__(self, values, size):
        self.__dict__.update(values)
        self.size = size

    def __getitem__(self, key):
        return self.__dict__[key]

    def __repr__(self):
        return "args(%s)" % ", ".join(sorted(self.__dict__))


class Row(object):
    def __init__(self):
        self.cp = None
        self.module = None
        self.path = None
        self.name = None
        self.run = None
        self.args = None
        self.opened = []
        self.pairs = []     # (the worker's allocation, this process's copy of it)
        self.fatal = False


def die_with_parent(parent):
    """The worker may be killed (a time limit): go with it."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, 9, 0, 0, 0)       # PR_SET_PDEATHSIG, SIGKILL
    except Exception:
        pass
    if parent and os.getppid() != parent:
        os._exit(1)


def own_domain():
    """Puts this process in a Landlock domain of its own, nested in the
    worker's (when the worker is confined): the row's code may then neither
    attach to the worker nor read its memory, nor signal it, whoever runs
    it.  The nested ruleset only forbids making block devices, which
    nothing here needs; every other access stays as the worker's
    confinement says.  Returns why not, or ""."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        abi = libc.syscall(444, None, 0, 1)            # landlock_create_ruleset: the ABI
        if abi < 1:
            return "this kernel has no Landlock"
        attr = (ctypes.c_uint64 * 3)(1 << 11, 0, 1 << 1)   # MAKE_BLOCK; scope: signals
        size = 24 if abi >= 6 else 8
        fd = libc.syscall(444, ctypes.byref(attr), size, 0)
        if fd < 0:
            return "landlock_create_ruleset: errno %d" % ctypes.get_errno()
        try:
            if libc.prctl(38, 1, 0, 0, 0) != 0:            # PR_SET_NO_NEW_PRIVS
                return "PR_SET_NO_NEW_PRIVS: errno %d" % ctypes.get_errno()
            if libc.syscall(446, fd, 0) != 0:             # landlock_restrict_self
                return "landlock_restrict_self: errno %d" % ctypes.get_errno()
        finally:
            os.close(fd)
    except Exception as ex:
        return str(ex)
    return ""


def where_of(row, tb):
    """file:line of the deepest frame in the row's file, as the learner
    knows the file; else (an error found when this script waited for the
    device: a kernel the row launched failed) the line of its run()."""
    frames = traceback.extract_tb(tb) if tb is not None else []
    own = [f for f in frames if row.path and os.path.abspath(f.filename) == row.path]
    if own:
        return "%s:%d" % (row.name, own[-1].lineno)
    if row.run is not None and hasattr(row.run, "__code__"):
        return "%s:%d" % (row.name, row.run.__code__.co_firstlineno)
    return row.name or ""


def is_cuda_error(ex):
    name = type(ex).__name__
    text = str(ex)
    return ("CUDARuntimeError" in name or "CudaAPIError" in name or "CUDADriverError" in name
            or "cudaError" in text or "CUDA_ERROR" in text)


def fail(row, ex, tb):
    text = str(ex).strip().splitlines()
    msg = type(ex).__name__ + (": " + text[0] if text else "")
    if isinstance(ex, SyntaxError) and ex.filename:
        where = "%s:%s" % (row.name if os.path.abspath(ex.filename) == row.path else ex.filename,
                           ex.lineno or 0)
        msg = "SyntaxError: %s" % (ex.msg or "invalid syntax")
    else:
        where = where_of(row, tb)
    fatal = is_cuda_error(ex)
    if fatal:
        row.fatal = True
    if isinstance(ex, ImportError) and getattr(ex, "name", None):
        top = ex.name.split(".")[0]
        if top in ("cupy", "numba", "numpy"):
            msg = "unavailable: python3 cannot import %s (%s)" % (ex.name, INSTALL)
    return {"ok": False, "error": msg[:400], "where": where, "fatal": fatal}


def need(req, key, kind):
    if key not in req:
        raise Refused("request '%s' has no field '%s'" % (req.get("cmd"), key))
    v = req[key]
    if kind is int and (isinstance(v, bool) or not isinstance(v, int)):
        raise Refused("field '%s' must be an integer" % key)
    if kind is float and (isinstance(v, bool) or not isinstance(v, (int, float))):
        raise Refused("field '%s' must be a number" % key)
    if kind is str and not isinstance(v, str):
        raise Refused("field '%s' must be a string" % key)
    if kind is list and not isinstance(v, list):
        raise Refused("field '%s' must be a list" % key)
    return v


def numpy_names():
    """numba-cuda (0.30) registers an overload for np.row_stack, a second
    name of np.vstack that NumPy 2.4 removed, so importing its CUDA target
    fails with such a NumPy.  This process gives the name back before a row
    imports Numba; nothing else changes."""
    try:
        import numpy
    except ImportError:
        return
    if not hasattr(numpy, "row_stack") and hasattr(numpy, "vstack"):
        numpy.row_stack = numpy.vstack


def load_cupy(row):
    if row.cp is None:
        try:
            import cupy
        except ImportError as ex:
            raise Refused("unavailable: python3 cannot import cupy (%s): %s" % (INSTALL, ex))
        row.cp = cupy
    return row.cp


def import_row(row, path, name):
    import importlib.util
    spec = importlib.util.spec_from_file_location("cudalab_row", path)
    if spec is None or spec.loader is None:
        raise Refused("%s: not a Python file" % name)
    module = importlib.util.module_from_spec(spec)
    sys.modules["cudalab_row"] = module
    row.path, row.name = path, name
    spec.loader.exec_module(module)
    fn = getattr(module, "run", None)
    if not callable(fn):
        raise Refused("%s: defines no function run(args)" % name)
    row.module, row.run = module, fn


def release(row):
    cp = row.cp
    row.args = None
    if cp is not None and row.opened:
        try:
            cp.cuda.runtime.deviceSynchronize()
        except Exception:
            pass
        for ptr in row.opened:
            try:
                cp.cuda.runtime.ipcCloseMemHandle(ptr)
            except Exception:
                pass
    row.opened = []
    row.pairs = []


def own_copy(cp, shared):
    """This process's copy of a worker's array (shared), or None
    when the device has no room for it.  The kernels run on the copies: an
    array mapped through CUDA IPC read at about 0.55x the bandwidth of one
    allocated here at 2^26 floats on an H100 and an H200, so the rows would
    time the sharing, not the kernel."""
    try:
        return cp.empty(shared.shape, dtype=shared.dtype.name)
    except cp.cuda.memory.OutOfMemoryError:
        return None


def pull(row):
    """The worker's inputs (and poisoned outputs) into the copies."""
    for shared, own in row.pairs:
        if own is not None:
            own[...] = shared


def push(row):
    """What the kernels wrote (guard bytes included) back to the worker."""
    for shared, own in row.pairs:
        if own is not None:
            shared[...] = own
    row.cp.cuda.runtime.deviceSynchronize()


def cmd_open(row, req):
    path = os.path.abspath(need(req, "file", str))
    name = need(req, "name", str)
    items = need(req, "args", list)
    device = need(req, "device", int)
    cp = load_cupy(row)
    pci = req.get("pci")
    if isinstance(pci, str) and pci:
        try:
            device = cp.cuda.runtime.deviceGetByPCIBusId(pci)
        except Exception:
            pass
    cp.cuda.Device(device).use()
    if row.run is None:
        numpy_names()
        import_row(row, path, name)
        numba_cuda = sys.modules.get("numba.cuda")
        if numba_cuda is not None and device != 0:
            numba_cuda.select_device(device)
    elif path != row.path:
        raise Refused("this bridge runs %s, not %s" % (row.path, path))
    release(row)
    values = {}
    for a in items:
        if not isinstance(a, dict) or not isinstance(a.get("name"), str):
            raise Refused("each arg needs a name")
        if a.get("kind") == "scalar":
            v = a.get("value")
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise Refused("scalar '%s' has no number" % a["name"])
            values[a["name"]] = v
            continue
        dtype = DTYPES.get(a.get("dtype"))
        count = a.get("count")
        handle = a.get("handle")
        if dtype is None or not isinstance(count, int) or count < 1 or not isinstance(handle, str):
            raise Refused("buffer '%s' needs a dtype, a count and a handle" % a["name"])
        raw = bytes.fromhex(handle)
        ptr = cp.cuda.runtime.ipcOpenMemHandle(raw, cp.cuda.runtime.cudaIpcMemLazyEnablePeerAccess)
        row.opened.append(ptr)
        item = cp.dtype(dtype).itemsize
        # the elements and, when they come in whole elements, the guard
        # bytes the worker keeps after them (a write past the end shows)
        whole = a.get("bytes")
        guard = whole - count * item if isinstance(whole, int) else 0
        total = count + (guard // item if guard > 0 and guard % item == 0 else 0)
        mem = cp.cuda.UnownedMemory(ptr, total * item, None, device)
        shared = cp.ndarray((total,), dtype=dtype, memptr=cp.cuda.MemoryPointer(mem, 0))
        own = own_copy(cp, shared)
        row.pairs.append((shared, own))
        base = own if own is not None else shared
        values[a["name"]] = base[:count] if total > count else base
    row.args = Args(values, req.get("size", ""))
    return {"ok": True}


def call_run(row):
    if row.args is None:
        raise Refused("no buffers: send open first")
    row.run(row.args)


def cmd_run(row, req):
    cp = row.cp
    pull(row)
    call_run(row)
    cp.cuda.runtime.deviceSynchronize()
    push(row)
    return {"ok": True}


def spread_of(v):
    s = sorted(v)
    n = len(s)

    def q(p):
        pos = p * (n - 1)
        i = int(pos)
        if i + 1 >= n:
            return s[n - 1]
        return s[i] + (pos - i) * (s[i + 1] - s[i])
    med = q(0.5)
    return (q(0.75) - q(0.25)) / med if med > 0 else 0.0


def should_stop(v, spent, wall, o):
    n = len(v)
    if n >= o["max"]:
        return True
    if n >= o["min"] and spread_of(v) < o["spread"]:
        return True
    if spent >= o["budget_ms"] and n >= 3:
        return True
    if spent >= 5.0 * o["budget_ms"] and n >= 1:
        return True
    return n >= o["min"] and wall >= o["wall_factor"] * o["budget_ms"]


def cmd_time(row, req):
    o = {}
    for key in ("budget_ms", "spread", "warmup_ms", "wall_factor"):
        o[key] = float(need(req, key, float))
    for key in ("min", "max", "batch", "flush_bytes"):
        o[key] = need(req, key, int)
    o["max"] = max(o["max"], o["min"], 1)
    cp = row.cp
    if row.args is None:
        raise Refused("no buffers: send open first")
    stream = cp.cuda.Stream.null
    flush = cp.empty((o["flush_bytes"],), dtype=cp.uint8) if o["flush_bytes"] > 0 else None
    ev = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(max(1, o["batch"]))]
    pull(row)
    warm, warm_ms, last = 0, 0.0, 0.0
    while warm < 1 or (warm_ms < o["warmup_ms"] and warm_ms < o["budget_ms"] and warm < 1000):
        ev[0][0].record(stream)
        call_run(row)
        ev[0][1].record(stream)
        ev[0][1].synchronize()
        last = cp.cuda.get_elapsed_time(ev[0][0], ev[0][1])
        warm_ms += last
        warm += 1
    times, spent, t0 = [], 0.0, time.monotonic()
    while True:
        k = int(5.0 / last) if last > 0 else o["batch"]
        k = max(1, min(k, o["batch"], o["max"] - len(times)))
        for i in range(k):
            if flush is not None:
                flush.fill(i & 0xFF)
            ev[i][0].record(stream)
            call_run(row)
            ev[i][1].record(stream)
        ev[k - 1][1].synchronize()
        for i in range(k):
            t = cp.cuda.get_elapsed_time(ev[i][0], ev[i][1])
            times.append(t)
            spent += t
        last = times[-1]
        if should_stop(times, spent, (time.monotonic() - t0) * 1e3, o):
            break
    cp.cuda.runtime.deviceSynchronize()
    push(row)
    return {"ok": True, "times": times, "warmups": warm, "flushed": flush is not None}


COMMANDS = {"open": cmd_open, "run": cmd_run, "time": cmd_time}


def serve(reply, stdin):
    row = Row()
    for line in stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except ValueError as ex:
            answer = {"ok": False, "error": "not a JSON request: %s" % ex, "where": ""}
            req = None
        if req is not None and not isinstance(req, dict):
            answer = {"ok": False, "error": "a request is a JSON object", "where": ""}
        elif req is not None:
            cmd = req.get("cmd")
            if cmd == "quit":
                release(row)
                return 0
            if cmd == "release":
                release(row)
                answer = {"ok": True}
            elif cmd not in COMMANDS:
                answer = {"ok": False, "error": "unknown command %r" % (cmd,), "where": ""}
            else:
                try:
                    answer = COMMANDS[cmd](row, req)
                except Refused as ex:
                    answer = {"ok": False, "error": str(ex), "where": ""}
                except KeyboardInterrupt:
                    raise
                except BaseException as ex:       # the row's own error (SystemExit too)
                    answer = fail(row, ex, sys.exc_info()[2])
        reply.write(json.dumps(answer) + "\n")
        reply.flush()
        if row.fatal:
            return 3           # a CUDA error: this process's context is gone
    release(row)
    return 0


def main(argv):
    fd, parent = None, 0
    i = 1
    while i < len(argv):
        if argv[i] == "--reply-fd" and i + 1 < len(argv):
            fd = int(argv[i + 1])
            i += 2
        elif argv[i] == "--parent" and i + 1 < len(argv):
            parent = int(argv[i + 1])
            i += 2
        else:
            sys.stderr.write("cudalab_bridge.py: unexpected argument %r (cudalab starts this "
                             "script itself)\n" % argv[i])
            return 2
    if fd is None:
        sys.stderr.write("usage: cudalab_bridge.py --reply-fd FD [--parent PID]\n")
        return 2
    die_with_parent(parent)
    why = own_domain()
    if why:
        sys.stderr.write("cudalab_bridge.py: no Landlock domain of its own (%s)\n" % why)
    reply = os.fdopen(fd, "w", encoding="utf-8")
    sys.stdout = sys.stderr            # what the row prints never reaches the replies
    return serve(reply, sys.stdin)


if __name__ == "__main__":
    sys.exit(main(sys.argv))

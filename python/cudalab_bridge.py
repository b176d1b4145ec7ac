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
   "warmup_ms": W, "batch": K, "wall_factor": F, "flush_bytes": N,
   "canary": D}
      times run(args) as cudalab times every row: warm-up first, then
      repetitions between CUDA events on the default stream, each after an
      L2 flush when flush_bytes > 0, until the spread rule, the budget or
      the cap stops it; replies {"times": [ms, ...], "warmups": k,
      "canary_rep": c}.  With canary (a number the worker drew), the runs
      go on with the last run's inputs and one timed repetition, chosen
      from it as gpu/timing.c chooses, first copies the worker's buffers in
      (fresh inputs, poisoned outputs); its outputs and inputs go back once
      it has finished (the worker checks both), and nothing more does.  Every other
      repetition, warm-ups included, first moves the elements of each
      buffer opened with "shuffle": true (exchanged in pairs, i with
      i ^ mask, a new mask each time), and the one before the canary gets
      the canary's inputs so moved, as gpu/timing.c does.  Before each batch the
      persisting L2 set-aside goes back to 0; a row that sets it again or
      replaces what this script times with is refused.
  {"cmd": "release"}  unmaps this size's buffers
  {"cmd": "quit"}

Every row's work goes to the default stream: CuPy's current stream unless
the row picks another, and Numba's launches without a stream.  The events
are recorded there, so they bracket all of it.

The row runs in this process, so it can change what this process
reports: the checks here catch the ordinary ways; the worker's own (fresh
inputs, the canary, the roofline floor) do not depend on it.
"""

import json
import os
import sys
import time
import traceback

PERSISTING_L2 = 0x06      # cudaLimitPersistingL2CacheSize (driver_types.h)
CLOCKS = (("time.perf_counter", time, "perf_counter", time.perf_counter),
          ("time.monotonic", time, "monotonic", time.monotonic),
          ("json.dumps", json, "dumps", json.dumps))

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
        self.pairs = []     # (the worker's allocation, this process's copy of it, output?)
        self.shuffled = []  # the copies whose elements move between repetitions
        self.mix = None     # where their masks come from
        self.fatal = False
        self.timer = []     # (name, owner, attribute, the object this script times with)
        self.own = {}       # this script's functions, as they were before the row ran
        self.commands = {}
        self.driver = None  # libcuda, for cuCtxResetPersistingL2Cache
        self.Event = self.elapsed = self.sync = self.clock = None


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
        ev = cupy.cuda.Event
        row.Event, row.elapsed = ev, cupy.cuda.get_elapsed_time
        row.sync, row.clock = cupy.cuda.runtime.deviceSynchronize, time.monotonic
        row.timer = list(CLOCKS) + [
            ("cupy.cuda.Event", cupy.cuda, "Event", ev),
            ("cupy.cuda.get_elapsed_time", cupy.cuda, "get_elapsed_time",
             cupy.cuda.get_elapsed_time),
            ("cupy.cuda.Event.record", ev, "record", getattr(ev, "record", None)),
            ("cupy.cuda.Event.synchronize", ev, "synchronize", getattr(ev, "synchronize", None)),
            ("cupy.cuda.runtime.deviceSynchronize", cupy.cuda.runtime, "deviceSynchronize",
             cupy.cuda.runtime.deviceSynchronize)]
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
    row.shuffled = []


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
    for shared, own, _ in row.pairs:
        if own is not None:
            own[...] = shared


def push(row, outputs=None):
    """What the kernels wrote (guard bytes included) back to the worker:
    every buffer, or only the outputs (True) or only the inputs (False)."""
    for shared, own, out in row.pairs:
        if own is not None and (outputs is None or out == outputs):
            shared[...] = own
    row.cp.cuda.runtime.deviceSynchronize()


def tampered(row):
    """What the row replaced of what this script times with, or None."""
    for name, owner, attr, obj in row.timer:
        if getattr(owner, attr, None) is not obj:
            return name
    g = globals()
    for name, obj in row.own.items():
        if g.get(name) is not obj:
            return "cudalab_bridge." + name
    if any(COMMANDS.get(k) is not v for k, v in row.commands.items()):
        return "cudalab_bridge.COMMANDS"
    return None


def refuse_tampering(row):
    name = tampered(row)
    if name:
        raise Refused("the row replaced %s, which cudalab times it with: the timer is "
                      "not the row's to change" % name)


def persisting_l2(row):
    """The persisting L2 set-aside in bytes; None where there is none."""
    try:
        return int(row.cp.cuda.runtime.deviceGetLimit(PERSISTING_L2))
    except Exception:
        return None


def reset_l2(row):
    """The persisting L2 set-aside back to 0 and its lines made normal, so
    nothing stays in the L2 between repetitions (gpu/timing.h)."""
    have = persisting_l2(row)
    if have is None:
        return
    if have > 0:
        row.cp.cuda.runtime.deviceSetLimit(PERSISTING_L2, 0)
    if row.driver is None:
        import ctypes
        row.driver = ctypes.CDLL("libcuda.so.1")
    rc = row.driver.cuCtxResetPersistingL2Cache()
    if rc not in (0, 801):         # CUDA_SUCCESS, CUDA_ERROR_NOT_SUPPORTED
        raise Refused("cuCtxResetPersistingL2Cache failed (CUresult %d)" % rc)


def refuse_l2(row):
    if (persisting_l2(row) or 0) > 0:
        raise Refused("the row set aside part of the L2 for persisting accesses "
                      "(cudaLimitPersistingL2CacheSize): cudalab keeps that at 0 while it times, "
                      "so that no input stays in the L2 from one repetition to the next")


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
        refuse_tampering(row)
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
        row.pairs.append((shared, own, bool(a.get("output"))))
        base = own if own is not None else shared
        if a.get("shuffle") is True and not a.get("output") and own is not None and count > 1:
            row.shuffled.append(own[:count])
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


def time_options(req):
    o = {}
    for key in ("budget_ms", "spread", "warmup_ms", "wall_factor"):
        o[key] = float(need(req, key, float))
    for key in ("min", "max", "batch", "flush_bytes"):
        o[key] = need(req, key, int)
    o["max"] = max(o["max"], o["min"], 1)
    draw = req.get("canary", 0)
    o["canary"] = draw if isinstance(draw, int) and not isinstance(draw, bool) and draw > 0 else 0
    return o


XOR_PAIRS = r'''
template <typename T>
__device__ void pairs(T *v, long long n, long long mask)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i < n; i += (long long)gridDim.x * blockDim.x) {
        long long j = i ^ mask;
        if (j < n && i < j) {
            T t = v[i];
            v[i] = v[j];
            v[j] = t;
        }
    }
}
extern "C" __global__ void pairs1(unsigned char *v, long long n, long long m) { pairs(v, n, m); }
extern "C" __global__ void pairs2(unsigned short *v, long long n, long long m) { pairs(v, n, m); }
extern "C" __global__ void pairs4(unsigned int *v, long long n, long long m) { pairs(v, n, m); }
extern "C" __global__ void pairs8(unsigned long long *v, long long n, long long m) { pairs(v, n, m); }
'''


def shuffle(row):
    """Every shuffled copy's elements exchanged in pairs by a new mask."""
    if not row.shuffled:
        return
    cp = row.cp
    if row.mix is None:
        mod = cp.RawModule(code=XOR_PAIRS, options=("-std=c++17",))
        row.mix = (dict((k, mod.get_function("pairs%d" % k)) for k in (1, 2, 4, 8)),
                   int.from_bytes(os.urandom(8), "little"))
    kernels, state = row.mix
    state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    row.mix = (kernels, state)
    draw = state >> 1
    for v in row.shuffled:
        n = v.size
        fn = kernels.get(v.dtype.itemsize)
        if fn is None:
            continue
        mask = draw & ((1 << max(1, (n - 1).bit_length())) - 1) or 1
        blocks = min((n + 255) // 256, 4096)
        fn((blocks,), (256,), (v, cp.int64(n), cp.int64(mask)))


def warm_up(row, o, ev, stream):
    """Warm-up runs until warmup_ms of GPU time; (how many, the last's ms)."""
    warm, warm_ms, last = 0, 0.0, 0.0
    while warm < 1 or (warm_ms < o["warmup_ms"] and warm_ms < o["budget_ms"] and warm < 1000):
        reset_l2(row)
        shuffle(row)
        ev[0][0].record(stream)
        call_run(row)
        ev[0][1].record(stream)
        ev[0][1].synchronize()
        refuse_tampering(row)
        refuse_l2(row)
        last = row.elapsed(ev[0][0], ev[0][1])
        warm_ms += last
        warm += 1
    return warm, last


def run_batch(row, ev, stream, flush, k, canary):
    """k repetitions' times in ms; with canary, the last is the canary."""
    reset_l2(row)
    decoy = k - 2 if canary and row.shuffled else -1
    for i in range(k):
        if canary and (i == k - 1 or i == decoy):
            pull(row)
        if not canary or i != k - 1:
            shuffle(row)
        if flush is not None:
            flush.fill(i & 0xFF)
        ev[i][0].record(stream)
        call_run(row)
        ev[i][1].record(stream)
    ev[k - 1][1].synchronize()
    refuse_tampering(row)
    refuse_l2(row)
    if canary:
        push(row)
    return [row.elapsed(ev[i][0], ev[i][1]) for i in range(k)]


def cmd_time(row, req):
    o = time_options(req)
    if row.args is None:
        raise Refused("no buffers: send open first")
    cp = row.cp
    stream = cp.cuda.Stream.null
    flush = cp.empty((o["flush_bytes"],), dtype=cp.uint8) if o["flush_bytes"] > 0 else None
    ev = [(row.Event(), row.Event()) for _ in range(max(1, o["batch"]))]
    canary_mode = o["canary"] > 0 and all(own is not None for _, own, _ in row.pairs)
    if not canary_mode:
        pull(row)
    warm, last = warm_up(row, o, ev, stream)
    est = max(3, min(int(o["budget_ms"] / last), o["max"])) if last > 0 else o["max"]
    # as gpu/timing.c picks it: never the first, whose decoy would be missing
    canary = (1 + o["canary"] % (est - 1) if est > 1 else 0) if canary_mode else -1
    times, spent, t0, ran = [], 0.0, row.clock(), -1
    while True:
        n = len(times)
        k = int(5.0 / last) if last > 0 else o["batch"]
        k = max(1, min(k, o["batch"], o["max"] - n))
        # a batch ends with the canary and holds the repetition before it
        now = n <= canary <= n + k
        if now and canary - n + 1 > o["batch"]:
            now, k = False, k - 1
        if now:
            k = canary - n + 1
        ts = run_batch(row, ev, stream, flush, k, now)
        if now:
            ran = canary
        times += ts
        spent += sum(ts)
        last = times[-1]
        wall = (row.clock() - t0) * 1e3
        if not should_stop(times, spent, wall, o):
            continue
        if canary < len(times) or len(times) >= o["max"]:
            break
        if wall >= o["wall_factor"] * o["budget_ms"]:
            canary = len(times) + 1 if len(times) + 1 < o["max"] else len(times)
    row.sync()
    if not canary_mode:
        push(row)
    return {"ok": True, "times": times, "warmups": warm, "flushed": flush is not None,
            "canary_rep": ran}


COMMANDS = {"open": cmd_open, "run": cmd_run, "time": cmd_time}


def serve(reply, stdin):
    row = Row()
    row.own = dict((k, v) for k, v in globals().items()
                   if callable(v) and getattr(v, "__module__", None) == __name__)
    row.commands = dict(COMMANDS)
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

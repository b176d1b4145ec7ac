"""A stand-in for CuPy, for testing cudalab_bridge.py without a GPU (and
without NumPy).

Only what the bridge and the test rows use: IPC handles open lists kept
under the handle's first byte, arrays are small Python objects over them,
events read the clock.  Nothing here is CuPy's behaviour beyond that.
"""
import time

__version__ = "0-fake"
MEMORY = {}            # handle's first byte -> list of values
SIZES = {"float32": 4, "float64": 8, "int32": 4, "uint32": 4, "uint8": 1, "uint16": 2}
uint8 = "uint8"


class dtype(object):
    def __init__(self, name):
        self.name = str(name)
        self.itemsize = SIZES[self.name]

    def __eq__(self, other):
        return isinstance(other, dtype) and other.name == self.name

    def __repr__(self):
        return "dtype(%r)" % self.name


class _Window(object):
    """Elements start..stop of a list, read and written in place (a slice
    of an array that shares its memory)."""

    def __init__(self, base, start, stop):
        self.base, self.start, self.stop = base, start, stop

    def __len__(self):
        return self.stop - self.start

    def __iter__(self):
        return iter(self.base[self.start:self.stop])

    def __getitem__(self, key):
        return list(self)[key]

    def __setitem__(self, key, value):
        values = list(value)
        if key != slice(None) or len(values) != len(self):
            raise ValueError("a window is written whole")
        self.base[self.start:self.stop] = values


class ndarray(object):
    def __init__(self, shape, dtype=None, memptr=None, data=None):
        self.shape = tuple(shape)
        self.dtype = globals()["dtype"](dtype)
        if data is not None:
            self.data = data
        else:
            key = memptr.mem.ptr
            self.data = MEMORY.setdefault(key, [0.0] * shape[0])

    def _values(self, other):
        if isinstance(other, ndarray):
            return other.data
        return [other] * len(self.data)

    def __setitem__(self, key, value):
        self.data[:] = list(self._values(value))

    def __getitem__(self, key):
        if not isinstance(key, slice) or not isinstance(self.data, list):
            raise TypeError("the fake slices arrays only, once")
        start, stop, _ = key.indices(len(self.data))
        return ndarray((stop - start,), self.dtype.name, data=_Window(self.data, start, stop))

    def __mul__(self, other):
        return ndarray(self.shape, self.dtype.name, data=[v * w for v, w in
                                                           zip(self.data, self._values(other))])

    __rmul__ = __mul__

    def __eq__(self, other):
        return ndarray(self.shape, "uint8", data=[v == w for v, w in
                                                  zip(self.data, self._values(other))])

    def all(self):
        return all(self.data)

    @property
    def size(self):
        return len(self.data)

    def fill(self, v):
        self.data[:] = [v] * len(self.data)


def int64(v):
    return int(v)


class _Pairs(object):
    """A kernel of the bridge's XOR_PAIRS: v[i] and v[i ^ m] exchanged."""

    def __call__(self, grid, block, args):
        v, n, m = args
        vals = list(v.data)
        for i in range(n):
            j = i ^ m
            if j < n and i < j:
                vals[i], vals[j] = vals[j], vals[i]
        v.data[:] = vals


class RawModule(object):
    def __init__(self, code=None, options=()):
        if "pairs4" not in code:
            raise ValueError("the fake compiles the bridge's XOR_PAIRS only")

    def get_function(self, name):
        return _Pairs()


def empty(shape, dtype):
    return ndarray(shape, dtype, data=[0] * shape[0])


def add(a, b, out):
    out.data[:] = [v + w for v, w in zip(a.data, b.data)]
    return out


class _Runtime(object):
    cudaIpcMemLazyEnablePeerAccess = 1

    @staticmethod
    def deviceGetByPCIBusId(pci):
        return 0

    @staticmethod
    def ipcOpenMemHandle(raw, flags):
        if len(raw) != 64:
            raise ValueError("an IPC handle has 64 bytes")
        return raw[0]

    @staticmethod
    def ipcCloseMemHandle(ptr):
        MEMORY.pop(ptr, None)

    @staticmethod
    def deviceSynchronize():
        pass


class _Device(object):
    def __init__(self, n):
        self.n = n

    def use(self):
        pass


class _Event(object):
    def __init__(self):
        self.t = 0.0

    def record(self, stream=None):
        self.t = time.perf_counter()

    def synchronize(self):
        pass


class _Stream(object):
    null = None


class UnownedMemory(object):
    def __init__(self, ptr, size, owner, device_id):
        self.ptr, self.size = ptr, size


class MemoryPointer(object):
    def __init__(self, mem, offset):
        self.mem, self.offset = mem, offset


class cuda(object):
    runtime = _Runtime
    Device = _Device
    Event = _Event
    Stream = _Stream
    UnownedMemory = UnownedMemory
    MemoryPointer = MemoryPointer

    @staticmethod
    def get_elapsed_time(a, b):
        return (b.t - a.t) * 1e3

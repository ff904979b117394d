"""GPU-less tests of cudalite.cuda's generated launch code over the driver's direct launch (the whole
launch in C, ``Launcher.bind_direct``), with the shim's ``cl_probe`` standing in for
libcuda: what it launches and records, and that everything it does not launch -- a
number of another class, an array of another type key, keywords, a wrong count, a
driver error -- goes to the generated Python launcher with the same call, and that the
launcher's reference cycle through C is collected."""

from __future__ import annotations

import gc
import importlib
import struct
import sys
import threading
import types
import weakref

import numpy as np
import pytest

from cudalite.core.abi import kernel_abi
from cudalite.driver import LaunchConfig, _shim, param_layout
from cudalite.cuda._launch.fastpath import make_factory
from cudalite.cuda._launch.keys import key_to_type
from cudalite.cuda._launch.kinds import kind_for

L = importlib.import_module("cudalite.driver.launch")
KEY = (np.dtype(np.float32), 1, "C")


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    if _shim.find_compiler() is None:
        pytest.skip("no C compiler")
    built, _was_built, reason = _shim.load_runtime_build(str(tmp_path_factory.mktemp("cache")))
    assert built is not None and built.direct is not None, reason
    return built


class Arr:
    """A device-array stand-in: the ``_type_key`` / ``_kernel_params`` contract."""

    __slots__ = ("_ptr", "_type_key", "_kernel_params", "_layout", "__weakref__")

    def __init__(self, ptr, n, key=KEY):
        self._ptr, self._layout, self._type_key, self._kernel_params = ptr, "C", key, (ptr, n)


class FixedArr(Arr):
    """Arrays whose ``_type_key``/``_kernel_params`` never change (as DeviceNDArray's)."""

    __slots__ = ()
    _kernel_params_fixed = True


class ProbeKernel:
    """A compiled-kernel stand-in (what the generated launch code reads of a
    CompiledKernel) whose checked and direct launches are the shim's, with the probe as
    the driver: ``rec`` holds the probe's record (rec[11]: its result)."""

    def __init__(self, shim, argtypes, rec):
        self.argtypes = tuple(argtypes)
        self.abi = kernel_abi(self.argtypes)
        self.device_id, self.name, self.exc_global, self.cooperative = 0, "probe", None, False
        self.shim, self.rec = shim, rec
        self.settled = []

    def _launcher(self):
        shim, f = self.shim, int(self.shim.ffi.cast("uintptr_t", self.rec))
        lau = L.Launcher.__new__(L.Launcher)
        lau.layout, lau._kind, lau._bound = param_layout(self.abi.param_format), "shim", {}
        lau._maker, lau._direct = shim.checked, shim.direct
        lau.function = types.SimpleNamespace(handle=f)
        lau._tls = tls = threading.local()
        lau._plain = (shim.lib.cl_launch, shim.lib.cl_probe_address())
        lau._ex = (shim.lib.cl_launch_ex, shim.lib.cl_probe_ex_address())
        lau._common = (f, tls, L._buffers_factory(tls, lau.layout), lau.layout.struct.pack_into,
                       L._retry_factory(0, False))
        return lau

    def bind_checked(self, cfg, checks=None):
        self.checks = checks
        return self._launcher().bind_checked(cfg, checks)

    def bind_direct(self, cfg, groups, fallback, record=None, precondition=None):
        self.groups = groups
        return self._launcher().bind_direct(cfg, groups, fallback, record, precondition)

    def settle(self, rc, launch, values, cfg):
        self.settled.append((rc, values))


def _launcher(shim, objs, rc=0):
    """(launcher, kernel, record dict, slow-path calls, probe record) for ``objs``."""
    rec = shim.ffi.new("uint64_t[16]")
    rec[11] = rc
    kinds = [kind_for(type(o), o, None) for o in objs]
    keys = [k.key(o) for k, o in zip(kinds, objs)]
    kernel = ProbeKernel(shim, [key_to_type(k) for k in keys], rec)
    slow, record = [], {}
    disp = types.SimpleNamespace(py_func=lambda: None, _launch_slow=lambda *a: slow.append(a))
    factory = make_factory(disp, [f"a{i}" for i in range(len(objs))], kinds, keys, kernel, record)
    return factory(LaunchConfig((2, 1, 1), (64, 1, 1), 0, 0x77), None), kernel, record, slow, rec


def test_arrays_and_numbers_launch_in_c(shim):
    a, b = Arr(0x1000, 64), Arr(0x2000, 32)
    launch, kernel, record, slow, rec = _launcher(shim, [a, 1.5, b, 7, True])
    assert kernel.groups == (("attrs", "_type_key", KEY, "_kernel_params", 2, None), ("value", (float, "struct")),
                             ("attrs", "_type_key", KEY, "_kernel_params", 2, None), ("value", (int, "wrap")),
                             ("value", (bool, "truth")))
    assert launch.__name__ == "direct_launch"  # the C function itself is the launcher
    assert launch(a, 2.5, b, -1, False) is None
    assert record == {0: kernel} and slow == []
    assert list(rec[0:8]) == [2, 1, 1, 64, 1, 1, 0, 0x77]


def test_what_c_does_not_launch_goes_to_the_generated_code(shim):
    a = Arr(0x1000, 64)
    launch, kernel, record, slow, rec = _launcher(shim, [a, 1.5])
    launch(a, 2)  # an int for a float parameter: another specialization, through the slow path
    assert len(slow) == 1 and slow[0][1] == (a, 2) and record == {}
    launch(Arr(0x3000, 8, (np.dtype(np.float64), 1, "C")), 1.0)  # another type key
    assert len(slow) == 2
    launch(a1=1.0, a0=a)  # keywords: the generated code binds them, and launches
    assert record == {0: kernel} and len(slow) == 2
    with pytest.raises(TypeError, match="argument"):
        launch(a)  # the count: the generated code's own error
    np_int = np.int64(3)
    launch(a, np_int)  # a NumPy integer is not a float: slow path
    assert len(slow) == 3


def test_a_driver_error_is_settled_by_the_generated_code(shim):
    a = Arr(0x1000, 64)
    launch, kernel, record, slow, rec = _launcher(shim, [a, 1.5], rc=700)
    launch(a, 2.5)
    assert kernel.settled == [(700, (0x1000, 64, 2.5))] and slow == []  # the fallback's checked launch


def test_numbers_convert_as_numba(shim):
    launch, kernel, record, slow, rec = _launcher(shim, [7])
    layout = param_layout(kernel.abi.param_format)
    assert layout.codes == ("q",) and kernel.groups == (("value", (int, "wrap")),)
    launch(2**64 + 5)  # wraps (no slow path, no error)
    assert record == {0: kernel} and slow == []
    _launch, pack = shim.checked(0, shim.lib.cl_probe_address(), 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, layout.size,
                                 ((ord("q"), 0, 8, 1, int, struct.Struct("@q").pack),), None)
    assert pack(2**64 + 5) == struct.pack("@q", 5)


def test_the_launcher_cycle_is_collected(shim):
    launch, kernel, record, slow, rec = _launcher(shim, [Arr(0x1000, 64), 1.5])
    probe = weakref.ref(kernel)
    del launch, kernel
    gc.collect()
    assert probe() is None  # generated code -> C launch -> its fallback (the generated code): collected


# -- objects with an identity cache (CuPy arrays, torch tensors): C reads the cache entry --

def _c_strides(shape, itemsize=4):
    out, acc = [], itemsize
    for n in reversed(shape):
        out.append(acc)
        acc *= n
    return tuple(reversed(out))


@pytest.fixture
def fake_libs(monkeypatch):
    """Fake ``cupy`` and ``torch`` modules with the attributes the launch kinds read;
    the CuPy array counts reads of ``data`` (only the full guard reads it) and the
    module counts ``get_current_stream()`` calls."""
    cupy = types.ModuleType("cupy")
    null = types.SimpleNamespace(ptr=0)
    calls = []

    def get_current_stream():
        calls.append(1)
        return cupy.cuda.current

    cupy.cuda = types.SimpleNamespace(Stream=types.SimpleNamespace(null=null), current=null,
                                      get_current_stream=get_current_stream, calls=calls)

    class Mem:
        device_id = 0

        def __init__(self, ptr):
            self.ptr = ptr

    class ndarray:
        __module__ = "cupy"

        def __init__(self, ptr, shape):
            self._data, self.dtype, self.shape, self.reads = Mem(ptr), np.dtype(np.float32), tuple(shape), 0

        @property
        def data(self):
            self.reads += 1
            return self._data

        ndim = property(lambda self: len(self.shape))
        strides = property(lambda self: _c_strides(self.shape))
        _c_contiguous = property(lambda self: True)
        _f_contiguous = property(lambda self: len(self.shape) < 2)

    torch = types.ModuleType("torch")
    torch.float32 = object()

    class Tensor:
        __module__ = "torch"
        is_cuda = True

        def __init__(self, ptr, shape):
            self.ptr, self.shape, self.dtype, self._version = ptr, tuple(shape), torch.float32, 0

        def data_ptr(self):
            return self.ptr

        def dim(self):
            return len(self.shape)

        def stride(self):
            return tuple(s // 4 for s in _c_strides(self.shape))

        def is_contiguous(self):
            return True

        def get_device(self):
            return 0

    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setitem(sys.modules, "torch", torch)
    return cupy, ndarray, Tensor


def _values(rec, n):
    return list(rec[13:13 + n])


def test_cupy_arrays_launch_in_c_from_the_identity_cache(shim, fake_libs):
    cupy, ndarray, _ = fake_libs
    a = ndarray(0x1000, (64,))
    launch, kernel, record, slow, rec = _launcher(shim, [a, 1.5])
    assert kernel.groups[0][0] == "cached" and kernel.groups[0][2:] == ("_CL_M0", (("ndim", False, 1),), 2)
    rec[12] = 16  # the probe copies the first 16 bytes of the parameters: data pointer, extent
    a.reads = 0  # (recognising the kind read it)
    launch(a, 2.5)  # a new object: the generated code (full guard) launches and caches it
    assert a.reads == 1 and record == {0: kernel} and _values(rec, 2) == [0x1000, 64]
    rec[13] = rec[14] = 0
    launch(a, 2.5)  # the same object: C, from the cache entry (no .data read)
    assert a.reads == 1 and _values(rec, 2) == [0x1000, 64] and slow == []
    b = ndarray(0x2000, (32,))
    launch(b, 1.0)
    launch(b, 1.0)
    assert b.reads == 1 and _values(rec, 2) == [0x2000, 32]
    launch(a, 1.0)  # back to a: its entry was replaced by b's, so the guard again
    assert a.reads == 2 and _values(rec, 2) == [0x1000, 64]
    # CuPy on another stream object: C hands the call to the generated code, which orders
    # the launch (CuPy's get_current_stream called by both)
    cupy.cuda.current = types.SimpleNamespace(ptr=0)
    del cupy.cuda.calls[:]
    launch(a, 1.0)
    assert cupy.cuda.calls == [1, 1] and a.reads == 2 and _values(rec, 2) == [0x1000, 64]
    cupy.cuda.current = cupy.cuda.Stream.null
    del cupy.cuda.calls[:]
    launch(a, 1.0)
    assert cupy.cuda.calls == [1]


def test_a_reshaped_cupy_array_is_not_taken_from_the_cache(shim, fake_libs):
    _cupy, ndarray, _ = fake_libs
    a = ndarray(0x1000, (4, 16))
    launch, kernel, record, slow, rec = _launcher(shim, [a])
    assert kernel.groups[0][3] == (("shape", False, 1),)
    rec[12], a.reads = 24, 0
    launch(a)
    launch(a)
    assert a.reads == 1 and _values(rec, 3) == [0x1000, 4, 16]
    a.shape = (8, 8)  # CuPy's in-place reshape: same object, other values
    launch(a)
    assert a.reads == 2 and _values(rec, 3) == [0x1000, 8, 8]
    launch(a)
    assert a.reads == 2 and _values(rec, 3) == [0x1000, 8, 8]


def test_torch_tensors_launch_in_c_from_the_identity_cache(shim, fake_libs):
    _cupy, _ndarray, Tensor = fake_libs
    t = Tensor(0x3000, (16,))
    launch, kernel, record, slow, rec = _launcher(shim, [t, 7])
    # the class's data_ptr, called with the tensor (no bound method per launch)
    assert kernel.groups[0][2:] == ("_CL_M0", (("_version", False, 1), (Tensor.data_ptr, True, 2)), 2)
    rec[12] = 16
    launch(t, 1)
    launch(t, 1)
    assert _values(rec, 2) == [0x3000, 16]
    t.shape, t._version = (8,), 1  # resize_: the version changes
    launch(t, 1)
    assert _values(rec, 2) == [0x3000, 8]
    t.ptr, t.shape = 0x4000, (4,)  # `t.data = other`: no version bump, another pointer
    launch(t, 1)
    assert _values(rec, 2) == [0x4000, 4] and slow == []
    u = Tensor(0x5000, (4,))
    u.dtype = object()  # another dtype: C and the generated guard miss, the slow path
    launch(u, 1)
    assert len(slow) == 1


def test_a_cache_entry_of_another_shape_is_refused(shim, fake_libs):
    """A cached group whose entry is not (object, fields..., n values) falls back."""
    _cupy, ndarray, _ = fake_libs
    a = ndarray(0x1000, (64,))
    launch, kernel, record, slow, rec = _launcher(shim, [a])
    holder = kernel.groups[0][1]
    rec[12] = 16
    launch(a)
    rec[13] = 0
    holder["_CL_M0"] = (a, 1)  # too short: C must not read past it, and does not launch
    with pytest.raises(ValueError, match="unpack"):
        launch(a)  # the generated code then fails to unpack it: its own error
    assert rec[13] == 0


def test_arrays_of_a_fixed_class_keep_their_values_in_c(shim):
    """C keeps the converted values of the last two arrays of a class declaring
    ``_kernel_params_fixed``: they launch without reading the attributes again, a third
    array replaces the older one, and nothing is kept alive."""
    a, b, c = FixedArr(0x1000, 64), FixedArr(0x2000, 32), FixedArr(0x3000, 16)
    launch, kernel, record, slow, rec = _launcher(shim, [a, b])
    assert kernel.groups[0] == ("attrs", "_type_key", KEY, "_kernel_params", 2, FixedArr)
    rec[12] = 16
    launch(a, b)
    launch(b, a)  # each position has now seen both
    # the attributes are read no more for a and b (changed behind C's back here, to show it:
    # the class promised they never change)
    a._kernel_params = b._kernel_params = (0xBAD, 0)
    for first, second, want in ((a, b, 0x1000), (b, a, 0x2000), (a, a, 0x1000)):
        launch(first, second)
        assert _values(rec, 2) == [want, {0x1000: 64, 0x2000: 32}[want]]
    launch(c, b)  # c replaces the older of a and b at position 0 (a, seen first there)
    assert _values(rec, 2) == [0x3000, 16]
    launch(b, b)
    assert _values(rec, 2) == [0x2000, 32]
    launch(a, b)  # a was replaced: its attributes are read again
    assert _values(rec, 2) == [0xBAD, 0] and slow == []
    probe = weakref.ref(c)
    del c
    gc.collect()
    assert probe() is None  # weak references only
    d = FixedArr(0x4000, 8)
    launch(d, b)
    assert _values(rec, 2) == [0x4000, 8]


def test_a_subclass_of_a_fixed_class_is_not_kept(shim):
    class Sub(FixedArr):
        __slots__ = ()

    a = Sub(0x1000, 64)
    launch, kernel, record, slow, rec = _launcher(shim, [a])
    assert kernel.groups[0][5] is None  # the class must declare it itself
    rec[12] = 16
    launch(a)
    a._kernel_params = (0x5000, 4)
    launch(a)
    assert _values(rec, 2) == [0x5000, 4]


# -- the kept buffer: numbers that are the very objects of the last launch convert no more --

def _doubles(rec, n):
    return list(struct.unpack(f"@{n}d", struct.pack(f"@{n}Q", *rec[13:13 + n])))


def test_numbers_of_the_last_launch_are_not_converted_again(shim):
    """C leaves the converted numbers in its kept buffer: the same int/float/bool object
    at a position launches with the bytes already there; any other object is converted
    (equal values included), and the kept object is the only reference C holds."""
    launch, kernel, record, slow, rec = _launcher(shim, [1.5, 2.5, 3.5])
    rec[12] = 24
    x, y, z = float("1.25"), float("-2e300"), float("0.5")
    launch(x, y, z)
    assert _doubles(rec, 3) == [1.25, -2e300, 0.5]
    launch(x, y, z)
    assert _doubles(rec, 3) == [1.25, -2e300, 0.5]
    launch(z, y, x)  # the same objects at other positions: converted
    assert _doubles(rec, 3) == [0.5, -2e300, 1.25]
    w = float("7.75")
    before = sys.getrefcount(w)
    launch(w, y, 0.125)
    assert _doubles(rec, 3) == [7.75, -2e300, 0.125]
    assert sys.getrefcount(w) == before + 1  # kept: C's one reference
    launch(1.0, y, 0.125)
    assert sys.getrefcount(w) == before and _doubles(rec, 3) == [1.0, -2e300, 0.125]
    assert slow == [] and record == {0: kernel}


def test_kept_ints_and_bools_follow_their_conversions(shim):
    launch, kernel, record, slow, rec = _launcher(shim, [7, True])
    rec[12] = 16
    big = 2**64 + 5
    launch(big, True)
    assert list(rec[13:15]) == [5, 1]
    launch(big, True)
    assert list(rec[13:15]) == [5, 1]
    launch(-1, False)
    assert list(rec[13:15]) == [2**64 - 1, 0]
    launch(1.5, False)  # a float for an int: C does not launch it, the slow path does
    assert len(slow) == 1
    launch(-1, False)  # the kept bytes were not touched by the refused call
    assert list(rec[13:15]) == [2**64 - 1, 0] and len(slow) == 1


def test_a_launch_made_while_the_kept_buffer_is_in_use_does_not_touch_it(shim):
    """Python code run by a check (here: an array's ``_type_key`` property) that launches
    the same kernel again gets a buffer of its own: the outer launch's values already in
    the kept buffer stay its own."""

    class Hooked:
        """A device-array stand-in whose key read runs a hook once."""

        def __init__(self, ptr, n):
            self.ptr, self.n, self.hook = ptr, n, None

        @property
        def _type_key(self):
            hook, self.hook = self.hook, None
            if hook is not None:
                hook()
            return KEY

        _kernel_params = property(lambda self: (self.ptr, self.n))

    a, b, c = Arr(0x1000, 64), Hooked(0x2000, 32), Arr(0x3000, 16)
    launch, kernel, record, slow, rec = _launcher(shim, [a, b])
    rec[12] = 24
    inner = []

    def hook():
        launch(c, c)  # a launch inside the outer one, before the outer's second group is read
        inner.append(list(rec[13:16]))

    b.hook = hook
    launch(a, b)
    assert inner == [[0x3000, 16, 0x3000]]
    assert list(rec[13:16]) == [0x1000, 64, 0x2000] and slow == []
    launch(a, b)
    assert list(rec[13:16]) == [0x1000, 64, 0x2000]


# -- cuda.core Buffers and StridedMemoryViews: identity cache entries C reads --

def _core_class(name, module, **attrs):
    """A class named like cuda.core's ``name`` (the kinds recognise them by module and name)."""
    return type(name, (), {"__module__": module, **attrs})


def test_cuda_core_buffers_launch_in_c_from_the_identity_cache(shim):
    Buffer = _core_class("Buffer", "cuda.core._memory._buffer", device_id=0)
    a, b = Buffer(), Buffer()
    a.handle, a.size, b.handle, b.size = 0x1000, 256, 0x2000, 64
    launch, kernel, record, slow, rec = _launcher(shim, [a, b])
    assert kernel.groups == (("cached", kernel.groups[0][1], "_CL_M0", (("handle", False, 1),), 2),
                             ("cached", kernel.groups[0][1], "_CL_M1", (("handle", False, 1),), 2))
    assert launch.__name__ == "direct_launch"
    rec[12] = 24
    launch(a, b)  # new objects: the generated code launches and stores the entries
    holder = kernel.groups[0][1]
    assert holder["_CL_M0"] == (a, 0x1000, 0x1000, 256) and list(rec[13:16]) == [0x1000, 256, 0x2000]
    rec[13] = rec[14] = rec[15] = 0
    launch(a, b)  # C, from the entries
    assert list(rec[13:16]) == [0x1000, 256, 0x2000] and slow == []
    a.handle = 0  # closed: another handle, the entry is not used
    launch(a, b)
    assert list(rec[13:16]) == [0, 256, 0x2000] and holder["_CL_M0"][1:] == (0, 0, 256)
    launch(b, a)
    assert list(rec[13:16]) == [0x2000, 64, 0] and slow == []


def test_cuda_core_views_launch_in_c_from_the_identity_cache(shim):
    View = _core_class("StridedMemoryView", "cuda.core.utils", device_id=0, is_device_accessible=True)
    v = View()
    v.ptr, v.shape, v.strides, v.dtype = 0x3000, (4, 8), (16, 1), np.dtype(np.float32)  # strides: elements
    launch, kernel, record, slow, rec = _launcher(shim, [v])
    assert kernel.groups[0][3] == (("ptr", False, 1),) and launch.__name__ == "direct_launch"
    rec[12] = 24
    launch(v)
    launch(v)
    assert list(rec[13:16]) == [0x3000, 4, 8] and slow == []
    v.ptr = 0x4000  # (a view's pointer never changes; a look-alike's can: the entry is not used)
    launch(v)
    assert list(rec[13:16]) == [0x4000, 4, 8] and slow == []


def test_cached_checks_by_attribute_or_function(shim):
    """A cached group's check reads an attribute (called when ``call``) or, given a
    callable and ``call`` true, calls it with the object; anything else is refused when
    the launch is made."""

    class Obj:
        def __init__(self, ptr):
            self.ptr = ptr

        def where(self):
            return self.ptr

    rec = shim.ffi.new("uint64_t[16]")
    kernel = ProbeKernel(shim, [key_to_type(KEY)], rec)
    cfg = LaunchConfig((1, 1, 1), (1, 1, 1), 0, 0)
    o, holder, fell = Obj(0x1000), {}, []
    holder["M"] = (o, 0x1000, 0x1000, 64)
    for check in (("ptr", False, 1), ("where", True, 1), (Obj.where, True, 1), (lambda a: a.ptr, True, 1)):
        launch = kernel._launcher().bind_direct(cfg, [("cached", holder, "M", (check,), 2)],
                                                lambda *a: fell.append(a))
        rec[12], rec[13] = 16, 0
        launch(o)
        assert fell == [] and list(rec[13:15]) == [0x1000, 64], check
        o.ptr = 0x2000  # the check now differs: the fallback gets the call
        launch(o)
        assert fell == [(o,)], check
        o.ptr, fell[:] = 0x1000, []
    # C keeps the converted values of the entry it launched last: another entry (a new tuple)
    # for the same object is converted, and so is the first one again
    launch = kernel._launcher().bind_direct(cfg, [("cached", holder, "M", (("ptr", False, 1),), 2)], print)
    first = holder["M"]
    for entry, want in ((first, 64), (first, 64), ((o, 0x1000, 0x1000, 32), 32), (first, 64)):
        holder["M"] = entry
        rec[13] = rec[14] = 0
        launch(o)
        assert list(rec[13:15]) == [0x1000, want]
    for bad, message in (((Obj.where, False, 1), r"argument 0: a cached group's check is \(attribute name"),
                         ((7, True, 1), r"argument 0: a cached group's check is .* not \(7, True, \.\.\.\)"),
                         (("ptr", False, 0), "direct launch: bad argument group 0")):  # (index 0: the object)
        with pytest.raises(ValueError, match=message):
            kernel._launcher().bind_direct(cfg, [("cached", holder, "M", (bad,), 2)], print)

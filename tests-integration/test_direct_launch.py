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

    def bind_direct(self, cfg, groups, fallback, record=None):
        self.groups = groups
        return self._launcher().bind_direct(cfg, groups, fallback, record)

    def settle(self, rc, launch, values, cfg):
        self.settled.append((rc, values))


def _launcher(shim, objs, rc=0):
    """(launcher, kernel, record dict, slow-path calls, probe record) for ``objs``."""
    rec = shim.ffi.new("uint64_t[12]")
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
    assert kernel.groups == (("attrs", "_type_key", KEY, "_kernel_params", 2), ("value", (float, "struct")),
                             ("attrs", "_type_key", KEY, "_kernel_params", 2), ("value", (int, "wrap")),
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

"""GPU-less tests of the checked launch (``Launcher.bind_checked``, :mod:`cudalite.driver.checked`):
the shim's C function against ``struct`` and the reference definition (Hypothesis), its
class checks, conversions, heap buffer, configuration and reference counts with the
``cl_probe`` stand-ins for libcuda; and the generated Python of the other backends
under the same contract (None / False / the CUresult, ``settle``)."""

from __future__ import annotations

import ctypes
import gc
import importlib
import struct
import threading
import types
import weakref

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cudalite.driver import CudaDriverError, LaunchConfig, _shim, param_layout
from cudalite.driver.checked import reference, slot_table
from cudalite.driver.config import Config

L = importlib.import_module("cudalite.driver.launch")  # the module (the package exports a function of that name)

needs_cc = pytest.mark.skipif(_shim.find_compiler() is None, reason="no C compiler")
CODES = "bBhHiIlLqQnNfd?Pe"


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    if _shim.find_compiler() is None:
        pytest.skip("no C compiler")
    built, _was_built, reason = _shim.load_runtime_build(str(tmp_path_factory.mktemp("cache")))
    assert built is not None, reason
    assert built.checked is not None
    return built


def _rec(shim, rc=0):
    rec = shim.ffi.new("uint64_t[16]")
    rec[11] = rc
    return rec, int(shim.ffi.cast("uintptr_t", rec))


def _make(shim, fmt, checks=None, rc=0):
    """(launch, pack, rec) of a checked launch of ``fmt`` through the probe."""
    rec, f = _rec(shim, rc)
    layout = param_layout(fmt)
    launch, pack = shim.checked(0, shim.lib.cl_probe_address(), f, 2, 3, 4, 32, 1, 1, 64, 7, 0, layout.size,
                                slot_table(layout, checks), None)
    return launch, pack, rec


def _outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except Exception as exc:  # the exact exception is the contract: type and message
        return type(exc), str(exc)


values = st.one_of(st.integers(min_value=-(2**70), max_value=2**70), st.floats(), st.booleans(),
                   st.sampled_from([None, b"ab", "x", 2**64, -(2**63) - 1, 1e300, -1e39, 3.4e38]))


@needs_cc
@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([*CODES, "3s"]), values), max_size=12))
def test_pack_is_struct_pack_results_and_errors(shim, items):
    fmt = "".join(c for c, _ in items)
    vals = [v for _, v in items]
    _launch, pack, _rec = _make(shim, fmt)
    assert _outcome(pack, *vals) == _outcome(struct.Struct("@" + fmt).pack, *vals)


@needs_cc
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("bBhHiIlLqQnNP?"), st.sampled_from(["wrap", "truth"]),
                          st.one_of(st.integers(min_value=-(2**80), max_value=2**80), st.booleans())),
                max_size=10))
def test_wrap_and_truth_are_the_reference(shim, items):
    items = [(c, "truth" if c == "?" else mode, v) for c, mode, v in items]  # '?' takes no wrap
    fmt = "".join(c for c, _, _ in items)
    checks = [(None, mode) for _, mode, _ in items]
    vals = [v for _, _, v in items]
    _launch, pack, _rec = _make(shim, fmt, checks)
    assert pack(*vals) == struct.pack("@" + fmt, *reference(param_layout(fmt), checks, vals))


@needs_cc
def test_wrap_is_numbas_modular_conversion(shim):
    _launch, pack, _rec = _make(shim, "iBq", [(int, "wrap"), (int, "wrap"), (int, "wrap")])
    assert struct.unpack("@iBq", pack(0xFFFFFFFF, -1, 2**64 + 5)) == (-1, 255, 5)
    np = pytest.importorskip("numpy")
    _launch, pack, _rec = _make(shim, "h?", [(np.int64, "wrap"), (np.bool_, "truth")])
    assert struct.unpack("@h?", pack(np.int64(70000), np.bool_(True))) == (70000 - 65536, True)


@needs_cc
def test_a_value_of_another_class_launches_nothing(shim):
    launch, pack, rec = _make(shim, "Qdi", [(int, "struct"), (float, "struct"), None], rc=0)
    assert launch(1, 2, "not even a number") is False  # the class check comes before any conversion
    assert pack(1, 2.0 + 0j, 3) is False
    assert list(rec[0:11]) == [0] * 11  # the probe never ran
    assert launch(1, 2.0, 3) is None and list(rec[0:7]) == [2, 3, 4, 32, 1, 1, 64] and rec[7] == 7


@needs_cc
def test_driver_errors_come_back_as_the_cuResult(shim):
    launch, _pack, _rec = _make(shim, "Q", rc=700)
    assert launch(5) == 700


@needs_cc
def test_conversion_errors_are_structs_and_launch_nothing(shim):
    launch, pack, rec = _make(shim, "Bf")
    with pytest.raises(struct.error, match="format requires 0 <= number <= 255"):
        launch(256, 1.0)
    with pytest.raises(struct.error, match="required argument is not a float"):
        launch(1, "1.0")
    assert rec[0] == 0
    assert struct.unpack("@Bf", pack(1, 1e300))[1] == float("inf")  # native struct: C's conversion
    with pytest.raises(TypeError, match=r"takes 2 parameter values \(1 given\)"):
        launch(1)


@needs_cc
def test_buffers_above_the_stack_limit_use_the_heap(shim):
    fmt = "d" * 700 + "B"  # 5.6 KiB, 701 slots: over both stack limits
    vals = [float(i) * 0.5 for i in range(700)] + [9]
    launch, pack, rec = _make(shim, fmt)
    assert pack(*vals) == struct.pack("@" + fmt, *vals)
    assert launch(*vals) is None and rec[8] != 0


@needs_cc
def test_references_are_kept_and_released(shim):
    class Marker(float):
        pass

    probe = weakref.ref(Marker)
    value = Marker(1.5)
    launch, pack, _rec = _make(shim, "dd", [(Marker, "struct"), None])
    before = ctypes.c_ssize_t.from_address(id(value)).value
    for _ in range(1000):
        assert launch(value, value) is None
        assert pack(value, 2.5) == struct.pack("@dd", 1.5, 2.5)
    assert ctypes.c_ssize_t.from_address(id(value)).value == before  # no reference leaked per call
    del launch, pack, value, Marker
    gc.collect()
    assert probe() is None  # the slot's class reference went with the last function


@needs_cc
def test_bind_checked_through_the_launcher(shim):
    rec, f = _rec(shim)
    lau = L.Launcher.__new__(L.Launcher)
    lau.layout, lau._kind, lau._bound, lau._maker = param_layout("Qf"), "shim", {}, shim.checked
    lau.function = types.SimpleNamespace(handle=f)
    lau._tls = tls = threading.local()
    lau._plain = (shim.lib.cl_launch, shim.lib.cl_probe_address())
    lau._ex = (shim.lib.cl_launch_ex, shim.lib.cl_probe_ex_address())
    lau._common = (f, tls, L._buffers_factory(tls, lau.layout), lau.layout.struct.pack_into,
                   L._retry_factory(0, False))
    launch = lau.bind_checked(LaunchConfig((5, 1, 1), (64, 2, 1), 32, 0x77), [(int, "struct"), None])
    assert launch(0x1000, 2.5) is None
    assert list(rec[0:8]) == [5, 1, 1, 64, 2, 1, 32, 0x77]
    ex = lau.bind_checked(LaunchConfig((6, 1, 1), (32, 1, 1), cooperative=True))
    assert ex(0x1000, 2.5) is None
    assert rec[1] == 6 and rec[2] != 0  # the prepared CUlaunchConfig's gridDimX, and params
    with pytest.raises(ValueError, match="conversion 'wrap' needs an integer parameter, not 'f'"):
        lau.bind_checked(LaunchConfig((1, 1, 1), (1, 1, 1)), [None, (float, "wrap")])
    with pytest.raises(ValueError, match="checks has 1 entries for 2 parameters"):
        lau.bind_checked(LaunchConfig((1, 1, 1), (1, 1, 1)), [None])


# -- the generated Python of the other backends ----------------------------------------------
class _Entry:
    """A native driver entry point (cffi/ctypes backends): records the parameter
    values it was given, returns ``results`` in turn."""

    def __init__(self, fmt, results):
        self.layout, self.results, self.calls = param_layout(fmt), list(results), []

    def __call__(self, *args):
        params = args[9]
        self.calls.append(tuple(
            struct.unpack("@" + code, ctypes.string_at(ctypes.c_void_p.from_address(params + 8 * i).value, size))[0]
            for i, (code, size) in enumerate(zip(self.layout.codes, self.layout.sizes))))
        return self.results.pop(0) if len(self.results) > 1 else self.results[0]


def _python_launcher(monkeypatch, fmt, results=(0,)):
    entry = _Entry(fmt, results)
    lib = types.SimpleNamespace(cuLaunchKernel=entry, cuLaunchKernelEx=entry)
    driver = types.SimpleNamespace(config=Config(launch_backend="cffi"), native=lambda backend: lib,
                                   current=lambda: 0)
    monkeypatch.setattr(L, "get_driver", lambda: driver)
    function = types.SimpleNamespace(handle=0xF00D, _cu=None, device_id=0, name="fake")
    return L.Launcher(function, fmt, backend="cffi"), entry


@pytest.mark.parametrize("fmt, checks, vals", [
    ("iBq", [(int, "wrap"), (int, "wrap"), (None, "wrap")], (0xFFFFFFFF, -1, 2**64 + 5)),
    ("?hd", [(bool, "truth"), (None, "truth"), (float, "struct")], (True, 0, 2.5)),
    ("Qf", None, (0x1234, 1.5)),
])
def test_python_checked_launch_is_the_reference(monkeypatch, fmt, checks, vals):
    lau, entry = _python_launcher(monkeypatch, fmt)
    launch = lau.bind_checked(LaunchConfig((1, 1, 1), (1, 1, 1)), checks)
    assert launch(*vals) is None
    expected = struct.unpack("@" + fmt, struct.pack("@" + fmt, *reference(lau.layout, checks, vals)))
    assert entry.calls == [expected]


def test_python_checked_launch_class_miss_and_errors(monkeypatch):
    lau, entry = _python_launcher(monkeypatch, "Qd", results=(1,))
    cfg = LaunchConfig((1, 1, 1), (1, 1, 1))
    launch = lau.bind_checked(cfg, [(int, "struct"), (float, "struct")])
    assert launch(1, 2) is False and entry.calls == []
    rc = launch(1, 2.0)
    assert rc == 1
    with pytest.raises(CudaDriverError) as info:
        lau.settle(rc, launch, (1, 2.0), cfg)
    assert info.value.call == "cuLaunchKernel" and info.value.name == "CUDA_ERROR_INVALID_VALUE"


def test_settle_retries_a_launch_refused_for_want_of_a_context(monkeypatch):
    lau, entry = _python_launcher(monkeypatch, "Q", results=(201, 0))
    cfg = LaunchConfig((1, 1, 1), (1, 1, 1))
    launch = lau.bind_checked(cfg)
    rc = launch(7)
    assert rc == 201
    lau.settle(rc, launch, (7,), cfg)  # the thread's own device: launched again, once
    assert entry.calls == [(7,), (7,)]

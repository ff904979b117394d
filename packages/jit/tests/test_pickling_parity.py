"""GPU-less tests of the configured launch ``kernel[griddim, blockdim, ...]``
(:class:`cudalite.cuda._dispatch.configured.ConfiguredLaunch`): it pickles (numba's
``_LaunchConfiguration`` does), keeps its configuration through pickling, and runs
numba's ``pre_launch_callbacks`` before each launch through it (a fake compiled
kernel records the launches)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from _fake_arrays import FakeKernel
from cudalite import cuda
from cudalite.cuda._dispatch.configured import ConfiguredLaunch

pytestmark = pytest.mark.filterwarnings("ignore::cudalite.core.errors.NumbaPerformanceWarning")  # small grids


class FakeDeviceArray:
    """A stand-in following the DeviceNDArray kernel-argument contract (no memory)."""

    def __init__(self, ptr, shape, dtype=np.float32):
        self._ptr, self._layout = ptr, "C"
        self._type_key = (np.dtype(dtype), len(shape), "C")
        self._kernel_params = (ptr, *shape)


def add_one(a, x):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += x


@pytest.fixture
def kern(monkeypatch):
    """A kernel compiled by a fake compiler (``k.calls``: the launches' flattened values)."""
    import cudalite.cuda._dispatch.kernel as D

    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    calls, compiled = [], []

    def compiler(pyfunc, argtypes, opts, cc):
        compiled.append(argtypes)
        return FakeKernel(argtypes, calls, full=True)

    k = cuda.jit(add_one)
    k._compiler = compiler
    k.calls, k.compiled = calls, compiled
    return k


def _local_kernel():
    @cuda.jit
    def foo(arr):
        arr[0] += 1

    return foo


def test_configured_launch_pickles_with_its_configuration():
    """numba's check_call: ``pickle.loads(pickle.dumps(foo[5, 8]))`` has griddim (5, 1, 1)
    and blockdim (8, 1, 1), for a kernel pickled by value (a local function)."""
    foo = _local_kernel()
    for cfg in (foo[5, 8], foo[(5, 2), [8, 4]], foo[5, 8, 0, 256], foo.configure(3, 4)):
        again = pickle.loads(pickle.dumps(cfg))
        assert type(again) is ConfiguredLaunch
        assert (again.griddim, again.blockdim, again.sharedmem, again.stream) == (
            cfg.griddim, cfg.blockdim, cfg.sharedmem, 0)
        assert again.config == cfg.config
        assert again.dispatcher is not foo and again.dispatcher.py_func.__qualname__ == foo.py_func.__qualname__
        assert copy.copy(cfg).griddim == cfg.griddim
    cfg = pickle.loads(pickle.dumps(foo[5, 8]))
    assert (cfg.griddim, cfg.blockdim) == ((5, 1, 1), (8, 1, 1))
    # the dispatcher travels once: two configured launches of one kernel share it after loading
    a, b = pickle.loads(pickle.dumps((foo[5, 8], foo[2, 4])))
    assert a.dispatcher is b.dispatcher


def test_configured_launch_of_a_module_kernel_names_it(tmp_path, monkeypatch):
    (tmp_path / "cl_cfg_mod.py").write_text("from cudalite import cuda\n\n@cuda.jit\ndef kern(r):\n    r[0] = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import cl_cfg_mod

    cfg = pickle.loads(pickle.dumps(cl_cfg_mod.kern[256, 32]))
    assert cfg.dispatcher is cl_cfg_mod.kern
    assert cfg is cl_cfg_mod.kern[(256, 1, 1), (32, 1, 1)]  # configured through the kernel's own table


def test_pickling_refuses_callbacks_and_process_streams(kern):
    cfg = kern[128, 32]
    assert cfg.pre_launch_callbacks == []
    pickle.dumps(cfg)  # an empty list is no obstacle
    cfg.pre_launch_callbacks.append(lambda kernel, launch: None)
    with pytest.raises(pickle.PicklingError,
                       match="^Cannot pickle configured launches with pre-launch callbacks .*add_one"):
        pickle.dumps(cfg)

    class Stream:
        handle = 0x5000  # a stream this process made

    with pytest.raises(pickle.PicklingError, match="add_one on stream .*belongs to the process"):
        pickle.dumps(kern[128, 32, Stream()])
    for default in (1, 2):  # CU_STREAM_LEGACY, CU_STREAM_PER_THREAD: valid in every process
        assert pickle.loads(pickle.dumps(kern[128, 32, default])).config.stream == default


def test_malformed_configured_launch_pickle_is_refused():
    from cudalite.cuda._dispatch.pickling import _configured_launch

    with pytest.raises(pickle.UnpicklingError, match="malformed .*configured launch of a int"):
        _configured_launch(3, (1, 1, 1), (1, 1, 1), 0, 0)


def test_pre_launch_callbacks_run_before_each_launch_in_order(kern):
    events = []
    cfg = kern[128, 32]
    a = FakeDeviceArray(0x10, (8,))
    cfg(a, 1.0)  # compiled and launched without callbacks (the slow path)
    assert len(kern.calls) == 1
    cfg.pre_launch_callbacks.append(lambda k, c: events.append(("first", k, c, len(kern.calls))))
    cfg.pre_launch_callbacks.append(lambda k, c: events.append(("second", k, c, len(kern.calls))))
    cfg(a, 2.0)
    kernel = next(iter(kern.overloads.values()))
    assert events == [("first", kernel, cfg, 1), ("second", kernel, cfg, 1)]  # before the launch
    assert kern.calls[-1] == ((128, 1, 1), (32, 1, 1), 0, 0, 0x10, 8, 2.0)
    events.clear()
    cfg(a, 3.0)  # every launch through it
    assert [e[0] for e in events] == ["first", "second"] and len(kern.calls) == 3
    # numba's kernel[...] is a new object: a callback never runs for another one
    other = kern[128, 32]
    assert other is not cfg and kern[128, 32] is other
    assert other.pre_launch_callbacks == []
    events.clear()
    other(a, 4.0)
    assert events == [] and kern.calls[-1][-1] == 4.0
    cfg.pre_launch_callbacks.clear()  # emptied: launches go on without them
    cfg(a, 5.0)
    assert events == [] and kern.calls[-1][-1] == 5.0


def test_callbacks_leave_the_kept_configured_launch(kern):
    """A fast configured launch that the dispatcher keeps: reading its callback list
    takes it out of the table (numba makes a new object per kernel[...]), and the
    object keeps launching on the fast path with its callbacks run first."""
    a = FakeDeviceArray(0x10, (8,))
    kern[128, 32](a, 1.0)
    cfg = kern[128, 32]  # the generated fast launcher for these argument types
    assert kern[128, 32] is cfg
    selections = []  # the slow path selects the kernel again; the callback wrapper once per launch
    real = kern._kernel_for
    kern._kernel_for = lambda keys: (selections.append(keys), real(keys))[1]
    seen = []
    cfg.pre_launch_callbacks.append(lambda k, c: seen.append(c))
    fresh = kern[128, 32]
    assert fresh is not cfg and fresh.pre_launch_callbacks == []
    cfg(a, 2.0)
    fresh(a, 3.0)
    assert seen == [cfg] and [c[-1] for c in kern.calls] == [1.0, 2.0, 3.0]
    assert len(selections) == 1  # the callbacks' kernel: both launches on the fast path


def test_pre_launch_callback_gets_the_kernel_of_a_new_specialization(kern):
    """The first launch of new argument types: the callback gets the kernel compiled for
    them (before the launch), once, and the launch happens once."""
    seen = []
    cfg = kern[1, 32]
    cfg.pre_launch_callbacks.append(lambda k, c: seen.append((k.argtypes, len(kern.calls))))
    cfg(FakeDeviceArray(0x10, (8,)), 1.0)
    cfg(FakeDeviceArray(0x10, (8,)), 1)  # an int: another specialization
    assert [str(t) for t, _ in seen] == [str(kern.compiled[0]), str(kern.compiled[1])]
    assert [n for _, n in seen] == [0, 1] and len(kern.calls) == 2
    assert len(kern.compiled) == 2


def test_pre_launch_callback_error_stops_the_launch(kern):
    cfg = kern[1, 32]

    def refuse(kernel, launch):
        raise RuntimeError("not now")

    cfg.pre_launch_callbacks.append(refuse)
    with pytest.raises(RuntimeError, match="not now"):
        cfg(FakeDeviceArray(0x10, (8,)), 1.0)
    assert kern.calls == []
    with pytest.raises(TypeError, match="takes 2 arguments"):  # a wrong call is reported as without callbacks
        cfg(FakeDeviceArray(0x10, (8,)))


def test_configured_launch_attributes_and_repr(kern):
    class Stream:
        handle = 0

    s = Stream()
    cfg = kern[5, (8, 2), s, 64]
    assert (cfg.griddim, cfg.blockdim, cfg.stream, cfg.sharedmem) == ((5, 1, 1), (8, 2, 1), s, 64)
    assert cfg.dispatcher is kern and kern[5, (8, 2), s, 64] is cfg  # kept: one dict lookup per kernel[...]
    assert repr(cfg) == (f"<configured launch of add_one: griddim=(5, 1, 1), blockdim=(8, 2, 1), "
                         f"stream={s!r}, sharedmem=64>")

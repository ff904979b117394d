"""Objects exporting the buffer protocol as kernel arguments (``HostBufferKind``, the
worked example of adding an argument kind in docs/architecture.md): typed as the NumPy
array NumPy reads through the buffer, copied in, and back unless read-only (GPU-less:
a fake device copy)."""

import array
import ctypes
import warnings

import numpy as np
import pytest

from cudalite import cuda
from cudalite.core.errors import NumbaPerformanceWarning
from cudalite.cuda._launch import host
from cudalite.cuda._launch.host import HostArrayKind, HostBufferKind
from cudalite.cuda._launch.keys import key_to_type
from cudalite.cuda._launch.kinds import kind_for
from cudalite.types import Array, float32, float64, int32, uint8

from _fake_arrays import FakeKernel


def _kind(x):
    return kind_for(type(x), x, None)


@pytest.mark.parametrize("obj, t", [
    (array.array("f", [1, 2, 3]), Array(float32, 1, "C")),
    (array.array("d", [1.5]), Array(float64, 1, "C")),
    (array.array("i", [1, 2]), Array(int32, 1, "C")),
    (bytearray(b"abc"), Array(uint8, 1, "C")),
    (b"xyz", Array(uint8, 1, "C")),
    (memoryview(np.zeros((3, 4), np.float32)), Array(float32, 2, "C")),
    (memoryview(np.zeros((3, 4), np.float32)[:, ::2]), Array(float32, 2, "A")),
    ((ctypes.c_double * 4)(), Array(float64, 1, "C")),
])
def test_buffer_kind_and_type_are_the_numpy_views(obj, t):
    k = _kind(obj)
    assert isinstance(k, HostBufferKind) and k.needs_copy(obj) and k.warns_copy(obj)
    assert key_to_type(k.key(obj)) == t
    assert k.key(obj) == HostArrayKind().key(np.asarray(memoryview(obj)))  # one specialization with NumPy's


def test_numpy_arrays_and_numbers_keep_their_own_kinds():
    assert isinstance(_kind(np.zeros(3)), HostArrayKind)
    assert not isinstance(_kind(np.float32(1)), HostBufferKind)
    with pytest.raises(TypeError, match="cannot pass an object of type builtins.str"):
        _kind("text")  # no buffer protocol


def test_a_buffer_numpy_cannot_read_is_refused_by_name():
    pointers = (ctypes.c_char_p * 2)()  # PEP 3118 format '<z': no NumPy dtype
    k = _kind(pointers)
    assert isinstance(k, HostBufferKind)
    with pytest.raises(TypeError, match=r"a c_char_p_Array_2 buffer cannot be passed to a kernel: .*'<z'"):
        k.key(pointers)


class _Dev:
    def __init__(self, view, log):
        self.view, self.log = view, log

    def copy_to_host(self, out, stream=0):
        self.log.append(out)
        out[...] = self.view * 2  # what "the kernel" wrote


def test_stage_in_copies_back_into_writable_buffers_only(monkeypatch):
    log = []
    monkeypatch.setattr(host, "to_device", lambda a, stream=0: _Dev(np.array(a), log))
    buf = array.array("f", [1, 2, 3])
    after = []
    d = _kind(buf).stage_in(buf, 0, after)
    assert isinstance(d, _Dev) and list(d.view) == [1, 2, 3] and not log
    for work in after:
        work()
    assert list(buf) == [2, 4, 6]  # written through the shared memory
    ro = b"\x01\x02"
    after = []
    _kind(ro).stage_in(ro, 0, after)
    for work in after:
        work()
    assert ro == b"\x01\x02" and len(log) == 1  # read-only: nothing copied back


def test_launch_with_a_buffer_goes_through_the_slow_path_with_a_warning(monkeypatch):
    import cudalite.cuda._dispatch.kernel as D

    def scale(a, x):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= x

    calls, log = [], []
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    monkeypatch.setattr(host, "to_device", lambda a, stream=0: _FakeDeviceArray(a, log))
    monkeypatch.setattr("cudalite.cuda._dispatch.slowpath.Stream", _NoStream)
    k = cuda.jit(scale)
    k._compiler = lambda pf, argtypes, opts, cc: FakeKernel(argtypes, calls)
    buf = array.array("f", [1, 2, 3, 4])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        k[1, 4](buf, 2.0)
    assert any(issubclass(x.category, NumbaPerformanceWarning) and "copy overhead" in str(x.message) for x in w)
    assert list(k.overloads) == [(Array(float32, 1, "C"), float64)]
    assert calls == [(0xD000, 4, 2.0)] and len(log) == 1  # the device copy's values; copied back once
    assert k._table.last_factory is None  # host data never takes the fast path


class _NoStream:
    @staticmethod
    def external(sh):
        return _NoStream()

    def synchronize(self):
        pass


class _FakeDeviceArray:
    """A device copy following the device-array argument contract."""

    def __init__(self, host_view, log):
        self.host_view, self.log = host_view, log
        self._type_key = (host_view.dtype, host_view.ndim, "C")
        self._kernel_params = (0xD000, *host_view.shape)

    def copy_to_host(self, out, stream=0):
        self.log.append(out)

"""GPU-less tests of the launch code's identity cache (``_fastpath.make_factory``):
fake torch tensors and CuPy arrays (classes whose module is ``torch``/``cupy``), a
fake compiled kernel recording the flattened values of each launch.  Every in-place
change the real libraries allow between launches must reach the kernel."""

import sys
import types

import numpy as np
import pytest

from _fake_arrays import FakeKernel
from cudalite import cuda


def add_one(a, x):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += x


def two(a, b):
    a[0] = b[0]


def _strides(shape):
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= n
    return tuple(reversed(out))


@pytest.fixture
def fake_libs(monkeypatch):
    torch = types.ModuleType("torch")
    torch.float32, torch.float64 = object(), object()

    class Tensor:
        __module__ = "torch"

        def __init__(self, ptr, shape, dtype=None, strides=None):
            self.ptr, self.shape, self.dtype = ptr, tuple(shape), dtype or torch.float32
            self.strides = strides or _strides(shape)
            self._version, self.is_cuda = 0, True

        def data_ptr(self):
            return self.ptr

        def dim(self):
            return len(self.shape)

        def stride(self):
            return self.strides

        def is_contiguous(self):
            return self.strides == _strides(self.shape)

        def resize_(self, *shape):  # the real one bumps _version (checked on the GPU)
            self.shape, self.strides = shape, _strides(shape)
            self._version += 1

    cupy = types.ModuleType("cupy")
    cupy.cuda = types.SimpleNamespace(stream=types.SimpleNamespace(get_current_stream_ptr=lambda: 0))

    class Mem:
        def __init__(self, ptr):
            self.ptr = ptr

    class ndarray:
        __module__ = "cupy"

        def __init__(self, ptr, shape, dtype=np.float32):
            self.data, self.dtype, self._shape = Mem(ptr), np.dtype(dtype), tuple(shape)

        @property
        def shape(self):
            return self._shape

        @shape.setter
        def shape(self, s):  # a no-copy reshape in place
            self._shape = tuple(s)

        ndim = property(lambda self: len(self._shape))
        strides = property(lambda self: tuple(4 * s for s in _strides(self._shape)))
        _c_contiguous = property(lambda self: True)
        _f_contiguous = property(lambda self: len(self._shape) < 2)

    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    return Tensor, ndarray


def _kernel(fn, calls):
    import cudalite.cuda._dispatcher as D

    k = cuda.jit(fn)
    k._compiler = lambda pyfunc, argtypes, opts, cc: FakeKernel(argtypes, calls)
    return k, D


def test_torch_identity_cache(fake_libs, monkeypatch):
    Tensor, _ = fake_libs
    calls = []
    k, D = _kernel(add_one, calls)
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    t = Tensor(0x100, (8,))
    for x in (1.0, 2.0, 3.0):
        k[1, 32](t, x)
    assert calls == [(0x100, 8, 1.0), (0x100, 8, 2.0), (0x100, 8, 3.0)]
    src = k._factory.source
    assert "a is _cl_l0 and a._version == _cl_k0_0 and a.data_ptr() == _cl_c0_0" in src
    t.resize_(4)  # in place: the version changes
    k[1, 32](t, 1.0)
    assert calls[-1] == (0x100, 4, 1.0)
    t.ptr = 0x200  # what `t.data = other` does: no version bump, another pointer
    t.shape = (5,)
    k[1, 32](t, 1.0)
    assert calls[-1] == (0x200, 5, 1.0)
    u = Tensor(0x300, (6,))  # another tensor at the same position
    k[1, 32](u, 1.0)
    k[1, 32](t, 1.0)
    assert calls[-2:] == [(0x300, 6, 1.0), (0x200, 5, 1.0)]
    # the cache holds the last tensor only: a strong reference, documented
    assert k._factory.__globals__["_CL_M0"][0] is t


def test_torch_inference_tensor_is_not_cached(fake_libs, monkeypatch):
    Tensor, _ = fake_libs
    calls = []
    k, D = _kernel(add_one, calls)
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))

    class Inference(Tensor):
        __module__ = "torch"

        @property
        def _version(self):
            raise RuntimeError("Inference tensors do not track version counter")

        @_version.setter
        def _version(self, v):
            pass

    t = Inference(0x100, (8,))
    k[1, 32](t, 1.0)
    k[1, 32](t, 2.0)
    t.shape = (3,)
    k[1, 32](t, 3.0)
    assert calls == [(0x100, 8, 1.0), (0x100, 8, 2.0), (0x100, 3, 3.0)]
    assert k._factory.__globals__["_CL_M0"][0] is not t


def test_cupy_identity_cache(fake_libs, monkeypatch):
    _, ndarray = fake_libs
    calls = []
    k, D = _kernel(two, calls)
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    a, b = ndarray(0x100, (8,)), ndarray(0x200, (8,))
    k[1, 1](a, b)
    k[1, 1](a, b)
    assert calls == [(0x100, 8, 0x200, 8)] * 2
    assert "a is _cl_l0 and a.shape == _cl_k0_0" in k._factory.source
    b.shape = (2, 4)  # another ndim: another specialization
    k[1, 1](a, b)
    assert calls[-1] == (0x100, 8, 0x200, 2, 4)
    b.shape = (8,)
    a.shape = (8,)
    k[1, 1](a, b)
    assert calls[-1] == (0x100, 8, 0x200, 8)
    c = ndarray(0x300, (7,))  # new arrays at either position
    k[1, 1](c, a)
    k[1, 1](a, c)
    assert calls[-2:] == [(0x300, 7, 0x100, 8), (0x100, 8, 0x300, 7)]


def test_mixed_cached_and_plain_positions(fake_libs, monkeypatch):
    Tensor, ndarray = fake_libs
    calls = []
    k, D = _kernel(two, calls)
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    t, a = Tensor(0x100, (4,)), ndarray(0x200, (4,))
    for _ in range(3):
        k[1, 1](t, a)
    assert calls == [(0x100, 4, 0x200, 4)] * 3
    k[1, 1](a, t)  # other classes at each position: another launcher, same values
    assert calls[-1] == (0x200, 4, 0x100, 4)
    with pytest.raises(TypeError):
        k[1, 1](t, None)

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
    null = types.SimpleNamespace(ptr=0)  # CuPy's Stream.null: the legacy default stream
    cupy.cuda = types.SimpleNamespace(Stream=types.SimpleNamespace(null=null), current=null)
    cupy.cuda.get_current_stream = lambda: cupy.cuda.current

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
    import cudalite.cuda._dispatch.kernel as D

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
    src = k._table.last_factory.source
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
    assert k._table.last_factory.__globals__["_CL_M0"][0] is t


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
    assert k._table.last_factory.__globals__["_CL_M0"][0] is not t


def test_cupy_identity_cache(fake_libs, monkeypatch):
    _, ndarray = fake_libs
    calls = []
    k, D = _kernel(two, calls)
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    a, b = ndarray(0x100, (8,)), ndarray(0x200, (8,))
    k[1, 1](a, b)
    k[1, 1](a, b)
    assert calls == [(0x100, 8, 0x200, 8)] * 2
    # at most one dimension: the same ndim means the same shape (the size is fixed)
    assert "a is _cl_l0 and a.ndim == _cl_k0_0" in k._table.last_factory.source
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


def test_cupy_identity_cache_2d_in_place_reshape(fake_libs, monkeypatch):
    _, ndarray = fake_libs
    calls = []
    k, D = _kernel(two, calls)
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    a, b = ndarray(0x100, (4, 2)), ndarray(0x200, (8,))
    k[1, 1](a, b)
    k[1, 1](a, b)
    assert calls == [(0x100, 4, 2, 0x200, 8)] * 2
    assert "a is _cl_l0 and a.shape == _cl_k0_0" in k._table.last_factory.source  # 2-d: the shape itself
    a.shape = (2, 4)  # same ndim and size, another shape: the cached values are stale
    k[1, 1](a, b)
    assert calls[-1] == (0x100, 2, 4, 0x200, 8)


def test_cupy_current_stream_ordering(fake_libs, monkeypatch):
    """A launch waits for CuPy's current stream unless it is CuPy's null stream object
    (the legacy default stream) or an equivalent pointer (CAI v3's rule)."""
    import cudalite.cuda._launch.arrays as A

    _, ndarray = fake_libs
    cupy = sys.modules["cupy"]
    waited = []
    monkeypatch.setattr(A, "stream_wait", lambda consumer, producer: waited.append((consumer, producer)))
    calls = []
    k, D = _kernel(two, calls)
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    a, b = ndarray(0x100, (8,)), ndarray(0x200, (8,))
    for _ in range(2):  # slow path, then the generated launcher
        k[1, 1](a, b)
    assert waited == [] and len(calls) == 2
    src = k._table.last_factory.source
    assert "_cl_cs = CUPY_STREAM()" in src and "if _cl_cs is not CUPY_NULL:" in src
    current = types.SimpleNamespace(ptr=0)  # ExternalStream(0): not the null object, same stream
    cupy.cuda.current = current
    k[1, 1](a, b)
    assert waited == []
    current.ptr = 0x5000  # a user stream: the launch's stream waits for it
    k[1, 1](a, b)  # identity-cache hit
    k[1, 1](ndarray(0x300, (8,)), b)  # full guard
    assert [p for _, p in waited] == [0x5000, 0x5000]
    assert len(calls) == 5


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


def test_held_launcher_made_before_compiling_becomes_the_fast_launcher(fake_libs, monkeypatch):
    """``cfg = kernel[g, b]`` kept by the user before the kernel was compiled: its first
    call compiles and makes that very object the fast launcher of the configuration (no
    hand-off through the slow path per call); its attributes stay."""
    _, ndarray = fake_libs
    calls = []
    k, D = _kernel(add_one, calls)
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    held = k[1, 32]  # made before any specialization: the slow launcher
    assert held.func.cudalite_slow
    a = ndarray(0x100, (8,))
    held(a, 1.0)  # slow: compiles, and makes `held` the fast launcher for [1, 32]
    assert k[1, 32] is held and not getattr(held.func, "cudalite_slow", False)
    assert (held.griddim, held.blockdim, held.dispatcher) == ((1, 1, 1), (32, 1, 1), k)
    full = []  # calls of the slow path's own work
    real = k._kernel_for
    monkeypatch.setattr(k, "_kernel_for", lambda keys: (full.append(keys), real(keys))[1])
    for x in (2.0, 3.0):
        held(a, x)
    assert calls[-3:] == [(0x100, 8, 1.0), (0x100, 8, 2.0), (0x100, 8, 3.0)] and full == []
    b = ndarray(0x200, (4,), dtype=np.float64)  # another type: the slow path, a launcher of its own
    held(b, 4.0)
    assert calls[-1][0] == 0x200 and calls[-1][-1] == 4.0 and len(full) == 1 and k[1, 32] is not held
    held(a, 5.0)  # still the launcher of its own kinds
    assert calls[-1] == (0x100, 8, 5.0) and len(full) == 1


def test_held_launcher_with_callbacks_is_not_replaced(fake_libs, monkeypatch):
    """A configured launch with pre-launch callbacks keeps its wrapper: the callbacks run
    on every launch, before and after compiling."""
    _, ndarray = fake_libs
    calls, seen = [], []
    k, D = _kernel(add_one, calls)
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    held = k[1, 32]
    held.pre_launch_callbacks.append(lambda kernel, cfg: seen.append(cfg))
    a = ndarray(0x100, (8,))
    for x in (1.0, 2.0, 3.0):
        held(a, x)
    assert seen == [held] * 3 and [c[-1] for c in calls] == [1.0, 2.0, 3.0]


def test_held_launcher_hands_new_argument_kinds_to_the_fast_launcher(fake_libs, monkeypatch):
    """``cfg = kernel[g, b]`` kept by the user before CuPy arrays were seen (made for
    other kinds): its misses go to the launcher the dispatcher now keeps for that
    configuration (the fast path), and it never loops between the two."""
    _, ndarray = fake_libs
    calls = []
    k, D = _kernel(add_one, calls)
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    k[1, 32](ndarray(0x300, (8,), dtype=np.float64), 0.0)
    held = k[1, 32]  # the fast launcher of float64 CuPy arrays
    a = ndarray(0x100, (8,))
    held(a, 1.0)  # float32: compiled, another launcher kept for [1, 32]
    fast = k[1, 32]
    assert fast is not held
    full = []  # calls of the slow path's own work (after the hand-off check)
    real = k._kernel_for
    monkeypatch.setattr(k, "_kernel_for", lambda keys: (full.append(keys), real(keys))[1])
    for x in (2.0, 3.0):
        held(a, x)
    assert calls[-2:] == [(0x100, 8, 2.0), (0x100, 8, 3.0)]
    assert full == []  # handed to the fast launcher both times
    # a kind neither launcher guards: the fast one misses too and takes the slow path itself
    b = ndarray(0x200, (4,), dtype=np.float64)
    held(b, 4.0)
    assert calls[-1][0] == 0x200 and calls[-1][-1] == 4.0
    assert len(full) == 1
    with pytest.raises(TypeError, match="3 given|takes 2"):
        held(a, 1.0, 2.0)


def test_exit_release_drops_launchers_and_cached_arguments(fake_libs, monkeypatch):
    """At exit (JitRuntime.release_launch_state, an atexit hook) dispatchers drop their
    configured launchers (whose keys hold streams) and the identity caches' last
    arguments, so nothing a library owns is freed in the interpreter's final GC;
    launching afterwards still works."""
    import weakref

    from cudalite.cuda._runtime.record import jit_runtime

    Tensor, _ = fake_libs
    calls = []
    k, D = _kernel(add_one, calls)
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))

    class FakeStream:  # a stream object the configuration table keys on
        handle = 0

    stream = FakeStream()
    t = Tensor(0x100, (8,))
    k[1, 32, stream](t, 1.0)
    k[1, 32, stream](t, 2.0)
    assert k._table.last_factory.__globals__["_CL_M0"][0] is t
    assert k in jit_runtime().launch_state
    alive_t, alive_s = weakref.ref(t), weakref.ref(stream)
    jit_runtime().release_launch_state()
    assert k._configs == {}
    assert k._table.last_factory.__globals__["_CL_M0"][0] is not t
    del t, stream
    assert alive_t() is None and alive_s() is None  # nothing of cudalite's holds them now
    u = Tensor(0x200, (4,))
    k[1, 32](u, 3.0)
    k[1, 32](u, 4.0)
    assert calls[-2:] == [(0x200, 4, 3.0), (0x200, 4, 4.0)]


def test_configured_launcher_attributes(fake_libs, monkeypatch):
    """numba's configured launch exposes griddim/blockdim (3-tuples), stream, sharedmem
    and dispatcher; so do cudalite's launchers, also those remade by the slow path."""
    Tensor, _ = fake_libs
    calls = []
    k, D = _kernel(add_one, calls)
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    cfg = k[5, (8, 2), 0, 64]
    assert (cfg.griddim, cfg.blockdim, cfg.stream, cfg.sharedmem) == ((5, 1, 1), (8, 2, 1), 0, 64)
    assert cfg.dispatcher is k
    cfg(Tensor(0x100, (8,)), 1.0)  # the slow path keeps a fast launcher for this configuration
    fast = k[5, (8, 2), 0, 64]
    assert (fast.griddim, fast.blockdim, fast.sharedmem, fast.dispatcher) == ((5, 1, 1), (8, 2, 1), 64, k)
    assert cfg.pre_launch_callbacks == []  # numba's list: callbacks run before each launch

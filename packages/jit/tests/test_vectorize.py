"""cuda.vectorize / cuda.guvectorize without a GPU: signatures, loop selection,
layouts, broadcasting, option checking, and the generated kernels compile to PTX."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda, types
from cudalite.cuda._ufuncs import gufunc as G
from cudalite.cuda._ufuncs import vectorize as V
from cudalite.types import float32, float64, int32, uint32, void


def _add(a, b):
    return a + b


def test_vectorize_is_public_and_names_loops():
    f = cuda.vectorize(["int32(int32, int32)", float32(float32, float32), "f8(f8, f8)"])(_add)
    assert f.__name__ == "_add"
    assert f.types == ["ii->i", "ff->f", "dd->d"]
    assert (f.nin, f.nout, f.nargs, f.ntypes) == (2, 1, 3, 3)
    assert cuda.vectorize("f8(f8)")(lambda x: x * 2).types == ["d->d"]


def test_tuple_signature_infers_the_return_type():
    f = cuda.vectorize([(int32, float32)])(_add)
    assert f.types == ["if->d"]  # int32 + float32 is float64, as in numba


def test_loop_selection_follows_numpy_safe_casting():
    loops = [(np.dtype("int32"),) * 2, (np.dtype("uint32"),) * 2, (np.dtype("float32"),) * 2,
             (np.dtype("float64"),) * 2]
    arr = lambda dt: V.classify(np.zeros(3, dt))  # noqa: E731
    assert V.select_loop(loops, [arr("float64"), arr("float64")]) == 3
    assert V.select_loop(loops, [arr("float32"), arr("float32")]) == 2
    assert V.select_loop(loops, [arr("uint32"), arr("uint32")]) == 1
    assert V.select_loop(loops, [arr("int16"), arr("int16")]) == 0  # safe cast up
    assert V.select_loop(loops, [arr("int64"), arr("int64")]) == 3  # int64 -> float64 is 'safe'
    assert V.select_loop(loops[:3], [arr("int64"), arr("int64")]) is None
    # Python scalars are weak: a float fits the first float loop, an int the first int loop
    assert V.select_loop(loops, [V.classify(1.5), arr("float32")]) == 2
    assert V.select_loop(loops, [V.classify(2), arr("uint32")]) == 1
    # np.uint32 scalars are not weak
    assert V.select_loop([(np.dtype("float64"), np.dtype("uint32"))],
                         [arr("float64"), V.classify(np.uint32(3))]) == 0


def test_classify_arguments():
    assert V.classify(1.5).kind == "scalar" and V.classify(1.5).weak is float
    t = V.classify((1.0, 2.0, 3.0))
    assert (t.kind, t.shape, t.dtype) == ("host", (3,), np.dtype("float64"))
    z = V.classify(np.array(3, np.int16))
    assert (z.kind, z.dtype) == ("scalar", np.dtype("int16"))
    with pytest.raises(TypeError, match="not an array of numbers"):
        V.classify(["a", object()])


def test_broadcast_shape_matches_numpy():
    a, b = (100, 3, 1), (1, 3, 100)
    assert V.broadcast_shape([a, b]) == np.broadcast_shapes(a, b) == (100, 3, 100)
    assert V.broadcast_shape([(), (4,)]) == (4,)
    with pytest.raises(ValueError, match=r"could not be broadcast together with shapes \(3,\) \(4,\)"):
        V.broadcast_shape([(3,), (4,)])


def test_wrong_number_of_arguments():
    f = cuda.vectorize(["f8(f8, f8)"])(_add)
    with pytest.raises(TypeError, match="takes 2 positional arguments"):
        f(np.zeros(3))
    with pytest.raises(TypeError, match="no loop for input types"):
        f(np.zeros(3, np.complex128), np.zeros(3))


def test_targets_and_options():
    with pytest.raises(ValueError, match="Unsupported target: 'cpu'"):
        cuda.vectorize(["f8(f8)"], target="cpu")
    with pytest.raises(ValueError, match="Unsupported target: 'parallel'"):
        cuda.guvectorize([void(float32[:], float32[:])], "(n)->(n)", target="parallel")
    with pytest.raises(KeyError, match="Unrecognized options"):
        cuda.vectorize(["f8(f8)"], nonexistent=2)
    with pytest.warns(RuntimeWarning, match="nopython kwarg for cuda target is redundant"):
        cuda.vectorize(["f4(f4, f4)"], target="cuda", nopython=True)
    with pytest.raises(TypeError, match="nopython flag must be True"):
        cuda.guvectorize([void(float32[:], float32[:])], "(x)->(x)", nopython=False)
    with pytest.raises(TypeError, match="The following target options are not supported: 'what1'"):
        cuda.guvectorize([void(float32[:], float32[:])], "(x)->(x)", what1=True)


def test_type_errors_surface_at_decoration():
    def bad(a):
        return a.nonexistent_attribute

    with pytest.raises(Exception, match="nonexistent_attribute"):
        cuda.vectorize(["f8(f8)"])(bad)


@pytest.mark.parametrize("layout, expect", [
    ("(m,n),(n,p)->(m,p)", ([("m", "n"), ("n", "p")], [("m", "p")])),
    ("(m, n), (n, p) -> (m, p)", ([("m", "n"), ("n", "p")], [("m", "p")])),
    ("(n)->()", ([("n",)], [()])),
    ("(),(t),(t)->(t)", ([(), ("t",), ("t",)], [("t",)])),
    ("(x)->(x),(x)", ([("x",)], [("x",), ("x",)])),
])
def test_parse_layout(layout, expect):
    assert G.parse_layout(layout) == expect


@pytest.mark.parametrize("layout", ["(m,n)", "(m,n)->", "(m,n->(m)", "(m)x(n)->(m)"])
def test_parse_layout_refuses_bad_text(layout):
    with pytest.raises(ValueError, match="not a gufunc layout"):
        G.parse_layout(layout)


def test_parse_layout_refuses_unknown_output_dimension():
    with pytest.raises(NotImplementedError, match="output dimension 'q'"):
        G.parse_layout("(n)->(q)")


def _copy(a, b):
    for i in range(b.size):
        b[i] = a[i]


def test_gufunc_signature_checks():
    with pytest.raises(TypeError, match="guvectorized functions cannot return values.*specifies int32 return"):
        cuda.guvectorize([int32(int32[:], int32[:])], "(m)->(m)")(_copy)
    with pytest.raises(TypeError, match="has 2 dimensions but its layout argument has 1"):
        cuda.guvectorize([void(int32[:, :], int32[:])], "(m)->(m)")(_copy)
    g = cuda.guvectorize([(int32[:], int32[:], int32[:])], "(m),(m)->(m)")(lambda x, y, z: None)
    assert (g.nin, g.nout, g.types, g.__name__) == (2, 1, ["ii->i"], "<lambda>")
    arr = np.arange(5)
    with pytest.raises(TypeError, match=r"gufunc accepts 2 positional arguments \(inputs\) or 3 positional "
                                        r"arguments \(inputs and outputs\)\. Got 1 positional argument\."):
        g(arr)
    with pytest.raises(TypeError, match="Got 4 positional arguments."):
        g(arr, arr, arr, arr)
    with pytest.raises(ValueError, match="cannot specify argument 'out' as both positional and keyword"):
        g(arr, arr, arr, out=arr)


def test_gufunc_core_dimension_mismatch():
    g = cuda.guvectorize([void(float32[:, :], float32[:, :], float32[:, :])], "(m,n),(n,p)->(m,p)")(
        lambda a, b, c: None)
    with pytest.raises(ValueError, match="core dimension 'n' is 4 in one argument and 3 in another"):
        g(np.zeros((2, 4), np.float32), np.zeros((3, 5), np.float32))


def test_elementwise_source_unravels_c_order():
    src = V.elementwise_source(2, 3, (False, True))
    assert "i2 = r % out.shape[2]" in src and "i0 = r" in src
    assert "out[i0, i1, i2] = _F(_T0(a0[i0, i1, i2]), _T1(a1))" in src
    ns = {}
    exec(src.replace("_cuda.grid(1)", "0").replace("_cuda.gridsize(1)", "1"),
         {"_F": _add, "_T0": float, "_T1": float}, ns)
    a = np.arange(24.0).reshape(2, 3, 4)
    out = np.empty_like(a)
    ns[V.KERNEL_NAME](out, a, 10.0)  # the generated loop, run by Python on one "thread"
    np.testing.assert_array_equal(out, a + 10.0)


def test_gufunc_source_runs_one_core_per_loop_index():
    src = G.gufunc_source(2, 2, (True, False))
    ns = {}
    exec(src.replace("_cuda.grid(1)", "0").replace("_cuda.gridsize(1)", "1"),
         {"_F": lambda s, r: r.__setitem__(0, s * 2), "_T0": int}, ns)
    a = np.arange(6).reshape(2, 3, 1)
    r = np.zeros((2, 3, 1), np.int64)
    ns[G.KERNEL_NAME](6, a, r)
    np.testing.assert_array_equal(r[..., 0], np.arange(6).reshape(2, 3) * 2)


def _arr(t, nd):
    return types.Array(t, nd, "A")


@pytest.mark.parametrize("ndim, scalars", [(1, (False, False)), (3, (False, True)), (2, (True, False))])
def test_vectorize_kernels_compile_to_ptx(ndim, scalars):
    f = cuda.vectorize(["int32(int32, int32)", float32(float32, float32), "f8(f8, f8)"])(_add)
    for index, loop in enumerate(f._loops):
        kernel = f._kernel(index, ndim, scalars)
        argtypes = [_arr(loop.restype, ndim)] + [t if s else _arr(t, ndim) for t, s in zip(loop.argtypes, scalars)]
        ptx = kernel.compile_ptx_for(tuple(argtypes))
        assert ".entry" in ptx


def test_vectorize_calling_a_device_function_compiles():
    @cuda.jit(float32(float32, float32, float32), device=True)
    def dev(x, y, z):
        return x ** y / z

    f = cuda.vectorize([float32(float32, float32, float32)], target="cuda")(lambda x, y, z: dev(x, y, z))
    kernel = f._kernel(0, 1, (False, False, False))
    assert ".entry" in kernel.compile_ptx_for(tuple(_arr(float32, 1) for _ in range(4)))


def test_gufunc_kernels_compile_to_ptx():
    @cuda.guvectorize([void(float32[:, :], float32[:, :], float32[:, :])], "(m,n),(n,p)->(m,p)")
    def matmul(A, B, C):
        m, n = A.shape
        n, p = B.shape
        for i in range(m):
            for j in range(p):
                C[i, j] = 0
                for k in range(n):
                    C[i, j] += A[i, k] * B[k, j]

    kernel = matmul._kernel(0, 2, (False, False, False))
    assert ".entry" in kernel.compile_ptx_for((types.int64,) + (_arr(float32, 4),) * 3)

    @cuda.guvectorize(["void(int32, int32[:])"], "()->()")
    def double(a, r):
        r[0] = a * 2

    kernel = double._kernel(0, 1, (True, False))
    assert ".entry" in kernel.compile_ptx_for((types.int64, _arr(int32, 2), _arr(int32, 2)))


def test_numba_spelling_and_absent_names_table():
    from cudalite.cuda import _compat_names

    assert "vectorize" not in _compat_names.ABSENT and "guvectorize" not in _compat_names.ABSENT
    f = cuda.vectorize([float64(float64, uint32)], target="cuda")(lambda x, s: x * s)
    assert f.types == ["dI->d"]


def test_a_local_vectorize_ufunc_pickles_by_value():
    import pickle

    k = 3

    @cuda.vectorize(["int64(int64)", "float64(float64)"])
    def scale(x):
        return x * k

    again = pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(scale))))
    assert type(again) is type(scale) and again is not scale
    assert [(lp.restype, lp.argtypes) for lp in again._loops] == [(lp.restype, lp.argtypes) for lp in scale._loops]
    assert again.py_func(5) == 15 and again.py_func(0.5) == 1.5  # the closure value travelled


def test_launch_waits_on_producer_streams_on_the_device(monkeypatch):
    """A CUDA-array-interface input whose producer named a stream is ordered by a
    device-side wait of the launch stream (no host synchronization), once per
    distinct producer, skipped for the launch stream itself and with
    CUDALITE_CUDA_ARRAY_INTERFACE_SYNC=0."""
    import cudalite.cuda._ufuncs.vectorize as V

    waits = []
    monkeypatch.setattr(V, "_stream_wait", lambda consumer, producer: waits.append((consumer, producer)))
    args = [V.Arg("device", None, None, (4,), producer=0x1000), V.Arg("device", None, None, (4,), producer=0x1000),
            V.Arg("device", None, None, (4,), producer=0x2000), V.Arg("scalar", 1.0, None, ()), None]
    V.order_after_producers(args, 0x2000)
    assert waits == [(0x2000, 0x1000)]
    waits.clear()
    V.order_after_producers([V.Arg("device", None, None, (4,), producer=1)], 0)  # both legacy default
    assert waits == []
    monkeypatch.setenv("CUDALITE_CUDA_ARRAY_INTERFACE_SYNC", "0")
    V.order_after_producers(args, 0x3000)
    assert waits == []


def test_broadcast_shape_equal_shapes_and_errors():
    from cudalite.cuda._ufuncs.vectorize import broadcast_shape

    assert broadcast_shape([(3, 4), (3, 4)]) == (3, 4)
    assert broadcast_shape([(3, 1), (1, 4), ()]) == (3, 4)
    with pytest.raises(ValueError, match=r"could not be broadcast together with shapes \(3,\) \(4,\)"):
        broadcast_shape([(3,), (4,)])


class _Recorder:
    """Stands for a loop kernel: records ``kernel[blocks, threads, stream](*args)``."""

    def __init__(self):
        self.calls = []

    def __getitem__(self, config):
        return lambda *args: self.calls.append((config, args))


class _FakeMemory:
    device_id = 0


def _dev(shape, dtype, base=0x7F0000000000):
    from cudalite.cuda.devicearray import DeviceNDArray

    return DeviceNDArray(shape, None, np.dtype(dtype), ptr=base, owner=_FakeMemory())


def test_fast_path_launches_the_loop_kernel_directly(monkeypatch):
    """1-d C device arrays of one length with a loop of exactly their dtypes go straight
    to the loop kernel the general path would launch, with its grid; anything else
    (another length, 2-d, casting, a loop not compiled yet) is left to the general path."""
    f = cuda.vectorize(["float32(float32, float32)", "float64(float64, float64)"])(_add)
    rec = _Recorder()
    asked = []
    monkeypatch.setattr(f, "_kernel", lambda index, ndim, scalars: asked.append((index, ndim, scalars)) or rec)
    monkeypatch.setattr(f, "_multiprocessors", lambda: 132)
    a, b, out = _dev((1000,), np.float64), _dev((1000,), np.float64), _dev((1000,), np.float64)
    assert f._fast_call((a, b), out, 7) is out
    assert f._fast_call((a, b), out, 7) is out  # the kept kernel: asked once
    assert asked == [(1, 1, (False, False))]
    assert rec.calls == [((*V.launch_config(1000, 132), 7), (out, a, b))] * 2
    assert f._fast_call((a, _dev((999,), np.float64)), out, 0) is None
    assert f._fast_call((a, b), _dev((1000,), np.float32), 0) is None  # the loop's result is float64
    assert f._fast_call((a, _dev((1000,), np.float32)), out, 0) is out  # float32 fits the float64 loop, as
    assert asked[-1] == (1, 1, (False, False))  # in the general path (same kernel, same call)
    assert f._fast_call((_dev((10, 100), np.float64),) * 2, _dev((10, 100), np.float64), 0) is None
    assert f._fast_call((a,), out, 0) is None  # wrong number of inputs: the general path's error
    assert len(rec.calls) == 3


def _axpy(a, x, y):
    return a * x + y


def test_fast_path_takes_python_floats_as_the_general_path_does(monkeypatch):
    """A Python float is a weak scalar: with float32 arrays the first loop it and they fit
    (the general path's select_loop) is chosen, and the kernel's scalar mask marks it."""
    f = cuda.vectorize(["float32(float32, float32, float32)", "float64(float64, float64, float64)"])(_axpy)
    rec = _Recorder()
    asked = []
    monkeypatch.setattr(f, "_kernel", lambda index, ndim, scalars: asked.append((index, ndim, scalars)) or rec)
    monkeypatch.setattr(f, "_multiprocessors", lambda: 132)
    x, y, out = (_dev((64,), np.float32) for _ in range(3))
    assert f._fast_call((2.5, x, y), out, 0) is out
    assert asked == [(0, 1, (True, False, False))] and rec.calls[0][1] == (out, 2.5, x, y)
    assert f._fast_call((2, x, y), out, 0) is None  # an int: its dtype depends on its value
    assert f._fast_call((np.float32(2.5), x, y), out, 0) is out  # a NumPy scalar: its class's dtype, exact
    assert asked[-1] == (0, 1, (True, False, False)) and rec.calls[-1][1][1] is not None
    assert f._fast_call((np.float64(2.5), x, y), out, 0) is None  # the float64 loop: a float64 result


def test_fast_path_without_out_allocates_the_loops_dtype(monkeypatch):
    """Without out= the fast path allocates the result as the general path does (the
    chosen loop's dtype, the inputs' length, on the call's stream) and launches into it;
    foreign CUDA arrays (``__cuda_array_interface__``) take it too, keyed like device arrays."""
    f = cuda.vectorize(["float32(float32, float32)", "float64(float64, float64)"])(_add)
    rec = _Recorder()
    monkeypatch.setattr(f, "_kernel", lambda index, ndim, scalars: rec)
    monkeypatch.setattr(f, "_multiprocessors", lambda: 132)
    made = []

    def fake_alloc(n, dtype, stream=0, key=None):  # new_vector: the fast path's device_array((n,), dtype, stream=...)
        assert key == (np.dtype(dtype), 1, "C")  # the interned type key the ufunc keeps
        made.append(((n,), np.dtype(dtype), stream))
        return _dev((n,), dtype, base=0x7F0000100000)

    monkeypatch.setattr(V, "new_vector", fake_alloc)
    a = _dev((500,), np.float32)

    class Foreign:  # a CuPy-like array: only its interface is read
        __cuda_array_interface__ = {"version": 3, "shape": (500,), "typestr": "<f4", "data": (0x7F0000200000, False),
                                    "strides": None}

    b = Foreign()
    r1 = f._fast_call((a, b), None, 5)
    r2 = f._fast_call((b, 2.5), None, 0)
    assert made == [((500,), np.dtype(np.float32), 5), ((500,), np.dtype(np.float32), 0)]
    assert rec.calls[0] == ((*V.launch_config(500, 132), 5), (r1, a, b))
    assert rec.calls[1][1] == (r2, b, 2.5) and r1.dtype == np.float32
    assert f._fast_call((a, _dev((499,), np.float32)), None, 0) is None  # lengths differ
    assert f._fast_call((2.5, 1.5), None, 0) is None  # no array: the general path
    assert len(made) == 2


def test_fast_path_keeps_the_last_configuration(monkeypatch):
    """The same length and stream reuse the last launch configuration (no grid
    computation, no device read); another length or stream computes it anew; every call
    subscripts the kernel, so it launches through the kernel's current launcher."""
    f = cuda.vectorize(["float64(float64, float64)"])(_add)
    rec = _Recorder()
    monkeypatch.setattr(f, "_kernel", lambda index, ndim, scalars: rec)
    sms = []
    monkeypatch.setattr(f, "_multiprocessors", lambda: sms.append(1) or 132)
    a, b, out = _dev((1000,), np.float64), _dev((1000,), np.float64), _dev((1000,), np.float64)
    c, d, out2 = _dev((10,), np.float64), _dev((10,), np.float64), _dev((10,), np.float64)
    stream = object()
    for args, o, s in (((a, b), out, 0), ((a, b), out, 0), ((c, d), out2, 0), ((a, b), out, 0),
                       ((a, b), out, stream), ((a, b), out, stream)):
        assert f._fast_call(args, o, s) is o
    assert len(sms) == 4  # computed for: 1000 on 0, 10 on 0, 1000 on 0 again, 1000 on stream
    cfg_long, cfg_short = (*V.launch_config(1000, 132), 0), (*V.launch_config(10, 132), 0)
    cfg_stream = (*V.launch_config(1000, 132), stream)
    assert [c[0] for c in rec.calls] == [cfg_long] * 2 + [cfg_short, cfg_long] + [cfg_stream] * 2
    assert [c[1] for c in rec.calls] == [(out, a, b)] * 2 + [(out2, c, d)] + [(out, a, b)] * 3


def test_fast_path_launches_cupy_arrays_seen_before_as_kept_views(monkeypatch):
    """A CuPy array (a stand-in of its class, with a stand-in ``cupy`` module) launches as
    itself the first time and as one kept DeviceNDArray view over its memory after; a
    CuPy out= is returned as that view; under another CuPy current stream every array
    launches as itself (the CuPy launch path orders after that stream)."""
    import sys
    import types

    from cudalite.cuda import DeviceNDArray

    null, other = object(), object()
    current = [null]
    fake = types.ModuleType("cupy")
    fake.cuda = types.SimpleNamespace(get_current_stream=lambda: current[0], Stream=types.SimpleNamespace(null=null))
    monkeypatch.setitem(sys.modules, "cupy", fake)

    class Ptr:
        def __init__(self, ptr):
            self.ptr = ptr

    ndarray = type("ndarray", (), {"__module__": "cupy._core.core"})

    def cupy_like(ptr):
        a = ndarray()
        a.data, a.shape, a.strides, a.dtype, a.ndim, a._c_contiguous = Ptr(ptr), (300,), (4,), np.dtype("f4"), 1, True
        a.__cuda_array_interface__ = {"version": 3, "data": (ptr, False), "shape": (300,), "typestr": "<f4",
                                      "strides": None}
        return a

    f = cuda.vectorize(["float32(float32, float32)"])(_add)
    rec = _Recorder()
    monkeypatch.setattr(f, "_kernel", lambda index, ndim, scalars: rec)
    monkeypatch.setattr(f, "_multiprocessors", lambda: 132)
    x, y, out = cupy_like(0x7F0000100000), cupy_like(0x7F0000200000), cupy_like(0x7F0000300000)
    first = f._fast_call((x, y), out, 0)
    assert rec.calls[-1][1] == (out, x, y) and type(first) is DeviceNDArray
    second = f._fast_call((x, y), out, 0)
    launched = rec.calls[-1][1]
    assert all(type(v) is DeviceNDArray for v in launched) and launched[0] is second
    assert [v.device_ctypes_pointer.value for v in launched] == [0x7F0000300000, 0x7F0000100000, 0x7F0000200000]
    assert f._fast_call((x, y), out, 0) is second and all(a is b for a, b in zip(rec.calls[-1][1], launched))
    current[0] = other  # another CuPy stream is current: the arrays themselves
    assert type(f._fast_call((x, y), out, 0)) is DeviceNDArray and rec.calls[-1][1] == (out, x, y)
    x.ndim, x.shape = 2, (1, 300)  # reshaped in place: no longer the fast path's
    current[0] = null
    assert f._fast_call((x, y), out, 0) is None
    z = cupy_like(0x7F0000400000)
    assert f._fast_call((z, y), out, 0) is not None and rec.calls[-1][1][1] is z  # new: launched as itself
    assert f._held[0] is None and f._held[1][0] is y  # and x is no longer held

"""GPU-less tests of @cuda.jit: decorator forms, options, eager compile errors,
launch-config parsing, argument type keys and values, device functions through the
core typer, generated fast paths, and thread-safe compilation (a fake compiler)."""

import threading
import time
import warnings

import numpy as np
import pytest

from cudalite import cuda, types
from cudalite.core.abi import kernel_abi
from cudalite.core.errors import TypingError
from cudalite.core.types import Array, float32, float64, int64, typeof_constant, PyFunction, Tuple
from cudalite.cuda._launch.host import RecordScalarKind
from cudalite.cuda._launch.keys import compatible, key_to_type
from cudalite.cuda._dispatch.device import DeviceDispatcher
from cudalite.cuda._dispatch.kernel import CUDADispatcher
from cudalite.cuda._launch.fastpath import make_factory
from _fake_arrays import FakeKernel
from cudalite.cuda._launch.config import normalize_dim, parse_config, stream_handle_of


def add_one(a, x):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += x


def bad_kernel(a, x):
    t = (1, 2)
    a[0] = t + x


@cuda.jit(device=True)
def dev_square(x):
    return x * x


@cuda.jit(device=True)
def dev_square_plus(x):
    return dev_square(x) + 1.0


def uses_device(out, x):
    out[0] = dev_square_plus(x)


class FakeDeviceArray:
    """A stand-in following the DeviceNDArray kernel-argument contract."""

    def __init__(self, ptr, shape, dtype=np.float32, layout="C", strides=()):
        self._ptr = ptr
        self._layout = layout
        self._type_key = (np.dtype(dtype), len(shape), layout)
        self._kernel_params = (ptr, *shape, *strides)


class FakeCAI:
    def __init__(self, ptr, shape, typestr="<f4", strides=None, stream=None):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": shape, "typestr": typestr,
                                         "strides": strides, "version": 3, "stream": stream}


# -- decorator forms and options ----------------------------------------------------------
def test_decorator_forms():
    k1 = cuda.jit(add_one)
    k2 = cuda.jit()(add_one)
    k3 = cuda.jit(debug=False, lineinfo=True, fastmath=True, max_registers=32, launch_bounds=(128,),
                  cache=True, opt=True)(add_one)
    for k in (k1, k2, k3):
        assert isinstance(k, CUDADispatcher) and k.py_func is add_one and k.__name__ == "add_one"
    assert k3.options.max_registers == 32 and k3.options.fastmath and k3.options.lineinfo
    assert isinstance(dev_square, DeviceDispatcher)


def test_option_errors():
    with pytest.raises(TypeError, match="unexpected keyword.*bogus"):
        cuda.jit(bogus=1)
    with pytest.raises(ValueError, match="max_registers"):
        cuda.jit(max_registers=-3)
    with pytest.raises(ValueError, match="launch_bounds"):
        cuda.jit(launch_bounds=(1, 2, 3, 4))
    with pytest.raises(TypeError, match="link"):
        cuda.jit(link="file.cu")
    with pytest.raises(TypeError, match="link items"):
        cuda.jit(link=[3])
    with pytest.raises(ValueError, match="inline"):
        cuda.jit(inline="sometimes")


def test_link_items_accepted():
    from cudalite.linker import PTXSource

    k = cuda.jit(link=["x.cu", PTXSource(".version 8.0", name="p.ptx")])(add_one)
    assert len(k.options.link) == 2 and not k.options.lto


def test_kernel_call_without_config_errors():
    k = cuda.jit(add_one)
    with pytest.raises(ValueError, match="launch configuration was not specified"):
        k(np.zeros(3), 1.0)


def test_device_function_called_from_python_errors():
    with pytest.raises(TypeError, match="device function"):
        dev_square(3.0)


def test_eager_compile_error_is_located(monkeypatch):
    from cudalite.cuda._dispatch import kernel as _dispatcher

    def no_gpu():
        from cudalite.driver import CudaDriverError

        raise CudaDriverError(3, "CUDA_ERROR_NOT_INITIALIZED", "no driver", "cuInit")

    monkeypatch.setattr(_dispatcher, "current_cc", no_gpu)
    with pytest.raises(TypingError) as info:
        cuda.jit("void(float32[::1], float64)")(bad_kernel)
    text = str(info.value)
    assert "test_dispatcher.py:" in text and "t + x" in text and "^" in text
    # a good signature type-checks without a GPU and waits for the first launch
    k = cuda.jit(["void(float32[::1], float32)", "void(float64[::1], float64)"])(add_one)
    assert len(k._pending) == 2 and k.overloads == {}
    # inspection of an eager signature compiles it for the default target, unloaded
    sig = (float32[::1], float32)
    assert "fadd float" in k.inspect_llvm(sig) and "add.f32" in k.inspect_asm(sig)
    assert set(k.inspect_asm()) == {sig, (float64[::1], float64)} and k.overloads == {}
    assert ".target sm_" in k.inspect_lto_ptx(sig)
    with pytest.raises(KeyError, match="no compiled overload"):
        k.inspect_asm((float64[::1], float32))
    with pytest.raises(RuntimeError, match="is not loaded on a device .* needs a GPU"):
        k.get_regs_per_thread(sig)


def test_compile_ptx_for_without_gpu():
    k = cuda.jit(add_one)
    ptx = k.compile_ptx_for("void(float32[::1], float32)", cc=(9, 0))
    assert ".entry" in ptx and ".target sm_90" in ptx
    with pytest.raises(TypingError):
        cuda.jit(bad_kernel).compile_ptx_for("void(float32[::1], float64)", cc=(9, 0))


def test_device_functions_type_through_the_core():
    assert typeof_constant(dev_square) == PyFunction(dev_square.py_func)
    ptx, _ = cuda.compile_ptx(uses_device, "void(float64[::1], float64)", cc=(9, 0))
    assert ".entry" in ptx
    ptx, resty = cuda.compile_ptx(dev_square_plus, "float64(float64)", device=True, cc=(9, 0))
    assert resty == float64 and ".func" in ptx
    ptx2, _ = dev_square.compile_ptx("float32(float32)", cc=(9, 0))
    assert ".func" in ptx2
    code, _ = dev_square.compile("float32(float32)", cc=(9, 0), output="ltoir")
    assert isinstance(code, bytes)
    d = cuda.jit("float64(float64)", device=True)(lambda_free_square)
    assert (float64,) in d.overloads
    with pytest.raises(TypingError):
        cuda.jit("float64(float64)", device=True)(bad_device)


def lambda_free_square(x):
    return x * x


def bad_device(x):
    return (1, 2) + x


# -- launch configurations ----------------------------------------------------------------
def test_parse_config():
    cfg, stream = parse_config((4, 32))
    assert (cfg.grid, cfg.block, cfg.stream, cfg.shared_mem, stream) == ((4, 1, 1), (32, 1, 1), 0, 0, 0)
    assert not (cfg.cooperative or cfg.cluster or cfg.programmatic_dependent_launch)
    cfg, stream = parse_config(((2, 3), (8, 8, 2), 7, 1024))
    assert (cfg.grid, cfg.block, cfg.stream, cfg.shared_mem, stream) == ((2, 3, 1), (8, 8, 2), 7, 1024, 7)
    assert parse_config((4, 32))[0] == parse_config(([4], (32,), None, 0))[0]  # a value: equal for the same launch
    assert normalize_dim(np.int64(5), "griddim") == (5, 1, 1)


@pytest.mark.parametrize("config, exc, match", [
    ((0, 32), ValueError, "griddim must be positive"),
    ((1, 0), ValueError, "blockdim must be positive"),
    ((1, 2048), ValueError, "exceeds the CUDA limit 1024"),
    ((1, (32, 32, 2)), ValueError, "at most 1024"),
    ((1, (1, 1, 65)), ValueError, "limit 64"),
    (((1, 70000), 1), ValueError, "limit 65535"),
    ((1, 1, 0, -1), ValueError, "dynamic shared memory"),
    ((1.5, 1), TypeError, r"griddim must be a sequence of integers, got \[1.5\] \(1.5 is a float, not an int\)"),
    (((1, 1, 1, 1), 1), ValueError,
     r"griddim must be a sequence of 1, 2 or 3 integers, got \[1, 1, 1, 1\] \(4 dimensions\)"),
    ((1, (3, 4, 5, 6)), ValueError, r"blockdim must be a sequence of 1, 2 or 3 integers, got \[3, 4, 5, 6\]"),
    ((2, 3.0), TypeError, r"blockdim must be a sequence of integers, got \[3.0\]"),
    ((2, (3, "4")), TypeError, r"blockdim must be a sequence of integers, got \[3, .4.\] \(.4. is a str, not an int\)"),
    ((1,), ValueError, "kernel\\[griddim, blockdim\\]"),
])
def test_invalid_configs_raise_before_launch(config, exc, match):
    k = cuda.jit(add_one)
    with pytest.raises(exc, match=match):
        k[config]


def test_configs_are_cached():
    k = cuda.jit(add_one)
    c = k[4, 128]
    assert k[4, 128] is c and bool(k) and hash(k) == object.__hash__(k)
    assert k[(2, 2), 1] is not c and len(k._names) == 2


def test_stream_handles():
    class NumbaLike:
        def __init__(self, h):
            self.h = h

        def __int__(self):
            return self.h

    class CoreLike:
        def __cuda_stream__(self):
            return (0, 1234)

    from cudalite.driver import Stream as DStream

    assert stream_handle_of(0) == 0 and stream_handle_of(None) == 0 and stream_handle_of(99) == 99
    assert stream_handle_of(NumbaLike(77)) == 77
    assert stream_handle_of(CoreLike()) == 1234
    assert stream_handle_of(DStream.external(4321)) == 4321
    with pytest.raises(TypeError, match="stream"):
        stream_handle_of("nope")


# -- argument keys and values ---------------------------------------------------------------
def _handler(x):
    return CUDADispatcher(add_one)._rt.kind(type(x), x)


def _spec(t):
    """The kernel-ABI view (ArgABI) of one parameter of type ``t``."""
    return kernel_abi((t,)).args[0]


def test_scalar_keys_and_types():
    f32 = np.dtype("float32")
    for value, key, t in [(1.5, float, float64), (3, int, int64), (True, bool, None), (1j, complex, None),
                          (np.float32(2), np.float32, float32)]:
        h = _handler(value)
        assert h.key(value) is key
        if t is not None:
            assert key_to_type(key) == t
    assert _handler(np.float32(2)).flat(np.float32(2), _spec(float32), 0) == (2.0,)
    assert _handler(1j).flat(1 + 2j, _spec(key_to_type(complex)), 0) == (1.0, 2.0)
    assert f32.itemsize == 4


def test_device_array_contract_keys():
    a = FakeDeviceArray(0x1000, (10,))
    h = _handler(a)
    assert h.key(a) == (np.dtype("float32"), 1, "C")
    assert key_to_type(h.key(a)) == Array(float32, 1, "C")
    assert h.flat(a, _spec(Array(float32, 1, "C")), 0) == (0x1000, 10)
    # a C array passed to a declared 'A' parameter gets its byte strides
    m = FakeDeviceArray(0x2000, (3, 4))
    assert _handler(m).flat(m, _spec(Array(float32, 2, "A")), 0) == (0x2000, 3, 4, 16, 4)


def test_cai_keys_values_and_stream_wait(monkeypatch):
    waited = []
    from cudalite.cuda._launch import arrays

    monkeypatch.setattr(arrays, "sync_producer", waited.append)
    c = FakeCAI(0x3000, (4, 5), "<f8", None, stream=1)
    h = _handler(c)
    assert h.key(c) == (np.dtype("float64"), 2, "C")
    assert h.flat(c, _spec(Array(float64, 2, "C")), 0) == (0x3000, 4, 5)
    assert waited == []  # legacy default on both sides: nothing to do
    s = FakeCAI(0x3000, (4, 5), "<f8", (8, 32), stream=555)
    assert h.key(s) == (np.dtype("float64"), 2, "F")
    assert h.flat(s, _spec(Array(float64, 2, "A")), 777) == (0x3000, 4, 5, 8, 32)
    assert waited == [555]
    t = FakeCAI(0x3000, (4, 5), "<f8", (80, 16), stream=None)
    assert h.key(t) == (np.dtype("float64"), 2, "A")


def test_numpy_record_and_tuple_keys():
    rec = np.dtype([("x", np.float32), ("y", np.int32)])
    a = np.zeros(4, rec)
    h = _handler(a)
    assert h.needs_copy(a) and h.key(a) == (rec, 1, "C")
    assert key_to_type(h.key(a)).dtype.__class__.__name__ == "Record"
    t = (1.5, (2, np.float32(3)))
    ht = _handler(t)
    assert ht.key(t) == ("tuple", float, ("tuple", int, np.float32))
    ty = key_to_type(ht.key(t))
    assert isinstance(ty, Tuple)
    assert ht.flat(t, _spec(ty), 0) == (1.5, 2, 3.0)
    with pytest.raises(TypeError, match="cannot pass an object"):
        _handler(object())
    assert isinstance(_handler(a[0]), RecordScalarKind)  # numba: by reference (test_record_scalar_args)


def test_compatible_for_eager_signatures():
    f32c = (np.dtype("float32"), 1, "C")
    assert compatible(f32c, Array(float32, 1, "C")) == 1
    assert compatible(f32c, Array(float32, 1, "A")) == 0
    assert compatible(f32c, Array(float64, 1, "C")) == -1
    assert compatible(float, float32) == 0
    assert compatible(int, float32) == 0
    assert compatible(float, int64) == -1


# -- generated fast path with a fake compiled kernel ---------------------------------------
def test_fast_path_generation_and_dispatch():
    calls, compiled = [], []

    def fake_compiler(pyfunc, argtypes, opts, cc):
        compiled.append(argtypes)
        return FakeKernel(argtypes, calls, full=True)

    k = cuda.jit(add_one)
    k._compiler = fake_compiler
    import cudalite.cuda._dispatch.kernel as D

    D_cc = D.current_cc
    D.current_cc = lambda: (9, 0)
    try:
        a = FakeDeviceArray(0x10, (8,))
        k[2, 32](a, 1.5)
        k[2, 32](a, 2.5)
        assert compiled == [(Array(float32, 1, "C"), float64)]
        assert calls == [((2, 1, 1), (32, 1, 1), 0, 0, 0x10, 8, 1.5), ((2, 1, 1), (32, 1, 1), 0, 0, 0x10, 8, 2.5)]
        src = k._table.last_factory.source
        assert "def add_one(a, x):" in src and "_cl_v0_0, _cl_v0_1, = a._kernel_params" in src
        assert "_cl_r = LAUNCH(_cl_v0_0, _cl_v0_1, x)" in src and "LAUNCH = BIND(CFG, CHECKS)" in src
        assert "type(x)" not in src  # the number is checked by the driver's checked launch
        k[1, 1](a, 3)  # an int: another specialization, through the slow path
        assert len(compiled) == 2 and calls[-1][-1] == 3
        k[1, 1](a, 4)
        assert len(compiled) == 2 and calls[-1][-1] == 4
        k[1, 1](FakeCAI(0x40, (8,), "<f4"), 5)  # a CAI object with the same type key: same kernel
        assert len(compiled) == 2 and calls[-1][4:] == (0x40, 8, 5)
        with pytest.raises(TypeError, match="argument"):
            k[1, 1](a)
        # NumPy arguments are never on the fast path
        handlers = [_handler(np.zeros(2)), _handler(1.0)]
        assert make_factory(k, ["a", "x"], handlers, [(np.dtype("f8"), 1, "C"), float],
                            FakeKernel([], [], full=True), {}) is None
    finally:
        D.current_cc = D_cc


def test_compile_is_thread_safe():
    compiled = []

    def slow_compiler(pyfunc, argtypes, opts, cc):
        compiled.append(argtypes)
        time.sleep(0.05)
        return FakeKernel(argtypes, [], full=True)

    k = cuda.jit(add_one)
    k._compiler = slow_compiler
    import cudalite.cuda._dispatch.kernel as D

    D_cc = D.current_cc
    D.current_cc = lambda: (9, 0)
    try:
        a = FakeDeviceArray(0x10, (8,))
        errors = []

        def run():
            try:
                k[1, 1](a, 1.0)
            except Exception as e:  # pragma: no cover
                errors.append(e)

        threads = [threading.Thread(target=run) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and len(compiled) == 1
    finally:
        D.current_cc = D_cc


def test_eager_signature_matching_with_conversion(monkeypatch):
    calls = []
    import cudalite.cuda._dispatch.kernel as D

    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    monkeypatch.setattr(D.CUDADispatcher, "__init__", _init_with_fake(calls))
    k = cuda.jit("void(float32[:], float32)")(add_one)
    a = FakeDeviceArray(0x10, (8,))
    k[1, 1](a, 2)  # int -> float32; C array -> 'A' parameter (strides appended)
    assert calls[-1][4:] == (0x10, 8, 4, 2)
    with pytest.raises(TypeError, match="No matching definition"):
        k[1, 1](FakeDeviceArray(0x10, (8,), np.float64), 1.0)


def _init_with_fake(calls):
    orig = CUDADispatcher.__init__

    def init(self, py_func, sigs=None, options=None):
        self.__dict__["_compiler"] = None
        orig.__get__(self)(py_func, None, options)
        self._compiler = lambda pf, argtypes, opts, cc: FakeKernel(argtypes, calls, full=True)
        self._eager = sigs is not None
        for sig in sigs or ():
            self.compile(sig)

    return init


def test_numpy_warning_class_names():
    assert cuda.NumbaPerformanceWarning is cuda.CudalitePerformanceWarning
    assert issubclass(cuda.NumbaPerformanceWarning, UserWarning)
    warnings.simplefilter("ignore")


# -- the launch-configuration table ---------------------------------------------------------
def test_dispatcher_is_not_a_dict():
    k = cuda.jit(add_one)
    k[1, 1]
    assert not isinstance(k, dict)
    for name in ("update", "keys", "values", "items", "clear", "get", "setdefault", "pop", "__len__",
                 "__setitem__", "__missing__"):
        assert not hasattr(k, name), name
    with pytest.raises(TypeError, match="does not support item assignment"):
        k[1, 1] = None
    assert bool(k) and k == k and k != cuda.jit(add_one) and {k: 1}[k] == 1
    assert list(k._configs) == [(1, 1)]


def test_config_table_is_bounded():
    from cudalite.cuda._dispatch.kernel import _MAX_CONFIGS

    k = cuda.jit(add_one)
    first = k[1, 1]
    for i in range(2, _MAX_CONFIGS + 1):
        k[i, 1]
    assert len(k._configs) == _MAX_CONFIGS and k[1, 1] is first  # full; a known config is still a hit
    k[_MAX_CONFIGS + 1, 1]  # a new one empties the table
    assert list(k._configs) == [(_MAX_CONFIGS + 1, 1)]
    assert k[1, 1] is not first and len(k._configs) == 2


def test_list_configs_normalise_to_tuples():
    calls, made = [], []
    k = cuda.jit(add_one)
    real = k._configure

    def configure(config, factory):  # record what the factory layer is given
        made.append(config)
        return real(config, factory)

    k._configure = configure
    launcher = k[[2, 2], [16, 16]]
    assert made == [((2, 2), (16, 16))] and list(k._configs) == [((2, 2), (16, 16))]
    assert k[(2, 2), (16, 16)] is launcher and k[[2, 2], (16, 16)] is launcher and len(made) == 1
    assert k[[[2, 2], [16, 16], 0, 0]] is not launcher  # a list configuration, with stream and shared memory
    assert made[-1] == ((2, 2), (16, 16), 0, 0) and len(k._configs) == 2
    with pytest.raises(ValueError, match="blockdim must be positive"):
        k[[1], [0]]

    # both spellings launch the same kernel with the same dimensions (a fake compiler, no GPU)
    import cudalite.cuda._dispatch.kernel as D

    D_cc = D.current_cc
    D.current_cc = lambda: (9, 0)
    k._compiler = lambda pf, argtypes, opts, cc: FakeKernel(argtypes, calls, full=True)
    try:
        a = FakeDeviceArray(0x10, (8,))
        k[[2, 1], [16, 1]](a, 1.5)
        k[(2, 1), (16, 1)](a, 2.5)
        k[[2, 1], [16, 1]](a, 3.5)  # now on the generated fast path
        assert calls == [((2, 1, 1), (16, 1, 1), 0, 0, 0x10, 8, v) for v in (1.5, 2.5, 3.5)]
        assert k[[2, 1], [16, 1]] is k[(2, 1), (16, 1)]
    finally:
        D.current_cc = D_cc


def test_unhashable_stream_configures_each_time():
    class Unhashable:
        __hash__ = None
        handle = 0

    k = cuda.jit(add_one)
    s = Unhashable()
    assert callable(k[1, 1, s]) and k[1, 1, s] is not k[1, 1, s]
    assert k._configs == {}


def test_specialize_gets_its_own_config_table(monkeypatch):
    import cudalite.cuda._dispatch.kernel as D

    calls = []
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    k = cuda.jit(add_one)
    k._compiler = lambda pf, argtypes, opts, cc: FakeKernel(argtypes, calls, full=True)
    a = FakeDeviceArray(0x10, (8,))
    k[1, 32](a, 1.0)
    parent_launcher = k[1, 32]
    spec = k.specialize(a, 1.0)
    assert isinstance(spec, CUDADispatcher) and spec is not k
    assert spec._configs == {} and spec._configs is not k._configs
    spec_launcher = spec[1, 32]
    assert spec_launcher is not parent_launcher and k[1, 32] is parent_launcher
    assert list(spec._configs) == [(1, 32)] and list(k._configs) == [(1, 32)]
    spec_launcher(a, 2.0)
    assert calls[-1][-1] == 2.0
    with pytest.raises(TypeError, match="No matching definition"):  # the specialization compiles nothing new
        spec[1, 32](FakeDeviceArray(0x10, (8,), np.float64), 1.0)


def test_specialize_is_cached_takes_types_and_refuses_twice(monkeypatch):
    """numba's specialize(): the same dispatcher for the same types, the types
    themselves accepted, and RuntimeError("Dispatcher already specialized") on a
    specialization or on a dispatcher with eager signatures."""
    import cudalite.cuda._dispatch.kernel as D
    from cudalite import types

    eager = cuda.jit("void(float32[::1], float64)")(add_one)  # no GPU here: the signature stays pending
    with pytest.raises(RuntimeError, match="Dispatcher already specialized"):
        eager.specialize(types.float32[::1], types.float64)
    calls = []
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    k = cuda.jit(add_one)
    k._compiler = lambda pf, argtypes, opts, cc: FakeKernel(argtypes, calls, full=True)
    a = FakeDeviceArray(0x10, (8,))
    spec = k.specialize(a, 1.0)
    assert k.specialize(a, 2.5) is spec
    by_types = k.specialize(types.float32[::1], types.float64)
    assert by_types is spec  # the same argument types
    other = k.specialize(types.float64[::1], types.float64)
    assert other is not spec and list(other.overloads) == [(types.float64[::1], types.float64)]
    with pytest.raises(RuntimeError, match="Dispatcher already specialized"):
        spec.specialize(a, 1.0)


def test_specialized_kernel_inspects_to_a_dict():
    """numba: inspect_* without a signature always give a dict keyed by argument types,
    also for a kernel with one eager signature (numba-cuda's test_atomics and
    test_optimization index it); only the get_* resource getters of a specialized kernel
    return one value (GPU-tested)."""
    sig = (types.float32[::1], types.float64)
    one = cuda.jit("void(float32[::1], float64)")(add_one)
    llvm = one.inspect_llvm()
    assert isinstance(llvm, dict) and list(llvm) == [sig] and "define" in llvm[sig]
    assert one.inspect_llvm(sig) == llvm[sig]
    two = cuda.jit(["void(float32[::1], float64)", "void(float64[::1], float64)"])(add_one)
    assert isinstance(two.inspect_llvm(), dict) and len(two.inspect_llvm()) == 2


def _three(r, x, y):
    r[0] = x + y


def test_eager_kernel_signature_is_the_best_conversion_and_ties_are_ambiguous():
    """numba: a launch takes the eager signature its arguments convert to best (int64
    to float64 is safe, to float32 unsafe); two equally good ones are a TypeError
    naming both, never a silent pick."""
    from cudalite import types

    a = FakeDeviceArray(0x10, (1,), np.float64)
    k = cuda.jit(["void(float64[::1], float32, float32)", "void(float64[::1], float64, float64)"])(_three)
    keys = k._keys((a, np.int64(1), np.int64(2)))
    assert k._match_eager(keys) == (types.float64[::1], types.float64, types.float64)
    keys = k._keys((a, np.float32(1), np.float32(2)))
    assert k._match_eager(keys) == (types.float64[::1], types.float32, types.float32)
    amb = cuda.jit(["(float64[::1], float32, float64)", "(float64[::1], float64, float32)",
                    "(float64[::1], int64, int64)"])(_three)
    arr = r"Array\(float64, 1, 'C', False, aligned=True\)"  # numba's repr of the array type
    with pytest.raises(TypeError, match=rf"^Ambiguous overloading for <function _three [^>]*> \({arr}, float64, "
                                        rf"float64\):\n\({arr}, float32, float64\) -> none\n"
                                        rf"\({arr}, float64, float32\) -> none\n\(these signatures fit the "
                                        rf"arguments equally well: .*\)$") as info:
        amb._match_eager(amb._keys((a, 1.0, 2.0)))
    assert "int64" not in str(info.value)  # the third signature is not among the best
    one = cuda.jit(["(float32,)", "(float16,)"])(lambda x: None)
    with pytest.raises(TypeError, match=r" \(int64,\):\n\(float32,\) -> none\n\(float16,\) -> none\n"):
        one._match_eager(one._keys((1,)))


def test_switching_argument_types_back_reuses_the_configured_launcher(monkeypatch):
    """A configuration's launcher follows the last argument types; switching back to
    types seen before takes the launcher made for them then (no new launcher bound), and
    every launch still gets its own values."""
    import cudalite.cuda._dispatch.kernel as D

    calls = []
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    k = cuda.jit(add_one)
    k._compiler = lambda pyfunc, argtypes, opts, cc: FakeKernel(argtypes, calls, full=True)
    made = []
    real = k._launcher
    monkeypatch.setattr(k, "_launcher", lambda *a, **kw: made.append(a[2]) or real(*a, **kw))
    a = FakeDeviceArray(0x10, (8,))
    k[2, 32](a, 1.5)  # (the subscript's own slow launcher, then the float's)
    first, n = k[2, 32], len(made)
    k[2, 32](a, 7)  # an int: another specialization, another launcher for (2, 32)
    second = k[2, 32]
    assert second is not first and len(made) == n + 1
    k[2, 32](a, 2.5)  # back to the float: the launcher made for it the first time
    assert k[2, 32] is first and len(made) == n + 1
    k[2, 32](a, 8)
    assert k[2, 32] is second and len(made) == n + 1
    assert [c[-1] for c in calls] == [1.5, 7, 2.5, 8]
    k._release_launch_state()  # the launchers go with the rest of the launch state
    assert not k._table.launchers

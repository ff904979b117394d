"""A kernel pickled by value carries its compiled code (GPU-less: kernels are built for
sm_90 without loading, and the compiler is made to fail after unpickling, so any
compile would show): the same compute capability loads the carried cubin, another
one compiles, a bad payload is refused or compiled again, never loaded."""

from __future__ import annotations

import functools
import pickle

import numpy as np
import pytest

from cudalite import cuda
from cudalite.core.errors import NumbaWarning
from cudalite.cuda import types
from cudalite.cuda._ufuncs import vectorize as _vectorize
from cudalite.cuda._compiler import carry as _carry
from cudalite.cuda._dispatch import kernel as _dispatcher
from cudalite.cuda._compiler.kernel import CompiledKernel

SIG = (types.float32[::1], types.float32)
NOLOAD = functools.partial(CompiledKernel, load=False)


def _make(scale):
    @cuda.jit(device=True)
    def helper(x):
        return x * scale

    @cuda.jit
    def axpy(a, b):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = helper(a[i]) + b

    return axpy


@pytest.fixture
def cc90(monkeypatch):
    monkeypatch.setattr(_dispatcher, "current_cc", lambda: (9, 0))


@pytest.fixture
def compiled(cc90):
    k = _make(3.0)
    k._compiler = NOLOAD
    k.compile(SIG)
    return k


class Compiles:
    """Counts compiles: the compile stage's compiler call replaced by one that records
    and delegates."""

    def __init__(self, monkeypatch):
        from cudalite.cuda._compiler import compile_code

        self.calls = []
        real = compile_code.compile_with

        def counting(pyfunc, argtypes, opts, options, **kw):
            if kw.get("until") is None:  # to PTX/LTO-IR: a build (a type check stops at typed IR)
                self.calls.append((pyfunc.__qualname__, tuple(argtypes), tuple(options.cc)))
            return real(pyfunc, argtypes, opts, options, **kw)

        monkeypatch.setattr(compile_code, "compile_with", counting)


def _unpickle_noload(data):
    k = pickle.loads(data)
    assert isinstance(k._compiler, _carry.CarriedCode)
    k._compiler.fallback = NOLOAD
    return k


def test_pickle_carries_the_cubin_and_loading_compiles_nothing(compiled, monkeypatch):
    art = compiled.overloads[SIG].artifact
    data = pickle.dumps(compiled)
    assert art.cubin in data  # the linked cubin travels as bytes
    compiles = Compiles(monkeypatch)
    k2 = _unpickle_noload(data)
    kernel = k2.compile(SIG)
    assert compiles.calls == []
    assert kernel.status == "pickled" and kernel.artifact.to_payload() == art.to_payload()
    assert kernel.ptx == compiled.overloads[SIG].ptx
    assert k2.stats.pickle_loads == {SIG: 1} and not k2.stats.cache_misses and not k2.stats.cache_hits
    assert "pickle_loads={" in repr(k2.stats)


def test_launch_path_uses_the_carried_code(compiled, monkeypatch):
    compiles = Compiles(monkeypatch)
    k2 = _unpickle_noload(pickle.dumps(compiled))
    keys = k2._keys((_FakeDeviceArray(), np.float32(1.5)))
    kernel = k2._kernel_for(keys)  # what a launch does before launching
    assert compiles.calls == [] and kernel.status == "pickled" and kernel.argtypes == SIG


class _FakeDeviceArray:
    """A 1-d C-contiguous float32 CUDA array interface object (never dereferenced)."""

    __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (0x1000, False), "version": 3,
                                "strides": None}


def test_other_compute_capability_compiles(compiled, monkeypatch):
    compiles = Compiles(monkeypatch)
    k2 = _unpickle_noload(pickle.dumps(compiled))
    monkeypatch.setattr(_dispatcher, "current_cc", lambda: (8, 0))
    kernel = k2.compile(SIG)
    assert compiles.calls == [("_make.<locals>.axpy", SIG, (8, 0))]
    assert kernel.status != "pickled" and kernel.artifact.arch == "sm_80"
    assert k2.stats.cache_misses == {SIG: 1} and not k2.stats.pickle_loads


def test_other_argument_types_compile(compiled, monkeypatch):
    compiles = Compiles(monkeypatch)
    k2 = _unpickle_noload(pickle.dumps(compiled))
    sig64 = (types.float64[::1], types.float64)
    k2.compile(sig64)
    assert compiles.calls == [("_make.<locals>.axpy", sig64, (9, 0))]


def test_repickled_unused_code_is_passed_on(compiled, monkeypatch):
    """A process without the GPU (e.g. a scheduler) that unpickles and pickles again
    forwards the code it did not use."""
    compiles = Compiles(monkeypatch)
    middle = pickle.loads(pickle.dumps(compiled))
    k3 = _unpickle_noload(pickle.dumps(middle))
    assert k3.compile(SIG).status == "pickled" and compiles.calls == []


def test_recompile_drops_carried_code(compiled, monkeypatch):
    compiles = Compiles(monkeypatch)
    k2 = _unpickle_noload(pickle.dumps(compiled))
    k2.compile(SIG)
    k2.recompile()
    assert compiles.calls == [("_make.<locals>.axpy", SIG, (9, 0))]
    assert k2._compiler is NOLOAD and k2.overloads[SIG].status != "pickled"


def test_eager_signature_loads_carried_code(cc90, monkeypatch):
    def make():
        @cuda.jit
        def fill(a, v):
            a[0] = v

        return fill

    k = make()
    k._compiler = NOLOAD
    k.compile(SIG)
    k._sigs = ("void(float32[::1], float32)",)  # as if declared eagerly: remade with that signature
    data = pickle.dumps(k)
    compiles = Compiles(monkeypatch)
    monkeypatch.setattr("cudalite.cuda._dispatch.pickling.CarriedCode",
                        functools.partial(_carry.CarriedCode, fallback=NOLOAD))
    # the eager signature is compiled in the constructor: from the carried code
    k2 = pickle.loads(data)
    assert compiles.calls == [] and k2.overloads[SIG].status == "pickled"


def test_no_compiled_code_pickles_as_before(cc90):
    k = _make(2.0)
    assert _carry.carried_code(k) is None  # nothing compiled: nothing carried
    assert not isinstance(pickle.loads(pickle.dumps(k))._compiler, _carry.CarriedCode)


def test_module_level_kernel_still_pickles_by_reference(tmp_path, monkeypatch, cc90):
    (tmp_path / "cl_carry_mod.py").write_text("from cudalite import cuda\n\n@cuda.jit\ndef kern(r, x):\n"
                                              "    r[0] = x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import sys

    try:
        import cl_carry_mod

        cl_carry_mod.kern._compiler = NOLOAD
        cl_carry_mod.kern.compile(SIG)
        data = pickle.dumps(cl_carry_mod.kern)
        assert len(data) < 100 and pickle.loads(data) is cl_carry_mod.kern
    finally:
        sys.modules.pop("cl_carry_mod", None)


def _bundle(k):
    """``(loads, args, bundle)``: ``loads(*args, other_bundle)`` unpickles ``k`` as if
    its pickle had carried ``other_bundle`` (``bundle``: what it carries)."""
    from cudalite.cuda._dispatch import pickling

    real = pickling.carried_code

    def loads(other):
        pickling.carried_code = lambda d: other if d is k else real(d)
        try:
            data = pickle.dumps(k)
        finally:
            pickling.carried_code = real
        return pickle.loads(data)

    return loads, (), real(k)


@pytest.mark.parametrize("cut, reason", [(lambda p: p[:len(p) // 2], "truncated header"),
                                         (lambda p: p[:-1], "malformed field"),
                                         (lambda p: b"#" + p[1:], "not a kernel artifact")])
def test_corrupt_payload_is_compiled_again_with_a_warning(compiled, monkeypatch, cut, reason):
    fn, args, (magic, version, tag, items) = _bundle(compiled)
    argtypes, cc, payload = items[0]
    bad = cut(payload)
    compiles = Compiles(monkeypatch)
    with pytest.warns(NumbaWarning, match=r"carried in the pickle of kernel _make.<locals>.axpy\(array\(float32, "
                      r"1d, C\), float32\) is not valid \((kernel artifact: )?" + reason + r"\); it is compiled again"):
        k2 = fn(*args, (magic, version, tag, ((argtypes, cc, bad),)))
    assert not isinstance(k2._compiler, _carry.CarriedCode)
    k2._compiler = NOLOAD
    k2.compile(SIG)
    assert len(compiles.calls) == 1


def test_payload_for_other_argument_types_is_refused(compiled):
    """The ABI stored in the payload is checked against the argument types it is filed under."""
    fn, args, (magic, version, tag, items) = _bundle(compiled)
    _argtypes, cc, payload = items[0]
    other = (types.int64[::1], types.float32)
    with pytest.warns(NumbaWarning, match="is not valid"):
        k2 = fn(*args, (magic, version, tag, ((other, cc, payload),)))
    assert not isinstance(k2._compiler, _carry.CarriedCode)


def test_payload_labelled_with_another_cc_is_refused(compiled):
    fn, args, (magic, version, tag, items) = _bundle(compiled)
    argtypes, _cc, payload = items[0]
    with pytest.warns(NumbaWarning, match=r"code for sm_90 labelled compute capability 8\.0"):
        k2 = fn(*args, (magic, version, tag, ((argtypes, (8, 0), payload),)))
    assert not isinstance(k2._compiler, _carry.CarriedCode)


@pytest.mark.parametrize("mangle, what", [
    (lambda b: ("something else",), "not a carried-code bundle"),
    (lambda b: (b[0], "1", b[2], b[3]), "bad header"),
    (lambda b: (*b[:3], ("x",)), "an entry is not"),
    (lambda b: (*b[:3], ((("float32",), (9, 0), b[3][0][2]),)), "argument types are not cudalite types"),
    (lambda b: (*b[:3], ((b[3][0][0], (9, -1), b[3][0][2]),)), "compute capability"),
    (lambda b: (*b[:3], ((b[3][0][0], (9, 0), "text"),)), "the artifact is not bytes"),
])
def test_malformed_bundle_is_an_unpickling_error(compiled, mangle, what):
    fn, args, bundle = _bundle(compiled)
    with pytest.raises(pickle.UnpicklingError, match=r"kernel _make.<locals>.axpy is malformed \(" + what):
        fn(*args, mangle(bundle))


def test_other_cudalite_version_compiles_silently(compiled, recwarn):
    fn, args, (magic, version, tag, items) = _bundle(compiled)
    k2 = fn(*args, (magic, version, tag + " (other)", items))
    assert not isinstance(k2._compiler, _carry.CarriedCode) and not recwarn.list
    k3 = fn(*args, (magic, version + 1, tag, items))
    assert not isinstance(k3._compiler, _carry.CarriedCode)


def test_cubin_the_driver_refuses_is_compiled_again(compiled, monkeypatch):
    from cudalite.driver import CudaDriverError

    compiles = Compiles(monkeypatch)
    k2 = pickle.loads(pickle.dumps(compiled))

    def fallback(pyfunc, argtypes, opts, cc, build=None):
        if build is not None:
            raise CudaDriverError(200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid", "cuModuleLoadData")
        return NOLOAD(pyfunc, argtypes, opts, cc)

    k2._compiler.fallback = fallback
    with pytest.warns(NumbaWarning, match="does not load .*INVALID_IMAGE.*compiling it again"):
        kernel = k2.compile(SIG)
    assert kernel.status != "pickled" and len(compiles.calls) == 1
    assert k2._compiler.artifacts == {}


def test_kernel_capturing_a_device_array_carries_nothing(cc90):
    arr = _FakeDeviceArray()

    def make():
        @cuda.jit
        def k(a, b):
            a[0] = arr[0] + b

        return k

    k = make()
    k._compiler = NOLOAD
    k.compile(SIG)
    assert k.overloads[SIG]._keepalive  # the address of arr is in the code
    assert _carry.carried_code(k) is None


def test_ufunc_carries_its_loop_kernels(cc90, monkeypatch):
    def make():
        @cuda.vectorize(["float32(float32, float32)"])
        def hyp(x, y):
            return x * x + y * y

        return hyp

    uf = make()
    kernel = uf._kernel(0, 1, (False, False))  # the loop kernel a 1-d call launches
    kernel._compiler = NOLOAD
    argtypes = (types.float32[::1], types.float32[::1], types.float32[::1])
    kernel.compile(argtypes)
    data = pickle.dumps(uf)
    assert kernel.overloads[argtypes].artifact.cubin in data
    compiles = Compiles(monkeypatch)
    uf2 = pickle.loads(data)
    k2 = uf2._kernel(0, 1, (False, False))
    assert isinstance(k2._compiler, _carry.CarriedCode)
    k2._compiler.fallback = NOLOAD
    assert k2.compile(argtypes).status == "pickled" and compiles.calls == []
    again = pickle.loads(pickle.dumps(pickle.loads(data)))  # unused code is passed on
    assert again._carried and again._kernel(0, 1, (False, False))._compiler.artifacts


def test_ufunc_malformed_carried_code(cc90):
    uf = _vectorize.CUDAUFunc(lambda x: x, ["float32(float32)"])
    uf._carried_kernels = lambda: ("nonsense",)
    data = pickle.dumps(uf)
    with pytest.raises(pickle.UnpicklingError, match=r"ufunc test_ufunc_malformed_carried_code.<locals>.<lambda> "
                       "is malformed"):
        pickle.loads(data)

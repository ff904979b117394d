"""numba-cuda array features, GPU-less: 0-d arrays (signatures, ABI, ``a[()]``),
``a[()]`` on n-d arrays, NumPy ufuncs with an output array, device arrays captured
from globals by reference.  The GPU suite (tests-integration/gpu/
test_gpu_arrays_compat.py) runs the same programs and compares with NumPy."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cudalite import types
from cudalite.core.abi import Role, kernel_abi
from cudalite.core.errors import TypingError
from cudalite.core.types import DeviceArrayRef, parse_signature
from cudalite.nvvm import compile_ptx

CC = (9, 0)


def _params(ptx, name):
    m = re.search(r"\.entry\s+\S*" + re.escape(name) + r"\S*\(([^)]*)\)", ptx)
    assert m, f"{name} not found"
    return re.findall(r"\.param\s+\.(\w+)", m.group(1))


# -- 0-d arrays ---------------------------------------------------------------------------------
def test_zero_d_signature_spellings():
    zd = types.Array(types.float32, 0, "C")
    assert parse_signature("void(float32[()])")[1] == (zd,)
    assert types.float32[()] == zd
    assert types.Array(types.float32, 0, "A") == zd  # a 0-d array is contiguous
    assert str(zd) == "array(float32, 0d, C)"


def test_zero_d_abi_is_the_data_pointer_alone():
    abi = kernel_abi((types.Array(types.float64, 0, "C"), types.int32))
    assert [s.role for s in abi.slots] == [Role.DATA, Role.SCALAR]
    assert abi.param_format == "Qi"
    assert abi.llvm_types == ("double*", "i32")


def zero_d_kernel(r, x):
    r[()] = x[()] * 2


def test_zero_d_kernel_parameters():
    ptx, _ = compile_ptx(zero_d_kernel, "void(float32[()], float32[()])", cc=CC)
    assert _params(ptx, "zero_d_kernel") == ["u64", "u64"]


def store_whole(result, x):
    result[()] = x


def whole_view(a, out):
    v = a[()]
    out[0] = v[1, 2] + v.shape[0]


def test_index_empty_tuple_on_nd_arrays():
    # was an internal AttributeError; numba/NumPy: a[()] is the whole array, a[()] = x fills it
    compile_ptx(store_whole, "void(float32[:], float32)", cc=CC)
    compile_ptx(whole_view, "void(float64[:, ::1], float64[:])", cc=CC)


def zd_len(r):
    r[()] = len(r)


def zd_iter(r):
    for x in r:
        r[()] = x


def zd_int_index(r):
    r[0] = 1.0


@pytest.mark.parametrize("fn, msg", [
    (zd_len, "len() of unsized object"),
    (zd_iter, "iteration over a 0-d array"),
    (zd_int_index, "too many indices (1) for a 0-d array"),
])
def test_zero_d_misuse_is_a_located_error(fn, msg):
    with pytest.raises(TypingError, match=re.escape(msg)) as e:
        compile_ptx(fn, "void(float64[()])", cc=CC)
    assert e.value.loc is not None and e.value.loc.line == fn.__code__.co_firstlineno + 1


G0 = np.array(2.5, np.float32)


def global_zero_d(r):
    r[()] = G0[()]


def test_host_zero_d_global_is_a_constant():
    ptx, _ = compile_ptx(global_zero_d, "void(float32[()])", cc=CC)
    assert "mov.u32 \t%r1, 1075838976;" in ptx  # 2.5f, folded from the constant array


# -- ufuncs with an output array --------------------------------------------------------------------
def _ufunc_kernel(name, nin, monkeypatch):
    """``def k(a0, ..., out): np.<name>(a0, ..., out)``, its source registered in linecache."""
    import linecache

    ins = ", ".join(f"a{i}" for i in range(nin))
    src = f"def k({ins}, out):\n    np.{name}({ins}, out)\n"
    filename = f"<ufunc {name}>"
    monkeypatch.setitem(linecache.cache, filename, (len(src), None, src.splitlines(True), filename))
    ns = {"np": np}
    exec(compile(src, filename, "exec"), ns)  # noqa: S102 - test-generated source
    return ns["k"]


NUMBA_CUDA_UFUNCS = [  # the list of numba-cuda's "Supported NumPy features", plus arithmetic
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "hypot", "sinh", "cosh", "tanh",
    "arcsinh", "arccosh", "arctanh", "deg2rad", "radians", "rad2deg", "degrees", "greater",
    "greater_equal", "less", "less_equal", "not_equal", "equal", "log", "log2", "log10", "logical_and",
    "logical_or", "logical_xor", "logical_not", "maximum", "minimum", "fmax", "fmin", "bitwise_and",
    "bitwise_or", "bitwise_xor", "invert", "bitwise_not", "left_shift", "right_shift",
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "negative", "sqrt", "exp",
]


@pytest.mark.parametrize("name", NUMBA_CUDA_UFUNCS)
def test_every_supported_ufunc_compiles_with_an_output_array(name, monkeypatch):
    uf = getattr(np, name)
    k = _ufunc_kernel(name, uf.nin, monkeypatch)
    dt = "int32" if name in ("bitwise_and", "bitwise_or", "bitwise_xor", "invert", "bitwise_not",
                             "left_shift", "right_shift") else "float32"
    arrays = ", ".join([f"{dt}[:, :]"] + [f"{dt}[:]"] * (uf.nin - 1))  # a 1-d input broadcast
    compile_ptx(k, f"void({arrays}, {dt}[:, ::1])", cc=CC)


def ufunc_no_out(x, r):
    np.sin(x)


def ufunc_scalar_out(x, r):
    np.sin(x, 1.0)


def ufunc_wide_input(x, r):
    np.cos(x, r)


def ufunc_float_bitwise(x, r):
    np.bitwise_and(x, x, r)


@pytest.mark.parametrize("fn, sig, msg", [
    (ufunc_no_out, "void(float32[:], float32[:])",
     "numpy.sin(): on arrays needs an output array in device code, where nothing can be allocated: "
     "write np.sin(x, out)"),
    (ufunc_scalar_out, "void(float32[:], float32[:])",
     "numpy.sin(): the output argument must be an array, not float64"),
    (ufunc_wide_input, "void(float32[:, :], float32[:])",
     "numpy.cos(): input 1 (array(float32, 2d, A)) has more dimensions than the output array"),
    (ufunc_float_bitwise, "void(float64[:], float64[:])",
     "numpy.bitwise_and(): has no loop for inputs of type (float64, float64)"),
])
def test_ufunc_misuse_is_a_located_error(fn, sig, msg):
    with pytest.raises(TypingError, match=re.escape(msg)) as e:
        compile_ptx(fn, sig, cc=CC)
    assert e.value.loc.line == fn.__code__.co_firstlineno + 1


def scalar_ufuncs(a, b, out, flags):
    out[0] = np.left_shift(a, b)
    out[1] = np.right_shift(a, b)
    out[2] = np.bitwise_xor(a, b)
    out[3] = np.add(a, b)
    flags[0] = np.greater(a, b)
    flags[1] = np.logical_and(a, b)


def test_scalar_ufunc_result_types_follow_numpy():
    from cudalite.nvvm.pipeline import EntrySpec, run_pipeline
    from cudalite.nvvm import make_options

    res = run_pipeline(scalar_ufuncs, "void(int32, int32, int64[:], boolean[:])", EntrySpec(device=False),
                       make_options(cc=CC), until="typed-ir")
    text = res.stage("typed-ir")
    for name in ("left_shift", "right_shift", "bitwise_xor", "add"):  # int32 op int32 -> int32 (NumPy's loop)
        assert re.search(rf"numpy\.{name}\(.*\) -> int32|{name}.*int32", text), name


# -- device arrays captured from globals ---------------------------------------------------------
class FakeDeviceArray:
    """An object with a CUDA array interface (as a CuPy array or a DeviceNDArray has)."""

    def __init__(self, shape, dtype, ptr, strides=None):
        self._cai = {"shape": shape, "typestr": np.dtype(dtype).str, "data": (ptr, False), "strides": strides,
                     "version": 3}

    @property
    def __cuda_array_interface__(self):
        return self._cai


DEV = FakeDeviceArray((5,), np.float32, 0x7F00DEAD0000)
DEV2 = FakeDeviceArray((3, 4), np.float64, 0x7F00BEEF0000, strides=(8, 24))  # F-ordered


def uses_device_globals(out):
    i = 0
    while i < DEV.size:
        out[i] = DEV[i] + DEV2[i % 3, 1] + DEV.shape[0]
        DEV[i] = 0.0  # writable: the kernel holds the array, not a copy
        i += 1


def test_device_array_global_is_captured_by_pointer():
    from cudalite.nvvm import make_options
    from cudalite.nvvm.pipeline import EntrySpec, run_pipeline

    res = run_pipeline(uses_device_globals, "void(float64[:])", EntrySpec(device=False), make_options(cc=CC),
                       until="nvvm-ir")
    text = str(res.stage("nvvm-ir"))
    assert f"inttoptr (i64 {0x7F00DEAD0000} to float*)" in text
    assert f"inttoptr (i64 {0x7F00BEEF0000} to double*)" in text
    assert "addrspace(4)" not in text  # no data copied into constant memory
    ptx, _ = compile_ptx(uses_device_globals, "void(float64[:])", cc=CC)
    assert _params(ptx, "uses_device_globals") == ["u64", "u64", "u64"]  # out only: captures are no parameters


def test_device_array_ref_reads_the_interface_once():
    from cudalite.core.types import device_array_ref, typeof_constant

    ref = device_array_ref(DEV2)
    assert (ref.ptr, ref.shape, ref.strides, ref.dtype, ref.owner) == (0x7F00BEEF0000, (3, 4), (8, 24),
                                                                        np.dtype(np.float64), DEV2)
    assert typeof_constant(ref) == types.Array(types.float64, 2, "F")
    assert device_array_ref(np.zeros(3)) is None  # host arrays stay constants
    assert isinstance(device_array_ref(DEV), DeviceArrayRef)


class _InstanceCAI:
    """A foreign array as numba's testing.ForeignArray: the interface is an instance attribute."""

    def __init__(self, ptr, n):
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": "<f4", "data": (ptr, False),
                                         "version": 3, "strides": None}


class _AnswersEverything:
    def __getattr__(self, name):  # never asked: it would claim any interface
        return {}


FOREIGN = _InstanceCAI(0x10000, 5)


def test_instance_attribute_cuda_array_interface_is_captured_by_reference():
    from cudalite.core.types import device_array_ref

    ref = device_array_ref(FOREIGN)
    assert isinstance(ref, DeviceArrayRef) and ref.ptr == 0x10000 and ref.shape == (5,)
    assert device_array_ref(_AnswersEverything()) is None

    def k(out, i):
        out[i] = FOREIGN[i]
        FOREIGN[i] = 2.0

    ptx, _ = compile_ptx(k, "void(float32[:], int32)", cc=CC)
    assert "65536" in ptx  # the captured pointer is baked in

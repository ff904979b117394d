"""GPU-less checks of carray/farray, ``arr.ctypes.data``, whole-record stores, string
(S<n>/U<n>) and datetime64/timedelta64 dtypes: typing, errors, and the PTX/IR made."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

from cudalite import cuda, types
from cudalite.core.errors import TypingError
from cudalite.cuda.np.numpy_support import carray, farray, from_dtype

D = from_dtype(np.dtype("M8[D]"))
T = from_dtype(np.dtype("m8[D]"))


def _ptx(fn, sig):
    return cuda.compile_ptx(fn, sig)[0]


# -- carray / farray -----------------------------------------------------------------------------
def test_host_carray_farray_view_the_memory():
    x = np.arange(6, dtype=np.float32)
    p = x.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
    np.testing.assert_array_equal(carray(p, (2, 3)), x.reshape(2, 3))
    np.testing.assert_array_equal(farray(p, (2, 3)), x.reshape(3, 2).T)
    np.testing.assert_array_equal(carray(ctypes.c_void_p(x.ctypes.data), 6, np.float32), x)
    carray(p, (2, 3))[1, 2] = 50.0
    assert x[5] == 50.0
    with pytest.raises(TypeError, match="explicit dtype required"):
        carray(ctypes.c_void_p(x.ctypes.data), 6)
    with pytest.raises(TypeError, match="mismatching dtype"):
        carray(p, 6, np.int32)


@pytest.mark.parametrize("fn, strides", [(carray, ("12", "4")), (farray, ("4", "8"))])
def test_device_carray_strides(fn, strides):
    def k(p, out):
        a = fn(p, (2, 3), dtype=types.float32)
        out[0] = a.strides[0]
        out[1] = a.strides[1]
        a[1, 2] = 7.0

    ptx = _ptx(k, (types.CPointer(types.float32), types.int64[::1]))
    # constant strides (the shape is constant): moved as immediates, in order
    assert re.findall(r"mov\.u64\s+%rd\d+, (\d+);", ptx) == list(strides)


def test_device_carray_runtime_shape_and_dtype_check():
    def k(p, n):
        a = carray(p, n)
        a[n - 1] = 1.0

    assert "1065353216" in _ptx(k, (types.CPointer(types.float32), types.int32))  # 1.0f stored
    with pytest.raises(TypingError, match="mismatching dtype 'int32'"):
        _ptx(lambda p: carray(p, 2, np.int32), (types.CPointer(types.float32),))
    with pytest.raises(TypingError, match="the shape must be an integer or a tuple of integers"):
        _ptx(lambda p: carray(p, 2.0), (types.CPointer(types.float32),))


# -- arr.ctypes.data -----------------------------------------------------------------------------
def test_ctypes_data_is_the_address_and_ir_names_are_numbas():
    @cuda.jit("void(uint64[::1], int32)")
    def f(out, which):
        if which == 0:
            la = cuda.local.array(shape=5, dtype=np.uint8, alignment=64)
            out[0] = la.ctypes.data
        else:
            sa = cuda.shared.array(shape=5, dtype=np.uint8, alignment=128)
            out[0] = sa.ctypes.data

    ir = f.inspect_llvm(f.signatures[0])
    assert re.findall(r'^\s*%"_cudapy_lmem".*?align (\d+)', ir, re.M) == ["64"]
    assert re.findall(r'^@"_cudapy_smem_\d+".*?align (\d+)', ir, re.M) == ["128"]
    assert "ptrtoint" in ir


# -- records -------------------------------------------------------------------------------------
REC = np.dtype([("a", np.float64), ("b", np.int16), ("h", np.float32, (2,))], align=True)


def test_whole_record_store_copies_the_bytes():
    def set_record(ary, i, j):
        ary[i] = ary[j]

    ptx = _ptx(set_record, (from_dtype(REC)[:], types.intp, types.intp))
    assert ptx.count("st.global.u8") == REC.itemsize


def test_record_indexed_by_field_position():
    def first(r, out):
        out[0] = r[0]
        out[1] = r[-2]

    ptx = _ptx(first, (from_dtype(REC), types.float64[::1]))
    assert "ld.f64" in ptx or "ld.global.f64" in ptx or "ld.u64" in ptx


# -- strings -------------------------------------------------------------------------------------
def test_string_dtypes_and_constant_stores():
    assert str(from_dtype(np.dtype("U12"))) == "[unichr x 12]"
    assert str(from_dtype(np.dtype("S12"))) == "[char x 12]"

    def uni(a):
        a[0] = "XYZ"

    def byt(a):
        a[0] = b"XYZ"

    ptx = _ptx(uni, (types.Array(from_dtype(np.dtype("U4")), 1, "C"),))
    assert re.findall(r"mov\.u32\s+%r\d+, (\d+);", ptx) == ["88", "89", "90", "0"]  # "XYZ", zero-padded
    ptx = _ptx(byt, (types.Array(from_dtype(np.dtype("S4")), 1, "C"),))
    assert len(re.findall(r"st\.global\.(?:u8|u32|b32)", ptx)) >= 1
    with pytest.raises(TypingError, match="cannot store"):
        _ptx(byt, (types.Array(from_dtype(np.dtype("U4")), 1, "C"),))


# -- datetime64 / timedelta64 --------------------------------------------------------------------
def test_datetime_arithmetic_types_and_nat():
    def diff(a, b, out):
        out[0] = b[0] - a[0]

    ptx = _ptx(diff, (D[::1], D[::1], T[::1]))
    assert "-9223372036854775808" in ptx  # NaT propagates


@pytest.mark.parametrize("fn, args, msg", [
    (lambda a, b: a + b, (D, D), "unsupported operand types for +"),
    (lambda a, b: a * 1.5, (T, T), "unsupported operand types for \\*"),
    (lambda a, b: a - b, (D, from_dtype(np.dtype("M8[s]"))), "unsupported operand types for -"),
])
def test_datetime_bad_operations(fn, args, msg):
    with pytest.raises(TypingError, match=msg):
        _ptx(fn, args)


def test_datetime_is_not_a_number():
    def asg(o, x):
        o[0] = x

    with pytest.raises(TypingError, match="cannot store a datetime64"):
        _ptx(asg, (types.float64[::1], D))


def test_datetime_scalar_argument_key():
    from cudalite.cuda._launch.keys import key_to_type
    from cudalite.cuda._launch.kinds import kind_for as handler_for

    a = np.arange("2005-02", "2006-02", dtype="datetime64[D]")
    h = handler_for(np.datetime64, a[5], None)
    assert key_to_type(h.key(a[5])) == D
    assert h.flat(a[5], None, None) == (int(a[5].view(np.int64)),)
    assert key_to_type(h.key(a[6] - a[5])) == T


# -- reshape -------------------------------------------------------------------------------------
def test_reshape_in_device_code():
    def r3(arr, newshape, got):
        y = arr.reshape(newshape)
        got[0] = y.shape[1]
        got[1] = y.strides[0]

    ptx = _ptx(r3, (types.int64[:, ::1], types.UniTuple(types.int64, 3), types.int64[::1]))
    assert "div.s64" in ptx  # the -1 extent is inferred at run time
    with pytest.raises(TypingError, match="only C-contiguous arrays can be reshaped"):
        _ptx(r3, (types.Array(types.int64, 2, "F"), types.UniTuple(types.int64, 3), types.int64[::1]))
    with pytest.raises(TypingError, match="the shape must be integers"):
        _ptx(r3, (types.int64[:, ::1], types.float64, types.int64[::1]))

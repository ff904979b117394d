"""Element-reinterpreting array views, GPU-less: ``arr.real`` / ``arr.imag`` of
complex arrays (float views, same byte strides, imag at +itemsize/2),
``arr.view(dtype)`` (shape and stride of the last dimension rescaled, checked at
run time), and ``types.Complex.underlying_float``.  The GPU suite
(tests-integration/gpu/test_gpu_array_views.py) runs them against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import nvvm as cuda
from cudalite import types
from cudalite.core.errors import TypingError
from cudalite.nvvm import compile_ptx

CC = (9, 0)


def test_underlying_float_is_numbas_spelling():
    assert types.complex64.underlying_float == types.float32
    assert types.complex128.underlying_float == types.float64
    sig = types.complex128.underlying_float(types.complex128)
    assert sig.return_type == types.float64 and sig.args == (types.complex128,)


def _atomic_components(values):
    i = cuda.grid(1)
    cuda.atomic.add(values.real, i, 1)
    cuda.atomic.add(values.imag, i, 2)


def test_real_imag_views_address_the_components():
    ptx, _ = compile_ptx(_atomic_components, "void(complex128[:])", cc=CC)
    adds = [line for line in ptx.splitlines() if "atom.global.add.f64" in line]
    assert len(adds) == 2
    assert "add.s64" in ptx and ", 8;" in ptx  # the imaginary part: 8 bytes past the real one


def _real_of_real(a, out):
    out[0] = a.real[1]


def test_real_of_a_real_array_is_the_array():
    ptx, _ = compile_ptx(_real_of_real, "void(float32[:], float32[:])", cc=CC)
    assert "ld.global.f32" in ptx


def _imag_of_real(a, out):
    out[0] = a.imag[1]


def test_imag_of_a_real_array_is_refused():
    with pytest.raises(TypingError, match="has no attribute 'imag'"):
        compile_ptx(_imag_of_real, "void(float32[:], float32[:])", cc=CC)


def _view_int32(byte_arr, start, stop, output):
    output[0] = byte_arr[start:stop].view(np.int32)[0]


def test_view_changes_the_element_type_and_checks_the_size():
    ptx, _ = compile_ptx(_view_int32, "void(uint8[:], int64, int64, int32[:])", cc=CC)
    assert "ld.global.u32" in ptx  # an int32 load from the byte array
    assert "rem.s64" in ptx or "and.b64" in ptx  # the run-time divisibility check


def test_view_with_debug_records_value_error():
    ptx, _ = compile_ptx(_view_int32, "void(uint8[:], int64, int64, int32[:])", cc=CC,
                         debug=True, opt=False)
    assert "__cudalite_exc" in ptx


def _view_same_size(a, out):
    v = a.view(np.int32)
    out[0] = v[2]


def test_view_of_the_same_itemsize_keeps_shape():
    ptx, _ = compile_ptx(_view_same_size, "void(float32[::1], int32[:])", cc=CC)
    assert "rem" not in ptx
    assert "ld.global.u32" in ptx or "ld.global.b32" in ptx


def test_view_of_an_f_ordered_array_is_refused():
    with pytest.raises(TypingError, match=r"array.view\(\) of an F-ordered array"):
        compile_ptx(_view_same_size, "void(float32[::1, :], int32[:])", cc=CC)


def _copy(a, out):
    q = a.copy()
    out[0] = q[0]


def test_copy_is_refused_with_a_located_reason():
    with pytest.raises(TypingError, match=r"array.copy\(\) allocates") as info:
        compile_ptx(_copy, "void(float32[:], float32[:])", cc=CC)
    assert "test_array_views.py" in str(info.value)


def test_array_dtype_attribute_is_a_compile_time_dtype():
    """``a.dtype`` in device code (numba): usable as the dtype of local/shared arrays
    and as a cast, typed from the array's element type."""
    def cast_one(x):
        return x.dtype(1.75)

    def local_of(x, out):
        loc = cuda.local.array(4, dtype=x.dtype)
        sh = cuda.shared.array(8, x.dtype)
        loc[0] = x[0]
        sh[0] = x[1]
        out[0] = loc[0] + sh[0]

    from cudalite import types

    _, rt = compile_ptx(cast_one, (types.float32[:],), device=True)
    assert rt == types.float32
    _, rt = compile_ptx(cast_one, (types.int16[::1],), device=True)
    assert rt == types.int16
    ptx, _ = compile_ptx(local_of, "void(float64[:], float64[:])", opt=0)
    assert ".local" in ptx and ".shared" in ptx and ".f64" in ptx

"""A 0-d integer array indexes an array as its element (NumPy's and numba's ``a[np.array(1)]``),
and a record read from one array can be stored into another array of that record type
(``r[()] = ary[i]``: the record's bytes are copied).  GPU-less: typing and LLVM IR."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda
from cudalite.core.errors import CompilerError
from cudalite.core.types import from_dtype
from cudalite.cuda import types

REC = from_dtype(np.dtype([("a", np.int8), ("b", np.float64)], align=True))
I0 = types.Array(types.int64, 0, "C")


def test_zero_d_integer_array_index_loads_its_element():
    @cuda.jit
    def k(out, a, i, j):
        out[0] = a[i, j] + a[i][j]
        a[j, i] = 1.0
        out[1:2] = a[i, 0:1]

    sig = (types.float32[::1], types.float32[:, ::1], types.Array(types.int32, 0, "C"), I0)
    k.compile(sig)
    ir = k.inspect_llvm(sig)
    assert "load i32" in ir and "load i64" in ir  # the two index elements are read


def test_record_copied_from_array_to_array():
    @cuda.jit
    def k(r, ary, i):
        r[()] = ary[i]

    for idx in (types.int64, I0):
        sig = (types.Array(REC, 0, "C"), types.Array(REC, 1, "C"), idx)
        k.compile(sig)
        ir = k.inspect_llvm(sig)
        assert "load [16 x i8]" in ir and "store [16 x i8]" in ir


def test_non_integer_zero_d_array_index_is_refused():
    @cuda.jit
    def k(out, a, i):
        out[0] = a[i]

    with pytest.raises(CompilerError, match="array index must be integers"):
        k.compile((types.float32[::1], types.float32[::1], types.Array(types.float64, 0, "C")))
    with pytest.raises(CompilerError, match="array index must be integers"):
        k.compile((types.float32[::1], types.float32[::1], types.Array(types.int64, 1, "C")))

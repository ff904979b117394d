"""NumPy's whole-array reductions in device code, GPU-less: numba's result types,
the located refusals (axis, complex), and that every kind compiles for every
dtype, also over a global tuple of arrays (whose items are computed, not
constant).  The GPU suite (tests-integration/gpu/test_gpu_reductions.py)
compares the values with NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import types
from cudalite.core.errors import TypingError
from cudalite.core.typing.rules.reductions import REDUCTIONS, reduction_result
from cudalite.nvvm import compile_ptx

CC = (9, 0)


@pytest.mark.parametrize("kind,dtype,expected", [
    ("sum", types.int32, types.int64), ("sum", types.uint8, types.uint64), ("sum", types.boolean, types.int64),
    ("sum", types.float32, types.float32), ("prod", types.int16, types.int64),
    ("max", types.int8, types.int8), ("nanmin", types.float32, types.float32),
    ("mean", types.int32, types.float64), ("mean", types.float32, types.float32),
    ("std", types.boolean, types.float64), ("argmax", types.float32, types.int64),
    ("count_nonzero", types.float64, types.int64), ("all", types.int32, types.boolean),
])
def test_result_types_are_numbas(kind, dtype, expected):
    assert reduction_result(kind, dtype) == expected


def _kernel(fn):
    def k(out, a):
        out[0] = fn(a)

    return k


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8", "bool"])
def test_every_reduction_compiles(name, dtype):
    _, rt = compile_ptx(_kernel(getattr(np, name)), f"void(float64[:], {dtype}[:, :])", cc=CC)


def test_methods_type_and_compile():
    def dev(a):
        return a.sum() + a.max() + a.argmin() + a.mean() + a.std() + a.all() + a.prod() + a.any()

    _, rt = compile_ptx(dev, "(int16[:],)", device=True, cc=CC)
    assert rt == types.float64


def test_axis_is_refused_with_a_location():
    def dev(a):
        return np.sum(a, 0)

    with pytest.raises(TypingError, match=r"numpy.sum\(\): takes one array"):
        compile_ptx(dev, "(float64[:, :],)", device=True, cc=CC)

    def meth(a):
        return a.sum(0)

    with pytest.raises(TypingError, match="reductions along an axis are not supported"):
        compile_ptx(meth, "(float64[:, :],)", device=True, cc=CC)


def test_complex_is_refused():
    with pytest.raises(TypingError, match="not supported for arrays of complex128"):
        compile_ptx(lambda a: np.sum(a), "(complex128[:],)", device=True, cc=CC)


GLOBAL_ARRAYS = (np.float64([1.0, np.nan]), np.float64([2.0, 3.0, 4.0]))


def test_loop_over_a_global_tuple_of_arrays_compiles():
    def k(out):
        i = 0
        for arr in GLOBAL_ARRAYS:
            out[i] = np.nanmax(arr)
            i += 1

    ptx, _ = compile_ptx(k, "void(float64[:])", cc=CC)
    assert ".entry" in ptx

"""print() of tuples (nested, single-element, mixed), of the dim3 namespaces and of more
than 32 values (GPU-less: the vprintf format strings in the LLVM IR, the warning)."""

from __future__ import annotations

import re
import warnings

import pytest

from cudalite import cuda
from cudalite.core.errors import CompilerError, NumbaWarning
from cudalite.cuda import types


def _formats(disp, sig):
    disp.compile(sig)
    return re.findall(r'c"([^"]*)\\0a\\00"', disp.inspect_llvm(sig))


def test_tuples_print_as_python_prints_them():
    @cuda.jit
    def k(tup):
        print(tup)

    nested = types.Tuple((types.int64, types.Tuple((types.UniTuple(types.int64, 2), types.float64)),
                          types.UniTuple(types.int64, 1), types.int64))
    assert _formats(k, (types.UniTuple(types.int64, 5),)) == ["(%lld, %lld, %lld, %lld, %lld)"]
    assert _formats(k, (nested,)) == ["(%lld, ((%lld, %lld), %f), (%lld,), %lld)"]
    assert _formats(k, (types.UniTuple(types.int64, 1),)) == ["(%lld,)"]
    assert _formats(k, (types.Tuple((types.boolean, types.uint8)),)) == ["(%s, %llu)"]


def test_dim3_namespaces_print_as_three_ints():
    @cuda.jit
    def k():
        print(cuda.threadIdx, cuda.gridDim)

    assert _formats(k, ()) == ["(%lld, %lld, %lld) (%lld, %lld, %lld)"]
    ir = k.inspect_llvm(())
    assert "llvm.nvvm.read.ptx.sreg.tid.z" in ir and "llvm.nvvm.read.ptx.sreg.nctaid.y" in ir


def test_more_than_32_values_print_the_raw_format_and_warn():
    @cuda.jit
    def k(r):
        print(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14],
              r[15], r[16], r[17], r[18], r[19], r[20], r[21], r[22], r[23], r[24], r[25], r[26], r[27], r[28],
              r[29], r[30], r[31], r[32])

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fmts = _formats(k, (types.int64[::1],))
    assert fmts == [" ".join(["%%lld"] * 33)]  # escaped: vprintf prints "%lld %lld ..."
    assert any(issubclass(w.category, NumbaWarning) and "cannot print more than 32 items" in str(w.message)
               for w in caught)


def test_unprintable_values_are_refused():
    @cuda.jit
    def k(a):
        print(a)

    with pytest.raises(CompilerError, match="cannot print argument 1"):
        k.compile((types.float32[::1],))

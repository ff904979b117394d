"""The codegen's entry wrappers follow the one kernel ABI (cudalite.core.abi): the
prototype parameter types of kernels and device functions are the slots' LLVM types,
and core's LLVM type text is exactly what the codegen's IR dialect prints."""

from __future__ import annotations

import re

import pytest
from llvmlite import ir

from cudalite import types as T
from cudalite.core.abi import llvm_memory_text, llvm_value_text, kernel_abi
from cudalite.core.types import SliceType, none
from cudalite.nvvm.api import make_options
from cudalite.nvvm.lower._abi import flat_params
from cudalite.nvvm.lower._irtypes import memory_type, type_from_text, value_type
from cudalite.nvvm.pipeline import EntrySpec, run_pipeline

REC = T.Record([("x", T.float32, 0), ("y", T.int32, 4)], 8)
MIXED = (T.complex64[::1], T.float64[:, :], T.Tuple((T.int32, T.boolean, T.Tuple((T.complex128,)))), T.float16,
         T.CPointer(T.float32), REC, T.Array(REC, 2, "F"), T.Array(T.boolean, 3, "A"), T.uint8, T.CPointer(T.int64, 1))


def kern(a, b, c, d, e, r, s, t, u, v):
    a[0] = b[0, 0]


def dev(a, b, c, d, e, r, s, t, u, v):
    return d


def _params(ir_text, name):
    """The parameter types of ``define ... @"name"(...)`` in ``ir_text``."""
    line = next(ln for ln in ir_text.splitlines() if ln.startswith("define") and f'@"{name}"(' in ln)
    args = line[line.index(f'@"{name}"(') + len(name) + 4:line.rindex(")")]
    return [m.group(1) for m in re.finditer(r'(.+?) %"[^"]+"(?:, |$)', args)]


def test_kernel_prototype_is_the_slots():
    res = run_pipeline(kern, T.void(*MIXED), EntrySpec(device=False), make_options(), until="nvvm-ir")
    assert res.abi == kernel_abi(MIXED)
    got = _params(res.artifacts["nvvm-ir"].data, res.entry_name)
    assert got == list(res.abi.llvm_types)
    assert got[:3] == ["{float, float}*", "i64", "double*"]  # the golden start of docs/abi.md's layout
    assert len(got) == len(res.abi.param_format) == 2 + 5 + 4 + 1 + 1 + 1 + 3 + 7 + 1 + 1


def test_device_function_prototypes_are_the_slots():
    sig = T.float16(*MIXED)
    res = run_pipeline(dev, sig, EntrySpec(device=True, abi="numba"), make_options(), until="nvvm-ir")
    assert _params(res.artifacts["nvvm-ir"].data, res.entry_name) == ["half*", *res.abi.llvm_types]
    res = run_pipeline(dev, sig, EntrySpec(device=True, abi="c"), make_options(), until="nvvm-ir")
    assert _params(res.artifacts["nvvm-ir"].data, "dev") == list(res.abi.llvm_types)


def test_flat_params_are_the_slot_types():
    for t in MIXED:
        assert [str(p) for p in flat_params(t)] == [s.llvm_type for s in kernel_abi((t,)).slots]


TYPES = [T.boolean, T.int8, T.uint16, T.int64, T.float16, T.float32, T.float64, T.complex64, T.complex128, REC,
         T.Tuple((T.int32, T.boolean)), T.Tuple(()), T.float32[:, ::1], T.Array(REC, 1, "C"),
         T.CPointer(T.float32), T.CPointer(T.boolean, 3), T.CPointer(T.CPointer(T.complex64, 1)),
         T.CPointer(REC), T.CPointer(T.Tuple((T.float16, T.Array(T.int8, 2, "A")))), SliceType((True, True, False)),
         none]


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_core_llvm_text_is_what_the_dialect_prints(t):
    assert llvm_value_text(t) == str(value_type(t))
    assert llvm_memory_text(t) == str(memory_type(t))
    for text in (llvm_value_text(t), llvm_memory_text(t), llvm_memory_text(t) + "*"):
        assert str(type_from_text(text)) == text


def test_type_from_text_builds_llvmlite_types():
    assert type_from_text("float addrspace(1)*") == ir.PointerType(ir.FloatType(), 1)
    assert type_from_text("[8 x i8]*") == ir.PointerType(ir.ArrayType(ir.IntType(8), 8))
    assert isinstance(type_from_text("{double, double}"), ir.LiteralStructType)
    for bad in ("ptr", "float**)", "{float", "[x i8]", "i8 i8", "", "float addrspace(1)"):
        with pytest.raises(ValueError, match="not an LLVM type"):
            type_from_text(bad)

"""Records with sub-array fields (``('h', '<f4', (3, 2))``), GPU-less: their types
(:class:`NestedArray` fields, ``from_dtype``/``dtype_of`` round trips), typing of
reads, element stores and whole-field stores, and the byte offsets the generated
code uses.  tests-integration/gpu/test_gpu_record_subarrays.py runs the same
programs on a device and compares with NumPy."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cudalite import types
from cudalite.core.errors import TypingError
from cudalite.core.types import NestedArray, dtype_of
from cudalite.nvvm import compile_ptx

CC = (9, 0)
ALIGNED = np.dtype([("a", np.float64), ("b", np.int32), ("c", np.complex64), ("d", (np.uint8, 5))], align=True)
TWO_D = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])


def test_from_dtype_types_sub_array_fields():
    rt = types.from_dtype(ALIGNED)
    assert rt.field("d") == (NestedArray(types.uint8, (5,)), 20)
    assert rt.size == 32 and rt.aligned
    t2 = types.from_dtype(TWO_D)
    assert t2.field("j") == (NestedArray(types.float32, (3, 2)), 4)
    assert str(t2.field("j")[0]) == "nestedarray(float32, (3, 2))"
    assert t2.field("j")[0].view_type() == types.Array(types.float32, 2, "C")


@pytest.mark.parametrize("dt", [ALIGNED, TWO_D, np.dtype([("x", np.int16, (3,))], align=True)])
def test_dtype_of_round_trips(dt):
    assert dtype_of(types.from_dtype(dt)) == dt


def test_object_fields_still_refused():
    with pytest.raises(NotImplementedError, match="no type for the NumPy dtype"):
        types.from_dtype(np.dtype([("x", np.float32), ("y", "O")]))



def _offsets(ptx, op):
    out = []
    for line in ptx.splitlines():
        m = re.search(op + r"\.global\.\w+\s+.*\[%rd\d+(?:\+(\d+))?\]", line)
        if m:
            out.append(int(m.group(1) or 0))
    return out


def test_element_reads_and_writes_use_the_field_offsets():
    rt = types.from_dtype(TWO_D)

    def k(r, a):
        r.j[2, 1] = 9.0
        r["j"][0, 1] = 3.0
        a[0] = r["j"][1, 0]
        a[1] = r.j.shape[0] + r.j.shape[1] + r.j.size

    ptx, _ = compile_ptx(k, (rt, types.float32[::1]), cc=CC)
    # j starts at byte 4; [2, 1] -> 4 + 5 * 4, [0, 1] -> 4 + 4, [1, 0] -> 4 + 2 * 4
    assert _offsets(ptx, "st")[:2] == [24, 8]
    assert _offsets(ptx, "ld") == [12]
    assert "1093664768" in ptx  # the constant shape: 3 + 2 + 6 = 11.0f (0x41300000)


def test_whole_field_store_copies_every_element():
    rt = types.from_dtype(TWO_D)

    def k(src, dst):
        dst["j"] = src["j"]

    ptx, _ = compile_ptx(k, (rt, rt), cc=CC)
    assert sorted(_offsets(ptx, "ld")) == [4, 8, 12, 16, 20, 24]
    assert sorted(_offsets(ptx, "st")) == [4, 8, 12, 16, 20, 24]


def test_field_filled_from_an_array_and_a_scalar():
    rt = types.from_dtype(np.dtype([("array1", np.int16, (3,))], align=True))

    def k(dest, src):
        dest["array1"] = src
        dest.array1 = 7

    compile_ptx(k, (rt, types.int64[::1]), cc=CC)


def test_whole_field_store_of_a_wrong_rank_is_a_typing_error():
    rt = types.from_dtype(TWO_D)

    def k(r, a):
        r["j"] = a

    with pytest.raises(TypingError, match=r"cannot store a array\(float32, 1d, C\) into record field 'j'"):
        compile_ptx(k, (rt, types.float32[::1]), cc=CC)


def test_records_of_sub_arrays_in_arrays():
    rt = types.from_dtype(ALIGNED)

    def k(ary, i, v):
        ary[i].d[4] = v
        ary[i]["a"] = ary[i].d[0]

    compile_ptx(k, (rt[::1], types.intp, types.uint8), cc=CC)

"""numba-cuda compatibility of the memory-space arrays and warp votes, GPU-less:
``alignment=`` of ``cuda.local.array``/``cuda.shared.array`` (the IR's ``align``,
numba-cuda's errors), ``cuda.const.array_like`` of empty arrays, and the vote
functions' mask/predicate errors in numba-cuda's words."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cudalite import cuda
from cudalite.core.errors import AlignmentError, TypingError
from cudalite.nvvm import compile_ptx
from cudalite.nvvm.api import compile_stages

CC = (9, 0)
REC = np.dtype([("x", "<f8"), ("y", "<i8")])


def _ir(pyfunc, sig):
    art = compile_stages(pyfunc, sig, device=False, cc=CC)["nvvm-ir"]
    return str(getattr(art, "data", art))


@pytest.mark.parametrize("alignment", [16, 64, 256])
def test_alignment_is_the_arrays_ir_alignment(alignment):
    def k(out):
        a = cuda.local.array(shape=(2, 3), dtype=np.uint8, alignment=alignment)
        s = cuda.shared.array(5, np.float64, alignment=alignment)
        a[0, 0] = 1
        s[0] = 2
        out[0] = a[0, 0] + s[0]

    ir = _ir(k, "void(float64[:])")
    local = re.findall(r"alloca \[6 x i8\], align (\d+)", ir)
    shared = re.findall(r"addrspace\(3\) global \[5 x double\].*align (\d+)", ir)
    assert local == [str(alignment)] and shared == [str(alignment)]


def test_no_alignment_keeps_the_defaults():
    def k(out):
        a = cuda.local.array(4, np.uint8, None)
        a[0] = 1
        out[0] = a[0]

    assert re.findall(r"alloca \[4 x i8\], align", _ir(k, "void(float64[:])")) == []


@pytest.mark.parametrize("alignment", [-1, 0, 3, 17, 33])
def test_invalid_alignment_values_are_value_errors(alignment):
    def k(out):
        a = cuda.shared.array(4, np.uint64, alignment=alignment)
        out[0] = a[0]

    with pytest.raises(ValueError, match=f"Alignment must be a power of 2 greater than 0, not {alignment}") as e:
        compile_ptx(k, "void(float64[:])", cc=CC)
    assert isinstance(e.value, AlignmentError) and isinstance(e.value, TypingError)


@pytest.mark.parametrize("alignment", ["1", "foo", 1.0, 1.5, True])
def test_non_integer_alignments_are_typing_errors(alignment):
    def k(out):
        a = cuda.local.array(4, np.uint64, alignment=alignment)
        out[0] = a[0]

    with pytest.raises(TypingError, match="RequireLiteralValue:.*alignment must be a constant integer"):
        compile_ptx(k, "void(float64[:])", cc=CC)


EMPTY = np.zeros(0, np.float64)
EMPTY_REC = np.zeros(0, REC)


def test_const_array_like_of_empty_arrays():
    def k(out):
        c = cuda.const.array_like(EMPTY)
        r = cuda.const.array_like(EMPTY_REC)
        out[0] = c.size + r.size + len(c)

    ptx, _ = compile_ptx(k, "void(float64[:])", cc=CC)
    assert ".entry" in ptx


@pytest.mark.parametrize("sig,message", [
    ("void(float32[:], int32[:], int32[:])", "Mask type must be an integer"),
    ("void(boolean[:], int32[:], int32[:])", "Mask type must be an integer"),
    ("void(int32[:], float32[:], int32[:])", "Predicate must be an integer or boolean"),
])
def test_vote_mask_and_predicate_errors(sig, message):
    def k(mask, pred, out):
        i = cuda.grid(1)
        out[i] = cuda.all_sync(mask[i], pred[i])

    with pytest.raises(TypingError, match=message):
        compile_ptx(k, sig, cc=CC)


@pytest.mark.parametrize("sig", ["void(uint64[:], boolean[:], int32[:])", "void(int64[:], int64[:], int32[:])"])
def test_vote_integer_masks_still_compile(sig):
    def k(mask, pred, out):
        i = cuda.grid(1)
        out[i] = cuda.all_sync(mask[i], pred[i])

    compile_ptx(k, sig, cc=CC)

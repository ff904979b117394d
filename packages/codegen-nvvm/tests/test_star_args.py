"""``f(*t)`` in device code, GPU-less: a tuple unpacked into a call's
positional arguments (numba's rule), for device functions, built-ins and casts
(numba-cuda's test_complex ``complex(*cmath.polar(z))``); the tuple is
evaluated once; a non-tuple or ``**kwargs`` is a located error."""

from __future__ import annotations

import cmath
import re

import pytest

from cudalite import nvvm as cuda
from cudalite import types
from cudalite.core.errors import TypingError, UnsupportedError
from cudalite.nvvm import compile_ptx

CC = (9, 0)


def add3(a, b, c):
    return a * 100 + b * 10 + c


def _constant_stores(out):
    out[0] = add3(*(1, 2), 3)
    out[1] = add3(4, *(5, 6))
    out[2] = add3(*(7, 8, 9))


def test_items_land_in_order():
    ptx, _ = compile_ptx(_constant_stores, "void(int64[:])", cc=CC)
    regs = dict(re.findall(r"mov\.u64\s+(%rd\d+),\s*(\d+);", ptx))
    stored = re.findall(r"st\.global\.u64\s+\[[^\]]+\],\s*(%rd\d+|\d+);", ptx)
    assert sorted(int(regs.get(v, v)) for v in stored) == [123, 456, 789]


def bump(a):
    cuda.atomic.add(a, 0, 1)
    return (1, 2)


def _evaluated_once(a, out):
    out[0] = add3(*bump(a), 3)


def test_the_tuple_is_evaluated_once():
    ptx, _ = compile_ptx(_evaluated_once, "void(int32[:], int64[:])", cc=CC)
    assert len(re.findall(r"\batom\.|\bred\.", ptx)) == 1


def polar_as_complex(z):
    return complex(*cmath.polar(z))


def test_complex_of_polar():
    _, rt = compile_ptx(polar_as_complex, "complex128(complex128)", device=True, cc=CC)
    assert rt == types.complex128


def _not_a_tuple(out, x):
    out[0] = add3(*x)


def _kwargs(out, d):
    out[0] = add3(**d)


def test_errors_are_located():
    with pytest.raises(TypingError, match=r"\*args in a call must be a tuple in device code, not int64"):
        compile_ptx(_not_a_tuple, "void(int64[:], int64)", cc=CC)
    with pytest.raises(UnsupportedError, match=r"\*\*kwargs are not supported"):
        compile_ptx(_kwargs, "void(int64[:], int64)", cc=CC)

"""``tuple()`` and ``tuple(t)`` of a tuple in device code (numba's rule), run on the host
LLVM and compared with CPython; ``tuple()`` of anything else is a located error."""

from __future__ import annotations

import pytest

from host_jit import host_function

from cudalite import nvvm as cuda
from cudalite.core.errors import TypingError


def tuples(a, b):
    t = tuple((a, b, a - b))
    r = len(tuple()) * 1000 + len(t) * 100
    for v in tuple((b, a)):
        r = r * 3 + v
    return r + t[2]


def test_tuple_of_a_tuple_is_the_tuple():
    compiled = host_function(tuples, "int64(int64, int64)")
    for a, b in ((0, 0), (5, -3), (-7, 11)):
        assert compiled(a, b) & (2**64 - 1) == tuples(a, b) & (2**64 - 1)


def test_tuple_of_an_array_is_refused_with_its_location():
    def f(a):
        return len(tuple(a))

    with pytest.raises(TypingError, match=r"tuple\(\) of array\(int64, 1d, A\) is not supported in device code") as e:
        cuda.compile_ptx(f, "int64(int64[:])", device=True)
    assert "test_tuple_builtin.py" in str(e.value)

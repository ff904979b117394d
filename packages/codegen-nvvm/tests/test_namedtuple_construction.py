"""Constructing named tuples in device code (``Point(x, y)``), as numba does: positional
and keyword arguments, the class's defaults, field access and indexing, passing one to
and returning one from a device function; run on the host LLVM and compared with
CPython.  Wrong calls are located TypingErrors with CPython's wording."""

from __future__ import annotations

import itertools
from collections import namedtuple
from typing import NamedTuple

import pytest

from host_jit import host_function

from cudalite import nvvm as cuda
from cudalite.core.errors import TypingError

SIG = "int64(int64, int64)"

Point = namedtuple("Point", ["x", "y"])
Span = namedtuple("Span", ["lo", "hi", "step"], defaults=[1])


class Pair(NamedTuple):
    first: int
    second: float = 0.5


def _swap(p):
    return Point(p.y, p.x)


def positional(a, b):
    p = Point(a, b)
    q = _swap(p)
    return p.x * 1000 + q.x * 10 + q[1]


def keywords_and_defaults(a, b):
    s = Span(hi=b, lo=a)
    t = Span(a, b, 3)
    return s.lo + 10 * s.hi + 100 * s.step + 1000 * t.step + 10000 * (t.hi - t.lo)


def typing_namedtuple(a, b):
    p = Pair(a)
    q = Pair(second=b * 0.25, first=b)
    return int((p.first + p.second + q.first + q.second) * 4)


def mixed_item_types(a, b):
    p = Point(a > b, a * 0.5)
    return int(p.x) * 100 + int(p.y * 2)


@pytest.mark.parametrize("fn", [positional, keywords_and_defaults, typing_namedtuple, mixed_item_types])
def test_namedtuple_construction_matches_cpython(fn):
    compiled = host_function(fn, SIG)
    for a, b in itertools.product([-7, 0, 3, 12], [-2, 5, 9]):
        assert compiled(a, b) == fn(a, b) & (2**64 - 1), (fn.__name__, a, b)


def _too_many(a, b):
    return Point(a, b, a).x


def _unknown_keyword(a, b):
    return Point(a, z=b).x


def _missing(a, b):
    return Point(a).x


@pytest.mark.parametrize("fn, message", [
    (_too_many, r"Point\(\) takes 2 argument\(s\) but 3 were given"),
    (_unknown_keyword, r"Point\(\) got an unexpected keyword argument 'z'"),
    (_missing, r"Point\(\) takes 2 argument\(s\) but 1 were given"),
])
def test_wrong_calls_are_located_errors(fn, message):
    with pytest.raises(TypingError, match=message) as info:
        cuda.compile_ptx(fn, SIG, device=True)
    assert f"{__file__}:" in str(info.value) or __file__.rsplit("/", 1)[-1] in str(info.value)

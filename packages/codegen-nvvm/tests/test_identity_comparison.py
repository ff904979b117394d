"""``is`` / ``is not`` between scalars, run on the host LLVM and compared with CPython:
two booleans compare by value (True and False are singletons); scalars of different
types are never identical; two numbers of one type stay refused (an IntEnum member is a
plain int in device code, so identity cannot be told from equality)."""

from __future__ import annotations

import itertools

import pytest

from host_jit import host_function

from cudalite import nvvm as cuda
from cudalite.core.errors import TypingError

SIG = "int64(int64, int64)"


def booleans(a, b):
    p = a > 0
    q = b > 0
    r = 0
    if p is q:
        r += 1
    if p is not q:
        r += 2
    if p is True:
        r += 4
    if q is not False:
        r += 8
    if (p is q) is (a == b):
        r += 16
    return r


def mixed_types(a, b):
    p = a > 0
    r = 0
    if a is p:  # int64 and bool: different objects
        r += 1
    if a is not p:
        r += 2
    if a is True:
        r += 4
    if 1.0 * b is b:  # float64 and int64
        r += 8
    return r


@pytest.mark.parametrize("fn", [booleans, mixed_types])
def test_identity_matches_cpython(fn):
    compiled = host_function(fn, SIG)
    for a, b in itertools.product((-2, 0, 1, 3), repeat=2):
        assert compiled(a, b) == fn(a, b), (fn.__name__, a, b)


def test_identity_of_two_numbers_of_one_type_is_refused():
    def f(a, b):
        return 1 if a is b else 0

    with pytest.raises(TypingError, match=r"'is' is supported only to compare with None, not int64 and int64 "
                                          r"\(compare numbers with == / !=\)"):
        cuda.compile_ptx(f, SIG, device=True)

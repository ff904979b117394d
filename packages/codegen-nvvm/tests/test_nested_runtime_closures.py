"""Nested functions that read run-time variables of the enclosing function (a
parameter, a local computed at run time), as numba compiles them: each call passes the
variables' current values (Python's late binding).  Run on the host LLVM and compared
with CPython; what cannot be expressed that way (passing such a function on, nonlocal,
another nested function reading it) is a located UnsupportedError."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from host_jit import host_function

from cudalite import nvvm as cuda
from cudalite.core.errors import TypingError, UnsupportedError

SIG = "int64(int64, int64)"


def reads_a_parameter(a, b):
    def scaled(x):
        return x * a + b

    return scaled(3) + scaled(b)


def reads_a_runtime_local(a, b):
    p = np.int64(7) + a % 3

    def fu(i):
        k = (i % 5) + (i % 3)
        return (k * (k + 1)) % p

    return (fu(a + 1) - fu(a)) % p + fu(b)


def late_binding(a, b):
    step = a

    def add_step(x, times=2):
        return x + step * times

    first = add_step(b)
    step = b  # the next call sees the new value, as in Python
    return first * 1000 + add_step(a, times=1)


def in_a_loop(a, b):
    total = 0
    for i in range(4):
        def term(x):
            return x * i + a

        total += term(b)
    return total


@pytest.mark.parametrize("fn", [reads_a_parameter, reads_a_runtime_local, late_binding, in_a_loop])
def test_nested_functions_reading_runtime_variables_match_cpython(fn):
    compiled = host_function(fn, SIG)
    for a, b in itertools.product([-4, 0, 5, 13], [-3, 2, 11]):
        assert compiled(a, b) == int(fn(a, b)) & (2**64 - 1), (fn.__name__, a, b)


def _passed_on(a, b):
    def f(x):
        return x + a

    g = f
    return g(b)


def _passed_twice_defined(a, b):
    if a > 0:
        x = 3
    else:
        x = 6

    def f(y):
        return y + x

    return _apply(f, b)


def _apply(f, v):
    return f(v)


def _nonlocal(a, b):
    def bump(x):
        nonlocal a
        a = a + x
        return a

    return bump(b)


def _nested_reader(a, b):
    def f(x):
        return x + a

    def g(x):
        return f(x) * 2

    return g(b)


@pytest.mark.parametrize("fn, message", [
    (_passed_on, r"Cannot capture the non-constant value associated with variable 'a' in a function that may "
                 r"escape \(the nested function 'f' is passed on"),
    (_passed_twice_defined, r"Cannot capture a constant value for variable 'x' as there are multiple definitions"),
    (_nonlocal, r"the nested function 'bump' assigns a variable of the enclosing function \(nonlocal\)"),
    (_nested_reader, r"the nested function 'g' reads 'f', a nested function that itself reads run-time variables"),
])
def test_what_cannot_be_passed_at_the_call_is_a_located_error(fn, message):
    with pytest.raises((UnsupportedError, TypingError), match=message) as info:
        cuda.compile_ptx(fn, SIG, device=True)
    assert "test_nested_runtime_closures.py:" in str(info.value)

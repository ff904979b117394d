"""Typing per definition and typed recursion, run on the GPU and compared with CPython.

Each program assigns a variable values of different types on different paths or
one after another (numba's SSA typing: each assignment has its own type, merges
unify); the kernel runs it for several inputs and the results must equal what
CPython computes (numba promotes a merge of int and float to float64, so results
are compared as float64 values).  The recursive device functions (numba-cuda's
test_recursion cases) are compared with CPython the same way.
"""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda

pytestmark = pytest.mark.gpu


def redefined_after_use(x):
    v = x
    v <<= 7
    w = v // 3
    v = 2.0
    return w + v


def int_then_float_in_branches(x):
    if x > 0:
        v = 1
    else:
        v = 1.5
    return v * 3


def per_path_types(x):
    if x > 2:
        v = 7
        r = v // 2
    else:
        v = (1.5, 2.5)
        r = v[0] + v[1]
    return r


def accumulate(x):
    s = 0
    for i in range(x):
        s += 0.5
        if s > 3:
            break
    return s


def loop_reassigns_its_target(x):
    t = 0
    for i in range(x):
        i = i * 2.5
        t += i
    return t + i if x > 0 else t


def tuple_then_number(x):
    p = (x, x + 1)
    q = p[0] * p[1]
    p = q * 3
    return p


def while_doubling(x):
    k = 0
    y = 1
    while k < x:
        y = y * 2
        if y > 50:
            y = y / 4
        k += 1
    return y


def previous_iteration(x):
    t = 0
    for i in range(x):
        if i > 0:
            t += last  # noqa: F821
        last = i * 0.5
    return t


PROGRAMS = [redefined_after_use, int_then_float_in_branches, per_path_types, accumulate,
            loop_reassigns_its_target, tuple_then_number, while_doubling, previous_iteration]
INPUTS = np.array([-3, 0, 1, 2, 3, 5, 9, 12], dtype=np.int64)


def _kernel_for(fn):
    dev = cuda.jit(device=True)(fn)

    @cuda.jit
    def kernel(out, xs):
        i = cuda.grid(1)
        if i < xs.size:
            out[i] = dev(xs[i])

    return kernel


@pytest.mark.parametrize("fn", PROGRAMS, ids=[f.__name__ for f in PROGRAMS])
def test_program_agrees_with_cpython(fn):
    out = np.zeros(INPUTS.size, dtype=np.float64)
    _kernel_for(fn)[1, INPUTS.size](out, INPUTS)
    expected = np.array([float(fn(int(x))) for x in INPUTS])
    np.testing.assert_array_equal(out, expected)


@cuda.jit("i8(i8)", device=True)
def fib1(n):
    if n < 2:
        return n
    return fib1(n - 1) + fib1(n - 2)


def fib3(n):
    if n < 2:
        return n
    return fib3(n - 1) + fib3(n - 2)


def fib_ternary(n):
    return n if n < 2 else fib_ternary(n - 1) + fib_ternary(n - 2)


def type_change_self(x, y):
    if x > 1 and y > 0:
        return x + type_change_self(x - y, y)
    else:
        return y


def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


def recursive_first(n):
    if n > 0:
        return recursive_first(n - 1) * 0.5
    return 1


def test_recursive_device_functions_agree_with_cpython():
    @cuda.jit
    def kernel(out, xs):
        i = cuda.grid(1)
        if i < xs.size:
            n = xs[i]
            out[i, 0] = fib1(n)
            out[i, 1] = fib3(n)
            out[i, 2] = fib_ternary(n)
            out[i, 3] = type_change_self(n, 3)
            out[i, 4] = is_even(n)
            out[i, 5] = recursive_first(n)

    xs = np.array([0, 1, 2, 5, 10, 12], dtype=np.int64)
    out = np.zeros((xs.size, 6), dtype=np.float64)
    kernel[1, xs.size](out, xs)
    # fib1 is fib3 with a signature (its Python body calls the dispatcher, which Python cannot run)
    expected = np.array([[fib3(int(n)), fib3(int(n)), fib_ternary(int(n)), type_change_self(int(n), 3),
                          is_even(int(n)), recursive_first(int(n))] for n in xs], dtype=np.float64)
    np.testing.assert_array_equal(out, expected)

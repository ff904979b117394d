"""``for ... else`` and ``while ... else`` (numba supports both): the else block runs when
the loop ends without ``break``; a ``break`` of an inner loop does not count.  Results
are checked against CPython by running the lowered code on the CPU (host_jit)."""

from __future__ import annotations

import itertools

import pytest

from host_jit import host_function

SIG = "int64(int64, int64)"


def for_else(x, y):
    z = 0
    for i in range(x):
        if i == y:
            z = y
            break
    else:
        z = 100 + x
    return z


def nested_for_else(x, y):
    z = 0
    for i in range(x):
        for j in range(i):
            if j == y:
                z += j
                break  # the inner loop's: its else is skipped, the outer loop's is not
        else:
            z += 1000
    else:
        z += 7
    return z


def while_else(x, y):
    k = 0
    while k < x:
        k += 1
        if k == y:
            break
    else:
        k = -k
    return k


def else_with_continue(x, y):
    total = 0
    for i in range(x):
        if i % 2 == 0:
            continue
        total += i
        if total > y:
            break
    else:
        total *= 10
    return total


def iter_else(x, y):
    t = (3, 5, 7, 9)
    found = -1
    for i, v in enumerate(t):
        if v == y:
            found = i
            break
    else:
        found = x
    return found


@pytest.mark.parametrize("fn", [for_else, nested_for_else, while_else, else_with_continue, iter_else])
def test_loop_else_matches_cpython(fn):
    compiled = host_function(fn, SIG)
    for x, y in itertools.product(range(-1, 9), range(-1, 10)):
        assert compiled(x, y) == fn(x, y) & (2**64 - 1), (fn.__name__, x, y)

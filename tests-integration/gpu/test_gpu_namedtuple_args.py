"""GPU: named tuples as kernel arguments (numba-cuda's test_namedtuple /
test_namedunituple): fields read by name, values as CPython's."""

from collections import namedtuple

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

Point = namedtuple("Point", ("x", "y", "r"))
Pair = namedtuple("Pair", ("x", "y"))


@pytest.fixture
def cuda(gpu):
    from cudalite import cuda

    return cuda


def test_namedtuple_argument(cuda):
    @cuda.jit
    def f(r1, r2, p):
        r1[0] = p.x
        r1[1] = p.y
        r2[0] = p.r

    p = Point(1, 2, 2.236)
    r1, r2 = np.zeros(2, np.int64), np.zeros(1, np.float64)
    f[1, 1](r1, r2, p)
    assert (r1[0], r1[1], r2[0]) == (p.x, p.y, p.r)
    f[1, 1](r1, r2, Point(5, 6, 0.5))  # the same specialization, new values
    assert (r1[0], r1[1], r2[0]) == (5, 6, 0.5)


def test_namedunituple_argument(cuda):
    @cuda.jit
    def f(r, p):
        r[0] = p.x
        r[1] = p.y

    r = np.zeros(2, np.int64)
    f[1, 1](r, Pair(1, 2))
    assert list(r) == [1, 2]

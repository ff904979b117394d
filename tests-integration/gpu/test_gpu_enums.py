"""GPU: ``enum`` constants in kernels against CPython -- plain Enum members
compared (folded at compile time), ``Color["red"]``, IntEnum members as ints,
and IntEnum members as kernel arguments."""

from enum import Enum, IntEnum

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


class Color(Enum):
    red = 1
    green = 2


class Status(IntEnum):
    ok = 200
    missing = 404
    broken = 500


@pytest.fixture
def cuda(gpu):
    from cudalite import cuda

    return cuda


def test_enum_members_in_kernels(cuda):
    def f(x, s, out, flags):
        flags[0] = Color.red == Color.green
        flags[1] = Color["green"] == Color.green
        flags[2] = Color.red is not Color.green
        if x > Status.broken:
            out[0] = x - Status["missing"]
        else:
            out[0] = x + Status.ok + s

    k = cuda.jit(f)
    for x in (300, 450, 550):
        got, gflags = np.zeros(1, np.int64), np.zeros(3, np.bool_)
        exp, eflags = np.zeros(1, np.int64), np.zeros(3, np.bool_)
        k[1, 1](x, Status.missing, got, gflags)
        f(x, Status.missing, exp, eflags)
        np.testing.assert_array_equal(got, exp)
        np.testing.assert_array_equal(gflags, eflags)

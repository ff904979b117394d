"""GPU: print() of tuples and of cuda.threadIdx in kernels, output compared with Python's."""

from __future__ import annotations

import pytest

from cudalite import cuda

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("value", [(1, 2, 3, 4, 5), (1,), pytest.param(
    (1, ((2, 4), 3.5), (4,), 5), marks=pytest.mark.nosim("compiled print formatting (vprintf renders floats as %f)"))])
def test_print_tuple(value, capfd):
    @cuda.jit
    def k(tup):
        print(tup)

    k[1, 1](value)
    cuda.synchronize()
    line = capfd.readouterr().out.strip()
    assert line == str(value).replace("3.5", "3.500000")


def test_print_thread_idx(capfd):
    @cuda.jit
    def k():
        print(cuda.threadIdx)

    k[1, (2, 2, 2)]()
    cuda.synchronize()
    lines = sorted(line.strip() for line in capfd.readouterr().out.splitlines())
    assert lines == sorted(str(t) for t in [(x, y, z) for x in range(2) for y in range(2) for z in range(2)])

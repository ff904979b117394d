"""On the GPU: a 0-d integer array indexes like its element, and records are copied
between record arrays (numba-cuda's cache_usecases.record_return), checked against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("align", [False, True])
def test_record_return_with_zero_d_index(align):
    dt = np.dtype([("a", np.int8), ("b", np.float64)], align=align)
    arr = np.zeros(2, dtype=dt)
    arr["a"], arr["b"] = [1, 2], [42.5, 43.5]

    @cuda.jit
    def record_return(r, ary, i):
        r[()] = ary[i]

    for i in (1, np.asarray(1)):
        r = np.zeros((), dtype=dt)
        record_return[1, 1](r, arr, np.asarray(i))
        assert tuple(r[()]) == tuple(arr[1]) == (2, 43.5)


def test_zero_d_index_reads_and_writes():
    @cuda.jit
    def k(out, a, i, j):
        out[0] = a[i, j]
        a[j, i] = -1.0

    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    expect = a.copy()
    out = np.zeros(1, dtype=np.float32)
    k[1, 1](out, a, np.asarray(2, dtype=np.int32), np.asarray(1))
    assert out[0] == expect[2, 1]
    expect[1, 2] = -1.0
    np.testing.assert_array_equal(a, expect)

"""GPU: tuples holding NumPy arrays as kernel arguments are copied in and back
(numba-cuda's test_array_args: tuple of arrays, tuple of array/scalar/tuple)."""

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture
def cuda(gpu):
    from cudalite import cuda

    return cuda


def test_tuple_of_host_arrays_written_back(cuda):
    @cuda.jit
    def f(x):
        i = cuda.grid(1)
        if i < len(x[0]):
            x[0][i] = x[1][i] + x[2][i]

    x0 = np.zeros(10)
    x1 = np.ones_like(x0)
    f[1, 10]((x0, x1, x1 * 3))
    np.testing.assert_equal(x0, np.full(10, 4.0))
    f[1, 10]((x0, x1, x1))  # a second launch (the slow path again, not a device-tuple fast path)
    np.testing.assert_equal(x0, np.full(10, 2.0))


def test_tuple_of_array_scalar_tuple(cuda):
    @cuda.jit
    def f(r, x):
        r[0] = x[0][0]
        r[1] = x[0][1]
        r[2] = x[1]
        r[3] = x[2][0]
        r[4] = x[2][1]

    r = np.zeros(5, dtype=np.int64)
    f[1, 1](r, (2 * np.arange(2, dtype=np.int64), 10, (4, 3)))
    np.testing.assert_equal(r, [0, 2, 10, 4, 3])

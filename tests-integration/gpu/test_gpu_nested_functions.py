"""Functions defined inside kernels and device functions on the GPU (numba-cuda's
test_make_function_to_jit_function cases): called, passed to device functions."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

_GLOBAL = 123


def test_nested_functions_escape_into_device_functions(gpu):
    from cudalite import cuda

    @cuda.jit(device=True)
    def consumer(func, arg):
        return func(arg)

    @cuda.jit(device=True)
    def consumer2(func1, func2):
        return func2(func1)

    @cuda.jit
    def kernel(out, x):
        y = 10

        def callinner(z):
            return y + z + _GLOBAL

        def inner():
            return 10

        def innerinner(f):
            return f()

        out[0] = consumer(callinner, x[0])
        out[1] = consumer2(inner, innerinner)
        out[2] = inner() * 2

    out = np.zeros(3, dtype=np.int64)
    kernel[1, 1](out, np.array([5]))
    np.testing.assert_equal(out, [5 + 10 + _GLOBAL, 10, 20])

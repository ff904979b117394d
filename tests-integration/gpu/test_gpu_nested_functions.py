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


def test_star_args_through_an_overload(gpu):
    """numba-cuda's test_with_overload: an overload specialised on the number of *args."""
    from cudalite import cuda
    from cudalite.cuda.extending import overload

    def foo(func, *args):
        return func(*args) if len(args) == 1 else func(func(*args))

    @overload(foo)
    def foo_ol(func, *args):
        if len(args) == 1:
            def impl(func, *args):
                return func(*args)
            return impl
        if len(args) == 2:
            def impl(func, *args):
                return func(func(*args))
            return impl

    @cuda.jit
    def kernel(out, x):
        y = 10

        def callinner(*z):
            if len(z) == 1:
                tmp = z[0]
            elif len(z) == 2:
                tmp = z[0] + z[1]
            return y + tmp + _GLOBAL

        out[0] = foo(callinner, x[0]) + foo(callinner, x[0], x[0])

    def reference(a):
        def callinner(*z):
            tmp = z[0] if len(z) == 1 else z[0] + z[1]
            return 10 + tmp + _GLOBAL

        return foo(callinner, a) + foo(callinner, a, a)

    out = np.zeros(1, dtype=np.int64)
    kernel[1, 1](out, np.array([5]))
    assert out[0] == reference(5)

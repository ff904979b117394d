"""On the GPU: a kernel pickled by value (a local function calling a local device function)
launches after unpickling and computes what the original does (numba's test_serialize)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from cudalite import cuda

pytestmark = [pytest.mark.gpu,
              pytest.mark.nosim("pickling local kernels by value (the compiled dispatcher's own pickling)")]


@pytest.mark.parametrize("eager", [False, True])
def test_pickled_kernel_launches(eager):
    @cuda.jit(device=True)
    def inner(a):
        return a + 1

    def foo(arr):
        arr[0] = inner(arr[0])

    foo = cuda.jit("void(intp[:])")(foo) if eager else cuda.jit(foo)
    arr = np.array([100], dtype=np.intp)
    foo[1, 1](arr)
    assert arr[0] == 101
    for _ in range(2):
        foo = pickle.loads(pickle.dumps(foo))
        foo[1, 1](arr)
    assert arr[0] == 103


def test_pickled_vectorize_ufunc_computes_the_same():
    k = 2

    @cuda.vectorize(["intp(intp)", "float64(float64)"])
    def twice(x):
        return x * k

    a, f = np.arange(10, dtype=np.intp), np.linspace(0, 1, 7)
    for _ in range(2):
        twice = pickle.loads(pickle.dumps(twice))
        np.testing.assert_array_equal(twice(a), a * 2)
        np.testing.assert_array_equal(twice(f), f * 2)

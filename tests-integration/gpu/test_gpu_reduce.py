"""``cuda.reduce`` on the GPU: sum, max and min over float32/float64/int32/int64
arrays of sizes 0, 1, 7, 1000 and 2**20 + 3, from host and device inputs, with
``res=``, ``init=``, ``size=`` and a stream; results compared with NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda

pytestmark = pytest.mark.gpu

DTYPES = ["float32", "float64", "int32", "int64"]
SIZES = [0, 1, 7, 1000, (1 << 20) + 3]

sum_reduce = cuda.reduce(lambda a, b: a + b)


@cuda.reduce
def max_reduce(a, b):
    return max(a, b)


@cuda.jit(device=True)
def dev_min(a, b):
    return a if a < b else b


min_reduce = cuda.Reduce(dev_min)

OPS = {
    "sum": (sum_reduce, lambda a, init: a.sum(dtype=np.float64 if a.dtype.kind == "f" else a.dtype) + init),
    "max": (max_reduce, lambda a, init: max(a.max(), init) if a.size else init),
    "min": (min_reduce, lambda a, init: min(a.min(), init) if a.size else init),
}


def data(n, dtype, seed=0):
    rng = np.random.default_rng(seed + n)
    if np.dtype(dtype).kind == "f":
        return (rng.random(n) * 2 - 1).astype(dtype)
    return rng.integers(-1000, 1000, n).astype(dtype)


def check(got, want, dtype, n):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        rtol = 1e-4 if dtype == np.float32 else 1e-10
        np.testing.assert_allclose(float(got), float(want), rtol=rtol, atol=rtol * max(1, n) ** 0.5)
    else:
        assert int(got) == int(want)


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_host_input(op, dtype, n):
    reducer, ref = OPS[op]
    a = data(n, dtype)
    init = {"sum": 0, "max": -10**6, "min": 10**6}[op]
    got = reducer(a, init=init)
    assert np.asarray(got).dtype == np.dtype(dtype)
    check(got, ref(a, init), dtype, n)


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 7, 1000, (1 << 20) + 3])
def test_device_input_is_not_modified(op, dtype, n):
    reducer, ref = OPS[op]
    a = data(n, dtype, seed=1)
    d = cuda.to_device(a)
    init = {"sum": 0, "max": -10**6, "min": 10**6}[op]
    check(reducer(d, init=init), ref(a, init), dtype, n)
    np.testing.assert_array_equal(d.copy_to_host(), a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_res_and_init(dtype, n):
    a = data(n, dtype, seed=2)
    res = cuda.device_array(3, dtype=dtype)
    res.copy_to_device(np.full(3, 9, dtype=dtype))
    assert sum_reduce(cuda.to_device(a), res=res, init=5) is None
    host = res.copy_to_host()
    check(host[0], OPS["sum"][1](a, 5), dtype, n)
    assert host[1] == 9 and host[2] == 9  # only res[0] is written


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", [0, 1, 5, 999, 1000 - 257])
def test_size(dtype, size):
    a = data(1000, dtype, seed=3)
    check(sum_reduce(a, size=size), OPS["sum"][1](a[:size], 0), dtype, size)
    check(max_reduce(cuda.to_device(a), size=size, init=-5000), OPS["max"][1](a[:size], -5000), dtype, size)


def test_init_is_applied_to_max_and_min():
    a = np.arange(100, dtype=np.int64)
    assert max_reduce(a, init=1000) == 1000
    assert min_reduce(a, init=-3) == -3
    assert max_reduce(a, init=-3) == 99
    assert sum_reduce(np.ones(7, np.float32), init=0.5) == np.float32(7.5)


def test_stream_and_strided_device_input():
    s = cuda.stream()
    a = data((1 << 20) + 3, "float64", seed=4)
    d = cuda.to_device(a, stream=s)
    got = sum_reduce(d[::3], stream=s)
    check(got, a[::3].sum(), "float64", a[::3].size)
    res = cuda.device_array(1, np.float64, stream=s)
    max_reduce(d, res=res, stream=s)
    s.synchronize()
    assert res.copy_to_host()[0] == a.max()


def test_decorated_function_and_lambda_product():
    prod = cuda.reduce(lambda a, b: a * b)
    a = np.array([1, 2, 3, 4, 5, 6, 7], dtype=np.int64)
    assert prod(a, init=1) == 5040
    assert prod(a, init=0) == 0  # numba semantics: init is combined like any other element
    # numba's documented example
    A = np.arange(1234, dtype=np.float64) + 1
    assert sum_reduce(A) == A.sum()

"""GPU: numba-cuda's array features against NumPy -- 0-d arrays (host and device,
``a[()]``), ``a[()] = x`` on n-d arrays, NumPy ufuncs with an output array inside
kernels (broadcasting, dtype conversion, int64/uint64 comparisons), and device
arrays captured from globals by reference (numba-cuda's doc example)."""

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture
def cuda(gpu):
    from cudalite import cuda

    return cuda


def test_zero_d_result_array(cuda):
    @cuda.jit
    def k(r, x):
        r[()] = x[0] + x[1]

    r = np.zeros((), np.float32)
    k[1, 1](r, np.array([1.5, 2.0], np.float32))
    assert r[()] == np.float32(3.5)
    d = cuda.to_device(np.array(7.0))
    assert d.shape == () and d.strides == () and d.size == 1
    out = cuda.device_array((), np.float64)

    @cuda.jit("void(float64[()], float64[()])")
    def twice(r, a):
        r[()] = a[()] * 2

    twice[1, 1](out, d)
    assert out.copy_to_host()[()] == 14.0


def test_store_empty_tuple_index_fills_the_array(cuda):
    @cuda.jit
    def k(a, x):
        a[()] = x

    a = np.zeros((3, 4), np.float32)
    k[1, 1](a, 2.5)
    expected = np.zeros((3, 4), np.float32)
    expected[()] = 2.5
    np.testing.assert_array_equal(a, expected)


def test_ufunc_with_output_array_doc_example(cuda):
    @cuda.jit
    def f(r, x):
        np.sin(x, r)

    x = np.arange(10, dtype=np.float32) - 5
    r = np.zeros_like(x)
    f[1, 1](r, x)
    np.testing.assert_allclose(r, np.sin(x), rtol=1e-6)


@pytest.mark.parametrize("name", ["greater", "greater_equal", "less", "less_equal", "equal", "not_equal"])
def test_signed_unsigned_comparisons_match_numpy(cuda, name):
    uf = getattr(np, name)

    @cuda.jit
    def k(a, b, out):
        uf(a, b, out)

    a = np.array([-1, -1, 0, 0, 1, 1, -(2**63)], dtype=np.int64)
    b = np.array([0, 1, 0, 1, 0, 1, 2**64 - 1], dtype=np.uint64)
    out = np.zeros(a.shape, np.bool_)
    k[1, 1](a, b, out)
    np.testing.assert_array_equal(out, uf(a, b))
    k[1, 1](b, a, out)
    np.testing.assert_array_equal(out, uf(b, a))


@pytest.mark.parametrize("name, dtype", [
    ("arctan2", np.float64), ("hypot", np.float32), ("maximum", np.float64), ("fmax", np.float64),
    ("fmin", np.float32), ("logical_xor", np.float32), ("bitwise_and", np.int32), ("left_shift", np.int32),
    ("right_shift", np.int64), ("add", np.int16), ("floor_divide", np.float64), ("remainder", np.int32),
])
def test_binary_ufuncs_broadcast_like_numpy(cuda, name, dtype):
    uf = getattr(np, name)

    @cuda.jit
    def k(a, b, out):
        uf(a, b, out)

    rng = np.random.default_rng(1)
    if np.dtype(dtype).kind == "f":
        a = rng.standard_normal((4, 5)).astype(dtype)
        b = rng.standard_normal(5).astype(dtype)
        a[0, 0], b[1] = np.nan, np.nan
    else:
        a = rng.integers(-50, 50, (4, 5)).astype(dtype)
        b = rng.integers(1, 70, 5).astype(dtype)  # shifts by more than the width included
    out_dtype = np.bool_ if name.startswith("logical") else dtype
    out = np.zeros((4, 5), out_dtype)
    k[1, 1](a, b, out)
    with np.errstate(all="ignore"):
        want = uf(a, b).astype(out_dtype)
    if name in ("arctan2", "hypot"):  # libdevice and the host libm may differ in the last ulp
        np.testing.assert_allclose(out, want, rtol=4e-7 if dtype == np.float32 else 1e-15)
    else:
        np.testing.assert_array_equal(out, want)


def test_ufunc_scalar_input_and_converting_output(cuda):
    @cuda.jit
    def k(x, out_i, out_b):
        np.greater(x, 0.5, out_i)  # bool results stored into int32
        np.logical_not(x, out_b)

    x = np.array([[0.0, 1.0], [0.25, 3.0]])
    out_i, out_b = np.zeros((2, 2), np.int32), np.zeros((2, 2), np.bool_)
    k[1, 1](x, out_i, out_b)
    np.testing.assert_array_equal(out_i, np.greater(x, 0.5).astype(np.int32))
    np.testing.assert_array_equal(out_b, np.logical_not(x))


PRICES = None


def test_global_device_array_captured_by_reference(cuda):
    global PRICES
    PRICES = cuda.to_device(np.array([10.0, 25.0, 5.0, 15.0, 30.0], dtype=np.float32))

    @cuda.jit
    def compute_totals(quantities, totals):
        i = cuda.grid(1)
        if i < totals.size:
            totals[i] = quantities[i] * PRICES[i]

    try:
        q = cuda.to_device(np.ones(5, np.float32))
        totals = cuda.device_array(5, dtype=np.float32)
        compute_totals[1, 32](q, totals)
        np.testing.assert_array_equal(totals.copy_to_host(), [10.0, 25.0, 5.0, 15.0, 30.0])
        PRICES.copy_to_device(np.array([20.0, 50.0, 10.0, 30.0, 60.0], dtype=np.float32))
        compute_totals[1, 32](q, totals)  # the kernel reads the array, not a copy
        np.testing.assert_array_equal(totals.copy_to_host(), [20.0, 50.0, 10.0, 30.0, 60.0])
    finally:
        PRICES = None


def test_captured_device_array_is_writable_and_zero_d_works(cuda):
    acc = cuda.to_device(np.zeros(4, np.float32))
    scale = cuda.to_device(np.array(3.0, np.float32))

    @cuda.jit
    def k():
        i = cuda.grid(1)
        if i < acc.size:
            acc[i] = (i + 1) * scale[()]

    k[1, 4]()
    np.testing.assert_array_equal(acc.copy_to_host(), [3.0, 6.0, 9.0, 12.0])


@pytest.mark.nosim("the on-disk kernel cache")
def test_captured_device_array_refuses_the_cache(cuda):
    import pickle

    captured = cuda.to_device(np.ones(3, np.float32))

    @cuda.jit(cache=True)
    def k(out):
        out[0] = captured[0]

    with pytest.raises(pickle.PicklingError, match="global device arrays"):
        k[1, 1](cuda.device_array(3, np.float32))

"""On the GPU: NumPy ufuncs on complex arrays inside kernels (numba-cuda's test_ufuncs
complex loops) against NumPy on the host: the math functions on finite values, and the
lexicographic comparisons / maximum / minimum / fmax / fmin with NaN parts exactly."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda

pytestmark = pytest.mark.gpu

MATH = ["sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
        "arctanh", "exp", "log", "log2", "log10", "sqrt"]


def _values(dtype):
    re = np.array([0.5, -0.5, 1.5, -2.0, 0.25, 3.0, -0.75, 0.0])
    im = np.array([0.25, -1.0, 0.5, 0.0, -0.25, 1.0, 2.0, 0.75])
    return (re + 1j * im).astype(dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", MATH)
def test_complex_math_ufunc_matches_numpy(name, dtype):
    f = getattr(np, name)

    @cuda.jit
    def k(x, out):
        f(x, out)

    x = _values(dtype)
    out = np.zeros_like(x)
    k[1, 1](x, out)
    rtol = 2e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(out, f(x), rtol=rtol, atol=rtol)


def _nan_pairs():
    nan = np.nan
    xs = [1 + 1j, 1 + 2j, 2 + 0j, complex(nan, 0), complex(0, nan), 1 + 1j, complex(1, nan), -0.0 + 0j]
    ys = [1 + 2j, 1 + 1j, 1 + 5j, 1 + 1j, 0 + 0j, complex(1, nan), 1 + 1j, 0.0 + 0j]
    return np.array(xs, np.complex128), np.array(ys, np.complex128)


@pytest.mark.parametrize("name", ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"])
def test_complex_comparisons_are_lexicographic_as_numpy(name):
    f = getattr(np, name)

    @cuda.jit
    def k(x, y, out):
        f(x, y, out)

    x, y = _nan_pairs()
    out = np.zeros(len(x), np.bool_)
    k[1, 1](x, y, out)
    np.testing.assert_array_equal(out, f(x, y))


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
def test_complex_maximum_minimum_as_numpy(name):
    f = getattr(np, name)

    @cuda.jit
    def k(x, y, out):
        f(x, y, out)

    x, y = _nan_pairs()
    out = np.zeros_like(x)
    k[1, 1](x, y, out)
    np.testing.assert_array_equal(out, f(x, y))  # NaN == NaN for assert_array_equal

"""GPU: NumPy's whole-array reductions inside kernels (``np.sum(a)``, ``a.max()``,
``np.nanmean(a)`` ...) against NumPy, NaN and infinity cases included, as
numba-cuda's test_array_reductions; and loops over global tuples of arrays."""

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

CASES = [
    np.float64([1.0, 2.0, 0.0, -0.0, 1.0, -1.5]),
    np.float64([-1.5, 2.5, float("inf")]),
    np.float64([-1.5, 2.5, float("inf"), -float("inf")]),
    np.float64([np.nan, -1.5, 2.5, np.nan, 3.0]),
    np.float64([5.0, np.nan, -1.5, np.nan]),
    np.float64([np.nan, np.nan]),
    np.float64([[1.0, -2.0, 3.5], [0.25, 7.0, -1.0]]),
]
KINDS = ["sum", "prod", "min", "max", "argmin", "argmax", "mean", "var", "std", "nansum", "nanprod",
         "nanmin", "nanmax", "nanmean", "nanvar", "nanstd", "count_nonzero", "all", "any"]


def _kernel(name):
    fn = getattr(np, name)

    def k(a, out):
        out[0] = fn(a)

    return k


_ROUNDED = ("mean", "var", "std", "nanmean", "nanvar", "nanstd")


@pytest.mark.parametrize("name", KINDS)
def test_reduction_matches_numpy(gpu, name):
    for a in CASES:
        if name in ("nanmin", "nanmax") and np.isnan(a).all():
            expected = np.float64(np.nan)  # NumPy warns; numba and cudalite give NaN
        else:
            expected = np.float64(getattr(np, name)(a))
        out = np.zeros(1, np.float64)
        gpu.run(_kernel(name), [a, out])
        if name in _ROUNDED:  # summed in C order (as numba), NumPy sums pairwise: the last bits may differ
            np.testing.assert_allclose(out[0], expected, rtol=1e-14, err_msg=f"{name}({a})")
        else:
            np.testing.assert_array_equal(out[0], expected, err_msg=f"{name}({a})")


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.bool_])
def test_integer_reductions(gpu, dtype):
    a = np.array([3, 0, 7, 1, 7, 2], dtype)

    def k(a, out, iout):
        out[0] = a.mean()
        out[1] = np.var(a)
        iout[0] = a.sum()
        iout[1] = a.max()
        iout[2] = a.argmax()
        iout[3] = np.count_nonzero(a)
        iout[4] = a.min()

    out = np.zeros(2, np.float64)
    iout = np.zeros(5, np.int64)
    gpu.run(k, [a, out, iout])
    np.testing.assert_array_equal(out, [a.mean(), np.var(a)])
    np.testing.assert_array_equal(iout, [a.sum(), a.max(), a.argmax(), np.count_nonzero(a), a.min()])


ARRAYS = (np.float64([1.0, 2.5]), np.float64([4.0, -1.0, 0.5]))


def test_sum_over_a_global_tuple_of_arrays(gpu):
    def k(out):
        i = 0
        for arr in ARRAYS:
            out[i] = np.sum(arr)
            i += 1

    out = np.zeros(2, np.float64)
    gpu.run(k, [out])
    np.testing.assert_array_equal(out, [3.5, 3.5])

"""``cudalite.cuda.kernels.transpose`` on the GPU (numba-cuda's test_transpose cases)."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("device-array API of the transpose kernel, as numba's")]

RECORD = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])
SMALL = ((2, 3), (16, 16), (16, 17), (17, 16), (14, 15), (15, 14), (14, 14))


@pytest.mark.parametrize("rows, cols, dtype", [(5, 6, np.float64), (128, 128, np.complex128),
                                               (1025, 512, np.float64), (33, 70, np.int8)])
def test_transpose_numbers(gpu, rows, cols, dtype):
    from cudalite import cuda
    from cudalite.cuda.kernels.transpose import transpose

    x = np.arange(rows * cols, dtype=dtype).reshape(cols, rows)
    dy = cuda.cudadrv.devicearray.from_array_like(np.zeros((rows, cols), dtype=dtype))
    out = transpose(cuda.to_device(x), dy)
    assert out is dy
    np.testing.assert_array_equal(dy.copy_to_host(), x.T)
    np.testing.assert_array_equal(transpose(x).copy_to_host(), x.T)  # host input, new output


@pytest.mark.parametrize("rows, cols", SMALL)
def test_transpose_records_and_bools(gpu, rows, cols):
    from cudalite import cuda
    from cudalite.cuda.kernels.transpose import transpose

    arr = np.zeros((rows, cols), dtype=RECORD)
    for x in range(rows):
        for y in range(cols):
            arr[x, y]["i"] = x**2 + y
            arr[x, y]["j"] = np.arange(6, dtype=np.float32).reshape(3, 2) * x + y
    d_t = cuda.device_array_like(arr.T)
    transpose(cuda.to_device(arr), d_t)
    np.testing.assert_array_equal(d_t.copy_to_host(), arr.T)

    b = np.random.default_rng(rows * 100 + cols).integers(0, 2, size=(rows, cols)).astype(np.bool_)
    np.testing.assert_array_equal(transpose(cuda.to_device(b)).copy_to_host(), b.T)

"""``cudalite.cuda.kernels.transpose`` without a GPU: its kernel compiles for every kind
of element numba-cuda's test_transpose uses, and bad shapes are refused clearly."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda, types
from cudalite.cuda.kernels import transpose as T

RECORD = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.bool_, np.int8, RECORD])
def test_transpose_kernel_compiles_for(dtype):
    kernel = T._kernel(np.dtype(dtype))
    arr = types.from_dtype(np.dtype(dtype))[:, :]
    ptx, _ = cuda.compile_ptx(kernel.py_func, (arr, arr), cc=(8, 0))
    assert "bar.sync" in ptx and ".shared" in ptx


def test_transpose_refuses_a_non_2d_array():
    class Fake:  # a CUDA array of the wrong rank (no GPU needed to refuse it)
        shape, dtype = (4,), np.dtype(np.float32)
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (0, False), "version": 3}

    with pytest.raises(ValueError, match="takes a 2-d array"):
        T.transpose(Fake())

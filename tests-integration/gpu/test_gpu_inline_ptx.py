"""``cuda.inline_ptx`` on the GPU: instructions the device API has no name for
(``mul.hi.s32``, ``fma.rn.f32``, ``add.s32``), results compared with NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda, types

pytestmark = [pytest.mark.gpu, pytest.mark.nosim("inline PTX")]


@cuda.jit
def ptx_ops(a, b, hi, total, x, y):
    i = cuda.grid(1)
    if i < a.size:
        hi[i] = cuda.inline_ptx("mul.hi.s32 $0, $1, $2;", "=r,r,r", types.int32, a[i], b[i])
        total[i] = cuda.inline_ptx("add.s32 $0, $1, $2;", "=r,r,r", types.int32, a[i], b[i])
        y[i] = cuda.inline_ptx("fma.rn.f32 $0, $1, $2, $3;", "=f,f,f,f", types.float32, x[i], x[i], x[i])
        cuda.inline_ptx("membar.gl;", "~{memory}", None)


def test_inline_ptx_results_match_numpy():
    rng = np.random.default_rng(7)
    n = 4096
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    x = rng.random(n, dtype=np.float32)
    hi, total, y = np.zeros(n, np.int32), np.zeros(n, np.int32), np.zeros(n, np.float32)
    ptx_ops[n // 256, 256](a, b, hi, total, x, y)
    np.testing.assert_array_equal(hi, ((a.astype(np.int64) * b.astype(np.int64)) >> 32).astype(np.int32))
    np.testing.assert_array_equal(total, (a.astype(np.int64) + b).astype(np.int32))
    # fma rounds once: compare with the product and sum in float64, rounded to float32
    np.testing.assert_array_equal(y, (x.astype(np.float64) * x + x).astype(np.float32))

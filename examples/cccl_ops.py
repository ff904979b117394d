"""cuda.compute (cuda-cccl) algorithms with operators compiled by cudalite.

    pip install cudalite cuda-cccl cupy-cuda13x
    python examples/cccl_ops.py

Each Python operator becomes a cuda.compute operator through ``cccl.op``: cudalite
compiles it to LTO-IR for the value types of the call, cuda.compute links it into its
CUB kernels.  No numba-cuda or numba-cuda-mlir is needed (``cuda-cccl`` alone, i.e.
its ``minimal-cu13`` install).  See docs/guide/cccl.md.
"""

from __future__ import annotations

import cupy as cp
import numpy as np

import cuda.compute as compute
from cudalite import cuda
from cudalite.cuda import cccl


@cuda.jit(device=True)
def hypot2(x, y):  # a cudalite device function, called by the operators below
    return x * x + y * y


def closer(a, b):  # a reduction operator: the value nearer zero
    return a if abs(a) < abs(b) else b


def norm2(x, y):  # a binary transform
    return hypot2(x, y)


def larger(a, b):  # a scan operator
    return a if a > b else b


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1 << 20)
    y = rng.standard_normal(1 << 20)
    d_x, d_y = cp.asarray(x), cp.asarray(y)

    out = cp.empty(1)
    compute.reduce_into(d_in=d_x, d_out=out, op=cccl.op(closer), num_items=x.size, h_init=np.array([np.inf]))
    assert out.get()[0] == x[np.argmin(np.abs(x))]

    d_n = cp.empty_like(d_x)
    compute.binary_transform(d_in1=d_x, d_in2=d_y, d_out=d_n, op=cccl.op(norm2), num_items=x.size)
    np.testing.assert_allclose(d_n.get(), x * x + y * y, rtol=1e-15)

    running = cp.empty_like(d_x)
    compute.inclusive_scan(d_in=d_n, d_out=running, op=cccl.op(larger), init_value=None, num_items=x.size)
    np.testing.assert_array_equal(running.get(), np.maximum.accumulate(d_n.get()))
    print(f"closest to zero {out.get()[0]:.3e}; largest squared norm {running.get()[-1]:.3f}")


if __name__ == "__main__":
    main()

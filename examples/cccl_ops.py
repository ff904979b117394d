"""cuda.compute (cuda-cccl) algorithms with operators compiled by cudalite.

    pip install cudalite cuda-cccl cupy-cuda13x
    python examples/cccl_ops.py

Each Python operator becomes a cuda.compute operator through ``cccl.op``: cudalite
compiles it to LTO-IR for the value types of the call, cuda.compute links it into its
CUB kernels.  No numba-cuda or numba-cuda-mlir is needed (``cuda-cccl`` alone, i.e.
its ``minimal-cu13`` install).  Shown: a custom reduction over a struct, a segmented
reduction whose operator reads a captured device array (a stateful operator), a
transform iterator feeding a reduction, a transform calling a cudalite device
function, and a scan.  See docs/guide/cccl.md.
"""

from __future__ import annotations

import cupy as cp
import numpy as np

import cuda.compute as compute
from cudalite import cuda
from cudalite.cuda import cccl


@compute.gpu_struct
class MinMax:  # a struct value: fields by name inside operators, built by calling the class
    lo: np.float64
    hi: np.float64


@cuda.jit(device=True)
def hypot2(x, y):  # a cudalite device function, called by an operator below
    return x * x + y * y


def minmax(a, b):  # a reduction over structs
    return MinMax(min(a.lo, b.lo), max(a.hi, b.hi))


def norm2(x, y):  # a binary transform
    return hypot2(x, y)


def larger(a, b):  # a scan operator
    return a if a > b else b


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1 << 20)
    y = rng.standard_normal(1 << 20)
    d_x, d_y = cp.asarray(x), cp.asarray(y)

    # 1. a custom reduction over a struct: the range of x in one pass
    h = np.empty(x.size, MinMax.dtype)
    h["lo"], h["hi"] = x, x
    d_range = cp.empty(1, MinMax.dtype)
    compute.reduce_into(d_in=cp.asarray(h), d_out=d_range, op=cccl.op(minmax), num_items=x.size,
                        h_init=MinMax(np.inf, -np.inf))
    lo, hi = d_range.get()[0]
    assert (lo, hi) == (x.min(), x.max())

    # 2. a segmented reduction with a stateful operator: per segment, the index of the
    #    smallest |x| (the operator reads the captured device array d_x through its state)
    offsets = np.array([0, 1000, 250_000, 250_001, x.size], dtype=np.int64)

    def nearest_zero(i, j):
        if i < 0 or j < 0:  # -1: the initial value, which loses to any index
            return max(i, j)
        return i if abs(d_x[i]) < abs(d_x[j]) or (abs(d_x[i]) == abs(d_x[j]) and i < j) else j

    d_best = cp.empty(offsets.size - 1, np.int64)
    compute.segmented_reduce(d_in=cp.arange(x.size, dtype=np.int64), d_out=d_best, num_segments=offsets.size - 1,
                             start_offsets_in=cp.asarray(offsets[:-1]), end_offsets_in=cp.asarray(offsets[1:]),
                             op=cccl.op(nearest_zero), h_init=np.asarray(-1, np.int64))
    expect = [a + int(np.argmin(np.abs(x[a:b]))) for a, b in zip(offsets[:-1], offsets[1:])]
    np.testing.assert_array_equal(d_best.get(), expect)

    # 3. a transform iterator: the sum of squares without storing the squares
    d_sum = cp.empty(1)
    compute.reduce_into(d_in=compute.TransformIterator(d_x, cccl.op(lambda v: v * v)), d_out=d_sum,
                        op=compute.OpKind.PLUS, num_items=x.size, h_init=np.zeros(1))
    np.testing.assert_allclose(d_sum.get()[0], np.dot(x, x), rtol=1e-9)

    # 4. a transform calling a device function, then 5. a running maximum (a scan)
    d_n = cp.empty_like(d_x)
    compute.binary_transform(d_in1=d_x, d_in2=d_y, d_out=d_n, op=cccl.op(norm2), num_items=x.size)
    np.testing.assert_allclose(d_n.get(), x * x + y * y, rtol=1e-15)
    running = cp.empty_like(d_x)
    compute.inclusive_scan(d_in=d_n, d_out=running, op=cccl.op(larger), init_value=None, num_items=x.size)
    np.testing.assert_array_equal(running.get(), np.maximum.accumulate(d_n.get()))

    print(f"range of x [{lo:.3f}, {hi:.3f}]; nearest zero per segment {d_best.get().tolist()}; "
          f"sum of squares {d_sum.get()[0]:.1f}; largest squared norm {running.get()[-1]:.3f}")


if __name__ == "__main__":
    main()

"""Device functions specialized on call-site constants, run on the GPU (numba-cuda's
test_atomics helpers): the shape, dtype and flag a kernel passes to a helper as
constants decide its shared array and the branch it keeps; results compared with
NumPy.  The compile-only twin: tests-integration/test_const_arg_specialization.py."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda
from cudalite.cuda import uint32, uint64

pytestmark = pytest.mark.gpu


@cuda.jit(device=True)
def to_u64(x):
    return uint64(x)


@cuda.jit(device=True)
def rotate_through_shared(out, n, dtype, wrap):
    sm = cuda.shared.array(n, dtype)
    i = cuda.threadIdx.x
    sm[i] = i * 2
    cuda.syncthreads()
    out[i] = sm[(i + 1) % n] if wrap else sm[i]


@cuda.jit
def size_32(a):
    rotate_through_shared(a, 32, uint32, False)


@cuda.jit
def size_16(b):
    rotate_through_shared(b, 16, np.float64, True)


@cuda.jit(device=True)
def count_2d(ary, shape, cast, neg):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    sm = cuda.shared.array(shape, uint32)
    sm[tx, ty] = 0
    cuda.syncthreads()
    idx = (tx, cast(0))
    if neg:
        idx = (idx[0] % shape[0], idx[1] % shape[1])
    cuda.atomic.add(sm, idx, 1)
    cuda.syncthreads()
    ary[tx, ty] = sm[tx, ty]


@cuda.jit
def pruned(ary):
    count_2d(ary, (4, 8), to_u64, False)


def test_constant_shapes_dtypes_and_flags_on_device():
    a = np.zeros(32, np.uint32)
    b = np.zeros(16, np.float64)
    size_32[1, 32](a)
    size_16[1, 16](b)
    np.testing.assert_array_equal(a, np.arange(32, dtype=np.uint32) * 2)
    np.testing.assert_array_equal(b, ((np.arange(16) + 1) % 16) * 2.0)


def test_pruned_branch_atomic_with_uint64_index():
    ary = np.zeros((4, 8), np.uint32)
    pruned[1, (4, 8)](ary)
    want = np.zeros((4, 8), np.uint32)
    want[:, 0] = 8  # every thread of a row adds 1 to column 0
    np.testing.assert_array_equal(ary, want)


@cuda.jit
def bit_counts(out, xs):
    i = cuda.grid(1)
    if i < xs.size:
        out[i] = xs[i].bit_count()


def test_int_bit_count_on_device():
    xs = np.array([0, 1, 0xFF, 0xF0F0F0F0F0F0F0F0, 2**64 - 1], np.uint64)
    out = np.zeros(xs.size, np.int64)
    bit_counts[1, 32](out, xs)
    np.testing.assert_array_equal(out, [bin(int(x)).count("1") for x in xs])

"""Device functions specialized on call-site constants, without a GPU (numba-cuda's
test_atomics helpers): a helper that makes a shared/local array from a shape and a
dtype passed as arguments types when the caller passes constants (numba's literal
arguments), a constant flag prunes the branch it rules out (numba's dead-branch
pruning), and two call sites with different constants get two functions.  A helper
that needs a constant but gets a runtime value still fails, located.  The GPU suite
runs them: tests-integration/gpu/test_gpu_const_args.py."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cudalite import cuda
from cudalite.cuda import uint32, uint64
from cudalite.core.errors import TypingError


@cuda.jit(device=True)
def to_u64(x):
    return uint64(x)


@cuda.jit(device=True)
def fill_shared(out, n, dtype, wrap):
    sm = cuda.shared.array(n, dtype)
    i = cuda.threadIdx.x
    sm[i] = i
    cuda.syncthreads()
    out[i] = sm[(i + 1) % n] if wrap else sm[i]


def two_sizes(a, b):
    fill_shared(a, 32, uint32, False)
    fill_shared(b, 16, np.float64, True)


@cuda.jit(device=True)
def atomic_2d(ary, shape, cast, neg):
    tx = cuda.threadIdx.x
    sm = cuda.shared.array(shape, uint32)
    sm[tx, 0] = 0
    idx = (tx, cast(0))
    if neg:  # uint64 % int64 is float64: only typable when this branch is pruned
        idx = (idx[0] % shape[0], idx[1] % shape[1])
    cuda.atomic.add(sm, idx, 1)
    ary[tx, 0] = sm[tx, 0]


def pruned(ary):
    atomic_2d(ary, (4, 8), to_u64, False)


def runtime_shape(a, n):
    fill_shared(a, n, uint32, False)


def test_constant_shape_and_dtype_arguments_specialize_the_helper():
    ptx, _ = cuda.compile_ptx(two_sizes, "void(uint32[:], float64[:])")
    sizes = sorted(re.findall(r"\.shared \.align \d+ \.b8 \S+\[(\d+)\]", ptx))
    assert sizes == ["128", "128"], sizes  # 32 x uint32 and 16 x float64: two specializations


def test_a_constant_false_flag_prunes_its_branch():
    ptx, _ = cuda.compile_ptx(pruned, "void(uint32[:, :])")
    assert "atom.shared.add.u32" in ptx or "red.shared.add.u32" in ptx


def test_a_runtime_shape_is_still_refused_located():
    with pytest.raises(TypingError, match="shape must be a compile-time constant") as info:
        cuda.compile_ptx(runtime_shape, "void(uint32[:], int64)")
    assert "test_const_arg_specialization.py" in str(info.value)

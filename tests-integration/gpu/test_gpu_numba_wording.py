"""numba-cuda's error types and wording on the launch paths a GPU exercises: an
ambiguous launch of a kernel with eager signatures (a host array argument), the
eager compile of ``cuda.jit(sig)`` with a bad ``cuda.shared.array``/``cuda.local.array``
call, and bad launch dimensions."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda
from cudalite.core.errors import TypingError
from cudalite.types import float32, int32, void

pytestmark = pytest.mark.gpu


def _add_kernel(r, x, y):
    r[0] = x + y


@pytest.mark.nosim("the CPU simulator runs the Python function: it has no signatures to match")
def test_ambiguous_eager_signatures_refuse_the_launch():
    f = cuda.jit(["(float64[::1], float32, float64)", "(float64[::1], float64, float32)",
                  "(float64[::1], int64, int64)"])(_add_kernel)
    r = np.zeros(1, dtype=np.float64)
    with pytest.raises(TypeError) as info:
        f[1, 1](r, 1.0, 2.0)
    arr = "Array(float64, 1, 'C', False, aligned=True)"
    assert str(info.value).startswith(
        f"Ambiguous overloading for {_add_kernel!r} ({arr}, float64, float64):\n"
        f"({arr}, float32, float64) -> none\n({arr}, float64, float32) -> none\n")
    assert "int64" not in str(info.value)
    f[1, 1](r, np.float32(1.0), 2.0)  # an exact fit launches
    cuda.synchronize()
    assert r[0] == 3.0


def _shared_runtime_shape(a):
    s = cuda.shared.array(shape=a[0], dtype=float32)  # noqa: F841


def _local_int33(x):
    s = cuda.local.array(10, dtype="int33")
    s[0] = x[0]


@pytest.mark.nosim("the CPU simulator does not compile: typing errors appear only when the line runs")
def test_eager_compile_of_bad_memory_arrays():
    with pytest.raises(TypingError) as info:
        cuda.jit((float32[:],))(_shared_runtime_shape)
    assert ("No implementation of function Function(<function shared.array>) found for signature:\n \n"
            " >>> array(shape=float32, dtype=class(float32))") in str(info.value)
    with pytest.raises(TypingError, match=r"Invalid NumPy dtype specified: 'int33'"):
        cuda.jit(void(int32[::1]))(_local_int33)


def test_bad_launch_dimensions():
    k = cuda.jit(_add_kernel)
    with pytest.raises(ValueError, match=r"griddim must be a sequence of 1, 2 or 3 integers, got \[1, 2, 3, 4\]"):
        k[(1, 2, 3, 4), (5, 6)]
    with pytest.raises(TypeError, match=r"blockdim must be a sequence of integers, got \[3\.0\]"):
        k[2, 3.0]


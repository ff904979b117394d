"""A tuple of global NumPy arrays iterated in a kernel (numba-cuda's reductions
tests): the arrays live in read-only global memory, because through a tuple NVVM
turned constant-memory loads into ``ld.global`` at an immediate address, which
ptxas rejects ("Immediate addresses allowed only for .local state space")."""

from __future__ import annotations

import numpy as np

from cudalite.linker import Linker, PTXSource
from cudalite.nvvm import compile_ptx

ARRAYS = (
    np.float64([1.0, 2.0, 0.0, -0.0, 1.0, -1.5]),
    np.float64([-0.0, -1.5]),
    np.float64([-1.5, 2.5, float("inf")]),
    np.float64([-1.5, 2.5, -float("inf")]),
    np.float64([-1.5, 2.5, float("inf"), -float("inf")]),
    np.float64([np.nan, -1.5, 2.5, np.nan, 3.0]),
    np.float64([np.nan, -1.5, 2.5, np.nan, float("inf"), -float("inf"), 3.0]),
    np.float64([5.0, np.nan, -1.5, np.nan]),
    np.float64([np.nan, np.nan]),
)


def kernel(out):
    i = 0
    for arr in ARRAYS:
        out[i] = np.max(arr)
        i += 1


def test_a_tuple_of_global_arrays_assembles():
    ptx, _ = compile_ptx(kernel, "void(float64[::1])", cc=(9, 0))
    assert "[0+" not in ptx and "[0]" not in ptx  # no immediate addresses
    cubin = Linker("sm_90").add(PTXSource(ptx, name="k.ptx")).link()
    assert len(cubin.data) > 0

"""Shared and local arrays of any element type get a power-of-two alignment that libNVVM
accepts: ``alignment=`` exactly when given (as numba-cuda's test_array_alignment reads it
from the IR), at least 16 for shared arrays otherwise (GPU-less: compiled to PTX)."""

import re

import numpy as np
import pytest

from cudalite import cuda
from cudalite import types as T
from cudalite.cuda._compiler.options import JitOptions
from cudalite.cuda._compiler.compile_code import compile_code

PACKED = np.dtype([("a", np.uint8), ("b", np.int32), ("c", np.float64), ("d", np.complex64),
                   ("e", (np.uint8, 5))], align=False)  # 26 bytes
DTYPES = [np.uint8, np.uint64, PACKED, np.dtype([("a", np.uint32), ("b", np.uint8)], align=False)]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("alignment", [None, 16, 64, 256])
def test_array_alignment_is_a_power_of_two_and_exact_when_given(dtype, alignment):
    def f(out, which):
        if which == 0:
            a = cuda.local.array(shape=(2, 3), dtype=dtype, alignment=alignment)
        else:
            a = cuda.shared.array(shape=(2, 3), dtype=dtype, alignment=alignment)
        out[0] = a.ctypes.data

    res = compile_code(f, (T.uint64[:], T.int64), JitOptions(), (8, 0), until="ptx")  # libNVVM verifies
    ir = res.stage("nvvm-ir")
    shared = [int(a) for a in re.findall(r'^@"_cudapy_smem_\d+".*?align (\d+)', ir, re.M)]
    local = [int(a) for a in re.findall(r'^\s*%"_cudapy_lmem".*?align (\d+)', ir, re.M)]
    assert len(shared) == 1 and shared[0] & (shared[0] - 1) == 0
    if alignment is None:
        assert shared[0] >= 16 and local == []
    else:
        assert shared == [alignment] and local == [alignment]

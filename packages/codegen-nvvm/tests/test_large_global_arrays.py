"""A global NumPy array too large to copy into the kernel is refused at once, located at
its use and naming the reason (constant memory holds 64 KiB; a copy in global memory at
most 256 MiB), instead of running out of memory ("expression too deeply nested") or
compiling for minutes into a module ptxas then rejects.  Small ones still compile."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import nvvm as cuda
from cudalite.core.errors import LoweringError

SIG = "float64(int64)"

HUGE = np.broadcast_to(np.float64(1.5), (10**10,))  # 80 GB of elements, no memory behind them
BIG = np.zeros(70_000)  # 560,000 bytes, past the constant bank
SMALL = np.arange(1000, dtype=np.float64)  # 8,000 bytes


def reads_huge(i):
    return HUGE[i]


def reads_big(i):
    return BIG[i]


def reads_small(i):
    return SMALL[i]


@pytest.mark.parametrize("fn, name, nbytes", [(reads_huge, "HUGE", "80,000,000,000"), (reads_big, "BIG", "560,000")])
def test_a_global_array_past_constant_memory_is_refused_with_the_reason(fn, name, nbytes):
    with pytest.raises(LoweringError) as info:
        cuda.compile_ptx(fn, SIG, device=True, cc=(9, 0))
    msg = str(info.value)
    assert f"the global {name} is a NumPy array of {nbytes} bytes" in msg and "holds 64 KiB" in msg
    assert f"test_large_global_arrays.py:{fn.__code__.co_firstlineno + 1}" in msg


def test_a_small_global_array_still_compiles():
    ptx, _ = cuda.compile_ptx(reads_small, SIG, device=True, cc=(9, 0))
    assert ".const" in ptx

"""A Python/NumPy int passed for a narrower integer kernel parameter is converted as
numba converts it (C's modular conversion), in both the fast launcher's source and
the slow path (that same source, compiled) -- it used to fail with "'i' format
requires ..." (GPU-less)."""

import struct

import numpy as np
import pytest

from cudalite import types
from cudalite.core.abi import kernel_abi
from cudalite.cuda._launch.scalars import NumberKind


def _scalar_flat(value, spec):
    """The slow path's conversion of a number (its kind's source, compiled)."""
    return NumberKind(type(value)).flat(value, spec, 0)


def _spec(t):
    return kernel_abi((t,)).args[0]


CASES = [
    (types.int32, 0xFFFFFFFF, -1), (types.int32, 0x80000000, -2**31), (types.int32, 0x00100000, 0x00100000),
    (types.int32, -5, -5), (types.uint32, -1, 0xFFFFFFFF), (types.int16, 0x18000, -32768),
    (types.uint8, 257, 1), (types.int64, 2**63, -2**63), (types.uint64, -1, 2**64 - 1), (types.int8, 127, 127),
]


@pytest.mark.parametrize("t, value, expect", CASES)
def test_slow_path_wraps_like_numba(t, value, expect):
    spec = _spec(t)
    assert _scalar_flat(value, spec) == (expect,)
    assert _scalar_flat(np.int64(value) if -2**63 <= value < 2**63 else value, spec) == (expect,)
    struct.pack("@" + spec.slots[0].code, *_scalar_flat(value, spec))  # packs


@pytest.mark.parametrize("t, value, expect", CASES)
@pytest.mark.parametrize("cls", [int, np.int64])
def test_fast_path_source_wraps_like_numba(t, value, expect, cls):
    if cls is np.int64 and not -2**63 <= value < 2**63:
        return
    spec = _spec(t)
    ns = {}
    guard, pre, val = NumberKind(cls).source(0, "a0", spec, cls, ns)
    assert pre == []
    ns["a0"] = cls(value)
    assert eval(guard, ns) is True
    assert eval(val, ns) == expect


def test_int_address_fits_a_cpointer_parameter():
    """numba passes an int (e.g. ``arr.__cuda_array_interface__["data"][0]``) for a
    ``CPointer`` parameter; it was "No matching definition"."""
    from cudalite.cuda._launch.keys import compatible

    p = types.CPointer(types.uint8)
    assert compatible(int, p) == 0 and compatible(np.int64, p) == 0 and compatible(np.uint64, p) == 0
    assert compatible(bool, p) == -1 and compatible(float, p) == -1
    spec = _spec(p)
    assert _scalar_flat(0x7F00_0000_1000, spec) == (0x7F00_0000_1000,)
    ns = {}
    guard, pre, val = NumberKind(int).source(0, "a0", spec, int, ns)
    ns["a0"] = 0x7F00_0000_1000
    assert eval(guard, ns) and eval(val, ns) == 0x7F00_0000_1000
    assert struct.pack("@" + spec.slots[0].code, eval(val, ns)) == struct.pack("@Q", 0x7F00_0000_1000)

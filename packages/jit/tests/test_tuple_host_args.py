"""Kernel argument types of records with sub-array fields; tuples holding NumPy
arrays (and records) as kernel arguments (numba-cuda's test_array_args tuple
tests), GPU-less: such a tuple needs the dispatcher's host copy, is keyed apart
from a tuple of device arrays (so never takes that fast path), and its host
items are copied to the device and registered for the copy back, nested tuples
included.  It was a bare ``NotImplementedError`` at launch."""

import numpy as np
import pytest

from cudalite import types
from cudalite.cuda import _args

REC = np.dtype([("a", np.float64), ("h", np.float32, (2,))], align=True)
TWO_D = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])


def _resolve(cls, x):
    return _args.handler_for(cls, x, _resolve)


class _Dev:
    """A stand-in device copy of a host array."""

    def __init__(self, host):
        self.host = host


def _to_device(a, stream=0):
    return _Dev(a)


def test_tuple_of_host_arrays_needs_the_host_copy_and_its_own_key():
    x = (np.zeros(3), np.ones(3), 7, (np.arange(2), 4))
    h = _resolve(tuple, x)
    assert isinstance(h, _args.TupleHandler)
    assert _args.needs_host_copy(h, x) and h.holds_host(x)
    key = h.key(x)
    assert key[0] == "tuple-host" and key[4][0] == "tuple-host"
    t = _args.key_to_type(key)
    assert t == types.Tuple((types.float64[::1], types.float64[::1], types.int64,
                             types.Tuple((types.int64[::1], types.int64))))
    scalars = (1, 2.5, (3, 4))
    assert not _args.needs_host_copy(h, scalars) and h.key(scalars)[0] == "tuple"


def test_to_device_replaces_host_items_and_records_the_copies():
    x0, x2 = np.zeros(3), np.arange(2)
    rec = np.zeros(1, REC)[0]
    x = (x0, 10, (x2, 4), rec)
    h = _resolve(tuple, x)
    copies = []
    out = h.to_device(x, 0, _to_device, copies)
    assert isinstance(out[0], _Dev) and out[0].host is x0 and out[1] == 10
    assert isinstance(out[2][0], _Dev) and out[2][0].host is x2 and out[2][1] == 4
    assert isinstance(out[3], _args.DeviceRecord)
    assert [c[1] is x0 for c in copies[:2]] == [True, False] and copies[1][1] is x2
    assert isinstance(copies[2][1], _args.RecordCopyBack)
    assert len(copies) == 3


def test_kernel_argument_types_of_sub_array_records():
    arr = np.zeros(2, TWO_D)
    assert _args.key_to_type((arr.dtype, 1, "C")) == types.Array(types.from_dtype(TWO_D), 1, "C")
    assert _args.key_to_type(arr[0].dtype) == types.from_dtype(TWO_D)
    assert _args.key_to_type(np.recarray(1, dtype=TWO_D)[0].dtype) == types.from_dtype(TWO_D)
    with pytest.raises(TypeError, match=r"a record of dtype \[\('x', '<f4'\), \('y', 'O'\)\] cannot be passed"):
        _args.key_to_type(np.dtype([("x", np.float32), ("y", "O")]))

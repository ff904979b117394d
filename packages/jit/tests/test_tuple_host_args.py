"""Kernel argument types of records with sub-array fields; tuples holding NumPy
arrays (and records) as kernel arguments (numba-cuda's test_array_args tuple
tests), GPU-less: such a tuple needs the dispatcher's host copy, is keyed apart
from a tuple of device arrays (so never takes that fast path), and its host
items are copied to the device and registered for the copy back, nested tuples
included.  It was a bare ``NotImplementedError`` at launch."""

import numpy as np
import pytest

from cudalite import types
from cudalite.cuda._launch.host import DeviceRecord
from cudalite.cuda._launch.keys import key_to_type
from cudalite.cuda._launch.kinds import kind_for
from cudalite.cuda._launch.tuples import TupleKind

REC = np.dtype([("a", np.float64), ("h", np.float32, (2,))], align=True)
TWO_D = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])


def _resolve(cls, x):
    return kind_for(cls, x, _resolve)


class _Dev:
    """A stand-in device copy of a host array: records its copies back."""

    def __init__(self, host, log):
        self.host, self.log = host, log

    def copy_to_host(self, out, stream=0):
        self.log.append((self.host, out))


def test_tuple_of_host_arrays_needs_the_host_copy_and_its_own_key():
    x = (np.zeros(3), np.ones(3), 7, (np.arange(2), 4))
    h = _resolve(tuple, x)
    assert isinstance(h, TupleKind)
    assert h.needs_copy(x) and h.warns_copy(x)
    key = h.key(x)
    assert key[0] == "tuple-host" and key[4][0] == "tuple-host"
    t = key_to_type(key)
    assert t == types.Tuple((types.float64[::1], types.float64[::1], types.int64,
                             types.Tuple((types.int64[::1], types.int64))))
    scalars = (1, 2.5, (3, 4))
    assert not h.needs_copy(scalars) and h.key(scalars)[0] == "tuple"


def test_stage_in_replaces_host_items_and_registers_the_copies_back(monkeypatch):
    from cudalite.cuda._launch import host

    log = []
    monkeypatch.setattr(host, "to_device", lambda a, stream=0: _Dev(a, log))
    monkeypatch.setattr(host, "_synchronize", lambda stream: None)
    x0, x2 = np.zeros(3), np.arange(2)
    rec = np.zeros(1, REC)[0]
    x = (x0, 10, (x2, 4), rec)
    h = _resolve(tuple, x)
    after = []
    out = h.stage_in(x, 0, after)
    assert isinstance(out[0], _Dev) and out[0].host is x0 and out[1] == 10
    assert isinstance(out[2][0], _Dev) and out[2][0].host is x2 and out[2][1] == 4
    assert isinstance(out[3], DeviceRecord) and out[3].array.host.dtype == REC
    assert len(after) == 3 and not log
    for work in after:  # the copies back, in argument order: x0, x2, then the record's copy
        work()
    assert all(d is o for d, o in log)  # each device copy goes back into its own host array
    assert log[0][1] is x0 and log[1][1] is x2 and log[2][1].dtype == REC


def test_kernel_argument_types_of_sub_array_records():
    arr = np.zeros(2, TWO_D)
    assert key_to_type((arr.dtype, 1, "C")) == types.Array(types.from_dtype(TWO_D), 1, "C")
    assert key_to_type(arr[0].dtype) == types.from_dtype(TWO_D)
    assert key_to_type(np.recarray(1, dtype=TWO_D)[0].dtype) == types.from_dtype(TWO_D)
    with pytest.raises(TypeError, match=r"a record of dtype \[\('x', '<f4'\), \('y', 'O'\)\] cannot be passed"):
        key_to_type(np.dtype([("x", np.float32), ("y", "O")]))

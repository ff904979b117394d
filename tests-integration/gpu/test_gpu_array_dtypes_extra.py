"""On the GPU: carray/farray over a pointer argument, ``arr.ctypes.data`` of local and
shared arrays (aligned as asked), whole-record stores, constant strings stored into
S<n>/U<n> arrays and record fields, datetime64/timedelta64 arrays, scalars and
ufuncs, and ``devicearray.auto_device`` -- each checked against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda, types
from cudalite.cuda.np.numpy_support import carray, farray, from_dtype

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("fn", [carray, farray])
@pytest.mark.nosim("raw device pointers: carray/farray over a device address")
def test_carray_farray_over_a_pointer(fn):
    @cuda.jit(types.void(types.CPointer(types.float32), types.int64))
    def k(p, n):
        a = fn(p, (2, n), dtype=types.float32)
        a[1, 2] += 1.5

    host = np.arange(6, dtype=np.float32)
    d = cuda.to_device(host)
    k[1, 1](int(d.device_ctypes_pointer.value), 3)
    expect = host.copy()
    view = expect.reshape(2, 3) if fn is carray else expect.reshape(3, 2).T
    view[1, 2] += 1.5
    np.testing.assert_array_equal(d.copy_to_host(), expect)


def test_ctypes_data_alignment():
    @cuda.jit
    def f(loc, shrd):
        la = cuda.local.array(shape=3, dtype=np.uint8, alignment=64)
        sa = cuda.shared.array(shape=3, dtype=np.uint8, alignment=256)
        la[0] = 1
        sa[0] = 1
        loc[0] = la.ctypes.data
        shrd[0] = sa.ctypes.data

    loc, shrd = np.zeros(1, np.uint64), np.zeros(1, np.uint64)
    f[1, 1](loc, shrd)
    assert loc[0] % 64 == 0 and shrd[0] % 256 == 0 and loc[0] != 0


REC = np.dtype([("a", np.float64), ("b", np.int16), ("j", np.float32, (3, 2))], align=True)


def test_whole_record_assignment():
    @cuda.jit
    def k(ary, rec):
        ary[0] = ary[2]
        ary[1] = rec

    ary = np.zeros(3, REC)
    ary[2]["a"], ary[2]["b"], ary[2]["j"] = 2.5, 7, np.arange(6).reshape(3, 2)
    rec = np.ones(1, REC)[0]
    expect = ary.copy()
    expect[0], expect[1] = expect[2], rec
    k[1, 1](ary, rec)
    np.testing.assert_array_equal(ary, expect)


def test_constant_strings_into_arrays_and_records():
    @cuda.jit
    def uni(arr):
        i = cuda.grid(1)
        if i < len(arr) - 1:
            arr[i] = "XYZ"

    @cuda.jit
    def byt(arr):
        i = cuda.grid(1)
        if i < len(arr) - 1:
            arr[i] = b"XYZ"

    @cuda.jit
    def rec(a):
        a[0]["x"] = 1
        a[0]["y"] = "ABC"
        a[1]["y"] = a[0]["y"]

    u = np.zeros(5, "<U12")
    uni[1, 8](u)
    assert list(u) == ["XYZ"] * 4 + [""]
    s = np.zeros(5, "S12")
    byt[1, 8](s)
    assert list(s) == [b"XYZ"] * 4 + [b""]
    dt = np.dtype([("x", np.int32), ("y", "<U12")])
    a = np.zeros(2, dt)
    rec[1, 1](a)
    np.testing.assert_array_equal(a, np.asarray([(1, "ABC"), (0, "ABC")], dtype=dt))


def test_datetime_arrays_scalars_and_nat():
    @cuda.jit
    def k(dates, target, delta, matches, out):
        for i in range(cuda.grid(1), matches.size, cuda.gridsize(1)):
            matches[i] = dates[i] == target
            out[i] = dates[i] - delta

    arr = np.arange("2005-02", "2006-02", dtype="datetime64[D]")
    arr[3] = np.datetime64("NaT")
    matches = np.zeros(arr.size, np.bool_)
    out = np.zeros_like(arr)
    k[1, 32](arr, arr[5], arr[6] - arr[5], matches, out)
    assert list(matches.nonzero()[0]) == [5]
    np.testing.assert_array_equal(out, arr - (arr[6] - arr[5]))  # NaT stays NaT


@pytest.mark.nosim("generalized ufuncs (cuda.guvectorize) are not simulated")
def test_datetime_ufunc_and_gufunc():
    datetime_t = from_dtype(np.dtype("datetime64[D]"))
    timedelta_t = from_dtype(np.dtype("timedelta64[D]"))

    @cuda.vectorize([(datetime_t, datetime_t)])
    def diff(start, end):
        return end - start

    @cuda.guvectorize([(datetime_t, datetime_t, timedelta_t[:])], "(),()->()")
    def gdiff(start, end, out):
        out[0] = end - start

    a1 = np.arange("2005-02", "2006-02", dtype="datetime64[D]")
    a2 = a1 + np.arange(a1.size)
    np.testing.assert_array_equal(diff(a1, a2), a2 - a1)
    np.testing.assert_array_equal(gdiff(a1, a2), a2 - a1)


@pytest.mark.nosim("compiled runtime modules: another GPU test module imports cudalite.cuda.cudadrv, whose "
                   "devicearray submodule then shadows the simulator's cuda.devicearray")
def test_auto_device():
    d, copied = cuda.devicearray.auto_device(2)
    assert copied and d.copy_to_host() == np.array(2)
    same, copied = cuda.devicearray.auto_device(d)
    assert same is d and not copied
    with pytest.raises(ValueError, match="non-contiguous"):
        cuda.devicearray.auto_device(np.arange(10.0)[::2])


@pytest.mark.parametrize("shape", [(24,), (4, 6), (8, 1, 3), -1, (2, -1, 3)])
def test_reshape_in_device_code(shape):
    @cuda.jit
    def dims(arr, newshape, out):
        y = arr.reshape(newshape)
        for d in range(len(y.shape)):
            out[d] = y.shape[d]
            out[8 + d] = y.strides[d]

    arr = np.arange(24).reshape(1, 8, 1, 1, 3, 1)
    expect = arr.reshape(shape)
    out = np.zeros(16, np.int64)
    dims[1, 1](arr, shape, out)
    assert tuple(out[:expect.ndim]) == expect.shape
    assert tuple(out[8:8 + expect.ndim]) == expect.strides

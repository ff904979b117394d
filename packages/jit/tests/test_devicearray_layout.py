"""GPU-less: device-array views over a fake pointer agree with NumPy's views.

Every DeviceNDArray here wraps a fake address (``ptr=BASE``) and never allocates; the
shape, byte strides and pointer offset of each view are compared with the same view of
a NumPy array (offset = difference of data addresses).
"""

import numpy as np
import pytest

from cudalite.cuda._memory import layout as L
from cudalite.cuda.devicearray import DeviceNDArray, is_device_array

BASE = 0x7F0000000000


class FakeMemory:
    device_id = 0


def wrap(host):
    """A DeviceNDArray with ``host``'s shape/strides/dtype at BASE + offset of host's data."""
    return DeviceNDArray(host.shape, host.strides, host.dtype, ptr=BASE, owner=FakeMemory())


def addr(a):
    return a.__array_interface__["data"][0]


def check_view(host, hview, dview):
    assert dview.shape == hview.shape
    assert dview.strides == hview.strides
    assert dview.dtype == hview.dtype
    assert dview._ptr - BASE == addr(hview) - addr(host)
    assert dview.is_c_contiguous() == hview.flags.c_contiguous
    assert dview.is_f_contiguous() == hview.flags.f_contiguous
    assert dview.size == hview.size and dview.nbytes == hview.nbytes and dview.ndim == hview.ndim


KEYS = [
    np.s_[1:3], np.s_[::2], np.s_[::-1], np.s_[..., 1], np.s_[:, None, 2:], np.s_[1, :, ::-2],
    np.s_[None], np.s_[-1], np.s_[..., None], np.s_[2:1], np.s_[1:, ..., :1], np.s_[:, 0], np.s_[::3, 1:4, ::-1],
    np.s_[np.int64(1), :], np.s_[0:0], np.s_[1, 2],
]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_getitem_views_match_numpy(order, key):
    host = np.zeros((4, 5, 6), dtype=np.float32, order=order)
    check_view(host, host[key], wrap(host)[key])


def test_views_of_views():
    host = np.zeros((8, 9), dtype=np.int16)
    h = host[::2, 1:][1:, ::-3].T[::-1]
    d = wrap(host)[::2, 1:][1:, ::-3].T[::-1]
    check_view(host, h, d)


def test_index_errors():
    d = wrap(np.zeros((3, 4)))
    with pytest.raises(IndexError):
        d[3]
    with pytest.raises(IndexError):
        d[0, 0, 0]
    with pytest.raises(IndexError):
        d[..., ...]
    with pytest.raises(IndexError):
        d[[0, 1]]
    assert L.index_view((3, 4), (32, 8), (1, 2))[3] is True
    assert L.index_view((3, 4), (32, 8), (-1, -1))[0] == 2 * 32 + 3 * 8


@pytest.mark.parametrize(
    "shape,strides,layout",
    [((10,), (4,), "C"), ((3, 4), (16, 4), "C"), ((3, 4), (4, 12), "F"), ((3, 4), (32, 4), "A"),
     ((10,), (8,), "A"), ((1, 4), (999, 4), "C"), ((4, 1), (4, 999), "C"), ((0, 3), (7, 5), "C"), ((), (), "C"),
     ((2, 3, 4), (4, 8, 24), "F"), ((5,), (-4,), "A")],
)
def test_layout_and_kernel_params(shape, strides, layout):
    d = DeviceNDArray(shape, strides, np.float32, ptr=BASE, owner=FakeMemory())
    assert d._layout == layout
    assert d._type_key == (np.dtype(np.float32), len(shape), layout)
    # one key object per type: the launch guard's `is` test decides without comparing
    assert DeviceNDArray(shape, strides, "float32", ptr=BASE + 64, owner=FakeMemory())._type_key is d._type_key
    expect = (BASE, *shape) if layout != "A" else (BASE, *shape, *strides)
    assert d._kernel_params == expect
    assert d._ptr == BASE
    assert isinstance(d._kernel_params, tuple) and all(type(v) is int for v in d._kernel_params)
    if shape:  # NumPy agrees on contiguity
        host = np.lib.stride_tricks.as_strided(np.zeros(64, np.float32)[32:], shape, strides)
        assert d.is_c_contiguous() == host.flags.c_contiguous
        assert d.is_f_contiguous() == host.flags.f_contiguous


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("newshape", [(20, 6), (-1,), (2, -1, 3), (120,), (5, 4, 6), (1, 120, 1)])
def test_reshape_matches_numpy(order, newshape):
    host = np.zeros((4, 5, 6), dtype=np.float64, order=order)
    check_view(host, host.reshape(newshape, order=order), wrap(host).reshape(newshape, order=order))
    check_view(host, host.reshape(*newshape, order=order), wrap(host).reshape(*newshape, order=order))


def test_reshape_needs_copy_and_bad_sizes():
    d = wrap(np.zeros((4, 6)))
    with pytest.raises(NotImplementedError):
        d[:, ::2].reshape(12)
    with pytest.raises(NotImplementedError):
        d.reshape(24, order="F")
    with pytest.raises(ValueError):
        d.reshape(5, 5)
    with pytest.raises(ValueError):
        d.reshape(-1, -1)


def test_ravel_transpose_view_squeeze():
    host = np.zeros((4, 6), dtype=np.float32)
    d = wrap(host)
    check_view(host, host.ravel(), d.ravel())
    check_view(host, host.T, d.T)
    check_view(host, host.transpose(1, 0), d.transpose((1, 0)))
    check_view(host, host.T.ravel(order="F"), d.T.ravel(order="F"))
    with pytest.raises(NotImplementedError):
        d.T.ravel()
    check_view(host, host.view(np.int16), d.view(np.int16))
    check_view(host, host.view(np.complex64), d.view(np.complex64))
    check_view(host, host[:, :1].squeeze(), d[:, :1].squeeze())
    with pytest.raises(ValueError):
        d[:, ::2].view(np.float64)
    h3 = np.zeros((2, 3, 4), np.int8)
    check_view(h3, h3.transpose(2, 0, 1), wrap(h3).transpose((2, 0, 1)))


def test_split_len_repr_flags():
    d = wrap(np.zeros(10, np.int32))
    parts = d.split(4)
    assert [p.shape for p in parts] == [(4,), (4,), (2,)]
    assert [p._ptr - BASE for p in parts] == [0, 16, 32]
    assert len(d) == 10 and "DeviceNDArray" in repr(d)
    assert d.flags["C_CONTIGUOUS"] and d.flags["F_CONTIGUOUS"]
    assert d[::2].flags["C_CONTIGUOUS"] is False
    assert d.alloc_size == 40 and d[::4].alloc_size == 36 and d[::-1].alloc_size == 40


def test_extent():
    host = np.zeros((5, 7), np.float64)
    for key in (np.s_[::-1, ::2], np.s_[1:4, ::-3], np.s_[:, 3], np.s_[2:2]):
        v = host[key]
        lo, hi = L.extent(v.shape, v.strides, 8)
        offsets = [sum(i * s for i, s in zip(idx, v.strides)) for idx in np.ndindex(v.shape)]
        if offsets:
            assert lo == min(offsets) and hi == max(offsets) + 8
        else:
            assert (lo, hi) == (0, 0)


def test_cuda_array_interface():
    from cudalite.cuda import from_cuda_array_interface

    mem = FakeMemory()
    d = DeviceNDArray((3, 4), None, np.float32, ptr=BASE, owner=mem)
    cai = d.__cuda_array_interface__
    assert cai == {"shape": (3, 4), "strides": None, "data": (BASE, False), "typestr": "<f4", "stream": None,
                   "version": 3}
    assert d.T.__cuda_array_interface__["strides"] == (4, 16)
    assert d[:, 1:].__cuda_array_interface__["data"] == (BASE + 4, False)
    assert d.bind(7).__cuda_array_interface__["stream"] == 7
    assert d.stream == 0
    assert d.gpu_data is mem and d[1:].gpu_data is mem
    assert d.device_ctypes_pointer.value == BASE
    rec = np.dtype([("x", np.float32), ("n", np.int16)], align=True)
    r = DeviceNDArray((5,), None, rec, ptr=BASE, owner=mem)
    cai = r.__cuda_array_interface__
    assert cai["typestr"] == rec.str and cai["descr"] == rec.descr
    assert from_cuda_array_interface(cai).dtype == rec
    assert r.itemsize == rec.itemsize and r.strides == (rec.itemsize,)
    assert is_device_array(d) and not is_device_array(np.zeros(3))


def test_from_cuda_array_interface_roundtrip():
    from cudalite.cuda import as_cuda_array, from_cuda_array_interface, is_cuda_array

    class Exporter:
        def __init__(self, desc):
            self.__cuda_array_interface__ = desc

    d = DeviceNDArray((6, 4), None, np.int64, ptr=BASE, owner=FakeMemory())[:, ::2]
    ex = Exporter(d.__cuda_array_interface__)
    assert is_cuda_array(ex) and not is_cuda_array(np.zeros(2))
    e = as_cuda_array(ex)
    assert (e.shape, e.strides, e.dtype, e._ptr, e._layout) == (d.shape, d.strides, d.dtype, d._ptr, "A")
    assert e.gpu_data is ex
    c = from_cuda_array_interface({"shape": (3,), "typestr": "<f2", "data": (BASE, False), "version": 2})
    assert c.strides == (2,) and c.dtype == np.float16
    with pytest.raises(ValueError):
        from_cuda_array_interface({"shape": (3,), "typestr": "<f2", "data": (BASE, False), "version": 3, "stream": 0})
    with pytest.raises(NotImplementedError):
        from_cuda_array_interface({"shape": (3,), "typestr": "<f2", "data": (BASE, False), "version": 3,
                                   "mask": object()})
    with pytest.raises(TypeError):
        as_cuda_array(np.zeros(3))
    # sync=False never touches a stream (no GPU here)
    s = from_cuda_array_interface({"shape": (3,), "typestr": "<f4", "data": (BASE, False), "version": 3,
                                   "stream": 0x1234}, sync=False)
    assert int(s.stream) == 0x1234 and s.__cuda_array_interface__["stream"] == 0x1234

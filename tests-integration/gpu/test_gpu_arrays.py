"""GPU suite for cudalite.cuda device arrays, memory API, interop and runtime API.

Every result is checked against NumPy.  CuPy and PyTorch interop tests skip where
those libraries are not installed.
"""

import numpy as np
import pytest

from cudalite.cuda.config import simulator_enabled as simulating

pytestmark = pytest.mark.gpu

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.float16, np.float32, np.float64,
          np.complex64, np.complex128]
REC = np.dtype([("x", np.float32), ("n", np.int16), ("v", np.float64, (2,))], align=True)


@pytest.fixture
def cuda(gpu):
    from cudalite import cuda

    return cuda


def sample(shape, dtype, order="C", seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.fields is not None:
        a = np.zeros(shape, dtype)
        a["x"] = rng.standard_normal(shape)
        a["n"] = rng.integers(-100, 100, shape)
        a["v"] = rng.standard_normal((*np.atleast_1d(shape), 2)).reshape(a["v"].shape)
        return np.asarray(a, order=order)
    raw = rng.standard_normal(shape) * 50
    if dtype.kind == "c":
        raw = raw + 1j * rng.standard_normal(shape)
    return np.asarray(raw.astype(dtype), order=order)


@pytest.mark.parametrize("dtype", DTYPES + [REC], ids=str)
@pytest.mark.parametrize("shape", [(0,), (1,), (1000,), (7, 13), (3, 4, 5), ()], ids=str)
@pytest.mark.parametrize("order", ["C", "F"])
def test_roundtrip(cuda, dtype, shape, order):
    h = sample(shape, dtype, order)
    d = cuda.to_device(h)
    assert d.shape == h.shape and d.dtype == h.dtype
    assert d.strides == h.strides or h.size == 0  # NumPy may give empty arrays any strides
    out = d.copy_to_host()
    np.testing.assert_array_equal(out, h)
    back = np.empty_like(h)
    assert d.copy_to_host(back) is back
    np.testing.assert_array_equal(back, h)


def test_device_array_and_like(cuda):
    d = cuda.device_array((4, 5), dtype=np.float32, order="F")
    assert d.is_f_contiguous() and d._layout == "F" and d.strides == (4, 16)
    d.copy_to_device(np.arange(20, dtype=np.float32).reshape(4, 5))
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(20).reshape(4, 5))
    like = cuda.device_array_like(np.zeros((3, 2), np.int16, order="F"))
    assert like.shape == (3, 2) and like.dtype == np.int16 and like._layout == "F"
    like2 = cuda.device_array_like(d)
    assert like2.shape == d.shape and like2._layout == "F"
    rec = cuda.device_array(10, dtype=REC)
    h = sample((10,), REC)
    rec.copy_to_device(h)
    np.testing.assert_array_equal(rec.copy_to_host(), h)
    e = cuda.device_array(0)
    assert e.size == 0 and e.copy_to_host().shape == (0,)


KEYS = [np.s_[1:5], np.s_[::3], np.s_[::-1], np.s_[2, ::-2], np.s_[:, 1], np.s_[..., ::2], np.s_[None, 1:, 2:7:2],
        np.s_[3:1], np.s_[-1, ...]]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_views_copy_to_host(cuda, order, key):
    h = sample((6, 9), np.float64, order)
    d = cuda.to_device(h)
    v = d[key]
    if any(s < 0 for s in h[key].strides) and not simulating():
        with pytest.raises(NotImplementedError, match="D->H copy not implemented for negative strides"):
            v.copy_to_host()  # numba-cuda's rule (its simulator copies)
        assert v.shape == h[key].shape and v.strides == h[key].strides
        return
    np.testing.assert_array_equal(v.copy_to_host(), h[key])
    assert v.shape == h[key].shape and v.strides == h[key].strides
    out = np.zeros(h[key].shape)  # into a C array whatever the view's layout
    np.testing.assert_array_equal(v.copy_to_host(out), h[key])
    np.testing.assert_array_equal(np.asarray(v), h[key])


def test_scalar_getitem(cuda):
    h = sample((5, 4), np.int32)
    d = cuda.to_device(h)
    assert d[2, 3] == h[2, 3] and d[-1, -1] == h[-1, -1]
    assert isinstance(d[1, 1], np.int32)
    r = cuda.to_device(sample((3,), REC))
    np.testing.assert_array_equal(np.array([r[1]], REC), sample((3,), REC)[1:2])


def test_setitem(cuda):
    h = sample((6, 8), np.float32)
    d = cuda.to_device(h)
    d[0] = 7.0
    h[0] = 7.0
    d[1:3, 2:5] = np.arange(6, dtype=np.float32).reshape(2, 3)
    h[1:3, 2:5] = np.arange(6).reshape(2, 3)
    d[:, ::3] = -1  # strided target
    h[:, ::3] = -1
    d[::-2, 1] = np.arange(3)  # negative stride, broadcast/cast
    h[::-2, 1] = np.arange(3)
    d[5, 7] = 42
    h[5, 7] = 42
    src = cuda.to_device(np.full(8, 3.5, np.float32))
    d[4] = src  # device -> device
    h[4] = 3.5
    d[:, 7] = cuda.to_device(np.arange(12, dtype=np.float32))[::2]  # strided device source
    h[:, 7] = np.arange(12)[::2]
    np.testing.assert_array_equal(d.copy_to_host(), h)
    r = cuda.to_device(np.zeros(3, REC))
    r[1] = (1.5, 3, (2.0, 4.0))
    assert r.copy_to_host()[1]["n"] == 3


def test_reshape_ravel_transpose_view(cuda):
    h = sample((4, 6), np.float32)
    d = cuda.to_device(h)
    np.testing.assert_array_equal(d.reshape(3, 8).copy_to_host(), h.reshape(3, 8))
    np.testing.assert_array_equal(d.reshape((2, -1), order="C").copy_to_host(), h.reshape(2, -1))
    np.testing.assert_array_equal(d.ravel().copy_to_host(), h.ravel())
    np.testing.assert_array_equal(d.T.copy_to_host(), h.T)
    np.testing.assert_array_equal(d.T.ravel(order="F").copy_to_host(), h.T.ravel(order="F"))
    np.testing.assert_array_equal(d.view(np.int32).copy_to_host(), h.view(np.int32))
    f = cuda.to_device(np.asfortranarray(h))
    np.testing.assert_array_equal(f.reshape(6, 4, order="F").copy_to_host(), h.reshape(6, 4, order="F"))
    with pytest.raises(NotImplementedError):
        d.T.reshape(24)
    assert d.T.gpu_data is d.gpu_data


def test_to_device_variants(cuda):
    h = sample((10, 10), np.int64)
    d = cuda.to_device(h[::2, 1::3])  # non-contiguous host source
    np.testing.assert_array_equal(d.copy_to_host(), h[::2, 1::3])
    assert cuda.to_device(d) is d
    target = cuda.device_array((10, 10), np.int64)
    assert cuda.to_device(h, to=target) is target
    np.testing.assert_array_equal(target.copy_to_host(), h)
    d2 = cuda.device_array_like(target)
    d2.copy_to_device(target)
    np.testing.assert_array_equal(d2.copy_to_host(), h)
    np.testing.assert_array_equal(cuda.to_device([1, 2, 3]).copy_to_host(), [1, 2, 3])
    with pytest.raises((TypeError, ValueError)):
        d2.copy_to_device(np.zeros((3, 3), np.int64))


@pytest.mark.nosim("foreign device arrays: CUDA array interface and DLPack need real device pointers")
def test_async_copies_with_pinned(cuda):
    s = cuda.stream()
    h = cuda.pinned_array((1 << 20,), np.float32)
    h[:] = np.arange(h.size)
    d = cuda.to_device(h, stream=s)
    out = cuda.pinned_array_like(h)
    d.copy_to_host(out, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(out, h)
    with s.auto_synchronize():
        d2 = cuda.device_array_like(d, stream=s)
        d2.copy_to_device(d, stream=s)
        res = d2.copy_to_host(stream=s)
    np.testing.assert_array_equal(res, h)
    assert d.__cuda_array_interface__["stream"] == int(s)


@pytest.mark.nosim("foreign device arrays: CUDA array interface and DLPack need real device pointers")
def test_mapped_and_managed_arrays(cuda):
    for make in (cuda.mapped_array, cuda.managed_array):
        a = make((4, 5), dtype=np.float64)
        a[...] = np.arange(20).reshape(4, 5)
        cuda.synchronize()
        dev = cuda.as_cuda_array(a)
        np.testing.assert_array_equal(dev.copy_to_host(), a)
        np.testing.assert_array_equal(cuda.as_cuda_array(a[1:, ::2]).copy_to_host(), a[1:, ::2])
        dev[0, 0] = 99.0  # write through the device pointer
        cuda.synchronize()
        assert a[0, 0] == 99.0
        assert cuda.devicearray.is_device_array(a) and a._kernel_params[0] == a.__cuda_array_interface__["data"][0]
    g = cuda.managed_array(8, np.int32, attach_global=False)
    g[:] = 5
    assert g.sum() == 40 and g._ptr == g.__array_interface__["data"][0]


def test_pinned_and_mapped_context_managers(cuda):
    h = np.arange(1 << 18, dtype=np.float32)  # large: separately mapped pages
    with cuda.pinned(h):
        d = cuda.to_device(h)
    np.testing.assert_array_equal(d.copy_to_host(), h)
    h2 = np.zeros(1 << 18, np.float32)
    with cuda.mapped(h, h2) as (dh, dh2):
        dh2.copy_to_device(dh)
        cuda.synchronize()
    np.testing.assert_array_equal(h2, h)


@pytest.mark.nosim("foreign device arrays: CUDA array interface and DLPack need real device pointers")
def test_cupy_interop(cuda):
    cp = pytest.importorskip("cupy")
    h = sample((5, 7), np.float32)
    d = cuda.to_device(h)
    c = cp.asarray(d)
    np.testing.assert_array_equal(cp.asnumpy(c), h)
    np.testing.assert_array_equal(cp.asnumpy(cp.asarray(d[:, ::2])), h[:, ::2])
    c2 = cp.arange(30, dtype=cp.int64).reshape(5, 6)[:, 1::2]
    d2 = cuda.as_cuda_array(c2)
    assert d2.gpu_data is c2 and d2._layout == "A"
    np.testing.assert_array_equal(d2.copy_to_host(), cp.asnumpy(c2))
    assert cuda.is_cuda_array(c2)
    with cp.cuda.Stream(non_blocking=True) as cs:
        c3 = cp.full(1 << 20, 2.0, dtype=cp.float32)
        d3 = cuda.as_cuda_array(c3)  # synchronizes cs when CuPy exports it
        assert d3.copy_to_host().sum() == 2.0 * (1 << 20)
    del cs
    c4 = cp.from_dlpack(d)
    np.testing.assert_array_equal(cp.asnumpy(c4), h)
    d[0, 0] = 123.0
    assert float(c4[0, 0]) == 123.0  # zero copy


@pytest.mark.nosim("foreign device arrays: CUDA array interface and DLPack need real device pointers")
def test_torch_interop(cuda):
    torch = pytest.importorskip("torch")
    h = sample((6, 4), np.float32)
    d = cuda.to_device(h)
    t = torch.from_dlpack(d)
    assert t.is_cuda and tuple(t.shape) == (6, 4)
    np.testing.assert_array_equal(t.cpu().numpy(), h)
    tv = torch.from_dlpack(d.T[1:])
    np.testing.assert_array_equal(tv.cpu().numpy(), h.T[1:])
    d[0, 0] = -5.0
    assert float(t[0, 0]) == -5.0
    x = torch.arange(24, dtype=torch.float64, device="cuda").reshape(4, 6).t()
    dx = cuda.as_cuda_array(x)
    np.testing.assert_array_equal(dx.copy_to_host(), x.cpu().numpy())
    assert dx.gpu_data is x
    del t, tv


def test_streams_and_events(cuda):
    s = cuda.stream()
    assert int(s) != 0 and int(s.handle) == int(s) and s.query()
    for st in (cuda.default_stream(), cuda.legacy_default_stream(), cuda.per_thread_default_stream(),
               cuda.external_stream(int(s))):
        st.synchronize()
        d = cuda.to_device(np.arange(10), stream=st)
        np.testing.assert_array_equal(d.copy_to_host(stream=st), np.arange(10))
        st.synchronize()
    assert int(cuda.legacy_default_stream()) == 1 and int(cuda.per_thread_default_stream()) == 2
    e0, e1 = cuda.event(), cuda.event()
    e0.record(s)
    big = cuda.to_device(np.ones(1 << 22, np.float32), stream=s)
    big.copy_to_host(stream=s)
    e1.record(s)
    e1.wait(cuda.stream())
    e1.synchronize()
    assert e1.query()
    ms = cuda.event_elapsed_time(e0, e1)
    assert ms > 0 and abs(e0.elapsed_time(e1) - ms) < 1e-6
    e2 = cuda.event(timing=False).record()
    e2.synchronize()
    cuda.synchronize()


def test_devices(cuda, capsys):
    assert cuda.is_available()
    dev = cuda.get_current_device()
    assert dev.id == 0 and isinstance(dev.name, str) and dev.name
    assert dev.compute_capability >= (7, 0)
    assert dev.WARP_SIZE == 32 and dev.MAX_THREADS_PER_BLOCK == 1024 and dev.MULTIPROCESSOR_COUNT > 0
    assert dev.uuid.startswith("GPU-")
    with pytest.raises(AttributeError):
        dev.NOT_AN_ATTRIBUTE
    assert cuda.select_device(0) == dev
    assert len(cuda.gpus) >= 1 and len(cuda.list_devices()) == len(cuda.gpus)
    with cuda.gpus[0] as g:
        assert g.id == 0 and cuda.get_current_device().id == 0
        np.testing.assert_array_equal(cuda.to_device(np.arange(3)).copy_to_host(), [0, 1, 2])
    assert cuda.gpus.current == dev
    assert cuda.detect() is True
    out = capsys.readouterr().out
    assert "Found" in out and "SUPPORTED" in out
    cuda.close()
    np.testing.assert_array_equal(cuda.to_device(np.arange(3)).copy_to_host(), [0, 1, 2])


@pytest.mark.nosim("foreign device arrays: CUDA array interface and DLPack need real device pointers")
def test_dlpack_device_and_lifetime(cuda):
    import gc
    import weakref

    d = cuda.to_device(np.arange(10, dtype=np.int32))
    assert d.__dlpack_device__() == (2, 0)
    cap = d.__dlpack__()
    ref = weakref.ref(d)
    del d
    gc.collect()
    assert ref() is not None
    del cap
    gc.collect()
    assert ref() is None

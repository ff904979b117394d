"""Launch arguments that change between launches (the launch code's identity cache,
see ``cudalite.cuda._fastpath``): torch tensors modified in place (resize_, set_,
as_strided_, transpose_, ``.data`` swaps, inference mode), CuPy arrays reshaped in
place (``a.shape = ...``), new arrays at the same position and new arrays that may
reuse a freed one's id or address -- every launch must see the current shape,
strides and data, checked against NumPy."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from cudalite import cuda

pytestmark = [pytest.mark.gpu,
              pytest.mark.nosim("foreign device arrays: CUDA array interface and DLPack need real device pointers")]


@cuda.jit
def fill_index(a, base):
    """a[i] = base + i for every element of a 1-D array (size from the shape)."""
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] = base + i


@cuda.jit
def fill_2d(a, base):
    """a[i, j] = base + 100*i + j (the shape and strides of the argument)."""
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] = base + 100 * i + j


def _expect_1d(n, base):
    return base + np.arange(n, dtype=np.float32)


def _expect_2d(shape, base):
    i, j = np.indices(shape)
    return (base + 100 * i + j).astype(np.float32)


def _launch1(a, n, base):
    fill_index[(n + 63) // 64, 64](a, np.float32(base))


def _launch2(a, base):
    fill_2d[(4, 4), (16, 16)](a, np.float32(base))


# -- torch -----------------------------------------------------------------------------
def test_torch_in_place_changes():
    torch = pytest.importorskip("torch")
    t = torch.zeros(64, device="cuda")
    for base in (1, 2):  # same tensor twice: the identity cache is used
        _launch1(t, 64, base)
        torch.cuda.synchronize()
        assert np.array_equal(t.cpu().numpy(), _expect_1d(64, base))
    full = t.view(64)  # sees the whole storage after t shrinks
    t.resize_(16)  # smaller, same storage
    _launch1(t, 64, 3)
    torch.cuda.synchronize()
    assert np.array_equal(t.cpu().numpy(), _expect_1d(16, 3))
    assert np.array_equal(full.cpu().numpy()[16:], _expect_1d(64, 2)[16:])  # beyond the new size: untouched
    t.resize_(4096)  # larger: a new storage
    _launch1(t, 4096, 4)
    torch.cuda.synchronize()
    assert np.array_equal(t.cpu().numpy(), _expect_1d(4096, 4))
    other = torch.zeros(100, device="cuda")
    t.set_(other)  # another storage
    _launch1(t, 4096, 5)
    torch.cuda.synchronize()
    assert np.array_equal(other.cpu().numpy(), _expect_1d(100, 5))
    t.set_(other.untyped_storage(), 40, (30,), (1,))  # same storage, an offset
    _launch1(t, 4096, 6)
    torch.cuda.synchronize()
    host = other.cpu().numpy()
    assert np.array_equal(host[40:70], _expect_1d(30, 6)) and np.array_equal(host[:40], _expect_1d(40, 5))
    t.as_strided_((10,), (2,), 0)  # a strided view of the same storage: another layout
    _launch1(t, 4096, 7)
    torch.cuda.synchronize()
    assert np.array_equal(other.cpu().numpy()[0:20:2], _expect_1d(10, 7))


def test_torch_transpose_and_views():
    torch = pytest.importorskip("torch")
    t = torch.zeros(32, 48, device="cuda")
    _launch2(t, 1)
    _launch2(t, 2)
    torch.cuda.synchronize()
    assert np.array_equal(t.cpu().numpy(), _expect_2d((32, 48), 2))
    t.t_()  # in place: now 48 x 32, F-ordered
    _launch2(t, 3)
    torch.cuda.synchronize()
    assert np.array_equal(t.cpu().numpy(), _expect_2d((48, 32), 3))
    t.transpose_(0, 1)
    _launch2(t, 4)
    torch.cuda.synchronize()
    assert np.array_equal(t.cpu().numpy(), _expect_2d((32, 48), 4))
    v = t[2:10, 5:20]  # views at the same position
    _launch2(v, 5)
    _launch2(v, 6)
    torch.cuda.synchronize()
    assert np.array_equal(v.cpu().numpy(), _expect_2d((8, 15), 6))


def test_torch_data_swap_and_inference_mode():
    torch = pytest.importorskip("torch")
    t = torch.zeros(64, device="cuda")
    _launch1(t, 64, 1)
    _launch1(t, 64, 1)
    z = torch.zeros(10, device="cuda")
    t.data = z  # no version bump; another storage
    _launch1(t, 64, 2)
    torch.cuda.synchronize()
    assert np.array_equal(t.cpu().numpy(), _expect_1d(10, 2))
    with torch.inference_mode():
        u = torch.zeros(20, device="cuda")  # an inference tensor: no version counter
        _launch1(u, 64, 3)
        _launch1(u, 64, 4)
        u.resize_(5)
        _launch1(u, 64, 5)
        torch.cuda.synchronize()
        assert np.array_equal(u.cpu().numpy(), _expect_1d(5, 5))
        s = torch.zeros(64, device="cuda")
    w = torch.zeros(64, device="cuda")
    full = w.view(64)
    _launch1(w, 64, 6)
    _launch1(w, 64, 6)
    with torch.inference_mode():
        w.resize_(8)  # a normal tensor changed in inference mode
    _launch1(w, 64, 7)
    torch.cuda.synchronize()
    assert np.array_equal(w.cpu().numpy(), _expect_1d(8, 7))
    assert np.array_equal(full.cpu().numpy()[8:], _expect_1d(64, 6)[8:])
    del s


def test_torch_new_tensors_reusing_ids_and_addresses():
    torch = pytest.importorskip("torch")
    for n in (64, 8, 200, 8, 64, 1000, 3):
        t = torch.zeros(n, device="cuda")  # the previous one is freed: its id/address may come back
        _launch1(t, 1024, n)
        torch.cuda.synchronize()
        assert np.array_equal(t.cpu().numpy(), _expect_1d(n, n))
        del t
        gc.collect()


# -- CuPy ------------------------------------------------------------------------------
def test_cupy_shape_assignment_and_reshape():
    cp = pytest.importorskip("cupy")
    a = cp.zeros(64, cp.float32)
    _launch1(a, 64, 1)
    _launch1(a, 64, 2)
    cp.cuda.runtime.deviceSynchronize()
    assert np.array_equal(cp.asnumpy(a), _expect_1d(64, 2))
    a.shape = (8, 8)  # in place: now 2-D (another specialization)
    _launch2(a, 3)
    cp.cuda.runtime.deviceSynchronize()
    assert np.array_equal(cp.asnumpy(a), _expect_2d((8, 8), 3))
    a.shape = (4, 16)  # same ndim, another shape
    _launch2(a, 4)
    _launch2(a, 5)
    cp.cuda.runtime.deviceSynchronize()
    assert np.array_equal(cp.asnumpy(a), _expect_2d((4, 16), 5))
    a.shape = (64,)
    _launch1(a, 64, 6)
    cp.cuda.runtime.deviceSynchronize()
    assert np.array_equal(cp.asnumpy(a), _expect_1d(64, 6))
    b = a.reshape(16, 4)  # a new view at the same position
    _launch2(b, 7)
    cp.cuda.runtime.deviceSynchronize()
    assert np.array_equal(cp.asnumpy(b), _expect_2d((16, 4), 7))
    c = a.reshape(16, 4).T  # F-ordered
    _launch2(c, 8)
    cp.cuda.runtime.deviceSynchronize()
    assert np.array_equal(cp.asnumpy(c), _expect_2d((4, 16), 8))


def test_cupy_new_arrays_reusing_ids():
    cp = pytest.importorskip("cupy")
    for n in (64, 8, 200, 8, 64):
        a = cp.zeros(n, cp.float32)
        _launch1(a, 1024, n)
        cp.cuda.runtime.deviceSynchronize()
        assert np.array_equal(cp.asnumpy(a), _expect_1d(n, n))
        del a
        gc.collect()


def test_cupy_stream_switch():
    """The launch (legacy default stream) is ordered after work queued on CuPy's
    current stream, including after ``with stream:`` switches between launches."""
    cp = pytest.importorskip("cupy")
    a = cp.zeros(1 << 20, cp.float32)
    n = a.size
    _launch1(a, n, 0)
    s = cp.cuda.Stream(non_blocking=True)
    for base in (1, 2, 3):
        with s:
            a.fill(-1)  # queued on s; our launch must wait for it
            _launch1(a, n, base)
        cp.cuda.runtime.deviceSynchronize()
        assert np.array_equal(cp.asnumpy(a), _expect_1d(n, base))
    _launch1(a, n, 9)
    cp.cuda.runtime.deviceSynchronize()
    assert np.array_equal(cp.asnumpy(a), _expect_1d(n, 9))

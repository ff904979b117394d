"""GPU: cuda.core objects as kernel arguments and launch streams, and DLPack-only
producers read through cuda.core's StridedMemoryView (one export per launch)."""

from __future__ import annotations

import numpy as np
import pytest

from cudalite import cuda

pytestmark = [pytest.mark.gpu,
              pytest.mark.nosim("foreign device arrays: cuda.core buffers and streams need real device pointers")]


@pytest.fixture(autouse=True)
def libs():
    """cuda.core and CuPy (both on the GPU machine), imported per test: a module-level
    importorskip would also hide this file from the compile-only harness."""
    global core, cp
    core = pytest.importorskip("cuda.core")
    cp = pytest.importorskip("cupy")


@cuda.jit
def _iota_bytes(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = i % 251


@cuda.jit
def _copy(dst, src):
    i = cuda.grid(1)
    if i < dst.size:
        dst[i] = src[i]


@cuda.jit
def _add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def _device():
    dev = core.Device(cuda.get_current_device().id)
    dev.set_current()
    return dev


def _view(obj):
    from cuda.core.utils import StridedMemoryView

    make = getattr(StridedMemoryView, "from_dlpack", None)
    return make(obj, stream_ptr=-1) if make is not None else StridedMemoryView(obj, stream_ptr=-1)


def test_buffer_is_a_byte_array():
    dev = _device()
    stream = dev.create_stream()
    buf = dev.allocate(1000, stream=stream)
    stream.sync()
    _iota_bytes[4, 256](buf)
    out = cuda.device_array(1000, np.uint8)
    _copy[4, 256](out, buf)
    np.testing.assert_array_equal(out.copy_to_host(), (np.arange(1000) % 251).astype(np.uint8))
    buf.close(stream)


def test_strided_memory_view_arguments():
    _device()
    a = cp.arange(24, dtype=cp.float32).reshape(4, 6)
    view = _view(a)

    @cuda.jit
    def twice(v):
        i, j = cuda.grid(2)
        if i < v.shape[0] and j < v.shape[1]:
            v[i, j] *= 2

    twice[(1, 1), (8, 8)](view)
    cuda.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(a), np.arange(24, dtype=np.float32).reshape(4, 6) * 2)
    b = cp.arange(12, dtype=cp.float64)
    twice_1d = _add_one
    twice_1d[1, 32](_view(b[::2]))  # a strided view: its strides are honoured
    cuda.synchronize()
    expect = np.arange(12, dtype=np.float64)
    expect[::2] += 1
    np.testing.assert_array_equal(cp.asnumpy(b), expect)


class DLPackOnly:
    """A producer exporting only DLPack (no CUDA array interface), counting exports."""

    def __init__(self, tensor):
        self.tensor, self.exports = tensor, 0

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()

    def __dlpack__(self, stream=None, **kw):
        self.exports += 1
        return self.tensor.__dlpack__(stream=stream, **kw)


def test_dlpack_only_producer_exports_once_per_launch():
    _device()
    a = cp.zeros(100, dtype=cp.int32)
    src = DLPackOnly(a)
    for _ in range(3):  # the slow path, then the generated launcher
        _add_one[1, 128](src)
    cuda.synchronize()
    assert src.exports == 3
    np.testing.assert_array_equal(cp.asnumpy(a), np.full(100, 3, np.int32))


def test_cuda_core_stream_as_launch_stream():
    dev = _device()
    stream = dev.create_stream()
    d = cuda.to_device(np.zeros(256, np.float32))
    _add_one[1, 256, stream](d)
    stream.sync()
    np.testing.assert_array_equal(d.copy_to_host(), np.ones(256, np.float32))


def test_dlpack_export_to_torch_cupy_and_cuda_core():
    """Consumers that ask for DLPack 1.x get a versioned capsule (torch, CuPy and
    cuda.core pass max_version=(1, 0)); the data round-trips."""
    torch = pytest.importorskip("torch")
    host = np.arange(10, dtype=np.float32)
    d = cuda.to_device(host)
    np.testing.assert_array_equal(torch.from_dlpack(d).cpu().numpy(), host)
    np.testing.assert_array_equal(cp.asnumpy(cp.from_dlpack(d)), host)
    view = _view(d)
    assert view.ptr == d.device_ctypes_pointer.value and tuple(view.shape) == (10,)


def _graph_builder(dev):
    make = getattr(dev, "create_graph_builder", None)
    if make is None:
        pytest.skip("this cuda.core has no GraphBuilder")
    return make()


def test_launches_recorded_into_a_cuda_core_graph():
    """cudalite launches and stream copies queued on a cuda.core GraphBuilder's stream
    (or on the builder itself: it is a stream) become nodes of the cuda.core graph;
    replaying the graph runs them again."""
    dev = _device()
    host = np.arange(256, dtype=np.float32)
    d = cuda.to_device(host)
    out = cuda.device_array(256, np.float32)
    _add_one[2, 128](d)  # compiled and its launcher made before the capture
    _copy[2, 128](out, d)
    cuda.synchronize()
    gb = _graph_builder(dev)
    gb.begin_building()
    _add_one[2, 128, gb.stream](d)
    _add_one[2, 128, gb](d)
    _copy[2, 128, gb.stream](out, d)
    gb.end_building()
    graph = gb.complete()
    np.testing.assert_array_equal(d.copy_to_host(), host + 1)  # recorded, not run
    stream = dev.create_stream()
    for _ in range(3):
        graph.launch(stream)
    stream.sync()
    np.testing.assert_array_equal(d.copy_to_host(), host + 1 + 6)
    np.testing.assert_array_equal(out.copy_to_host(), host + 1 + 6)


def test_cudalite_graph_replays_on_a_cuda_core_stream():
    dev = _device()
    d = cuda.to_device(np.zeros(128, np.int32))
    s = cuda.stream()
    _add_one[1, 128, s](d)
    s.synchronize()
    with s.capture() as graph:
        _add_one[1, 128, s](d)
    stream = dev.create_stream()
    graph.launch(stream)
    graph.launch(stream)
    stream.sync()
    np.testing.assert_array_equal(d.copy_to_host(), np.full(128, 3, np.int32))


def test_one_kernel_alternates_buffers_cupy_and_device_arrays():
    """The launcher made for cuda.core Buffers takes only Buffers: the same kernel then
    given CuPy uint8 arrays and device arrays (the same type key) launches each with its
    own memory (a Buffer launcher once read ``.handle`` from them: AttributeError)."""
    dev = _device()
    stream = dev.create_stream()
    bufs = [dev.allocate(300, stream=stream) for _ in range(2)]
    stream.sync()
    cps = [cp.zeros(300, cp.uint8) for _ in range(2)]
    devs = [cuda.device_array(300, np.uint8) for _ in range(2)]
    for _round in range(2):  # the second round runs every generated launcher again
        for arrays in (bufs, cps, devs):
            for a in arrays:
                _iota_bytes[2, 256](a)
    cuda.synchronize()
    want = (np.arange(300) % 251).astype(np.uint8)
    for a in cps:
        np.testing.assert_array_equal(cp.asnumpy(a), want)
    for a in devs:
        np.testing.assert_array_equal(a.copy_to_host(), want)
    for b in bufs:
        out = cuda.device_array(300, np.uint8)
        _copy[2, 256](out, b)
        np.testing.assert_array_equal(out.copy_to_host(), want)
        b.close(stream)

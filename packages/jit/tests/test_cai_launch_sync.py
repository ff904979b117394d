"""GPU-less tests of the launch-time synchronization of ``__cuda_array_interface__``
arguments whose producer named a stream (numba's ``CUDA_ARRAY_INTERFACE_SYNC`` rule):
the host synchronizes that stream through the public ``cuda.cudadrv.driver.Stream``
before every launch, slow path and generated launcher alike, unless the stream is the
launch's own or ``CUDALITE_CUDA_ARRAY_INTERFACE_SYNC=0``.  A fake compiled kernel
records each launch's values; ``Stream.synchronize`` is replaced by a recorder."""

import pytest

from _fake_arrays import CAI, FakeKernel
from cudalite import cuda
from cudalite.cuda.cudadrv import driver as cudadrv_driver


def two(a, b):
    a[0] = b[0]


def one(a):
    a[0] = 1.0


@pytest.fixture
def synced(monkeypatch):
    """The handles of the streams synchronized, in order."""
    import cudalite.cuda._dispatch.kernel as D

    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    monkeypatch.delenv("CUDALITE_CUDA_ARRAY_INTERFACE_SYNC", raising=False)
    seen = []
    monkeypatch.setattr(cudadrv_driver.Stream, "synchronize", lambda self: seen.append(int(self._handle)))
    return seen


def _kernel(fn, calls):
    k = cuda.jit(fn)
    k._compiler = lambda pyfunc, argtypes, opts, cc: FakeKernel(argtypes, calls)
    return k


def test_producer_stream_synchronized_before_each_launch(synced):
    calls = []
    k = _kernel(one, calls)
    a = CAI(0x1000, (8,), None, "float32", stream=0x5000)
    k[128, 32](a)  # slow path
    assert synced == [0x5000] and calls == [(0x1000, 8)]
    k[128, 32](a)  # the generated launcher synchronizes too
    assert synced == [0x5000, 0x5000] and calls[-1] == (0x1000, 8)


def test_two_producer_streams_each_synchronized(synced):
    calls = []
    k = _kernel(two, calls)
    k[128, 32](CAI(0x1000, (4,), None, "float32", stream=0x5000), CAI(0x2000, (4,), None, "float32", stream=0x6000))
    assert synced == [0x5000, 0x6000]
    assert calls == [(0x1000, 4, 0x2000, 4)]


def test_no_synchronization_without_a_foreign_stream(synced):
    calls = []
    k = _kernel(two, calls)
    s = cuda.external_stream(0x7000)
    # no stream named; the launch's own stream; the legacy default stream on both sides
    k[128, 32](CAI(0x1000, (4,), None, "float32"), CAI(0x2000, (4,), None, "float32", stream=None))
    k[128, 32, s](CAI(0x1000, (4,), None, "float32", stream=0x7000), CAI(0x2000, (4,), None, "float32"))
    k[128, 32](CAI(0x1000, (4,), None, "float32", stream=1), CAI(0x2000, (4,), None, "float32", stream=1))
    assert synced == [] and len(calls) == 3


def test_switch_off_means_no_synchronization(synced, monkeypatch):
    monkeypatch.setenv("CUDALITE_CUDA_ARRAY_INTERFACE_SYNC", "0")
    calls = []
    k = _kernel(one, calls)
    k[128, 32](CAI(0x1000, (8,), None, "float32", stream=0x5000))
    k[128, 32](CAI(0x1000, (8,), None, "float32", stream=0x5000))
    assert synced == [] and calls == [(0x1000, 8), (0x1000, 8)]


def test_a_producer_stream_that_is_not_a_handle_is_refused(synced):
    k = _kernel(one, [])
    with pytest.raises(TypeError, match="ptr for external stream must be an int"):
        k[128, 32](CAI(0x1000, (8,), None, "float32", stream=5.0))

"""GPU-less: DLPack-only producers as kernel arguments -- the capsule is read
(pointer, shape, byte strides, dtype), marked used and its deleter run."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

from cudalite.cuda._memory import dlpack as _dlpack
from cudalite.cuda._launch.kinds import kind_for as handler_for
from cudalite.cuda._launch.foreign import DLPackKind as DLPackHandler
from cudalite.cuda.devicearray import DeviceNDArray

BASE = 0x7F0000000000


class FakeMemory:
    device_id = 0


class DLPackOnly:
    """Exports only DLPack (like a framework array without the CUDA array interface)."""

    def __init__(self, array, device_type=_dlpack.KDLCUDA):
        self.array = array
        self.device_type = device_type
        self.streams = []

    def __dlpack_device__(self):
        return (self.device_type, 0)

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return _dlpack.to_dlpack(self.array, self.device_type, 0)


def test_read_dlpack_gives_pointer_shape_byte_strides_and_dtype():
    view = DeviceNDArray((4, 6), None, np.float32, ptr=BASE, owner=FakeMemory())[:, ::-2]
    src = DLPackOnly(view)
    ptr, shape, strides, dtype = _dlpack.read_dlpack(src, stream=7)
    assert (ptr, shape, strides, dtype) == (view._ptr, view.shape, view.strides, np.dtype(np.float32))
    assert src.streams == [7]


def test_the_capsule_is_released_after_reading():
    arr = DeviceNDArray((5,), None, np.int64, ptr=BASE, owner=FakeMemory())
    ref = weakref.ref(arr)
    src = DLPackOnly(arr)
    _dlpack.read_dlpack(src)
    del src, arr
    gc.collect()
    assert ref() is None, "the deleter must drop the exporter's reference"


def test_dlpack_only_objects_get_the_dlpack_handler_and_a_type_key():
    src = DLPackOnly(DeviceNDArray((3, 4), None, np.float64, ptr=BASE, owner=FakeMemory()))
    handler = handler_for(type(src), src, None)
    assert isinstance(handler, DLPackHandler)
    assert handler.key(src) == (np.dtype(np.float64), 2, "C")


def test_host_dlpack_tensors_are_rejected():
    src = DLPackOnly(DeviceNDArray((3,), None, np.float32, ptr=BASE, owner=FakeMemory()), _dlpack.KDLCPU)
    with pytest.raises(TypeError, match="CUDA device"):
        _dlpack.read_dlpack(src)


# -- one export per launch, kept until the kernel has run ------------------------------------
def _fake_kernel(fn, calls, monkeypatch):
    import cudalite.cuda._dispatch.kernel as D
    from _fake_arrays import FakeKernel

    from cudalite import cuda

    k = cuda.jit(fn)
    k._compiler = lambda pyfunc, argtypes, opts, cc: FakeKernel(argtypes, calls)
    monkeypatch.setattr(D, "current_cc", lambda: (9, 0))
    return k


def _fill(a, x):
    a[0] = x


def test_one_export_per_launch_released_after_the_kernel(monkeypatch):
    from cudalite.cuda._launch import foreign as F

    released, exports = [], []
    real = F.import_dlpack

    def counting(obj, stream):
        ptr, shape, strides, dtype, owner = real(obj, stream)
        assert owner is obj  # the producer keeps the memory
        exports.append((stream, owner))
        return ptr, shape, strides, dtype, owner

    monkeypatch.setattr(F, "import_dlpack", counting)
    monkeypatch.setattr(F.KeepUntilDone, "add", lambda self, sh, owner: released.append((sh, owner)))
    calls = []
    k = _fake_kernel(_fill, calls, monkeypatch)
    src = DLPackOnly(DeviceNDArray((8,), None, np.float32, ptr=BASE, owner=FakeMemory()))
    for x in (1.0, 2.0, 3.0):  # the slow path, then the generated launcher
        k[1, 1](src, x)
    assert len(calls) == 3 and all(c[0] == BASE for c in calls)
    assert len(src.streams) == 3, "one __dlpack__ call per launch"
    assert [s for s, _ in exports] == [1, 1, 1]  # the legacy default stream, DLPack's 1
    assert released == [(0, owner) for _, owner in exports]  # each export kept until its kernel ran
    assert "AFTER0(SH)" in k._table.last_factory.source


def test_cuda_core_objects_get_their_handlers():
    from cudalite.cuda._launch.foreign import CoreBufferKind as BufferHandler, CoreViewKind as StridedViewHandler

    class StridedMemoryView:  # the attributes cuda.core's view has
        __module__ = "cuda.core.utils"

        def __init__(self, ptr, shape, strides, dtype, device=True):
            self.ptr, self.shape, self.strides, self.dtype = ptr, shape, strides, np.dtype(dtype)
            self.is_device_accessible = device

    class Buffer:
        __module__ = "cuda.core._memory"

        def __init__(self, handle, size):
            self.handle, self.size = handle, size

    view = StridedMemoryView(BASE, (4, 6), None, np.float32)
    h = handler_for(type(view), view, None)
    assert isinstance(h, StridedViewHandler) and h.key(view) == (np.dtype(np.float32), 2, "C")
    strided = StridedMemoryView(BASE, (4, 3), (6, 2), np.float64)  # strides in elements
    assert h.key(strided) == (np.dtype(np.float64), 2, "A")
    with pytest.raises(TypeError, match="memory the device cannot access"):
        h.key(StridedMemoryView(BASE, (4,), None, np.float32, device=False))
    buf = Buffer(BASE, 100)
    hb = handler_for(type(buf), buf, None)
    assert isinstance(hb, BufferHandler) and hb.key(buf) == (np.dtype(np.uint8), 1, "C")


# -- DLPack 1.x export ------------------------------------------------------------------------
def test_versioned_export_when_the_consumer_asks_for_dlpack_1():
    import ctypes

    arr = DeviceNDArray((3, 4), None, np.float32, ptr=BASE, owner=FakeMemory())
    ref = weakref.ref(arr)
    legacy = arr.__dlpack__(stream=-1)
    assert _dlpack._capsule_is_valid(id(legacy), b"dltensor") == 1
    assert _dlpack._capsule_is_valid(id(arr.__dlpack__(stream=-1, max_version=(0, 8))), b"dltensor") == 1
    capsule = arr.__dlpack__(stream=-1, max_version=(1, 1))
    assert _dlpack._capsule_is_valid(id(capsule), b"dltensor_versioned") == 1
    ptr = _dlpack._capsule_pointer_of(capsule, b"dltensor_versioned")
    m = ctypes.cast(ptr, ctypes.POINTER(_dlpack._DLManagedTensorVersioned)).contents
    assert (m.version.major, m.version.minor) == _dlpack.DLPACK_VERSION == (1, 0) and m.flags == 0
    t = m.dl_tensor
    assert (t.data, t.device.device_type, t.ndim) == (BASE, _dlpack.KDLCUDA, 2)
    assert [t.shape[k] for k in range(2)] == [3, 4] and [t.strides[k] for k in range(2)] == [4, 1]
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (2, 32, 1)
    # a consumer takes it: marks the capsule used and calls the deleter, which drops the array
    _dlpack._capsule_set_name(capsule, b"used_dltensor_versioned")
    m.deleter(ctypes.cast(ptr, ctypes.POINTER(_dlpack._DLManagedTensorVersioned)))
    del capsule, legacy, arr, m, t
    gc.collect()
    assert ref() is None


def test_unconsumed_versioned_capsule_releases_the_array():
    arr = DeviceNDArray((5,), None, np.int64, ptr=BASE, owner=FakeMemory())
    ref = weakref.ref(arr)
    capsule = arr.__dlpack__(stream=-1, max_version=(1, 0))
    del arr
    gc.collect()
    assert ref() is not None  # the capsule keeps the exported array
    del capsule
    gc.collect()
    assert ref() is None


def test_kept_objects_are_released_on_the_launching_thread(monkeypatch):
    """The stream callback only marks a record done; the reference is dropped by a later
    prune on the caller's thread (a producer's destructor may call the CUDA API, which a
    driver callback must not)."""
    import cudalite.driver as drv
    from cudalite.cuda._launch.foreign import KeepUntilDone

    callbacks = []
    monkeypatch.setattr(drv, "add_callback", lambda stream, fn: callbacks.append(fn))
    monkeypatch.setattr(drv.Stream, "external", staticmethod(lambda sh: sh))

    class Producer:
        pass

    keep = KeepUntilDone()
    p = Producer()
    ref = weakref.ref(p)
    keep.add(0, p)
    del p
    assert ref() is not None and len(keep) == 1  # kept while the kernel may run
    fn = callbacks.pop()
    fn(0)  # the driver thread: the kernel has run
    del fn
    gc.collect()
    assert ref() is not None, "released inside the driver callback"
    keep.prune()  # the next launch, on the launching thread
    gc.collect()
    assert ref() is None and len(keep) == 0


def test_the_generated_launcher_checks_the_producer_class(monkeypatch):
    """A device array of the same dtype and layout, which also exports DLPack, does not
    pass the DLPack-only producer's guard: it takes its own handler (no export)."""
    from cudalite.cuda._launch import foreign as F

    monkeypatch.setattr(F.KeepUntilDone, "add", lambda self, sh, owner: None)
    calls = []
    k = _fake_kernel(_fill, calls, monkeypatch)
    src = DLPackOnly(DeviceNDArray((8,), None, np.float32, ptr=BASE, owner=FakeMemory()))
    for x in (1.0, 2.0):  # the second launch runs the generated launcher
        k[1, 1](src, x)
    exported = []
    monkeypatch.setattr(DeviceNDArray, "__dlpack__", lambda self, *a, **kw: exported.append(self), raising=False)
    d = DeviceNDArray((8,), None, np.float32, ptr=BASE + 4096, owner=FakeMemory())
    k[1, 1](d, 3.0)
    assert calls[-1][0] == BASE + 4096 and exported == []
    assert len(src.streams) == 2


def test_no_callback_on_a_capturing_stream(monkeypatch):
    """cuStreamAddCallback is refused during capture and would end it: nothing is kept."""
    import cudalite.driver as drv
    import cudalite.driver.graph as graph
    from cudalite.cuda._launch.foreign import KeepUntilDone

    callbacks = []
    monkeypatch.setattr(drv, "add_callback", lambda stream, fn: callbacks.append(fn))
    monkeypatch.setattr(drv.Stream, "external", staticmethod(lambda sh: sh))
    monkeypatch.setattr(graph, "is_capturing", lambda sh: sh == 7)
    keep = KeepUntilDone()
    keep.add(7, object())
    assert callbacks == [] and len(keep) == 0
    keep.add(5, object())
    assert len(callbacks) == 1 and len(keep) == 1

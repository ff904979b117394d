"""Multi-GPU routing without a GPU: the launch-device rule, launches routed to their
arguments' device (slow path and generated fast path, with fake kernels and a fake
per-thread current device), the one-GPU launch code free of device checks, and device
arrays' devices, copies and peer copies (driver calls faked)."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import cudalite.driver as drv
from cudalite import cuda
from cudalite.cuda import devicearray
from cudalite.cuda._dispatch import kernel as _dispatcher, slowpath as _slowpath
from cudalite.cuda._launch import devices as _devices
from cudalite.cuda._launch.devices import ANY, MixedDevicesError, launch_device
from cudalite.cuda.devicearray import DeviceNDArray

from _fake_arrays import CupyArray, FakeKernel, FakeMemory, TorchTensor, install_fake_libs


def scale(a, b, x):
    i = cuda.grid(1)
    if i < a.size:
        b[i] = a[i] * x


def fill(x):
    pass


# -- the rule ------------------------------------------------------------------------------
def test_launch_device_rule():
    assert launch_device("k", [("a", 1), ("b", 1)], None, 0) == 1
    assert launch_device("k", [("a", ANY), ("b", 2)], None, 0) == 2  # managed memory: any device
    assert launch_device("k", [("a", ANY)], None, 3) == 3
    assert launch_device("k", [], None, 3) == 3  # no arrays: the current device
    assert launch_device("k", [], 1, 0) == 1  # ... or the stream's
    assert launch_device("k", [("a", 1)], 1, 0) == 1


def test_launch_device_mixed_arrays_error_names_them():
    with pytest.raises(MixedDevicesError) as info:
        launch_device("scale", [("a", 0), ("b", 1), ("c", 0)], None, 0)
    msg = str(info.value)
    assert isinstance(info.value, ValueError)
    assert "kernel 'scale'" in msg and "'a', 'c' on device 0; 'b' on device 1" in msg
    assert "copy_to_device" in msg


def test_launch_device_stream_of_another_device_is_an_error():
    with pytest.raises(MixedDevicesError, match=r"stream belongs to device 0 but the array arguments \('a'\) are "
                                                r"on device 1"):
        launch_device("k", [("a", 1)], 0, 0)


# -- a fake multi-GPU process ----------------------------------------------------------------
class FakeDevices:
    """A per-thread current device, and the switches made by on_device."""

    def __init__(self):
        self.current, self.switches = 0, []

    def current_id(self):
        return self.current

    @contextlib.contextmanager
    def on_device(self, dev):
        if dev is None or dev == ANY or dev == self.current:
            yield
            return
        prev, self.current = self.current, dev
        self.switches.append(dev)
        try:
            yield
        finally:
            self.current = prev


@pytest.fixture
def gpus(monkeypatch):
    fake = FakeDevices()
    monkeypatch.setattr(_slowpath, "multi_gpu", lambda: True)
    monkeypatch.setattr(_slowpath, "current_id", fake.current_id)
    monkeypatch.setattr(_slowpath, "on_device", fake.on_device)
    monkeypatch.setattr(_devices, "current_id", fake.current_id)
    monkeypatch.setattr(_devices, "current_reader", lambda: fake.current_id)  # for the generated launch code
    monkeypatch.setattr(_dispatcher, "current_cc", lambda: (9, 0))
    return fake


def _array(ptr, device, n=8, dtype=np.float32):
    a = DeviceNDArray((n,), None, dtype, ptr=ptr, owner=FakeMemory())
    a._device = device
    return a


def _kernel(fn, calls):
    k = cuda.jit(fn)
    k._compiler = lambda pf, argtypes, opts, cc: FakeKernel(argtypes, calls, full=True)
    slow = []
    real = k._launch_slow

    def spy(*args, **kw):
        slow.append(args[1])  # (config, args, key, caller): the arguments
        return real(*args, **kw)

    k._launch_slow = spy  # the generated code calls it on a guard miss
    return k, slow


def _launched_on(k):
    kernel = next(iter(k.overloads.values()))
    return kernel.launched_on


def test_launch_runs_on_the_arrays_device(gpus):
    calls = []
    k, slow = _kernel(scale, calls)
    a, b = _array(0x100, 1), _array(0x200, 1)
    k[1, 8](a, b, 2.0)
    assert _launched_on(k) == [1] and gpus.switches == [1] and gpus.current == 0  # restored
    assert calls[-1][4:] == (0x100, 8, 0x200, 8, 2.0)
    k[1, 8](a, b, 3.0)  # device 0 is still current: the launch is routed again
    assert _launched_on(k) == [1, 1] and gpus.switches == [1, 1]
    with gpus.on_device(1):  # `with cuda.gpus[1]:` -- the generated launch code takes it
        n_slow = len(slow)
        k[1, 8](a, b, 4.0)
        assert len(slow) == n_slow and _launched_on(k) == [1, 1, 1]
    src = k._table.last_factory.source
    assert "a._device in DEVS" in src and "b._device in DEVS" in src and "CURDEV() == DEV" in src


def test_fast_path_misses_for_an_array_of_another_device(gpus):
    calls = []
    k, slow = _kernel(scale, calls)
    k[1, 8](_array(0x100, 0), _array(0x200, 0), 1.0)
    k[1, 8](_array(0x100, 0), _array(0x200, 0), 1.0)
    n_slow = len(slow)
    k[1, 8](_array(0x300, 1), _array(0x400, 1), 1.0)  # same types, device 1: slow path, routed
    assert len(slow) > n_slow and _launched_on(k) == [0, 0, 1]
    assert gpus.current == 0


def test_unknown_device_is_found_by_the_slow_path(gpus, monkeypatch):
    calls = []
    k, slow = _kernel(scale, calls)
    a, b = _array(0x100, None), _array(0x200, None)  # memory cudalite did not allocate
    attrs = {0x100: 1, 0x200: 1}
    monkeypatch.setattr(drv, "pointer_attributes",
                        lambda p: drv.PointerAttributes("device", device_ordinal=attrs[p]))
    k[1, 8](a, b, 1.0)
    assert a._device == 1 and b._device == 1 and _launched_on(k) == [1]


def test_mixed_devices_launch_error(gpus):
    k, _slow = _kernel(scale, [])
    with pytest.raises(MixedDevicesError, match=r"kernel 'scale': .*'a' on device 0; 'b' on device 1"):
        k[1, 8](_array(0x100, 0), _array(0x200, 1), 1.0)
    assert gpus.current == 0 and gpus.switches == []


def test_managed_memory_goes_anywhere(gpus):
    calls = []
    k, _slow = _kernel(scale, calls)
    k[1, 8](_array(0x100, ANY), _array(0x200, 1), 1.0)
    assert _launched_on(k) == [1]
    k[1, 8](_array(0x100, ANY), _array(0x200, ANY), 1.0)  # nothing placed: the current device
    assert _launched_on(k) == [1, 0]


def test_scalars_only_launch_on_the_current_device(gpus):
    calls = []
    k, slow = _kernel(fill, calls)
    k[1, 1](1.0)
    with gpus.on_device(1):
        k[1, 1](2.0)  # the launcher of device 0 misses (current device), device 1 loads
        k[1, 1](3.0)
    assert _launched_on(k) == [0, 1, 1]
    assert gpus.switches == [1]  # only the `with` above: nothing was routed


def test_cupy_array_on_another_device_8612(gpus, monkeypatch):
    """numba issue #8612: a CuPy array on device 1 passed while device 0 is current."""
    install_fake_libs(monkeypatch)
    calls = []
    k, _slow = _kernel(scale, calls)
    a = CupyArray(0x100, (8,), (4,), np.float32, device_id=1)
    b = CupyArray(0x200, (8,), (4,), np.float32, device_id=1)
    k[1, 8](a, b, 2.0)
    assert _launched_on(k) == [1] and gpus.current == 0
    assert calls[-1][4:] == (0x100, 8, 0x200, 8, 2.0)
    with gpus.on_device(1):
        k[1, 8](a, b, 2.0)
    assert "a.data.device_id == DEV" in k._table.last_factory.source
    with pytest.raises(MixedDevicesError, match="'b' on device 0"):
        k[1, 8](a, CupyArray(0x200, (8,), (4,), np.float32, device_id=0), 2.0)


def test_torch_tensor_on_another_device(gpus, monkeypatch):
    install_fake_libs(monkeypatch)
    calls = []
    k, _slow = _kernel(scale, calls)
    a = TorchTensor(0x100, (8,), (4,), np.float32, device_id=1)
    k[1, 8](a, _array(0x200, 1), 2.0)
    assert _launched_on(k) == [1]
    with pytest.raises(MixedDevicesError, match=r"'a' on device 1; 'b' on device 0|'b' on device 0; 'a' on"):
        k[1, 8](a, _array(0x200, 0), 2.0)


def test_one_gpu_launch_code_has_no_device_check(monkeypatch):
    monkeypatch.setattr(_slowpath, "multi_gpu", lambda: False)
    monkeypatch.setattr(_dispatcher, "current_cc", lambda: (9, 0))
    calls = []
    k, slow = _kernel(scale, calls)
    a, b = _array(0x100, 0), _array(0x200, 0)
    k[1, 8](a, b, 1.0)
    k[1, 8](a, b, 1.0)
    assert len(slow) == 1 and len(calls) == 2
    src = k._table.last_factory.source
    assert "DEV" not in src.replace("REC[DEV]", "").replace("FAULT(_cl_e, DEV)", "")
    assert "_device" not in src and "CURDEV" not in src


# -- device arrays -----------------------------------------------------------------------------
def test_device_array_remembers_its_device():
    mem = drv.DeviceMemory(0x1000, 64, 1)  # a fake allocation (never freed: no driver here)
    mem._finalizer.detach()
    a = DeviceNDArray((16,), None, np.float32, gpu_data=mem)
    assert a.device_id == 1 and a._device == 1
    assert a[2:8].device_id == 1 and a.reshape(4, 4).T.device_id == 1 and a.bind(0).device_id == 1
    assert DeviceNDArray((0,), None, np.float32, ptr=0, owner=FakeMemory()).device_id is None
    managed = _array(0x100, ANY)
    assert managed.device_id is None


@pytest.fixture
def array_gpus(monkeypatch):
    fake = FakeDevices()
    monkeypatch.setattr(devicearray, "multi_gpu", lambda: True)
    monkeypatch.setattr(devicearray, "on_device", fake.on_device)
    return fake


def test_copies_run_on_the_arrays_device(array_gpus, monkeypatch):
    seen = []
    monkeypatch.setattr(drv, "copy_device_to_host",
                        lambda dst, src, n, stream=None: seen.append(("dtoh", array_gpus.current, src, n)))
    monkeypatch.setattr(drv, "copy_host_to_device",
                        lambda dst, src, n, stream=None: seen.append(("htod", array_gpus.current, dst, n)))
    a = _array(0x100, 1)
    a.copy_to_host()
    a.copy_to_device(np.zeros(8, np.float32))
    a[3]  # a scalar read
    assert [(k, dev) for k, dev, *_ in seen] == [("dtoh", 1), ("htod", 1), ("dtoh", 1)]
    assert seen[2][2:] == (0x100 + 12, 4) and array_gpus.current == 0


def test_copy_between_devices_is_a_peer_copy(array_gpus, monkeypatch):
    peer, dtod = [], []
    monkeypatch.setattr(drv, "copy_peer", lambda *a, **kw: peer.append((a, kw)))
    monkeypatch.setattr(drv, "copy_device_to_device",
                        lambda dst, src, n, stream=None: dtod.append((array_gpus.current, dst, src, n)))
    src, dst = _array(0x100, 0), _array(0x200, 1)
    dst.copy_to_device(src)
    assert peer == [((0x200, 1, 0x100, 0, 32), {"stream": None})]
    dst[2:4] = src[0:2]  # setitem between devices
    assert peer[-1] == ((0x208, 1, 0x100, 0, 8), {"stream": None})
    _array(0x300, 1).copy_to_device(dst)  # same device: an ordinary copy, on that device
    assert dtod == [(1, 0x300, 0x200, 32)] and len(peer) == 2
    _array(0x300, ANY).copy_to_device(src)  # managed memory: an ordinary copy
    assert len(dtod) == 2 and len(peer) == 2


def test_one_gpu_copies_do_not_switch(monkeypatch):
    monkeypatch.setattr(devicearray, "multi_gpu", lambda: False)
    switched = []
    monkeypatch.setattr(devicearray, "on_device", lambda d: switched.append(d))
    monkeypatch.setattr(drv, "copy_device_to_host", lambda dst, src, n, stream=None: None)
    monkeypatch.setattr(drv, "copy_device_to_device", lambda dst, src, n, stream=None: None)
    a = _array(0x100, None)  # would need the driver to find its device: never asked
    a.copy_to_host()
    a.copy_to_device(_array(0x200, None))
    assert switched == [] and a._device is None


def test_cai_view_takes_the_producers_dlpack_device():
    """as_cuda_array / from_cuda_array_interface: a producer that states its device
    through __dlpack_device__ (CuPy, torch, cuda.core) is believed, kDLCUDAManaged is
    'any device', and one that does not say is left to the driver (None)."""
    from cudalite.cuda._launch.devices import ANY
    from cudalite.cuda._launch.devices import dlpack_device_of as _dlpack_device_of

    class Owner:
        def __init__(self, dev):
            self.dev = dev

        def __dlpack_device__(self):
            return self.dev

    class Broken:
        def __dlpack_device__(self):
            raise BufferError("no")

    assert _dlpack_device_of(Owner((2, 1))) == 1
    assert _dlpack_device_of(Owner((13, 0))) == ANY
    assert _dlpack_device_of(Owner((1, 0))) is None
    assert _dlpack_device_of(Broken()) is None
    assert _dlpack_device_of(object()) is None

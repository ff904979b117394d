"""GPU-less stand-ins for every kind of array a kernel accepts, all describing the same
(pointer, shape, byte strides, dtype): DeviceNDArray over a fake address, CUDA array
interface objects, DLPack-only exporters, NumPy views (``as_strided``, never read),
and CuPy/torch look-alikes (classes whose module is ``cupy``/``torch``; call
:func:`install_fake_libs` first so the handlers find those modules)."""

from __future__ import annotations

import sys
import types

import numpy as np

from cudalite.driver import param_layout
from cudalite.driver.checked import reference as checked_reference
from cudalite.core.abi import kernel_abi
from cudalite.cuda._memory import dlpack as _dlpack
from cudalite.cuda._launch.kinds import kind_for as handler_for
from cudalite.cuda.devicearray import DeviceNDArray

BASE = 0x7F0000000000
_TORCH_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64", "complex64",
                "complex128")


class FakeMemory:
    device_id = 0


class _TorchDType:
    """A torch dtype look-alike (hashable, compared by identity)."""

    def __init__(self, name):
        self.name = name


def host_view(shape, strides, dtype):
    """A NumPy array with this shape and these byte strides (for its flags only: the
    memory behind it is one element, never read)."""
    return np.lib.stride_tricks.as_strided(np.zeros(1, dtype), tuple(shape), tuple(strides), writeable=False)


def numpy_layout(shape, strides, dtype):
    """The layout NumPy's own flags give."""
    flags = host_view(shape, strides, dtype).flags
    return "C" if flags.c_contiguous else ("F" if flags.f_contiguous else "A")


class CAI:
    """An object exposing ``__cuda_array_interface__`` v3."""

    def __init__(self, ptr, shape, strides, dtype, stream=None):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": tuple(shape), "typestr": np.dtype(dtype).str,
                                         "strides": None if strides is None else tuple(strides), "version": 3,
                                         "stream": stream}


class DLPackOnly:
    """Exports only DLPack (a framework array without the CUDA array interface)."""

    def __init__(self, array):
        self.array = array

    def __dlpack_device__(self):
        return (_dlpack.KDLCUDA, 0)

    def __dlpack__(self, stream=None):
        return _dlpack.to_dlpack(self.array, _dlpack.KDLCUDA, 0)


class _CupyMem:
    def __init__(self, ptr, device_id=0):
        self.ptr, self.device_id = ptr, device_id


class CupyArray:
    """A CuPy ``ndarray`` look-alike, its contiguity flags set as CuPy does (NumPy's
    relaxed rule)."""

    def __init__(self, ptr, shape, strides, dtype, device_id=0):
        self.data, self.dtype = _CupyMem(ptr, device_id), np.dtype(dtype)
        self.shape, self.strides = tuple(shape), tuple(strides)
        self.ndim = len(self.shape)
        flags = host_view(shape, strides, dtype).flags
        self._c_contiguous, self._f_contiguous = flags.c_contiguous, flags.f_contiguous


CupyArray.__module__ = "cupy"


class TorchTensor:
    """A torch CUDA tensor look-alike: strides in elements, ``is_contiguous()``."""

    def __init__(self, ptr, shape, strides, dtype, device_id=0):
        torch = sys.modules["torch"]
        self.ptr, self.shape, self.np_dtype, self.device_id = ptr, tuple(shape), np.dtype(dtype), device_id
        self.dtype = getattr(torch, self.np_dtype.name)
        self.strides = tuple(s // self.np_dtype.itemsize for s in strides)
        self._version, self.is_cuda = 0, True
        self.contiguous = host_view(shape, strides, dtype).flags.c_contiguous

    def data_ptr(self):
        return self.ptr

    def get_device(self):
        return self.device_id

    def dim(self):
        return len(self.shape)

    def stride(self):
        return self.strides

    def is_contiguous(self):
        return self.contiguous


TorchTensor.__module__ = "torch"


def install_fake_libs(monkeypatch):
    """Put fake ``torch`` and ``cupy`` modules in ``sys.modules`` (the handlers read them),
    and run stream callbacks at once (a DLPack producer is kept until its kernel has run:
    the fake kernel has run when the launch returns)."""
    import cudalite.driver as drv

    monkeypatch.setattr(drv, "add_callback", lambda stream, fn: fn(0))
    torch = types.ModuleType("torch")
    for name in _TORCH_NAMES:
        setattr(torch, name, _TorchDType(name))
    cupy = types.ModuleType("cupy")
    null = types.SimpleNamespace(ptr=0)  # CuPy's Stream.null: the legacy default stream
    cupy.cuda = types.SimpleNamespace(get_current_stream=lambda: null, Stream=types.SimpleNamespace(null=null))
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "cupy", cupy)


class CoreBuffer:
    """A cuda.core ``Buffer`` look-alike (a 1-d ``uint8`` array of ``size`` bytes to a kernel)."""

    def __init__(self, handle, size):
        self.handle, self.size, self.device_id = handle, size, 0


CoreBuffer.__module__ = "cuda.core._memory"
CoreBuffer.__name__ = CoreBuffer.__qualname__ = "Buffer"  # (the kinds recognise cuda.core's classes by name)


class CoreView:
    """A cuda.core ``StridedMemoryView`` look-alike of a 1-d C-contiguous ``uint8`` array."""

    def __init__(self, ptr, n):
        self.ptr, self.shape, self.strides, self.dtype = ptr, (n,), None, np.dtype(np.uint8)
        self.is_device_accessible, self.device_id = True, 0


CoreView.__module__ = "cuda.core.utils"
CoreView.__name__ = CoreView.__qualname__ = "StridedMemoryView"

SOURCES = ("device", "cai", "cai-nostrides", "dlpack", "cupy", "torch", "numpy")


def make_source(kind, ptr, shape, strides, dtype):
    """An array of ``kind`` (one of :data:`SOURCES`) describing this memory."""
    dtype = np.dtype(dtype)
    if kind == "device":
        return DeviceNDArray(shape, strides, dtype, ptr=ptr, owner=FakeMemory())
    if kind == "cai":
        return CAI(ptr, shape, strides, dtype)
    if kind == "cai-nostrides":  # only valid for C strides: CAI's None means C-contiguous
        return CAI(ptr, shape, None, dtype)
    if kind == "dlpack":
        return DLPackOnly(DeviceNDArray(shape, strides, dtype, ptr=ptr, owner=FakeMemory()))
    if kind == "cupy":
        return CupyArray(ptr, shape, strides, dtype)
    if kind == "torch":
        return TorchTensor(ptr, shape, strides, dtype)
    if kind == "numpy":
        return host_view(shape, strides, dtype)
    raise ValueError(kind)


def handler(obj):
    """The argument handler of ``obj`` (not cached: fake classes come and go)."""

    def resolve(cls, x):
        return handler_for(cls, x, resolve)

    return resolve(type(obj), obj)


class FakeKernel:
    """A compiled kernel stand-in for the dispatcher and the generated launch code:
    it records each launch's flattened values (``full=True``: with grid, block,
    shared memory and stream first) in ``calls``."""

    def __init__(self, argtypes, calls, *, full=False, device_id=0, devices=None):
        self.argtypes = tuple(argtypes)
        self.abi = kernel_abi(self.argtypes)
        self.calls, self.full = calls, full
        self.device_id, self.name, self.exc_global, self.cooperative = device_id, "fake", None, False
        self.devices = {device_id: self} if devices is None else devices  # its loads, per device
        self.launched_on = []  # shared by the loads: the device of each launch

    def on_device(self, device_id):
        """The load of this kernel on ``device_id`` (made on first use, as CompiledKernel's)."""
        k = self.devices.get(device_id)
        if k is None:
            k = self.devices[device_id] = FakeKernel(self.argtypes, self.calls, full=self.full,
                                                     device_id=device_id, devices=self.devices)
            k.launched_on = self.launched_on
        return k

    def bind(self, cfg):
        """The launch bound to ``cfg`` (a LaunchConfig), as CompiledKernel.bind."""
        def launch(*values):
            self.calls.append((cfg.grid, cfg.block, cfg.shared_mem, cfg.stream, *values) if self.full else values)
            self.launched_on.append(self.device_id)

        return launch

    def bind_checked(self, cfg, checks=None):
        """The checked launch bound to ``cfg``, as CompiledKernel.bind_checked: the
        checks done by the driver's reference definition, the converted values recorded."""
        bound, layout = self.bind(cfg), param_layout(self.abi.param_format)

        def launch(*values):
            converted = checked_reference(layout, checks, values)
            if converted is False:
                return False
            bound(*converted)
            return None

        return launch

    def bind_direct(self, cfg, groups, fallback, record=None, precondition=None):
        """No direct launch (as CompiledKernel without the compiled shim): the generated
        code is the launcher."""
        return None

    def settle(self, rc, launch, values, cfg):
        raise AssertionError(f"a fake launch returned {rc!r}")

    def launch(self, cfg, *values):
        self.bind(cfg)(*values)

    def ensure_dynamic_shared(self, n):
        pass

    def check_exceptions(self, sh):
        pass

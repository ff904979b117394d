"""Host-side memory API of the simulator: :class:`DeviceNDArray` ("device" arrays
backed by host NumPy arrays), ``to_device``, ``device_array`` and the pinned,
mapped and managed allocators (plain NumPy arrays)."""

from __future__ import annotations

import contextlib

import numpy as np

from cudalite.core.layout import is_c_contiguous, is_f_contiguous, layout_of

from .dtypes import to_dtype
from .unsupported import not_simulated

__all__ = [
    "DeviceNDArray", "DeviceRecord", "to_device", "device_array", "device_array_like", "pinned_array",
    "pinned_array_like", "mapped_array", "mapped_array_like", "managed_array", "pinned", "mapped",
    "is_cuda_array", "as_cuda_array", "In", "Out", "InOut", "unwrap_argument",
]


class DeviceNDArray:
    """A simulated device array: a NumPy array that kernels read and write in place."""

    __array_priority__ = 10

    def __init__(self, ary: np.ndarray, stream=0):
        self._ary = ary
        self.stream = stream

    # -- numba's DeviceNDArray API ----------------------------------------------------------------
    shape = property(lambda self: self._ary.shape)
    dtype = property(lambda self: self._ary.dtype)
    size = property(lambda self: self._ary.size)
    ndim = property(lambda self: self._ary.ndim)
    strides = property(lambda self: self._ary.strides)
    nbytes = property(lambda self: self._ary.nbytes)
    alloc_size = nbytes
    T = property(lambda self: DeviceNDArray(self._ary.T))
    flags = property(lambda self: self._ary.flags)

    def copy_to_host(self, ary=None, stream=0):
        if ary is None:
            return self._ary.copy()
        np.copyto(ary, self._ary)
        return ary

    def copy_to_device(self, ary, stream=0):
        src = ary._ary if isinstance(ary, DeviceNDArray) else np.asarray(ary)
        if src.shape != self._ary.shape and src.size == self._ary.size:
            src = src.reshape(self._ary.shape)
        np.copyto(self._ary, src, casting="unsafe")

    def is_c_contiguous(self):
        return is_c_contiguous(self._ary.shape, self._ary.strides, self._ary.itemsize)

    def is_f_contiguous(self):
        return is_f_contiguous(self._ary.shape, self._ary.strides, self._ary.itemsize)

    @property
    def _layout(self):
        """``'C'``, ``'F'`` or ``'A'`` (any), as the compiled runtime's device arrays."""
        return layout_of(self._ary.shape, self._ary.strides, self._ary.itemsize)

    @property
    def gpu_data(self):
        """The array that owns the memory (the same object for every view of it)."""
        owner = self._ary
        while isinstance(owner.base, np.ndarray):
            owner = owner.base
        return owner

    def _no_copy(self, out):
        if out.size > 1 and not np.shares_memory(out, self._ary):
            raise NotImplementedError("operation requires copying")  # numba's message: a device view never copies
        return DeviceNDArray(out, self.stream)

    def reshape(self, *newshape, order="C"):
        return self._no_copy(self._ary.reshape(*newshape, order=order))

    def ravel(self, order="C"):
        return self._no_copy(self._ary.ravel(order=order))

    def view(self, dtype):
        return DeviceNDArray(self._ary.view(to_dtype(dtype)))

    def transpose(self, axes=None):
        return DeviceNDArray(self._ary.transpose(axes))

    def split(self, section, stream=0):
        return [DeviceNDArray(self._ary[i:i + section]) for i in range(0, len(self._ary), section)]

    def bind(self, stream=0):
        return DeviceNDArray(self._ary, stream)

    def getitem(self, item, stream=0):
        return self[item]

    def setitem(self, key, value, stream=0):
        self[key] = value

    def as_cuda_arg(self):
        return self._ary

    def get_ipc_handle(self):
        not_simulated("DeviceNDArray.get_ipc_handle", "CUDA IPC")

    def __getitem__(self, item):
        out = self._ary[item]
        return DeviceNDArray(out) if isinstance(out, np.ndarray) else out

    def __setitem__(self, key, value):
        self._ary[key] = value._ary if isinstance(value, DeviceNDArray) else value

    def __len__(self):
        return len(self._ary)

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __array__(self, dtype=None, copy=None):
        return self._ary if dtype is None else self._ary.astype(dtype)

    def __repr__(self):
        return f"<simulated DeviceNDArray shape={self.shape} dtype={self.dtype}>"


def _binary(name):
    def op(self, other):
        return getattr(self._ary, name)(other._ary if isinstance(other, DeviceNDArray) else other)

    op.__name__ = name
    return op


# comparisons and arithmetic against simulated device arrays give host NumPy arrays
for _name in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__add__", "__radd__", "__sub__",
              "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__", "__floordiv__", "__mod__",
              "__pow__", "__neg__"):
    setattr(DeviceNDArray, _name, _binary(_name) if _name != "__neg__" else (lambda self: -self._ary))
del _name
DeviceNDArray.__hash__ = None

DeviceRecord = DeviceNDArray


def _host(obj):
    if isinstance(obj, DeviceNDArray):
        return obj._ary
    return obj


def to_device(obj, stream=0, copy=True, to=None):
    """A simulated device array holding a copy of ``obj`` (or ``obj`` copied into ``to``)."""
    if to is not None:
        to.copy_to_device(obj, stream=stream)
        return to
    if isinstance(obj, DeviceNDArray):
        return obj  # already on the (simulated) device, as numba
    ary = np.array(_host(obj), copy=True, subok=False)
    return DeviceNDArray(ary, stream)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    return DeviceNDArray(np.zeros(shape, dtype=to_dtype(dtype), order=order), stream)


def device_array_like(ary, stream=0):
    """A zero-filled device array with ``ary``'s shape, dtype and layout (NumPy's
    ``zeros_like``: a strided view gives a contiguous array in its axes' order)."""
    return DeviceNDArray(np.zeros_like(_host(ary), subok=False), stream)


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    return np.zeros(shape, dtype=to_dtype(dtype), order=order)


def pinned_array_like(ary):
    return np.zeros_like(_host(ary))


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False, wc=False):
    return np.zeros(shape, dtype=to_dtype(dtype), order=order)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    return np.zeros_like(_host(ary))


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0, attach_global=True):
    return np.zeros(shape, dtype=to_dtype(dtype), order=order)


@contextlib.contextmanager
def pinned(*arylist):
    yield


@contextlib.contextmanager
def mapped(*arylist, **kws):
    """Device arrays over the host arrays' own memory (writes on either side are seen
    by the other, as mapped memory)."""
    devs = [DeviceNDArray(np.asarray(a)) for a in arylist]
    yield devs[0] if len(devs) == 1 else devs


def auto_device(obj, stream=0, copy=True):
    """numba's ``devicearray.auto_device``: ``(device array, whether a copy was made)``;
    a simulated device array is returned as it is."""
    if isinstance(obj, DeviceNDArray):
        return obj, False
    ary = np.asarray(obj)
    if layout_of(ary.shape, ary.strides, ary.itemsize) == "A":
        raise ValueError("Array contains non-contiguous buffer and cannot be transferred as a single memory "
                         "region. Please ensure contiguous buffer with numpy .ascontiguousarray()")
    return to_device(ary, stream), True


def is_cuda_array(obj) -> bool:
    return isinstance(obj, DeviceNDArray)


def as_cuda_array(obj, sync=True):
    if isinstance(obj, DeviceNDArray):
        return obj
    raise TypeError("the cudalite CUDA simulator has no foreign device arrays: pass a NumPy array or a "
                    "simulated device array")


class _Hint:
    def __init__(self, value):
        self.value = value


class In(_Hint):
    """A kernel argument only read by the kernel: a NumPy array is copied to the device
    and not back, so the kernel's writes do not reach it (a device array is used as it is)."""


class Out(_Hint):
    """A kernel argument only written by the kernel (used in place by the simulator)."""


class InOut(_Hint):
    """A kernel argument read and written by the kernel (used in place)."""


class RecordRef:
    """A record scalar (``numpy.void`` of a structured dtype) passed to a kernel: fields
    read and written as attributes (``r.x``) or items (``r["x"]``), writes reaching the
    array the record belongs to (numba passes records by reference)."""

    __slots__ = ("_rec",)

    def __init__(self, rec):
        object.__setattr__(self, "_rec", rec)

    def __getattr__(self, name):
        rec = object.__getattribute__(self, "_rec")
        if name in rec.dtype.names:
            return rec[name]
        return getattr(rec, name)

    def __setattr__(self, name, value):
        rec = object.__getattribute__(self, "_rec")
        if name not in rec.dtype.names:
            raise AttributeError(f"record of dtype {rec.dtype} has no field {name!r}")
        rec[name] = value

    def __getitem__(self, key):
        return self._rec[key]

    def __setitem__(self, key, value):
        self._rec[key] = value

    def __repr__(self):
        return repr(self._rec)


class RecordArray(np.recarray):
    """A structured array passed to a kernel: a :class:`numpy.recarray` view (``r[i].x``)
    that also takes a :class:`RecordRef` (a record argument) as an element value."""

    def __setitem__(self, key, value):
        if isinstance(value, RecordRef):
            value = object.__getattribute__(value, "_rec")
        super().__setitem__(key, value)


def unwrap_argument(arg):
    """What a kernel's Python function receives for launch argument ``arg``."""
    if isinstance(arg, In) and isinstance(arg.value, np.ndarray):
        arg = arg.value.copy()  # copied to the device only: the kernel's writes do not reach the host array
    elif isinstance(arg, _Hint):
        arg = arg.value
    if isinstance(arg, DeviceNDArray):
        arg = arg._ary
    if isinstance(arg, np.ndarray) and arg.dtype.names is not None and not isinstance(arg, np.recarray):
        return arg.view(RecordArray)  # records: r[i].x as in numba (a view: writes reach the array)
    if isinstance(arg, np.void) and not isinstance(arg, np.record) and arg.dtype.names is not None:
        return RecordRef(arg)
    return arg
